package explore

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/modex/modex/engine/model"
)

// StateKind is how a graph state is drawn and used in testing.
type StateKind string

// State kinds: active (the tester may act: oval), passive (the tester
// observes: diamond), terminal (no way out, not cut off by a bound).
const (
	Active   StateKind = "active"
	Passive  StateKind = "passive"
	Terminal StateKind = "terminal"
)

// GState is a state of the (timeout-extended) state graph.
type GState struct {
	ID        string
	Model     int32 // index into Exploration.States
	Label     string
	Kind      StateKind
	Initial   bool
	Accepting bool
	Frontier  bool
	Error     string
	// Count is the number of model states a node stands for in a quotient
	// (0 in a state graph, where each node is one state).
	Count int
	// Deadlock marks a state in which no included action is enabled and
	// that is not accepting (see MState.Deadlock).
	Deadlock bool
}

// GTrans is a transition of the state graph. Timeout transitions have an
// empty Action.
type GTrans struct {
	From, To int
	Action   string
	Args     []model.Value
	Output   model.Value // nil or None when there is none
	Kind     model.Kind
	// ModelTrans is the index into Exploration.Trans, -1 for timeouts and
	// for transitions of graphs not built from an exploration.
	ModelTrans int
	// Text, when set, replaces the computed label (the failure arcs of the
	// graph online testing visited).
	Text string
}

// ArgStrings returns the inputs printed as Starlark literals.
func (t *GTrans) ArgStrings() []string {
	out := make([]string, len(t.Args))
	for i, a := range t.Args {
		out[i] = model.Format(a)
	}
	return out
}

// OutputString returns the output printed as a Starlark literal, "" for none.
func (t *GTrans) OutputString() string {
	if t.Output == nil || t.Output.Type() == "NoneType" {
		return ""
	}
	return model.Format(t.Output)
}

// Label is the transition's label: Name(args) or Name(args)/output, with a
// leading ? for observable actions; timeouts have no label.
func (t *GTrans) Label() string {
	if t.Text != "" {
		return t.Text
	}
	if t.Kind == model.Timeout {
		return ""
	}
	var sb strings.Builder
	if t.Kind == model.Observable {
		sb.WriteByte('?')
	}
	sb.WriteString(t.Action)
	sb.WriteByte('(')
	sb.WriteString(model.FormatArgs(t.Args))
	sb.WriteByte(')')
	if o := t.OutputString(); o != "" {
		sb.WriteByte('/')
		sb.WriteString(o)
	}
	return sb.String()
}

// Graph is a state graph: the explored model with the timeout extension of
// seed 000 Definition 4 applied when the model has observable actions.
type Graph struct {
	States   []GState
	Trans    []GTrans
	Stats    Stats
	Extended bool
	// Entry maps a model state to the graph state a transition into it
	// reaches (its passive twin when it has one).
	Entry []int
	// ActiveOf maps a model state to its active graph state.
	ActiveOf []int
}

// Out returns the indices of the transitions leaving graph state i.
func (g *Graph) Out(i int) []int {
	var out []int
	for j := range g.Trans {
		if g.Trans[j].From == i {
			out = append(out, j)
		}
	}
	return out
}

// GraphSize returns the numbers of states and transitions Graph would
// build, without building it (a graph of a million states takes hundreds of
// MB).
func (x *Exploration) GraphSize() (states, transitions int) {
	hasObs := x.hasObservables()
	extended := x.Config.extended()
	for m := range x.States {
		s := &x.States[m]
		if extended && s.Expanded && !s.ModelErr && (hasObs[m] || x.Config.KeepEmptyPassive) {
			states, transitions = states+2, transitions+1
		} else {
			states++
		}
	}
	return states, transitions + x.transitions()
}

// SizeText says how large the state graph is, in the words the command line
// and the workbench use: "N states, M transitions". When the graph draws a
// passive twin of some model states (the tester first waits there, then
// acts), it says how many of the states are the model's and how many of
// the transitions are the twins' timeouts — "9 states (5 model states, 4
// passive), 10 transitions (4 timeouts)" — since a test's coverage counts
// model states and transitions.
func (x *Exploration) SizeText() string {
	states, trans := x.GraphSize()
	return SizeWords(states, trans, len(x.States))
}

// SizeWords is SizeText for a graph of states and trans drawn from
// modelStates model states (each passive twin adds one state and one
// timeout transition).
func SizeWords(states, trans, modelStates int) string {
	twins := states - modelStates
	if twins <= 0 {
		return Count(states, "state") + ", " + Count(trans, "transition")
	}
	return fmt.Sprintf("%s (%s, %d passive), %s (%s)", Count(states, "state"), Count(modelStates, "model state"),
		twins, Count(trans, "transition"), Count(twins, "timeout"))
}

// Count says n things: "1 state", "2 states".
func Count(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	if strings.HasSuffix(thing, "s") || strings.HasSuffix(thing, "x") || strings.HasSuffix(thing, "sh") || strings.HasSuffix(thing, "ch") {
		return strconv.Itoa(n) + " " + thing + "es"
	}
	return strconv.Itoa(n) + " " + thing + "s"
}

// hasObservables marks the model states with an observable or internal
// transition out of them.
func (x *Exploration) hasObservables() []bool {
	hasObs := make([]bool, len(x.States))
	if x.dropped != nil || x.walks != nil { // what the graph has of them is not all
		for i := range x.States {
			hasObs[i] = x.States[i].obs
		}
	}
	for i := range x.Trans {
		t := &x.Trans[i]
		if k := x.Config.Actions[t.Action].Kind; k == model.Observable || k == model.Internal {
			hasObs[t.From] = true
		}
	}
	return hasObs
}

// FindKey returns the model state whose canonical key is key, or -1.
func (x *Exploration) FindKey(key string) int {
	for i := range x.States {
		if x.StateKey(i) == key {
			return i
		}
	}
	return -1
}

// GraphID is the id Graph gives model state m: its passive twin's when
// passive and it has one, else its active state's. It builds no graph.
func (x *Exploration) GraphID(m int, passive bool) string {
	hasObs := x.hasObservables()
	extended := x.Config.extended()
	twin := func(i int) bool {
		s := &x.States[i]
		return extended && s.Expanded && !s.ModelErr && (hasObs[i] || x.Config.KeepEmptyPassive)
	}
	idx := 0
	for i := 0; i < m; i++ {
		idx++
		if twin(i) {
			idx++
		}
	}
	if twin(m) && !passive {
		idx++
	}
	return "S" + strconv.Itoa(idx)
}

// Graph builds the state graph of the exploration (see GraphStream, which
// gives it without building it).
func (x *Exploration) Graph() *Graph {
	s := x.GraphStream()
	g := &Graph{Extended: s.extended, Entry: make([]int, len(x.States)), ActiveOf: make([]int, len(x.States))}
	if s.Len() > 0 { // nil when empty, as an appended graph was
		g.States = make([]GState, s.Len())
	}
	if n := s.NumTrans(); n > 0 {
		g.Trans = make([]GTrans, 0, n)
	}
	for m := range x.States {
		g.Entry[m], g.ActiveOf[m] = s.Entry(m), s.ActiveOf(m)
	}
	for i := range g.States {
		g.States[i] = s.State(i)
	}
	s.Trans(func(t *GTrans) bool {
		g.Trans = append(g.Trans, *t)
		return true
	})
	g.Stats = s.Stats()
	return g
}
