package explore

import (
	"bytes"
	"container/heap"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"

	"github.com/modex/modex/engine/model"
)

// SuiteStep is one step of an offline test case: a transition of the
// state graph. Inputs and output are printed as Starlark literals; the
// runner matches them against the model.
type SuiteStep struct {
	Kind   string   `json:"kind"` // controllable, observable, internal or timeout
	Action string   `json:"action,omitempty"`
	Args   []string `json:"args,omitempty"`
	Output string   `json:"output,omitempty"`
	Label  string   `json:"label"`
	From   string   `json:"from"`
	To     string   `json:"to"`
	// At, in a strategy plan's waits, is the state where the tester waits
	// for this choice when it is not From (the active twin of From, which
	// goes back to waiting for events).
	At string `json:"at,omitempty"`
}

// SuiteCase is one test case: from the initial state to an accepting state.
type SuiteCase struct {
	Name string `json:"name"`
	// Init is the initial state the case was planned from, when the model
	// has several (the runner starts in all of them, as online testing
	// does: the implementation's steps tell which it is in).
	Init  string      `json:"init,omitempty"`
	Steps []SuiteStep `json:"steps"`
	// Goal is what a strategy case is for ("Join(\"Conf\") at S4"), and
	// Forced whether it reaches it whatever the implementation does
	// (else it is a best effort: it may end without it).
	Goal   string `json:"goal,omitempty"`
	Forced bool   `json:"forced,omitempty"`
	// Plan, in a strategy suite, is what the runner follows (Steps is then
	// the run the plan hopes for, to read).
	Plan *Plan `json:"plan,omitempty"`
}

// Plan is a strategy case's positional strategy: from Start, at each state
// of the tester on the way to the goal its move (Moves), at each state of
// the implementation the choices it may make (Waits); once the goal step
// is taken, the moves of Finish lead to one of the Ends (accepting
// states), where the case ends. States are the graph's ids.
type Plan struct {
	Start string `json:"start"`
	// Goal is the transition to take; GoalState, in a state-coverage
	// suite, the state to reach instead (Goal is then empty).
	Goal      SuiteStep   `json:"goal"`
	GoalState string      `json:"goal_state,omitempty"`
	Moves     []SuiteStep `json:"moves,omitempty"`
	Finish    []SuiteStep `json:"finish,omitempty"`
	Waits     []SuiteStep `json:"waits,omitempty"`
	Ends      []string    `json:"ends"`
}

// startTrans marks, in a rooted graph, the transitions from its root to the
// model's initial states.
const startTrans = -2

// rooted returns g when it has at most one initial state; else a copy with
// a root state before them (the only initial state, not accepting) and a
// transition from it to each, so that a tour or a path starts from one
// state. n is the number of g's own states (the root is state n).
func (g *Graph) rooted() (*Graph, int) {
	n := len(g.States)
	var inits []int
	for i := range g.States {
		if g.States[i].Initial {
			inits = append(inits, i)
		}
	}
	if len(inits) < 2 {
		return g, n
	}
	r := &Graph{States: make([]GState, n, n+1), Trans: make([]GTrans, len(g.Trans), len(g.Trans)+len(inits)), Stats: g.Stats, Extended: g.Extended}
	copy(r.States, g.States)
	copy(r.Trans, g.Trans)
	for _, i := range inits {
		r.States[i].Initial = false
		r.Trans = append(r.Trans, GTrans{From: n, To: i, Kind: model.Internal, ModelTrans: startTrans})
	}
	r.States = append(r.States, GState{ID: "start", Model: -1, Label: "start", Kind: Active, Initial: true})
	return r, n
}

// Suite is an offline test suite (docs/test-suites.md).
type Suite struct {
	Format   string `json:"format"` // "modex-suite/1"
	Model    string `json:"model"`
	Config   string `json:"config"`
	Coverage string `json:"coverage"` // transitions, states, or state:ID
	States   int    `json:"graph_states"`
	Trans    int    `json:"graph_transitions"`
	Covered  int    `json:"covered_transitions"`
	// Length is the number of transitions the cases walk: their steps
	// (actions) and their timeouts.
	Length     int      `json:"length"`
	Steps      int      `json:"steps"`       // actions in all test cases
	Timeouts   int      `json:"timeouts"`    // timeouts in all test cases
	LowerBound int      `json:"lower_bound"` // transitions to cover (timeouts included)
	Dead       []string `json:"dead_states,omitempty"`
	// Forced and BestEffort count a strategy suite's cases that reach
	// their goal whatever the implementation does, and those that may not.
	Forced     int         `json:"forced_cases,omitempty"`
	BestEffort int         `json:"best_effort_cases,omitempty"`
	Cases      []SuiteCase `json:"cases"`
	size       int64       // the file's bytes, estimated (strategy suites)
}

