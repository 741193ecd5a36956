package projects

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/modex/modex/engine/conform"
	"github.com/modex/modex/engine/explore"
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

// The sample's offline configuration, made for offline suites: its
// strategy suite passes against the correct entity with no inconclusive
// case (its agent pauses 100 ms, so that the suite's 20 ms timeouts
// happen; at 2 ms all 15 cases were inconclusive), says which cases gave
// up their goal, and catches each of the three mutants.
func TestConferenceOfflineStrategies(t *testing.T) {
	bin := buildImpl(t, "conference")
	p, m, cfg := sample(t, "conference", "offline")
	x, err := explore.Explore(context.Background(), m, cfg)
	if err != nil {
		t.Fatal(err)
	}
	suite, err := x.Graph().StrategySuite()
	if err != nil {
		t.Fatal(err)
	}
	run := func(mutant int) *conform.SuiteResult {
		argv := fmt.Sprintf("%s adapter --agents 1 --mutant %d --pauses fixed --pause {PAUSE_MS}", bin, mutant)
		impl, err := p.Connect(context.Background(), m.Info(), argv, "")
		if err != nil {
			t.Fatal(err)
		}
		defer impl.Close()
		res, err := conform.RunSuite(context.Background(), m, cfg, impl, suite, conform.TestConfig{})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	res := run(0)
	counts := conform.Tally{}
	for _, c := range res.Cases {
		counts[c.Verdict]++
		if c.GaveUp && c.Verdict != conform.Pass {
			t.Errorf("%s gave up with verdict %s", c.Name, c.Verdict)
		}
	}
	if counts[conform.Pass] != len(suite.Cases) {
		t.Fatalf("the correct entity: %s", counts)
	}
	if walked := conform.CoveredBy(res.Cases); walked == 0 || walked > suite.Trans {
		t.Errorf("walked %d of %d transitions", walked, suite.Trans)
	}
	for k := 1; k <= 3; k++ {
		failed := 0
		for _, c := range run(k).Cases {
			if c.Verdict == conform.Fail {
				failed++
			}
		}
		if failed == 0 {
			t.Errorf("mutant %d passed the suite", k)
		}
	}
}
