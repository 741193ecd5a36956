package conform_test

import (
	"context"
	"testing"

	"github.com/modex/modex/engine/conform"
	"github.com/modex/modex/engine/internal/enginetest"
)

// The code strategy repeats the steps of a run that reached new code: with
// feedback for run 1 only, run 2 starts as run 1 did (at every seed);
// without feedback it is the coverage strategy, and the same seed gives
// the same runs.
func TestCodeStrategyFollowsFeedback(t *testing.T) {
	m, cfg := enginetest.StackModel(t)
	stack := func() *conform.InProcess {
		var st []any
		return &conform.InProcess{ResetFunc: func() error { st = nil; return nil }, Do: func(action string, args []any) (any, error) {
			if action == "Push" {
				st = append(st, args[0])
				return nil, nil
			}
			top := st[len(st)-1]
			st = st[:len(st)-1]
			return top, nil
		}}
	}
	firsts := func(seed uint64, feedback func() int) []string {
		res, err := conform.Test(context.Background(), m, cfg, stack(), conform.TestConfig{Runs: 3, Steps: 2, Seed: seed,
			Strategy: conform.StrategyCode, CodeFeedback: feedback, KeepPassingSteps: true})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, r := range res.Runs {
			if r.Verdict != conform.Pass {
				t.Fatalf("run %d: %+v", r.Run, r.Failure)
			}
			out = append(out, r.Steps[0].Label()+" "+r.Steps[1].Label())
		}
		return out
	}
	for seed := uint64(1); seed <= 8; seed++ {
		runs := 0
		once := func() int {
			if runs++; runs == 1 {
				return 10 // run 1 reached new code; later ones none
			}
			return 0
		}
		got := firsts(seed, once)
		if got[1] != got[0] {
			t.Errorf("seed %d: run 2 starts %q, run 1 (rewarded) %q", seed, got[1], got[0])
		}
		if a, b := firsts(seed, nil), firsts(seed, nil); a[0] != b[0] || a[1] != b[1] || a[2] != b[2] {
			t.Errorf("seed %d: not deterministic: %v then %v", seed, a, b)
		}
	}
}