// Actions is the number of the case's steps: its actions (timeouts are not
// steps).
func (c *SuiteCase) Actions() int {
	n := 0
	for _, st := range c.Steps {
		if st.Kind != "timeout" {
			n++
		}
	}
	return n
}

// Summary says what the suite holds, every number with what it counts.
func (s *Suite) Summary() string {
	cases := "test cases"
	if len(s.Cases) == 1 {
		cases = "test case"
	}
	timeouts := "no timeouts"
	if s.Timeouts > 0 {
		timeouts = Count(s.Timeouts, "timeout") // "1 timeout", not "1 timeouts"
	}
	if s.Format == SuiteFormat2 && s.Coverage == "states" {
		return fmt.Sprintf("%d %s of game strategies (%d forced, %d best effort), %d transitions on their main lines, covering %d of %d target states",
			len(s.Cases), cases, s.Forced, s.BestEffort, s.Length, s.Covered, s.LowerBound)
	}
	if s.Format == SuiteFormat2 {
		return fmt.Sprintf("%d %s of game strategies (%d forced, %d best effort), %d transitions on their main lines (at least %d to cover), covering %d of %d transitions",
			len(s.Cases), cases, s.Forced, s.BestEffort, s.Length, s.LowerBound, s.Covered, s.Trans)
	}
	needed := fmt.Sprintf(", at least %d needed", s.LowerBound)
	if s.LowerBound == 0 {
		needed = "" // a bound of nothing says nothing
	}
	return fmt.Sprintf("%d %s, %s and %s (%s walked%s), covering %d of %d transitions",
		len(s.Cases), cases, Count(s.Steps, "step"), timeouts, Count(s.Length, "transition"), needed, s.Covered, s.Trans)
}

// SuiteFormat is the format tag of suite files of linear cases;
// SuiteFormat2 that of strategy suites, whose cases have plans.
const (
	SuiteFormat  = "modex-suite/1"
	SuiteFormat2 = "modex-suite/2"
)

// WriteJSON writes the suite as indented JSON.
func (s *Suite) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", " ")
	return enc.Encode(s)
}

// ReadSuite reads a suite written by WriteJSON.
func ReadSuite(r io.Reader) (*Suite, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxSuiteSize+1))
	if err != nil {
		return nil, err
	}
	if len(data) > MaxSuiteSize {
		return nil, fmt.Errorf("a test suite is at most %d MiB", MaxSuiteSize>>20)
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, fmt.Errorf("the test suite file is empty")
	}
	var s Suite
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&s); err != nil {
		return nil, fmt.Errorf("reading the test suite: %s: %v", jsonPos(data, dec.InputOffset(), err), err)
	}
	if dec.More() {
		return nil, fmt.Errorf("reading the test suite: %s: data after the suite", jsonPos(data, dec.InputOffset(), nil))
	}
	if s.Format != SuiteFormat && s.Format != SuiteFormat2 {
		return nil, fmt.Errorf("not a Modex test suite (format %q, want %q or %q)", s.Format, SuiteFormat, SuiteFormat2)
	}
	if len(s.Cases) == 0 {
		return nil, fmt.Errorf("the test suite has no test cases")
	}
	for i, c := range s.Cases {
		if len(c.Steps) == 0 {
			return nil, fmt.Errorf("case %d (%s) has no steps", i+1, c.Name)
		}
		if err := checkSteps(c.Steps, 0); err != nil {
			return nil, fmt.Errorf("case %d %s", i+1, err)
		}
		if c.Plan != nil {
			if err := checkPlan(c.Plan, s.Format); err != nil {
				return nil, fmt.Errorf("case %d %s", i+1, err)
			}
		}
	}
	return &s, nil
}

