package ui

import (
	"fmt"
	"strings"

	"github.com/modex/modex/engine/conform"
	"github.com/modex/modex/engine/explore"
	"github.com/modex/modex/engine/model"
	"github.com/modex/modex/graph"
)

// visitedGraph is the graph of what online testing has visited so far, in
// the shape of the timeout extension: a passive and an active node per model
// state as the tester saw them, with failures as red nodes.
type visitedGraph struct {
	w       model.Worker
	nodes   map[string]int
	states  []graph.State
	trans   []graph.Transition
	edges   map[string]bool
	current int
}

func newVisitedGraph(w model.Worker) *visitedGraph {
	return &visitedGraph{w: w, nodes: map[string]int{}, edges: map[string]bool{}, current: -1}
}

func (v *visitedGraph) node(key string, active bool) int {
	k := key + "|p"
	kind := string(explore.Passive)
	if active {
		k, kind = key+"|a", string(explore.Active)
	}
	if i, ok := v.nodes[k]; ok {
		return i
	}
	i := len(v.states)
	s := graph.State{ID: fmt.Sprintf("V%d", i), Kind: kind, Initial: i == 0, Vars: graph.Vars{}}
	s.Label = s.ID
	if st, err := v.w.Decode(key); err == nil {
		for _, vr := range v.w.Vars(st) {
			s.Vars = append(s.Vars, graph.Var{Name: vr.Name, Value: model.Format(vr.Value)})
		}
		if ok, err := v.w.Accepting(st); err == nil {
			s.Accepting = ok
		}
	}
	v.states = append(v.states, s)
	v.nodes[k] = i
	return i
}

func (v *visitedGraph) edge(from, to int, label, kind string) {
	k := fmt.Sprintf("%d|%d|%s", from, to, label)
	if v.edges[k] {
		return
	}
	v.edges[k] = true
	v.trans = append(v.trans, graph.Transition{From: v.states[from].ID, To: v.states[to].ID, Label: label, Kind: kind, Action: label})
}

// add records a step and returns the node the tester is in after it.
func (v *visitedGraph) add(s conform.StepRecord) int {
	if len(s.From) == 0 || len(s.States) == 0 {
		return v.current
	}
	fromActive := s.Kind == model.Controllable
	from := v.node(s.From[0], fromActive)
	to := v.node(s.States[0], s.Active)
	label := s.Label()
	if s.Kind == model.Timeout {
		label = ""
	}
	v.edge(from, to, label, s.Kind.String())
	v.current = to
	return to
}

// fail adds a failure node after the current one.
func (v *visitedGraph) fail(r conform.RunResult) int {
	f := r.Failure
	i := len(v.states)
	s := graph.State{ID: fmt.Sprintf("F%d", r.Run), Label: "✗ " + f.Kind, Kind: string(explore.Terminal),
		Error: f.Message, Vars: graph.Vars{}}
	for _, st := range f.States {
		for _, part := range strings.Split(st, "; ") {
			name, val, _ := strings.Cut(part, " = ")
			s.Vars = append(s.Vars, graph.Var{Name: name, Value: val})
		}
	}
	v.states = append(v.states, s)
	if v.current >= 0 {
		v.edge(v.current, i, "✗ "+f.Kind, "observable")
	}
	v.current = i
	return i
}

// doc returns a copy as a graph document.
func (v *visitedGraph) doc() *graph.Doc {
	d := &graph.Doc{States: append([]graph.State(nil), v.states...), Transitions: append([]graph.Transition(nil), v.trans...)}
	d.Stats.States, d.Stats.Transitions = len(d.States), len(d.Transitions)
	return d
}
