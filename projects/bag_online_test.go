package projects

import (
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/modex/modex/engine/conform"
)

func bagTest(t testing.TB, bin, config string, fixed bool, tc conform.TestConfig) *conform.TestResult {
	t.Helper()
	args := []string{bin, "adapter", "--capacity", "{CAPACITY}"} // the configuration's constant
	if fixed {
		args = append(args, "--fixed")
	}
	return onlineTest(t, "bag", config, args, tc)
}

// The missing lock of the bag (seed 000 section 5) shows with two threads
// and capacity two, never with one thread or capacity one (a configuration
// constant that the model and the implementation both get), and not in the
// fixed build.
func TestBagOnline(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "bagimpl")
	if msg, err := exec.Command("go", "build", "-o", bin, "./bag/impl").CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, msg)
	}
	var fail *conform.Failure
	for attempt := uint64(0); attempt < 5 && fail == nil; attempt++ {
		res := bagTest(t, bin, "two_threads", false, conform.TestConfig{Runs: 40, Steps: 40, Seed: 50 * attempt})
		for _, r := range res.Runs {
			if r.Failure != nil {
				fail = r.Failure
				break
			}
		}
	}
	if fail == nil || fail.Kind != conform.FailUnexpected {
		t.Fatalf("two threads: want an unexpected ?Done, got %+v", fail)
	}
	t.Logf("two threads: %s; model state %v", fail.Message, fail.States)
	for _, tc := range []struct {
		config string
		fixed  bool
	}{{"one_thread", false}, {"two_threads_capacity1", false}, {"two_threads", true}} {
		res := bagTest(t, bin, tc.config, tc.fixed, conform.TestConfig{Runs: 30, Steps: 40, Seed: 3})
		if !res.Passed() {
			for _, r := range res.Runs {
				if r.Failure != nil {
					t.Errorf("%s (fixed=%v) failed: %+v", tc.config, tc.fixed, r.Failure)
					break
				}
			}
		}
	}
}