// checkSteps checks steps: known kinds, actions named; controllable only
// when want says so (1), not controllable when it is -1.
func checkSteps(steps []SuiteStep, want int) error {
	for j, st := range steps {
		if _, ok := map[string]bool{"controllable": true, "observable": true, "internal": true, "timeout": true}[st.Kind]; !ok {
			return fmt.Errorf("step %d: unknown kind %q", j+1, st.Kind)
		}
		if st.Kind != "timeout" && st.Action == "" {
			return fmt.Errorf("step %d: no action", j+1)
		}
		if want == 1 && st.Kind != "controllable" || want == -1 && st.Kind == "controllable" {
			return fmt.Errorf("step %d (%s): a %s step here", j+1, st.Label, st.Kind)
		}
	}
	return nil
}

// checkPlan checks a strategy case's plan (suite format 2 only).
func checkPlan(p *Plan, format string) error {
	if format != SuiteFormat2 {
		return fmt.Errorf("has a plan, which needs suite format %s", SuiteFormat2)
	}
	if p.Start == "" || len(p.Ends) == 0 {
		return fmt.Errorf("plan: no start or no ends")
	}
	parts := []struct {
		what  string
		steps []SuiteStep
		want  int
	}{{"moves", p.Moves, 1}, {"finish", p.Finish, 1}, {"waits", p.Waits, -1}}
	if p.GoalState == "" {
		parts = append(parts, struct {
			what  string
			steps []SuiteStep
			want  int
		}{"goal", []SuiteStep{p.Goal}, 0})
	}
	for _, part := range parts {
		if err := checkSteps(part.steps, part.want); err != nil {
			return fmt.Errorf("plan %s: %v", part.what, err)
		}
	}
	return nil
}

// ReadSuiteFile reads a suite file (a regular file of at most MaxSuiteSize
// bytes); errors name the file.
func ReadSuiteFile(path string) (*Suite, error) {
	data, err := model.ReadFileLimited(path, MaxSuiteSize)
	if err != nil {
		return nil, err
	}
	s, err := ReadSuite(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return s, nil
}

// MaxSuiteSize bounds a suite file read back.
const MaxSuiteSize = 256 << 20

// jsonPos names the line and column of a JSON error: the offset the
// decoder reports (a syntax or type error's own offset when it has one).
func jsonPos(data []byte, off int64, err error) string {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		off = se.Offset - 1 // the offending byte
	case errors.As(err, &te):
		off = te.Offset
	}
	off = min(max(off, 0), int64(len(data)))
	line := 1 + bytes.Count(data[:off], []byte("\n"))
	col := off - int64(bytes.LastIndexByte(data[:off], '\n'))
	return fmt.Sprintf("line %d, column %d", line, col)
}
func (g *Graph) step(ti int) SuiteStep {
	t := &g.Trans[ti]
	return SuiteStep{Kind: t.Kind.String(), Action: t.Action, Args: t.ArgStrings(), Output: t.OutputString(), Label: t.Label(),
		From: g.States[t.From].ID, To: g.States[t.To].ID}
}

// live returns the states from which an accepting state can be reached, and
// the states reachable from the initial one.
func (g *Graph) live() (live, reach []bool, initial int) {
	n := len(g.States)
	live, reach = make([]bool, n), make([]bool, n)
	initial = -1
	in := make([][]int, n)
	out := make([][]int, n)
	for i, t := range g.Trans {
		in[t.To] = append(in[t.To], i)
		out[t.From] = append(out[t.From], i)
	}
	var queue []int
	for i, s := range g.States {
		if s.Initial {
			initial = i
		}
		if s.Accepting && s.Error == "" {
			live[i] = true
			queue = append(queue, i)
		}
	}
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		for _, ti := range in[s] {
			if f := g.Trans[ti].From; !live[f] && g.States[f].Error == "" {
				live[f] = true
				queue = append(queue, f)
			}
		}
	}
	if initial >= 0 {
		reach[initial] = true
		queue = []int{initial}
		for len(queue) > 0 {
			s := queue[0]
			queue = queue[1:]
			for _, ti := range out[s] {
				if t := g.Trans[ti].To; !reach[t] {
					reach[t] = true
					queue = append(queue, t)
				}
			}
		}
	}
	return live, reach, initial
}

