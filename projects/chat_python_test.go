package projects

import (
	"strings"
	"testing"

	"github.com/modex/modex/engine/conform"
	"github.com/modex/modex/internal/langtest"
)

// The chat sample's Python adapter (impl/adapter.py, on the adapter kit)
// drives the same real chat server: online testing finds the paper's bug
// (a delivery out of order, emitted from a client's reader thread), and
// the fixed server passes.
func TestChatPythonAdapter(t *testing.T) {
	langtest.Need(t, "python3")
	var fail *conform.Failure
	for attempt := uint64(0); attempt < 5 && fail == nil; attempt++ {
		res := onlineTest(t, "chat", "hi_bye", []string{"python3", "impl/adapter.py"}, conform.TestConfig{Runs: 40, Steps: 30, Seed: 100 * attempt})
		for _, r := range res.Runs {
			if r.Failure != nil {
				fail = r.Failure
				break
			}
		}
	}
	if fail == nil {
		t.Fatal("200 runs against the buggy server through the Python adapter found no failure")
	}
	if fail.Kind != conform.FailUnexpected || !strings.Contains(fail.Message, "?Deliver(") {
		t.Fatalf("want an unexpected ?Deliver, got %+v", fail)
	}
	res := onlineTest(t, "chat", "hi_bye", []string{"python3", "impl/adapter.py", "--fixed"}, conform.TestConfig{Runs: 40, Steps: 30, Seed: 1})
	if !res.Passed() {
		for _, r := range res.Runs {
			if r.Failure != nil {
				t.Fatalf("the fixed server failed run %d through the Python adapter: %+v", r.Run, r.Failure)
			}
		}
	}
}
