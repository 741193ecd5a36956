package explore_test

import (
	"context"
	"testing"

	"github.com/modex/modex/engine/explore"
	"github.com/modex/modex/engine/model"
)

// Ports of tlaplus/Examples specifications whose Init has many states
// (testdata/tla): explored with the default workers, with no artificial
// root, each gives TLC's distinct-state count as recorded in the manifest.json
// beside the spec, all of its initial states counted.
func TestTLAPorts(t *testing.T) {
	for _, tc := range []struct {
		file      string
		constants map[string]model.Value
		states    int // TLC's distinctStates
		initial   int
		long      bool
		// TLC's totalStates less the initial ones: the successors it
		// generated, one per transition (0: not recorded)
		generated int
	}{
		{"EWD840.star", nil, 302, 192, false, 0},                   // EWD840.cfg, N = 3
		{"SyncTerminationDetection.star", nil, 129, 129, false, 0}, // N = 7
		{"CoffeeCan.star", nil, 5150, 5150, false, 0},              // CoffeeCan100Beans.cfg
		{"CoffeeCan.star", map[string]model.Value{"MaxBeanCount": model.Int(1000)}, 501500, 501500, true, 0},
		// MCLamportMutex.cfg: N = 3, maxClock = 6, the clock constraint as
		// a filter (TLC explores no state past a CONSTRAINT, and counts
		// none).
		{"LamportMutex.star", nil, 724274, 1, true, 0},
		// MCBakery.cfg: N = 2, Nat = 0..2, ISpec (every state of the
		// inductive invariant is initial).
		{"Bakery.star", nil, 655200, 655200, true, 3403584 - 655200},
	} {
		if tc.long && (testing.Short() || raceEnabled) {
			continue // checked by the run without the race detector
		}
		m, err := model.LoadStarlarkWith("testdata/tla/"+tc.file, nil, tc.constants)
		if err != nil {
			t.Fatal(err)
		}
		cfg := explore.DefaultConfig(m)
		if tc.file == "LamportMutex.star" {
			cfg.Filters = []model.Expr{compile(t, m, "clock_ok(s)")}
		}
		if tc.file == "Bakery.star" {
			cfg.NoDeadlockCheck = true // CHECK_DEADLOCK FALSE
		}
		x, err := explore.Explore(context.Background(), m, cfg)
		if err != nil {
			t.Fatal(err)
		}
		st := x.Stats
		if tc.generated > 0 && st.Transitions != tc.generated {
			t.Errorf("%s: %d transitions; TLC generated %d successors", tc.file, st.Transitions, tc.generated)
		}
		if st.ModelStates != tc.states || st.InitialStates != tc.initial || !st.Complete || st.ErrorStates != 0 {
			t.Errorf("%s %v: %d states (%d initial), complete %v, %d error states; TLC: %d", tc.file, tc.constants,
				st.ModelStates, st.InitialStates, st.Complete, st.ErrorStates, tc.states)
		}
	}
}