// TransitionTour generates a transition-coverage suite: a Chinese-postman
// tour over the live part of the graph (every transition between states
// from which an accepting state is reachable), with resets from accepting
// states to the initial state, split into test cases at the resets. Its
// length is minimal for covering every live transition with test cases that
// start in the initial state and end in accepting states. Reached states
// from which no accepting state is reachable are reported as dead and left
// out, with the transitions into them.
func (g *Graph) TransitionTour() (*Suite, error) {
	states, trans := len(g.States), len(g.Trans)
	g, _ = g.rooted()
	live, reach, initial := g.live()
	if initial < 0 {
		return nil, fmt.Errorf("the graph has no initial state")
	}
	if !live[initial] {
		return nil, fmt.Errorf("no accepting state is reachable from the initial state")
	}
	s := &Suite{Format: SuiteFormat, Coverage: "transitions", States: states, Trans: trans}
	for i := range g.States {
		if reach[i] && !live[i] {
			s.Dead = append(s.Dead, g.States[i].ID)
		}
	}
	var req []int // required transitions (a rooted graph's starts too: every live initial state begins a case)
	for i, t := range g.Trans {
		if reach[t.From] && live[t.From] && live[t.To] {
			req = append(req, i)
			if t.ModelTrans != startTrans {
				s.LowerBound++
			}
		}
	}
	if len(req) == 0 {
		return s, nil
	}
	edges, err := g.balance(req, live, reach, initial)
	if err != nil {
		return nil, err
	}
	g.splitCases(s, edges, eulerCircuit(edges, len(g.States), initial), initial)
	covered := map[int]bool{}
	for _, e := range edges {
		if e.trans >= 0 && g.Trans[e.trans].ModelTrans != startTrans {
			covered[e.trans] = true
		}
	}
	s.Covered = len(covered)
	return s, nil
}

// tourEdge is an edge of the multigraph a tour walks: a transition, or a
// reset back to the initial state (trans -1).
type tourEdge struct {
	from, to int
	trans    int
}

// balance returns the required transitions plus the fewest extra ones (and
// resets) that make every state's in-degree equal its out-degree: a
// min-cost flow from states with surplus to states with deficit, over live
// transitions (cost 1) and resets from accepting states (cost 0).
func (g *Graph) balance(req []int, live, reach []bool, initial int) ([]tourEdge, error) {
	n := len(g.States)
	var edges []tourEdge
	bal := make([]int, n) // in - out
	for _, ti := range req {
		t := g.Trans[ti]
		edges = append(edges, tourEdge{t.From, t.To, ti})
		bal[t.To]++
		bal[t.From]--
	}
	f := newFlow(n + 2)
	src, sink := n, n+1
	arcTrans := map[int]int{} // flow arc index -> transition (-1 reset)
	for _, ti := range req {
		t := g.Trans[ti]
		arcTrans[f.add(t.From, t.To, inf, 1)] = ti
	}
	for i := range g.States {
		if live[i] && reach[i] && g.States[i].Accepting && g.States[i].Error == "" && i != initial {
			arcTrans[f.add(i, initial, inf, 0)] = -1
		}
	}
	need := 0
	for i, b := range bal {
		if b > 0 {
			f.add(src, i, b, 0)
			need += b
		} else if b < 0 {
			f.add(i, sink, -b, 0)
		}
	}
	if got := f.run(src, sink); got != need {
		return nil, fmt.Errorf("cannot balance the tour (%d of %d)", got, need)
	}
	for arc, ti := range arcTrans {
		for k := 0; k < f.flowOn(arc); k++ {
			a := f.arcs[arc]
			edges = append(edges, tourEdge{f.arcs[a.rev].to, a.to, ti})
		}
	}
	return edges, nil
}

