package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// modex run refuses a suite that does not fit the configuration it is
// asked to run under (issue 53: a suite whose actions the configuration
// leaves out ran and passed), naming the configuration it was made for;
// under its own configuration the check lets it through.
func TestRunChecksTheSuiteFits(t *testing.T) {
	dir := t.TempDir()
	suite := filepath.Join(dir, "hi_bye.json")
	if _, errOut, code := cli("gen", "../projects/chat/chat.toml", "--config", "hi_bye", "--out", suite); code != 0 {
		t.Fatalf("gen: exit %d: %s", code, errOut)
	}
	// A copy of the project whose configuration leaves Post out.
	data, err := os.ReadFile("../projects/chat/chat.toml")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"chat.star"} {
		src, _ := os.ReadFile(filepath.Join("../projects/chat", f))
		os.WriteFile(filepath.Join(dir, f), src, 0o644)
	}
	text := string(data) + "\n[configs.nopost]\nextends = \"hi_bye\"\nexclude = [\"Post\"]\n"
	project := filepath.Join(dir, "chat.toml")
	os.WriteFile(project, []byte(text), 0o644)
	for _, tc := range []struct {
		config, want string
	}{
		{"offline", "configuration offline has no timeouts, the suite waits for one"},
		{"nopost", "configuration nopost leaves out Post"},
	} {
		_, errOut, code := cli("run", project, suite, "--config", tc.config, "--adapter", "false")
		if code != 2 || !strings.Contains(errOut, tc.want) || !strings.Contains(errOut, "it was generated for hi_bye") {
			t.Errorf("--config %s: exit %d, %q", tc.config, code, errOut)
		}
	}
	// Its own configuration: the check passes, the run goes on (and fails
	// to start the adapter "false", which is not the check's doing).
	_, errOut, _ := cli("run", project, suite, "--adapter", "false")
	if strings.Contains(errOut, "does not fit") {
		t.Errorf("the suite's own configuration: %q", errOut)
	}
}

// --chart with --shrink draws the shrunk run, the one to read (it drew the
// original).
func TestShrinkDrawsTheShrunkRun(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "fakeadapter")
	if msg, err := exec.Command("go", "build", "-o", bin, "../engine/adapter/testdata/fakeadapter").CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, msg)
	}
	chart := filepath.Join(dir, "run.svg")
	out, errOut, code := cli("test", "../projects/stack/stack.toml", "--adapter", bin+" wrong-pop", "--runs", "3", "--steps", "20",
		"--seed", "4", "--save-failures", dir, "--shrink", "--shrink-time", "20", "--chart", chart)
	if code != 1 || !strings.Contains(out, "sequence chart of the shrunk run: ") || !strings.Contains(out, "(seed 4): fail at step ") {
		t.Fatalf("exit %d:\n%s\n%s", code, out, errOut)
	}
	svg, err := os.ReadFile(chart)
	if err != nil || !strings.Contains(string(svg), "shrunk to 2 steps") {
		t.Errorf("the chart is not the shrunk run's: %v\n%.300s", err, svg)
	}
}

// What modex test --log writes, modex replay reads back: every run a
// trace of its own, and all of them pass (issue 53, 8).
func TestStepLogReplays(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "fakeadapter")
	if msg, err := exec.Command("go", "build", "-o", bin, "../engine/adapter/testdata/fakeadapter").CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, msg)
	}
	logf := filepath.Join(dir, "steps.jsonl")
	if out, errOut, code := cli("test", "../projects/stack/stack.toml", "--adapter", bin+" good", "--runs", "3", "--steps", "12", "--seed", "2", "--log", logf); code != 0 {
		t.Fatalf("test: exit %d\n%s%s", code, out, errOut)
	}
	out, errOut, code := cli("replay", "../projects/stack/stack.toml", logf)
	if code != 0 || strings.Count(out, ": pass (") != 3 || !strings.Contains(out, "steps.jsonl, run 3: pass") {
		t.Errorf("replay: exit %d\n%s%s", code, out, errOut)
	}
}
