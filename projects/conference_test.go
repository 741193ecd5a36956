package projects

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/modex/modex/engine/conform"
)

// The conference model has the paper's 2^N + 1 model states for N test
// agents (seed 002, section IV.D).
func TestConferenceModelStates(t *testing.T) {
	for _, n := range []int{1, 2, 3, 6, 8} {
		config := "agents-" + string(rune('0'+n))
		_, m, cfg := sample(t, "conference", config)
		size, err := conform.SizeOf(context.Background(), m, cfg, 1<<20, time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		if want := 1<<n + 1; size.States != want || !size.Complete {
			t.Errorf("%s: %d model states (complete %v), want 2^%d + 1 = %d", config, size.States, size.Complete, n, want)
		}
	}
}

// End to end with two agents over UDP: the correct entity passes and its
// runs cover all 5 model states; each mutant is found.
func TestConferenceOnline(t *testing.T) {
	bin := buildImpl(t, "conference")
	args := func(n, mutant int) []string {
		return []string{bin, "adapter", "--agents", string(rune('0' + n)), "--mutant", string(rune('0' + mutant))}
	}
	res := onlineTest(t, "conference", "agents-2", args(2, 0), conform.TestConfig{Runs: 3, Steps: 1000, Seed: 1, EndWait: 200 * time.Millisecond})
	if !res.Passed() {
		t.Fatalf("the correct entity failed: %+v", res.Runs)
	}
	_, m, cfg := sample(t, "conference", "agents-2")
	size, _ := conform.SizeOf(context.Background(), m, cfg, 1000, time.Minute)
	if got := res.Coverage(size); !strings.HasPrefix(got, "covered 5 of 5 states") {
		t.Errorf("coverage: %s", got)
	}
	for k, want := range map[int]string{
		1: `?OnAnswer(1, "Conf", "ConfProt")`,
		2: `?OnLeave(2, "TestBot1", "Conf")`,
		3: `?OnDataInd(1, "hello")`,
	} {
		res := onlineTest(t, "conference", "mutant-"+string(rune('0'+k)), args(1, k), conform.TestConfig{Runs: 20, Steps: 1000, Seed: 1, EndWait: 200 * time.Millisecond})
		var f *conform.Failure
		for _, r := range res.Runs {
			if r.Failure != nil {
				f = r.Failure
				break
			}
		}
		if f == nil || f.Kind != conform.FailUnexpected || !strings.Contains(f.Message, want) {
			t.Errorf("mutant %d: failure %+v, want the unexpected %s", k, f, want)
		}
	}
}