// eulerCircuit walks every edge once from the initial state (Hierholzer's
// algorithm, edges in a fixed order) and returns the edge indices in order,
// rotated to start after a reset when there is one.
func eulerCircuit(edges []tourEdge, n, initial int) []int {
	adj := make([][]int, n)
	for i, e := range edges {
		adj[e.from] = append(adj[e.from], i)
	}
	for _, l := range adj {
		sort.Slice(l, func(a, b int) bool {
			ea, eb := edges[l[a]], edges[l[b]]
			if ea.trans != eb.trans {
				return ea.trans > eb.trans // resets (-1) last
			}
			return ea.to < eb.to
		})
	}
	next := make([]int, n)
	var circuit []int // edge indices, reversed
	type frame struct{ node, via int }
	stack := []frame{{initial, -1}}
	for len(stack) > 0 {
		top := &stack[len(stack)-1]
		if next[top.node] < len(adj[top.node]) {
			e := adj[top.node][next[top.node]]
			next[top.node]++
			stack = append(stack, frame{edges[e].to, e})
			continue
		}
		if top.via >= 0 {
			circuit = append(circuit, top.via)
		}
		stack = stack[:len(stack)-1]
	}
	for i, j := 0, len(circuit)-1; i < j; i, j = i+1, j-1 {
		circuit[i], circuit[j] = circuit[j], circuit[i]
	}
	// Rotate so the tour starts after a reset (every reset leads to the
	// initial state): then every case ends in an accepting state.
	for i, e := range circuit {
		if edges[e].trans < 0 {
			return append(circuit[i+1:], circuit[:i+1]...)
		}
	}
	return circuit
}

// splitCases cuts the circuit into test cases at the resets. In a rooted
// graph a case begins with the start transition to its initial state,
// which is not a step: the case records the state as its Init.
func (g *Graph) splitCases(s *Suite, edges []tourEdge, circuit []int, initial int) {
	var cur []SuiteStep
	init := ""
	flush := func() {
		if len(cur) > 0 {
			c := SuiteCase{Name: fmt.Sprintf("case %d", len(s.Cases)+1), Init: init, Steps: cur}
			s.Cases = append(s.Cases, c)
			s.Length += len(cur)
			s.Steps += c.Actions()
			s.Timeouts += len(cur) - c.Actions()
			cur = nil
		}
	}
	for _, e := range circuit {
		if edges[e].trans < 0 {
			flush()
			continue
		}
		if t := &g.Trans[edges[e].trans]; t.ModelTrans == startTrans {
			flush()
			init = g.States[t.To].ID
			continue
		}
		cur = append(cur, g.step(edges[e].trans))
	}
	if len(cur) > 0 && !g.States[initial].Accepting {
		// No reset was used and the circuit ends in the non-accepting
		// initial state: finish in the nearest accepting state.
		last := circuit[len(circuit)-1]
		for _, ti := range g.shortestPath(edges[last].to, func(i int) bool { return g.States[i].Accepting }) {
			cur = append(cur, g.step(ti))
		}
	}
	flush()
}

// shortestPath returns the transitions of a shortest path from state from
// to a state satisfying goal (nil when from satisfies it or none does).
func (g *Graph) shortestPath(from int, goal func(int) bool) []int {
	if goal(from) {
		return nil
	}
	return g.shortestPathFrom([]int{from}, goal)
}

// shortestPathFrom is shortestPath from the nearest of several states.
func (g *Graph) shortestPathFrom(starts []int, goal func(int) bool) []int {
	out := make([][]int, len(g.States))
	for i, t := range g.Trans {
		out[t.From] = append(out[t.From], i)
	}
	via := make([]int, len(g.States))
	seen := make([]bool, len(g.States))
	for _, s := range starts {
		seen[s], via[s] = true, -1
	}
	queue := append([]int(nil), starts...)
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		for _, ti := range out[s] {
			t := g.Trans[ti].To
			if seen[t] {
				continue
			}
			seen[t], via[t] = true, ti
			if goal(t) {
				var path []int
				for n := t; via[n] >= 0; n = g.Trans[via[n]].From {
					path = append(path, via[n])
				}
				for i, j := 0, len(path)-1; i < j; i, j = i+1, j-1 {
					path[i], path[j] = path[j], path[i]
				}
				return path
			}
			queue = append(queue, t)
		}
	}
	return nil
}

