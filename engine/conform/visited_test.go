package conform_test

import (
	"strings"
	"testing"

	"github.com/modex/modex/engine/conform"
	"github.com/modex/modex/engine/model"
)

// A visited graph adds a failure node per failed run up to
// MaxFailureNodes, then none: it stays the size of what was visited.
func TestVisitedFailureNodesBounded(t *testing.T) {
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
	s0, _ := w.Init()
	outs, _, err := w.Step(s0, 0, nil)
	if err != nil || len(outs) != 1 {
		t.Fatal(outs, err)
	}
	v, err := conform.NewVisited(m)
	if err != nil {
		t.Fatal(err)
	}
	step := conform.StepRecord{Step: 1, Kind: model.Controllable, Action: "Inc", From: []string{s0.Key()}, States: []string{outs[0].Next.Key()}, Active: true}
	at := v.Add(step)
	last := -1
	for run := 1; run <= conform.MaxFailureNodes+50; run++ {
		last = v.Fail(conform.RunResult{Run: run, Failure: &conform.Failure{Kind: conform.FailUnexpected, Message: "boom"}})
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
