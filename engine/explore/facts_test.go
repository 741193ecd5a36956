package explore_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

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