// StateCases generates one test case per target state: a shortest path from
// the initial state to it, then a shortest path on to an accepting state.
// targets nil covers every live state reachable from the initial one.
func (g *Graph) StateCases(targets []int) (*Suite, error) {
	states, trans := len(g.States), len(g.Trans)
	g, n := g.rooted()
	live, reach, initial := g.live()
	if initial < 0 {
		return nil, fmt.Errorf("the graph has no initial state")
	}
	s := &Suite{Format: SuiteFormat, Coverage: "states", States: states, Trans: trans}
	if targets == nil {
		for i := range g.States[:n] {
			if reach[i] && live[i] {
				targets = append(targets, i)
			}
			if reach[i] && !live[i] {
				s.Dead = append(s.Dead, g.States[i].ID)
			}
		}
	} else if len(targets) == 1 {
		s.Coverage = "state:" + g.States[targets[0]].ID
	}
	covered := map[int]bool{}
	for _, target := range targets {
		if !reach[target] || !live[target] {
			return nil, fmt.Errorf("no test case reaches %s and ends in an accepting state", g.States[target].ID)
		}
		path := g.shortestPath(initial, func(i int) bool { return i == target })
		path = append(path, g.shortestPath(target, func(i int) bool { return g.States[i].Accepting })...)
		if len(path) == 0 {
			continue // the initial state, accepting: a case without steps tests nothing
		}
		c := SuiteCase{Name: "to " + g.States[target].ID}
		for _, ti := range path {
			if t := &g.Trans[ti]; t.ModelTrans == startTrans {
				c.Init = g.States[t.To].ID
				continue
			}
			c.Steps = append(c.Steps, g.step(ti))
			covered[ti] = true
		}
		if len(c.Steps) == 0 {
			continue // an initial state, accepting
		}
		s.Cases = append(s.Cases, c)
		s.Length += len(c.Steps)
		s.Steps += c.Actions()
		s.Timeouts += len(c.Steps) - c.Actions()
	}
	if len(s.Cases) == 0 {
		return nil, fmt.Errorf("no test case: the only target is the initial state, which is accepting")
	}
	s.Covered = len(covered)
	return s, nil
}

// --- min-cost flow (successive shortest paths with potentials) ---

const inf = 1 << 30

type arc struct {
	to, rev, cap, cost int
}

type flow struct {
	arcs []arc
	adj  [][]int
	orig []int // original capacity per arc
}

func newFlow(n int) *flow { return &flow{adj: make([][]int, n)} }

// add adds an arc and its reverse; it returns the arc's index.
func (f *flow) add(from, to, cap, cost int) int {
	i := len(f.arcs)
	f.arcs = append(f.arcs, arc{to: to, rev: i + 1, cap: cap, cost: cost}, arc{to: from, rev: i, cap: 0, cost: -cost})
	f.orig = append(f.orig, cap, 0)
	f.adj[from] = append(f.adj[from], i)
	f.adj[to] = append(f.adj[to], i+1)
	return i
}

func (f *flow) flowOn(i int) int { return f.arcs[f.arcs[i].rev].cap }

type pqItem struct{ node, dist int }
type pq []pqItem

func (p pq) Len() int           { return len(p) }
func (p pq) Less(i, j int) bool { return p[i].dist < p[j].dist }
func (p pq) Swap(i, j int)      { p[i], p[j] = p[j], p[i] }
func (p *pq) Push(x any)        { *p = append(*p, x.(pqItem)) }
func (p *pq) Pop() any          { o := *p; x := o[len(o)-1]; *p = o[:len(o)-1]; return x }

// run sends as much flow as possible from s to t at least cost; it returns
// the amount sent.
func (f *flow) run(s, t int) int {
	n := len(f.adj)
	pot := make([]int, n)
	dist := make([]int, n)
	via := make([]int, n)
	total := 0
	for {
		for i := range dist {
			dist[i], via[i] = inf, -1
		}
		dist[s] = 0
		h := &pq{{s, 0}}
		for h.Len() > 0 {
			it := heap.Pop(h).(pqItem)
			if it.dist > dist[it.node] {
				continue
			}
			for _, ai := range f.adj[it.node] {
				a := f.arcs[ai]
				if a.cap <= 0 {
					continue
				}
				nd := it.dist + a.cost + pot[it.node] - pot[a.to]
				if nd < dist[a.to] {
					dist[a.to], via[a.to] = nd, ai
					heap.Push(h, pqItem{a.to, nd})
				}
			}
		}
		if dist[t] == inf {
			return total
		}
		for i := range pot {
			if dist[i] < inf {
				pot[i] += dist[i]
			}
		}
		push := inf
		for v := t; v != s; {
			a := f.arcs[via[v]]
			push = min(push, a.cap)
			v = f.arcs[a.rev].to
		}
		for v := t; v != s; {
			ai := via[v]
			f.arcs[ai].cap -= push
			f.arcs[f.arcs[ai].rev].cap += push
			v = f.arcs[f.arcs[ai].rev].to
		}
		total += push
	}
}
