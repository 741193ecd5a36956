package explore_test

import (
	"context"
	"runtime"
	"strings"
	"testing"
	"time"

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
		// PaxosCommit.cfg: two resource managers, three acceptors, ballots
		// 0 and 1.
		{"PaxosCommit.star", nil, 1321761, 1, true, 0},
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

// An exploration counts its tables as long-lived while it runs (the GC
// policy leaves them out of its headroom) and takes them back when it ends.
func TestLongLivedTables(t *testing.T) {
	m, err := model.LoadStarlarkWith("testdata/tla/CoffeeCan.star", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	before := settledLongLived()
	var most int64
	cfg := explore.DefaultConfig(m)
	cfg.ProgressEvery = time.Millisecond
	cfg.Progress = func(explore.Progress) { most = max(most, model.LongLived()-before) }
	x, err := explore.Explore(context.Background(), m, cfg)
	if err != nil {
		t.Fatal(err)
	}
	// 5,150 states of 32 bytes, their keys, 10,000 transitions of 20.
	if most < 5150*32+10000*20 || most > 64<<20 {
		t.Errorf("%d bytes counted while exploring %d states and %d transitions", most, x.Stats.States, x.Stats.Transitions)
	}
	if got := model.LongLived() - before; got != 0 {
		t.Errorf("%d bytes still counted after the exploration", got)
	}
}

// settledLongLived returns model.LongLived once the models that earlier
// tests dropped have been collected: a dropped model takes its initial
// keys back from the count when the collector frees it, at any time.
func settledLongLived() int64 {
	last, same := model.LongLived(), 0
	for deadline := time.Now().Add(5 * time.Second); same < 3 && time.Now().Before(deadline); {
		runtime.GC()
		time.Sleep(5 * time.Millisecond)
		if n := model.LongLived(); n == last {
			same++
		} else {
			last, same = n, 0
		}
	}
	return last
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
		// loops of requires, and choose()s after them: 20,000 of its
		// 1,321,761 states
		{"PaxosCommit.star", nil},
	} {
		if tc.file == "Bakery.star" && (testing.Short() || raceEnabled) {
			continue // 112,160 states: checked by the run without the race detector
		}
		var xs [3]*explore.Exploration
		var models [3]model.Model
		for i := range xs {
			m, err := model.LoadStarlarkWith("testdata/tla/"+tc.file, nil, tc.constants)
			if err != nil {
				t.Fatal(err)
			}
			models[i] = m
			m.SetCompiledGuards(i != 1)
			m.SetThawPlans(i != 2)
			cfg := explore.DefaultConfig(m)
			if tc.file == "LamportMutex.star" {
				cfg.Filters = []model.Expr{compile(t, m, "clock_ok(s)")}
			}
			cfg.NoDeadlockCheck = tc.file == "Bakery.star"
			if tc.file == "PaxosCommit.star" {
				cfg.MaxStates = 20000
			}
			if xs[i], err = explore.Explore(context.Background(), m, cfg); err != nil {
				t.Fatal(err)
			}
		}
		a := xs[0]
		if tc.file != "Bakery.star" && tc.file != "PaxosCommit.star" { // big; PaxosCommit's frontier is not expanded
			leadThere(t, models[0], a)
		}
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

// leadThere checks that each transition's action, with its inputs, leads
// from its source to its target, and that every try of every action with
// every combination of its domains' values from every state that leads to
// a state of the exploration is one of its transitions (the explorer
// remembers inputs by id per combination of domain values: a wrong id
// would make a false transition, or lose one).
func leadThere(t *testing.T, m model.Model, x *explore.Exploration) {
	t.Helper()
	w, err := m.NewWorker()
	if err != nil {
		t.Fatal(err)
	}
	states := map[string]int{}
	for i := range x.States {
		states[x.StateKey(i)] = i
	}
	type link struct {
		from, action int
		args         string
		to           int
	}
	links := map[link]bool{}
	for i := range x.Trans {
		tr := &x.Trans[i]
		links[link{int(tr.From), int(tr.Action), model.FormatArgs(x.ArgsOf(tr)), int(tr.To)}] = true
	}
	for from := range x.States {
		st, err := w.Decode(x.StateKey(from))
		if err != nil {
			t.Fatal(err)
		}
		for a, act := range m.Info().Actions {
			doms := make([][]model.Value, len(act.Params))
			for p := range doms {
				if doms[p], _, err = w.Domain(st, a, p); err != nil {
					t.Fatal(err)
				}
			}
			idx := make([]int, len(doms))
			for {
				args := make([]model.Value, len(doms))
				empty := false
				for p := range doms {
					if len(doms[p]) == 0 {
						empty = true
						break
					}
					args[p] = doms[p][idx[p]]
				}
				if empty {
					break
				}
				outs, _, err := w.Step(st, a, args)
				if err != nil {
					t.Fatal(err)
				}
				for _, o := range outs {
					to, ok := states[o.Next.Key()]
					if o.Err == nil && ok && !links[link{from, a, model.FormatArgs(args), to}] {
						t.Fatalf("%s %s(%s) → %s is not a transition", x.StateLabel(from), act.Name, model.FormatArgs(args), x.StateLabel(to))
					}
					delete(links, link{from, a, model.FormatArgs(args), to})
				}
				p := len(idx) - 1
				for ; p >= 0; p-- {
					if idx[p]++; idx[p] < len(doms[p]) {
						break
					}
					idx[p] = 0
				}
				if p < 0 {
					break
				}
			}
		}
	}
	for l := range links {
		t.Fatalf("false transition %s %s(%s) → %s", x.StateLabel(l.from), m.Info().Actions[l.action].Name, l.args, x.StateLabel(l.to))
	}
}

// An exploration that lets the model go of its initial keys (a command
// exploring once) finds the same graph, and the model makes the keys again
// when asked.
func TestReleaseInits(t *testing.T) {
	m, err := model.LoadStarlarkWith("testdata/tla/Bakery.star", nil, map[string]model.Value{"MaxNat": model.Int(1)})
	if err != nil {
		t.Fatal(err)
	}
	w, err := m.NewWorker()
	if err != nil {
		t.Fatal(err)
	}
	before, _ := w.(model.InitKeyser).InitKeys()
	want := strings.Join(before, "|") // the run that takes the keys clears them as it stores them
	var runs [2]*explore.Exploration
	for i, release := range []bool{false, true} {
		cfg := explore.DefaultConfig(m)
		cfg.NoDeadlockCheck, cfg.ReleaseInits = true, release
		if runs[i], err = explore.Explore(context.Background(), m, cfg); err != nil {
			t.Fatal(err)
		}
	}
	a, b := runs[0], runs[1]
	if a.Stats.States < 1000 || a.Stats.States != b.Stats.States || a.Stats.Transitions != b.Stats.Transitions {
		t.Fatalf("states %d and %d, transitions %d and %d", a.Stats.States, b.Stats.States, a.Stats.Transitions, b.Stats.Transitions)
	}
	for id := range a.States {
		if a.StateKey(id) != b.StateKey(id) {
			t.Fatalf("state %d differs", id)
		}
	}
	keys, err := w.(model.InitKeyser).InitKeys()
	if err != nil || len(keys) != b.Stats.States { // all of them initial
		t.Fatalf("%d initial keys after the release (%v), %d initial states", len(keys), err, b.Stats.States)
	}
	if &keys[0] == &before[0] {
		t.Error("the model kept its initial keys")
	}
	if strings.Join(keys, "|") != want {
		t.Error("the keys made again differ")
	}
}
