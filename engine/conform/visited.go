package conform

import (
	"fmt"
	"strconv"
	"sync"

	"github.com/modex/modex/engine/explore"
	"github.com/modex/modex/engine/model"
)

// Visited is the graph of what online testing has visited so far, built
// from the steps and failures a test reports (TestConfig.OnStep, OnRun), in
// the shape of the timeout extension: a passive and an active node per model
// state as the tester met it, timeouts between them, and a terminal node per
// failure carrying it (runs failing the same way in the same place share
// one). Nodes are named V0, V1, … and F<run> (the first run to fail so).
// Its methods are safe for concurrent use.
type Visited struct {
	mu      sync.Mutex
	w       model.Worker
	g       explore.Graph
	vars    [][]model.Var
	keys    []string // model state key per node ("" for failures)
	nodes   map[string]int
	edges   map[string]bool
	current int
	states  map[string]bool // distinct model states met
	trans   map[string]bool // distinct model transitions taken (timeouts apart)
	// failNodes maps a failure (node it happened after, kind, message) to
	// its node: runs that fail the same way in the same place share it.
	failNodes map[string]int
}

// MaxFailureNodes bounds the failure nodes of a visited graph: past it, the
// failures of later runs add none (the graph stays the size of what was
// visited, not of how many runs failed; the test's report counts them all).
const MaxFailureNodes = 1000

// NewVisited starts an empty visited graph for the model.
func NewVisited(m model.Model) (*Visited, error) {
	w, err := m.NewWorker()
	if err != nil {
		return nil, err
	}
	return &Visited{w: w, nodes: map[string]int{}, edges: map[string]bool{}, states: map[string]bool{}, trans: map[string]bool{}, failNodes: map[string]int{}, current: -1}, nil
}

func (v *Visited) node(key string, active bool) int {
	k, kind := key+"|p", explore.Passive
	if active {
		k, kind = key+"|a", explore.Active
	}
	if i, ok := v.nodes[k]; ok {
		return i
	}
	i := len(v.g.States)
	s := explore.GState{ID: "V" + strconv.Itoa(i), Model: -1, Kind: kind, Initial: i == 0}
	s.Label = s.ID
	var vars []model.Var
	if st, err := v.w.Decode(key); err == nil {
		vars = v.w.Vars(st)
		if ok, err := v.w.Accepting(st); err == nil {
			s.Accepting = ok
		}
	}
	v.g.States = append(v.g.States, s)
	v.vars = append(v.vars, vars)
	v.keys = append(v.keys, key)
	v.nodes[k] = i
	v.states[key] = true
	return i
}

func (v *Visited) edge(t explore.GTrans) {
	k := fmt.Sprintf("%d|%d|%s", t.From, t.To, t.Label())
	if v.edges[k] {
		return
	}
	v.edges[k] = true
	t.ModelTrans = -1
	v.g.Trans = append(v.g.Trans, t)
}

// Add records a step and returns the node the tester is in after it.
func (v *Visited) Add(s StepRecord) int {
	v.mu.Lock()
	defer v.mu.Unlock()
	if len(s.From) == 0 || len(s.States) == 0 {
		return v.current
	}
	from := v.node(s.From[0], s.Kind == model.Controllable)
	to := v.node(s.States[0], s.Active)
	t := explore.GTrans{From: from, To: to, Action: s.Action, Args: s.Args, Output: s.Output, Kind: s.Kind}
	v.edge(t)
	if s.Kind != model.Timeout {
		v.trans[s.From[0]+"\x00"+t.Label()+"\x00"+s.States[0]] = true
	}
	v.current = to
	return to
}

