package projects

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modex/modex/engine/conform"
)

// buildImpl builds a sample's implementation (name/impl) and returns the
// binary.
func buildImpl(t *testing.T, name string) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), name+"impl")
	if msg, err := exec.Command("go", "build", "-o", out, "./"+name+"/impl").CombinedOutput(); err != nil {
		t.Fatalf("building the %s implementation: %v\n%s", name, err, msg)
	}
	return out
}

func buildChatImpl(t *testing.T) string { return buildImpl(t, "chat") }

// onlineTest runs online testing of a sample against its implementation
// binary, started as an adapter with the given arguments.
func onlineTest(t testing.TB, name, config string, argv []string, tc conform.TestConfig) *conform.TestResult {
	t.Helper()
	p, m, cfg := sample(t, name, config)
	// Through the project, so that {CONSTANT} placeholders are expanded.
	impl, err := p.Connect(context.Background(), m.Info(), strings.Join(argv, " "), "")
	if err != nil {
		t.Fatal(err)
	}
	defer impl.Close()
	res, err := conform.Test(context.Background(), m, cfg, impl, tc)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func chatTest(t testing.TB, bin, config string, fixed bool, tc conform.TestConfig) *conform.TestResult {
	t.Helper()
	args := []string{bin, "adapter"}
	if fixed {
		args = append(args, "--fixed")
	}
	return onlineTest(t, "chat", config, args, tc)
}

// Online testing finds the paper's bug in the real chat server: a message
// delivered before an older one from the same sender (local consistency,
// seed 000 section 4.5, Figure 2); the fixed server passes.
func TestChatServerOnline(t *testing.T) {
	bin := buildChatImpl(t)
	var fail *conform.Failure
	var trace []conform.StepRecord
	for attempt := uint64(0); attempt < 5 && fail == nil; attempt++ {
		res := chatTest(t, bin, "hi_bye", false, conform.TestConfig{Runs: 40, Steps: 30, Seed: 100 * attempt})
		for _, r := range res.Runs {
			if r.Failure != nil {
				fail, trace = r.Failure, r.Steps
				break
			}
		}
	}
	if fail == nil {
		t.Fatal("200 runs against the buggy server found no failure")
	}
	if fail.Kind != conform.FailUnexpected || !strings.Contains(fail.Message, "?Deliver(") {
		t.Fatalf("want an unexpected ?Deliver, got %+v", fail)
	}
	// The failing delivery is the younger of two messages of one sender;
	// the model expected the older one.
	var posts []string
	for _, s := range trace {
		if s.Action == "Post" {
			posts = append(posts, s.Label())
		}
	}
	if len(fail.Expected) != 1 || !strings.HasPrefix(fail.Expected[0], "?Deliver(") || len(posts) < 2 {
		t.Fatalf("expected %v after posts %v", fail.Expected, posts)
	}
	t.Logf("found: %s; the model allowed %v; posts %v", fail.Message, fail.Expected, posts)

	res := chatTest(t, bin, "hi_bye", true, conform.TestConfig{Runs: 40, Steps: 30, Seed: 1})
	if !res.Passed() {
		for _, r := range res.Runs {
			if r.Failure != nil {
				t.Fatalf("the fixed server failed run %d: %+v", r.Run, r.Failure)
			}
		}
	}
}

// With a timeout that waits for every delivery, runs are repeatable: same
// seed, same run, against the real server process.
func TestChatServerSameSeedSameRun(t *testing.T) {
	bin := buildChatImpl(t)
	labels := func() string {
		res := chatTest(t, bin, "ordered", true, conform.TestConfig{Runs: 3, Steps: 20, Seed: 9, KeepPassingSteps: true})
		if !res.Passed() {
			t.Fatalf("ordered runs failed: %+v", res.Runs)
		}
		var b strings.Builder
		for _, r := range res.Runs {
			for _, s := range r.Steps {
				b.WriteString(s.Label() + "\n")
			}
		}
		return b.String()
	}
	a, b := labels(), labels()
	if a != b {
		t.Errorf("same seed, different runs:\n%s\n---\n%s", a, b)
	}
	if !strings.Contains(a, "?Deliver(") {
		t.Error("no delivery observed")
	}
}
