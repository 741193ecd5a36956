package explore_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/modex/modex/engine/explore"
	"github.com/modex/modex/engine/model"
)

// Actions whose first require() reads a prefix of their arguments (a
// PlusCal label, s.pc[p] == "a") have the combinations of the rest
// skipped where it is false: the same graph, transitions, errors and count
// of tries as every try in the interpreter, including a prefix conjunct
// that raises an error (a key not in a dict) and one that reads no
// argument at all.
func TestPrefixGuardsSameGraph(t *testing.T) {
	const src = `
PROCS = [0, 1, 2]

def init():
    return {"pc": ["a", "b", "a"], "u": [set([1]), set(), set([0, 2])], "d": {0: 1, 2: 0}, "on": True}

def A(s, p, i):
    require(s.pc[p] == "a" and i in s.u[p])
    s.pc[p] = "b"
    s.u[p] = s.u[p] - set([i])

def B(s, p, i):
    require(s.pc[p] == "b", "not at b")
    require(i != p)
    s.pc[p] = "a"
    s.u[p] = s.u[p] | set([i])

def C(s, p, i):
    require(s.d[p] > 0 and len(s.u[p]) > 0)   # no key 1: an error for p = 1
    s.d[p] = s.d[p] - 1

def D(s, p, i):
    require(not s.on)                          # no argument read
    s.on = True

def E(s, p, i):
    require(i != p and s.on and p == 1)   # reads every argument first: no prefix
    s.on = False

actions = [A, B, C, D, E]
domains = {
    A: {"p": PROCS, "i": PROCS}, B: {"p": PROCS, "i": PROCS}, C: {"p": PROCS, "i": PROCS},
    D: {"p": PROCS, "i": PROCS}, E: {"p": PROCS, "i": PROCS},
}
`
	explored := func(compiled bool, workers int) *explore.Exploration {
		m, err := model.LoadStarlarkSource("prefix.star", []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		w, _ := m.NewWorker()
		pg := w.(model.PrefixGuard)
		for ai, want := range []int{1, 1, 1, 0, -1} {
			if k, ok := pg.GuardPrefix(ai); (ok && k != want) || ok != (want >= 0) {
				t.Fatalf("action %d: prefix %d %v, want %d", ai, k, ok, want)
			}
		}
		m.SetCompiledGuards(compiled)
		cfg := explore.DefaultConfig(m)
		cfg.Workers = workers
		x, err := explore.Explore(context.Background(), m, cfg)
		if err != nil {
			t.Fatal(err)
		}
		return x
	}
	want := explored(false, 1)
	if want.Stats.States < 20 {
		t.Fatalf("%d states: the model tests little", want.Stats.States)
	}
	errs := 0
	for i := range want.States {
		if want.States[i].ModelErr {
			errs++
		}
	}
	if errs == 0 {
		t.Fatal("no model error: the erring prefix is not tested")
	}
	for _, workers := range []int{1, 2} {
		got := explored(true, workers)
		if fmt.Sprint(got.Stats.States, got.Stats.Transitions, got.Stats.Tried) != fmt.Sprint(want.Stats.States, want.Stats.Transitions, want.Stats.Tried) {
			t.Fatalf("workers %d: states, transitions, tries %d %d %d; in the interpreter %d %d %d", workers,
				got.Stats.States, got.Stats.Transitions, got.Stats.Tried, want.Stats.States, want.Stats.Transitions, want.Stats.Tried)
		}
		for i := range want.States {
			if got.StateKey(i) != want.StateKey(i) || got.StateError(i) != want.StateError(i) || got.States[i].ModelErr != want.States[i].ModelErr {
				t.Fatalf("workers %d: state %d differs", workers, i)
			}
		}
		for i, tr := range want.Trans {
			g := got.Trans[i]
			if g != tr {
				t.Fatalf("workers %d: transition %d differs", workers, i)
			}
		}
	}
}