// Fail adds the failure of a run as a terminal node after the current one
// and returns it; a run that fails the same way (kind and message) after
// the same node shares the earlier run's node. Its variables are those of
// the model state the tester was in (the first, when the model may have
// been in several). Past MaxFailureNodes it adds nothing and returns the
// current node.
func (v *Visited) Fail(r RunResult) int {
	v.mu.Lock()
	defer v.mu.Unlock()
	f := r.Failure
	key := fmt.Sprintf("%d|%s|%s", v.current, f.Kind, f.Message)
	if i, ok := v.failNodes[key]; ok {
		v.current = i
		return i
	}
	if len(v.failNodes) >= MaxFailureNodes && v.current >= 0 {
		return v.current
	}
	i := len(v.g.States)
	v.failNodes[key] = i
	label := "✗ " + string(f.Kind)
	v.g.States = append(v.g.States, explore.GState{ID: "F" + strconv.Itoa(r.Run), Model: -1, Label: label, Kind: explore.Terminal, Error: f.Message})
	var vars []model.Var
	if len(f.States) > 0 {
		vars = f.States[0].Vars
	}
	v.vars = append(v.vars, vars)
	v.keys = append(v.keys, "")
	if v.current >= 0 {
		v.edge(explore.GTrans{From: v.current, To: i, Kind: model.Observable, Text: label})
	}
	v.current = i
	return i
}

// Current is the node the tester is in, -1 before the first step.
func (v *Visited) Current() int {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.current
}

// ModelStates is the number of distinct model states met so far.
func (v *Visited) ModelStates() int {
	v.mu.Lock()
	defer v.mu.Unlock()
	return len(v.states)
}

// Transitions is the number of distinct model transitions taken so far
// (a state, an action with its arguments and output, a state; timeouts are
// not transitions of the model).
func (v *Visited) Transitions() int {
	v.mu.Lock()
	defer v.mu.Unlock()
	return len(v.trans)
}

// ID is the name of node i.
func (v *Visited) ID(i int) string {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.g.States[i].ID
}

// Graph returns a copy of the visited graph.
func (v *Visited) Graph() *explore.Graph {
	v.mu.Lock()
	defer v.mu.Unlock()
	g := &explore.Graph{States: append([]explore.GState(nil), v.g.States...), Trans: append([]explore.GTrans(nil), v.g.Trans...)}
	g.Stats.States, g.Stats.Transitions = len(g.States), len(g.Trans)
	return g
}

// Key returns the model state key of the node with the given id ("" for a
// failure node or an unknown id).
func (v *Visited) Key(id string) string {
	v.mu.Lock()
	defer v.mu.Unlock()
	for i, s := range v.g.States {
		if s.ID == id {
			return v.keys[i]
		}
	}
	return ""
}

// Keys returns the model state key of every node, in the order of Graph's
// states ("" for failure nodes).
func (v *Visited) Keys() []string {
	v.mu.Lock()
	defer v.mu.Unlock()
	return append([]string(nil), v.keys...)
}

// Vars returns the variables of node i (to go with Graph).
func (v *Visited) Vars(i int) []model.Var {
	v.mu.Lock()
	defer v.mu.Unlock()
	if i < 0 || i >= len(v.vars) {
		return nil
	}
	return v.vars[i]
}

// PathStep is a step of a run as the tester met it, in a form that travels
// as JSON (a campaign's failures): the first model state before and after
// it (canonical keys), its kind and label, and whether the tester was in an
// active state after it.
type PathStep struct {
	Kind   string `json:"kind"`
	Label  string `json:"label,omitempty"`
	From   []byte `json:"from"`
	To     []byte `json:"to"`
	Active bool   `json:"active,omitempty"`
}

// Path is the run's log as path steps (steps that name no model state are
// left out).
func (r RunResult) Path() []PathStep {
	var out []PathStep
	for _, s := range r.Steps {
		if len(s.From) == 0 || len(s.States) == 0 {
			continue
		}
		p := PathStep{Kind: s.Kind.String(), From: []byte(s.From[0]), To: []byte(s.States[0]), Active: s.Active}
		if s.Kind != model.Timeout {
			p.Label = s.Label()
		}
		out = append(out, p)
	}
	return out
}

// AddPath records a step given as a path step (see Add); a step of an
// unknown kind is dropped.
func (v *Visited) AddPath(p PathStep) int {
	v.mu.Lock()
	defer v.mu.Unlock()
	kind, ok := model.ParseKind(p.Kind)
	if p.Kind == model.Timeout.String() {
		kind, ok = model.Timeout, true
	}
	if !ok || len(p.From) == 0 || len(p.To) == 0 {
		return v.current
	}
	from := v.node(string(p.From), kind == model.Controllable)
	to := v.node(string(p.To), p.Active)
	v.edge(explore.GTrans{From: from, To: to, Kind: kind, Text: p.Label})
	v.current = to
	return to
}
