package explore_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/modex/modex/engine/explore"
	"github.com/modex/modex/engine/model"
)

// With StopOnError the search does not go on from a state that breaks the
// invariant: the state is kept, marked, and not expanded; without it the
// search goes through. On one worker and on two.
func TestStopOnError(t *testing.T) {
	m, err := model.LoadStarlarkSource("counter.star", []byte(`
def init():
    return {"n": 0}

def Inc(s):
    require(s.n < 4)
    s.n += 1

def invariant(s):
    if s.n == 2:
        return "two is broken"
    return True

actions = [Inc]
`))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		stop   bool
		states int
	}{{true, 3}, {false, 5}} {
		for _, workers := range []int{1, 2} {
			x := exploreOn(t, m, workers, func(c *explore.Config) { c.StopOnError = tc.stop })
			if len(x.States) != tc.states || x.StateError(2) != "two is broken" || x.States[2].Expanded == tc.stop {
				t.Errorf("stop on error %v, %d workers: %d states, S2 error %q expanded %v", tc.stop, workers, len(x.States), x.StateError(2), x.States[2].Expanded)
			}
		}
	}
}

// The model's state_filter(s) drops the transitions into the states it
// rejects unless the configuration ignores it; a configuration's accepting
// expression overrides the model's accepting(s). On one worker and on two.
func TestModelFilterAndAcceptingOverride(t *testing.T) {
	m, err := model.LoadStarlarkSource("filtered.star", []byte(`
def init():
    return {"n": 0}

def Inc(s):
    require(s.n < 4)
    s.n += 1

def state_filter(s):
    return s.n != 3

def accepting(s):
    return s.n == 0

def even(s):
    return s.n % 2 == 0

actions = [Inc]
`))
	if err != nil {
		t.Fatal(err)
	}
	even, err := m.Compile("even(s)", model.Pos{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		ignoreFilter, override bool
		states, filtered       int
		accepting              string
	}{
		{false, false, 3, 1, "S0"},
		{true, false, 5, 0, "S0"},
		{false, true, 3, 1, "S0 S2"},
	} {
		for _, workers := range []int{1, 2} {
			x := exploreOn(t, m, workers, func(c *explore.Config) {
				c.NoModelFilter = tc.ignoreFilter
				if tc.override {
					c.Accepting = even
				}
			})
			var acc []string
			for i, st := range x.States {
				if st.Accepting {
					acc = append(acc, fmt.Sprintf("S%d", i))
				}
			}
			if len(x.States) != tc.states || int(x.Stats.Filtered) != tc.filtered || strings.Join(acc, " ") != tc.accepting {
				t.Errorf("%+v, %d workers: %d states, %d filtered, accepting %v", tc, workers, len(x.States), x.Stats.Filtered, acc)
			}
		}
	}
}

// exploreOn explores m on the given number of workers, with the default
// configuration changed by set (when not nil); an error fails t.
func exploreOn(t *testing.T, m model.Model, workers int, set func(*explore.Config)) *explore.Exploration {
	t.Helper()
	cfg := explore.DefaultConfig(m)
	cfg.Workers = workers
	if set != nil {
		set(cfg)
	}
	x, err := explore.Explore(context.Background(), m, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return x
}

// A target reached again after a filter rejected it, or a grouping pruned
// it, adds no transition: the second reach finds it in the index, marked,
// and drops the transition as the first did. On one worker and on two.
func TestFilteredAndPrunedTargetsReachedAgain(t *testing.T) {
	m, err := model.LoadStarlarkSource("jump.star", []byte(`
def init():
    return {"x": 0}

def Inc(s):
    require(s.x < 3)
    s.x += 1

def Jump(s):
    require(s.x != 3)
    s.x = 3

def not3(s):
    return s.x != 3

def positive(s):
    return s.x >= 1

actions = [Inc, Jump]
`))
	if err != nil {
		t.Fatal(err)
	}
	not3, positive := compile(t, m, "not3(s)"), compile(t, m, "positive(s)")
	for _, tc := range []struct {
		name             string
		set              func(*explore.Config)
		states           int
		trans            string
		filtered, pruned int64
	}{
		// Jump reaches x=3 from 0, 1 and 2; the filter rejects it once.
		{"filter", func(c *explore.Config) { c.Filters = []model.Expr{not3} }, 3, "S0 Inc S1, S1 Inc S2", 1, 0},
		// x=1 is the first positive state; x=3 (reached from 0, 1, 2)
		// and x=2 are pruned.
		{"grouping", func(c *explore.Config) { c.Groupings = []model.Expr{positive} }, 2, "S0 Inc S1", 0, 2},
	} {
		for _, workers := range []int{1, 2} {
			x := exploreOn(t, m, workers, tc.set)
			var trans []string
			for _, tr := range x.Trans {
				if tr.From < 0 || tr.To < 0 || int(tr.To) >= len(x.States) {
					t.Fatalf("%s, %d workers: transition %+v", tc.name, workers, tr)
				}
				trans = append(trans, fmt.Sprintf("S%d %s S%d", tr.From, x.Model.Info().Actions[tr.Action].Name, tr.To))
			}
			if len(x.States) != tc.states || strings.Join(trans, ", ") != tc.trans || x.Stats.Filtered != tc.filtered || x.Stats.Pruned != tc.pruned {
				t.Errorf("%s, %d workers: %d states, transitions %v, %d filtered, %d pruned", tc.name, workers, len(x.States), trans, x.Stats.Filtered, x.Stats.Pruned)
			}
		}
	}
}

// A cancel (here the time bound) that cuts off the evaluation of a new
// target's facts is not a model error: no error state, the state being
// expanded is frontier. On one worker and on two.
func TestCancelWhileEvaluatingATarget(t *testing.T) {
	m, err := model.LoadStarlarkSource("slowfacts.star", []byte(`
def init():
    return {"n": 0}

def Inc(s):
    require(s.n < 3)
    s.n += 1

def invariant(s):
    if s.n == 2:
        for i in range(100000000):
            pass
    return True

actions = [Inc]
`))
	if err != nil {
		t.Fatal(err)
	}
	for _, workers := range []int{1, 2} {
		x := exploreOn(t, m, workers, func(c *explore.Config) {
			c.StepBudget = 1 << 50 // the invariant runs until the time is up
			c.MaxTime = 300 * time.Millisecond
		})
		if x.Stats.StoppedBy != "max time" || len(x.States) != 2 || !x.States[1].Frontier || x.States[1].Expanded {
			t.Errorf("%d workers: %d states, stopped by %q, last state %+v", workers, len(x.States), x.Stats.StoppedBy, x.States[len(x.States)-1])
		}
		for i, s := range x.States {
			if s.ModelErr || x.StateError(i) != "" {
				t.Errorf("%d workers: S%d is an error state: %q", workers, i, x.StateError(i))
			}
		}
	}
}
