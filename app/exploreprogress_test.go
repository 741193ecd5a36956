package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// modex explore's bounds on the command line, its progress lines (forced
// by --progress off a terminal, none with --quiet), and the memory budget
// that says how to raise it.
func TestExploreProgressAndBounds(t *testing.T) {
	const big = "../engine/explore/testdata/bigstack.star"
	out, errOut, code := cli("explore", big, "--workers", "1", "--progress", "0.01")
	if code != 0 || !strings.Contains(errOut, "explore: ") || !strings.Contains(errOut, " states, ") || !strings.Contains(errOut, "heap ") {
		t.Errorf("--progress: exit %d, stderr %q", code, errOut)
	}
	if _, errOut, _ = cli("explore", big, "--workers", "1", "--progress", "0.01", "--quiet"); strings.Contains(errOut, "explore: ") {
		t.Errorf("--quiet printed progress: %q", errOut)
	}
	if _, errOut, _ = cli("explore", big); strings.Contains(errOut, "explore: ") {
		t.Errorf("progress off a terminal without --progress: %q", errOut)
	}
	out, _, code = cli("explore", big, "--max-states", "1000")
	if code != exitIncomplete || !strings.Contains(out, "1000 states") || !strings.Contains(out, "stopped by max states") {
		t.Errorf("--max-states: exit %d\n%s", code, out)
	}
	grow := filepath.Join(t.TempDir(), "grow.star")
	os.WriteFile(grow, []byte("def init():\n    return {\"l\": []}\n\ndef Add(s):\n    require(len(s.l) < 100000)\n    s.l.append(len(s.l))\n\nactions = [Add]\n"), 0o644)
	out, errOut, code = cli("explore", grow, "--memory-budget", "64")
	if code != exitIncomplete || !strings.Contains(out, "memory budget (64 MiB)") || !strings.Contains(out, "raise it with --memory-budget MB") {
		t.Errorf("--memory-budget: exit %d\n%s%s", code, out, errOut)
	}
}
