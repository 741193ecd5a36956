package conform_test

import (
	"context"
	"strings"
	"testing"

	"github.com/modex/modex/engine/conform"
	"github.com/modex/modex/engine/explore"
)

// firstFailure runs tests until one fails and returns it saved.
func firstFailure(t *testing.T, impl conform.Implementation, tc conform.TestConfig) *conform.SavedRun {
	t.Helper()
	m, cfg := stackModelForTest(t)
	res, err := conform.Test(context.Background(), m, cfg, impl, tc)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res.Runs {
		if r.Failure != nil {
			return conform.SaveRun("stack", "all", tc, r)
		}
	}
	t.Fatal("no run failed")
	return nil
}

func labels(script []conform.SavedStep) string {
	var out []string
	for _, s := range script {
		out = append(out, s.Action+"("+strings.Join(s.Args, ", ")+")")
	}
	return strings.Join(out, " ")
}

// A deterministic stack whose Pop returns the bottom element shrinks to
// the shortest run that shows it: two different pushes and a pop, with
// the smallest inputs that still fail; every re-run of it fails.
func TestShrinkPlantedBug(t *testing.T) {
	m, cfg := stackModelForTest(t)
	shrunk := 0
	for seed := uint64(1); seed < 200 && shrunk < 3; seed++ {
		// Runs of a single step each: the failing run is the seed's own.
		tc := conform.TestConfig{Runs: 1, Steps: 30, Seed: seed}
		res0, _ := conform.Test(context.Background(), m, cfg, stackImpl(3, "pop-bottom"), tc)
		if res0.Runs[0].Failure == nil || res0.Runs[0].Actions < 8 {
			continue // a run that passed or is already short
		}
		shrunk++
		orig := conform.SaveRun("stack", "all", tc, res0.Runs[0])
		var progress []conform.ShrinkProgress
		res, err := conform.Shrink(context.Background(), m, cfg, stackImpl(3, "pop-bottom"), tc, orig,
			conform.ShrinkConfig{Repeats: 2, Progress: func(p conform.ShrinkProgress) { progress = append(progress, p) }})
		if err != nil {
			t.Fatal(err)
		}
		got := labels(res.Script)
		// The cleanup phase pops after the script: the run that fails is
		// the two pushes and that pop.
		if got != "Push(1) Push(2)" && got != "Push(2) Push(1)" {
			t.Errorf("seed %d: shrunk %d steps to %q", seed, len(orig.Trace), got)
		}
		// Re-run MinReruns times, more than Repeats.
		if res.Steps != 3 || res.From != orig.Failure.Step || res.Fails != conform.MinReruns || res.Of != conform.MinReruns || res.Stopped != "" {
			t.Errorf("seed %d: %d steps from %d, fails %d of %d, stopped %q", seed, res.Steps, res.From, res.Fails, res.Of, res.Stopped)
		}
		if f := res.Run.Failure; f == nil || f.Kind != orig.Failure.Kind || f.Step != 3 {
			t.Errorf("seed %d: the shrunk run's failure %+v, want %s at step 3", seed, f, orig.Failure.Kind)
		}
		if len(progress) == 0 || progress[len(progress)-1].Steps != 2 { // controllable steps of the script
			t.Errorf("seed %d: progress %+v", seed, progress)
		}
		if res.Skipped == 0 {
			t.Errorf("seed %d: no candidate was rejected by the model (Pops of an empty stack must be)", seed)
		}
		t.Logf("seed %d: %d steps to %q in %d runs (%d candidates skipped)", seed, res.From, got, res.Runs, res.Skipped)
	}
	if shrunk < 3 {
		t.Fatalf("only %d seeds gave a long failing run", shrunk)
	}
}