// Several initial states: each is a state of depth 0, marked initial in the
// graph (one start arrow each), a path to a state starts from the nearest;
// a state where nothing is enabled and that is not accepting is a
// deadlock, unless the check is off; a state whose only successor a filter
// removed is not.
func TestInitialStatesAndDeadlocks(t *testing.T) {
	m, err := model.LoadStarlarkSource("dl.star", []byte(`
def init():
    return [{"x": x, "y": 0} for x in [0, 1, 2, 1]]   # the repeated one counts once

def IncY(s):
    require(s.y < 2)
    s.y += 1

def accepting(s):
    return s.x == 0

actions = [IncY]
`))
	if err != nil {
		t.Fatal(err)
	}
	for _, workers := range []int{1, 2} {
		x := exploreOn(t, m, workers, nil)
		if x.Stats.ModelStates != 9 || x.Stats.InitialStates != 3 || x.Stats.Deadlocks != 2 {
			t.Fatalf("%d workers: %+v", workers, x.Stats)
		}
		for _, id := range x.Deadlocks() {
			if x.States[id].Accepting || x.States[id].Depth != 2 {
				t.Errorf("deadlock %d: %+v", id, x.States[id])
			}
		}
		g := x.Graph()
		initial := 0
		for i, s := range g.States {
			if s.Initial {
				initial++
				if p := g.PathTo(i); p != nil {
					t.Errorf("a path to an initial state: %v", p)
				}
			}
		}
		if initial != 3 || len(g.PathTo(g.ActiveOf[x.Deadlocks()[0]])) != 2 {
			t.Errorf("%d initial graph states; path to the first deadlock %v", initial, g.PathTo(g.ActiveOf[x.Deadlocks()[0]]))
		}
		off := exploreOn(t, m, workers, func(c *explore.Config) { c.NoDeadlockCheck = true })
		if off.Stats.Deadlocks != 0 {
			t.Errorf("check off: %d deadlocks", off.Stats.Deadlocks)
		}
		filtered := exploreOn(t, m, workers, func(c *explore.Config) {
			c.Filters = append(c.Filters, compile(t, m, "s.y < 2"))
		})
		if filtered.Stats.Deadlocks != 0 {
			t.Errorf("a state whose successor a filter removed is a deadlock: %+v", filtered.Stats)
		}
	}
	// A suite starts a case from each initial state that reaches an
	// accepting one, and says which.
	g := exploreOn(t, m, 1, func(c *explore.Config) { c.NoDeadlockCheck = true }).Graph()
	s, err := g.TransitionTour()
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Cases) != 1 || s.Cases[0].Init != "S0" || s.Covered != 2 || s.LowerBound != 2 || s.States != len(g.States) {
		t.Errorf("suite: %+v", s)
	}
}

// The TLA+ ports explore to the same graph with their guards compiled and
// their runs under thaw plans (the default), with every try run in the
// interpreter, and with every run given deep copies.
func TestTLAPortsCompiledGuards(t *testing.T) {
	for _, tc := range []struct {
		file      string
		constants map[string]model.Value
	}{
		{"EWD840.star", nil},
		{"SyncTerminationDetection.star", nil},
		{"CoffeeCan.star", nil},
		{"LamportMutex.star", map[string]model.Value{"maxClock": model.Int(3)}},
		{"Bakery.star", map[string]model.Value{"MaxNat": model.Int(1)}},
	} {
		if tc.file == "Bakery.star" && (testing.Short() || raceEnabled) {
			continue // 112,160 states: checked by the run without the race detector
		}
		var xs [3]*explore.Exploration
		for i := range xs {
			m, err := model.LoadStarlarkWith("testdata/tla/"+tc.file, nil, tc.constants)
			if err != nil {
				t.Fatal(err)
			}
			m.SetCompiledGuards(i != 1)
			m.SetThawPlans(i != 2)
			cfg := explore.DefaultConfig(m)
			if tc.file == "LamportMutex.star" {
				cfg.Filters = []model.Expr{compile(t, m, "clock_ok(s)")}
			}
			cfg.NoDeadlockCheck = tc.file == "Bakery.star"
			if xs[i], err = explore.Explore(context.Background(), m, cfg); err != nil {
				t.Fatal(err)
			}
		}
		a := xs[0]
		for j, b := range xs[1:] {
			a.Stats.Seconds, b.Stats.Seconds = 0, 0
			if a.Stats != b.Stats || len(a.States) < 100 {
				t.Fatalf("%s: the default %+v, variant %d %+v", tc.file, a.Stats, j+1, b.Stats)
			}
			for i := range a.States {
				if a.StateKey(i) != b.StateKey(i) || a.States[i].Depth != b.States[i].Depth {
					t.Fatalf("%s: variant %d: state %d differs", tc.file, j+1, i)
				}
			}
			for i := range a.Trans {
				if a.Trans[i] != b.Trans[i] {
					t.Fatalf("%s: variant %d: transition %d differs: %+v, %+v", tc.file, j+1, i, a.Trans[i], b.Trans[i])
				}
			}
		}
		t.Logf("%s: %d states, %d transitions, %d tried", tc.file, len(a.States), len(a.Trans), a.Stats.Tried)
	}
}
