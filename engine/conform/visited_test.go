package conform_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/modex/modex/engine/conform"
	"github.com/modex/modex/engine/model"
)

// incModel loads a counter model with one action, Inc, and returns it with
// the keys of its first n+1 states (0, 1, …, n).
func incModel(t *testing.T, n int) (model.Model, []string) {
	t.Helper()
	m, err := model.LoadStarlarkSource("inc.star", []byte(`
def init():
    return {"x": 0}

def Inc(s):
    s.x += 1

actions = [Inc]
`))
	if err != nil {
		t.Fatal(err)
	}
	w, _ := m.NewWorker()
	s, err := w.Init()
	if err != nil {
		t.Fatal(err)
	}
	keys := []string{s.Key()}
	for len(keys) <= n {
		outs, _, err := w.Step(s, 0, nil)
		if err != nil || len(outs) != 1 {
			t.Fatal(outs, err)
		}
		s = outs[0].Next
		keys = append(keys, s.Key())
	}
	return m, keys
}

// A visited graph adds a failure node per distinct failure up to
// MaxFailureNodes, then none: it stays the size of what was visited.
func TestVisitedFailureNodesBounded(t *testing.T) {
	m, keys := incModel(t, 1)
	v, err := conform.NewVisited(m)
	if err != nil {
		t.Fatal(err)
	}
	step := conform.StepRecord{Step: 1, Kind: model.Controllable, Action: "Inc", From: []string{keys[0]}, States: []string{keys[1]}, Active: true}
	at := v.Add(step)
	last := -1
	for run := 1; run <= conform.MaxFailureNodes+50; run++ {
		v.Add(step) // each run fails after the same step, each in its own way
		last = v.Fail(conform.RunResult{Run: run, Failure: &conform.Failure{Kind: conform.FailUnexpected, Message: fmt.Sprint("boom ", run)}})
		if run == conform.MaxFailureNodes+1 && last != v.Current() {
			t.Errorf("past the bound Fail returned %d, the current node is %d", last, v.Current())
		}
	}
	fails := 0
	for _, s := range v.Graph().States {
		if strings.HasPrefix(s.ID, "F") {
			fails++
		}
	}
	if fails != conform.MaxFailureNodes || at < 0 {
		t.Errorf("%d failure nodes after %d failed runs, want %d", fails, conform.MaxFailureNodes+50, conform.MaxFailureNodes)
	}
}

// Runs that fail the same way after the same state share one failure node;
// another message, or another state, gets its own.
func TestVisitedSameFailuresShareANode(t *testing.T) {
	m, keys := incModel(t, 2)
	v, _ := conform.NewVisited(m)
	fail := func(run, steps int, msg string) int {
		for i := 0; i < steps; i++ {
			v.Add(conform.StepRecord{Step: i + 1, Kind: model.Controllable, Action: "Inc", From: []string{keys[i]}, States: []string{keys[i+1]}, Active: true})
		}
		return v.Fail(conform.RunResult{Run: run, Failure: &conform.Failure{Kind: conform.FailUnexpected, Message: msg}})
	}
	a := fail(1, 1, "boom")
	b := fail(2, 1, "boom")  // the same failure in the same place
	c := fail(3, 1, "other") // another message
	d := fail(4, 2, "boom")  // another place
	if a != b || a == c || a == d || c == d {
		t.Errorf("failure nodes %d %d %d %d: want the first two shared, the others apart", a, b, c, d)
	}
	g := v.Graph()
	if id := g.States[a].ID; id != "F1" {
		t.Errorf("the shared node is %s, want F1 (the first run's)", id)
	}
}
