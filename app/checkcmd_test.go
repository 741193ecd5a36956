package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// modex explore --check prints the summary explore prints, with the depth,
// then the fingerprints' figures; it leaves no file in --check-dir.
func TestExploreCheck(t *testing.T) {
	dir := t.TempDir()
	out, errOut, code := cli("explore", "--check", "--check-dir", dir, "../projects/switch/switch.toml")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	re := regexp.MustCompile(`^switch \[all\]: 5 states \(4 model states, 1 passive\), 12 transitions \(1 timeout\), 24 tried, depth \d+, [0-9.]+ s, complete\n` +
		`checked without a graph: fingerprint collision probability [0-9.e+-]+ calculated \(optimistic\), [0-9.e+-]+ from the fingerprints; 12 generated; disk \d+ ([kMG]B|bytes) at most \(0 spills, 0 merges\); peak heap \d+ [kMG]B\n$`)
	if !re.MatchString(out) {
		t.Errorf("summary %q", out)
	}
	if es, _ := os.ReadDir(dir); len(es) != 0 {
		t.Errorf("%d files left in --check-dir", len(es))
	}
	if _, errOut, code := cli("explore", "--check", "--format", "json", "../projects/switch/switch.toml"); code != 2 || !strings.Contains(errOut, "keeps no graph") {
		t.Errorf("--check --format json: exit %d, %q", code, errOut)
	}
	if _, errOut, code := cli("explore", "--check", "--check-dir", filepath.Join(dir, "none"), "../projects/switch/switch.toml"); code != 2 || !strings.Contains(errOut, "not a folder") {
		t.Errorf("--check-dir of a missing folder: exit %d, %q", code, errOut)
	}
	if _, errOut, code := cli("explore", "--check", "../projects/chat/chat.toml"); code != 1 || !strings.Contains(errOut, "takes no groupings") {
		t.Errorf("groupings: exit %d, %q", code, errOut)
	}
}

// A configuration with check = true is checked; a violation is reported
// with the way to it, and the exit status is explore's.
func TestExploreCheckConfig(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "m.star"), []byte(`
def init():
    return {"x": 0}

def Inc(s):
    require(s.x < 5)
    s.x += 1

def invariant(s):
    return s.x != 3 or "x is 3"

actions = [Inc]
`), 0o600)
	os.WriteFile(filepath.Join(dir, "m.toml"), []byte(`
name = "m"
model = "m.star"
[configs.big]
check = true
check_deadlock = false
[configs.graph]
check_deadlock = false
`), 0o600)
	out, _, code := cli("explore", filepath.Join(dir, "m.toml"))
	if code != exitViolation || !strings.Contains(out, "checked without a graph") ||
		!strings.Contains(out, "invariant violated: x is 3, in the state reached by Inc(), Inc(), Inc()\n    x = 3\n") {
		t.Errorf("check = true: exit %d, %q", code, out)
	}
	out, _, _ = cli("explore", "--config", "graph", filepath.Join(dir, "m.toml"))
	if strings.Contains(out, "checked without a graph") {
		t.Errorf("a configuration without check = true was checked: %q", out)
	}
}

// --check prints progress lines as explore does (forced by --progress
// off a terminal, none with --quiet), with the distinct states, the queue
// and the disk.
func TestExploreCheckProgress(t *testing.T) {
	const big = "../engine/explore/testdata/bigstack.star"
	out, errOut, code := cli("explore", big, "--check", "--workers", "1", "--progress", "0.01")
	if code != 0 || !strings.Contains(out, "32767 states") || !strings.Contains(errOut, "explore --check: ") ||
		!strings.Contains(errOut, " distinct states, ") || !strings.Contains(errOut, ", queue ") || !strings.Contains(errOut, ", disk ") {
		t.Errorf("--check --progress: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	if _, errOut, _ = cli("explore", big, "--check", "--progress", "0.01", "--quiet"); strings.Contains(errOut, "explore --check: ") {
		t.Errorf("--quiet printed progress: %q", errOut)
	}
}