// Shrinking refuses a run that did not fail, a failure that does not
// reproduce (the implementation was fixed), and stops at its run budget
// with the best result so far, re-run MinReruns times.
func TestShrinkRefusalsAndBudget(t *testing.T) {
	m, cfg := stackModelForTest(t)
	tc := conform.TestConfig{Runs: 10, Steps: 30, Seed: 3}
	orig := firstFailure(t, stackImpl(3, "pop-bottom"), tc)
	if _, err := conform.Shrink(context.Background(), m, cfg, stackImpl(3, ""), tc, orig, conform.ShrinkConfig{}); err == nil || !strings.Contains(err.Error(), "does not reproduce") {
		t.Errorf("fixed implementation: %v", err)
	}
	passed := *orig
	passed.Failure, passed.Verdict = nil, conform.Pass
	if _, err := conform.Shrink(context.Background(), m, cfg, stackImpl(3, ""), tc, &passed, conform.ShrinkConfig{}); err == nil || !strings.Contains(err.Error(), "nothing to shrink") {
		t.Errorf("passing run: %v", err)
	}
	res, err := conform.Shrink(context.Background(), m, cfg, stackImpl(3, "pop-bottom"), tc, orig, conform.ShrinkConfig{MaxRuns: 3})
	if err != nil {
		t.Fatal(err)
	}
	// Stopped by its budget, what it found is re-run all the same (the
	// re-runs run past the budget): "fails 0 of 0" claimed nothing.
	if !strings.Contains(res.Stopped, "3 runs") || res.Runs != 3+conform.MinReruns || res.Of != conform.MinReruns || res.Fails == 0 || res.Run.Failure == nil {
		t.Errorf("budget: stopped %q after %d runs, fails %d of %d, failure %+v", res.Stopped, res.Runs, res.Fails, res.Of, res.Run.Failure)
	}
}

// A recorded trace that diverges shrinks to the shortest prefix that
// already diverges: the events up to the first one the model refuses.
func TestShrinkReplay(t *testing.T) {
	m, cfg := stackModelForTest(t)
	text := "Push(1)\nPush(2)\nPop()/2\nPush(1)\nPush(2)\nPop()/1\nPop()/1\nPush(2)\nPop()/2\n"
	recs, err := conform.ParseTrace("t.trace", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	full, err := conform.Replay(context.Background(), m, cfg, recs, conform.ReplayConfig{})
	if err != nil || full.Verdict != conform.Fail {
		t.Fatalf("the trace replays %v, %v", full, err)
	}
	n, res, err := conform.ShrinkReplay(context.Background(), m, cfg, recs, conform.ReplayConfig{})
	if err != nil {
		t.Fatal(err)
	}
	if n != 6 || res.Verdict != conform.Fail || res.Failure.Line != 6 {
		t.Errorf("shrunk to %d records, %s at line %d; want 6 records failing at line 6", n, res.Verdict, res.Failure.Line)
	}
	ok, _ := conform.ParseTrace("t.trace", []byte("Push(1)\nPop()/1\n"))
	if _, _, err := conform.ShrinkReplay(context.Background(), m, cfg, ok, conform.ReplayConfig{}); err == nil || !strings.Contains(err.Error(), "nothing to shrink") {
		t.Errorf("a passing trace: %v", err)
	}
}

// A failing offline case shrinks to the shortest prefix that fails the
// same way; a failure only for ending outside an accepting state does not.
func TestShrinkCase(t *testing.T) {
	m, cfg := stackModelForTest(t)
	step := func(action, arg, out string) explore.SuiteStep {
		s := explore.SuiteStep{Kind: "controllable", Action: action, Output: out}
		if arg != "" {
			s.Args = []string{arg}
		}
		return s
	}
	// Push 1, pop it, push 1 and 2, pop 2 (the buggy stack pops 1), pop 1.
	c := explore.SuiteCase{Name: "case 1", Steps: []explore.SuiteStep{
		step("Push", "1", ""), step("Pop", "", "1"), step("Push", "1", ""), step("Push", "2", ""),
		step("Pop", "", "2"), step("Pop", "", "1"),
	}}
	suite := &explore.Suite{Cases: []explore.SuiteCase{c}}
	res, err := conform.RunSuite(context.Background(), m, cfg, stackImpl(3, "pop-bottom"), suite, conform.TestConfig{})
	if err != nil || res.Cases[0].Failure == nil {
		t.Fatalf("the case did not fail: %+v %v", res, err)
	}
	kind := res.Cases[0].Failure.Kind
	n, cr, err := conform.ShrinkCase(context.Background(), m, cfg, stackImpl(3, "pop-bottom"), c, conform.TestConfig{}, kind, 2)
	if err != nil {
		t.Fatal(err)
	}
	if n != 5 || cr.Failure == nil || cr.Failure.Kind != kind || cr.Failure.Step != res.Cases[0].Failure.Step {
		t.Errorf("shrunk to %d steps: %+v", n, cr.Failure)
	}
	if _, _, err := conform.ShrinkCase(context.Background(), m, cfg, stackImpl(3, ""), c, conform.TestConfig{}, conform.FailNotAccepting, 2); err == nil {
		t.Error("a not-accepting failure shrank")
	}
}
