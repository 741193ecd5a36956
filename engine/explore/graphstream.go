package explore

import (
	"strconv"

	"github.com/modex/modex/engine/model"
)

// GraphStream gives the states and transitions of the graph Graph builds,
// one at a time, without building it: a few bytes a model state instead of
// a GState a state and a GTrans (104 bytes) a transition, for writing the
// graph of a large exploration (LamportMutex's 2.5 million transitions).
// Graph itself is made from it.
type GraphStream struct {
	x        *Exploration
	extended bool
	// entry and active are, per model state, the graph states a
	// transition into it reaches and the one its tester acts in; model
	// maps a graph state back to its model state.
	entry, active, model []int32
	// out: the model state's active graph state has a transition out.
	out []bool
}

// GraphStream returns the stream of the graph of the exploration.
func (x *Exploration) GraphStream() *GraphStream {
	s := &GraphStream{x: x, extended: x.Config.extended(), entry: make([]int32, len(x.States)), active: make([]int32, len(x.States)),
		out: make([]bool, len(x.States))}
	hasObs := x.hasObservables()
	for m := range x.States {
		ms := &x.States[m]
		n := int32(len(s.model))
		s.entry[m], s.active[m] = n, n
		if s.extended && ms.Expanded && !ms.ModelErr && (hasObs[m] || x.Config.KeepEmptyPassive) {
			s.model = append(s.model, int32(m)) // the passive twin first
			s.active[m] = n + 1
		}
		s.model = append(s.model, int32(m))
	}
	for i := range x.Trans {
		t := &x.Trans[i]
		if x.Config.Actions[t.Action].Kind == model.Controllable || s.entry[t.From] == s.active[t.From] {
			s.out[t.From] = true
		}
	}
	return s
}

// Len returns the number of graph states.
func (s *GraphStream) Len() int { return len(s.model) }

// Model returns the model state of graph state i.
func (s *GraphStream) Model(i int) int { return int(s.model[i]) }

// Entry returns the graph state a transition into model state m reaches:
// its passive twin when it has one.
func (s *GraphStream) Entry(m int) int { return int(s.entry[m]) }

// ActiveOf returns the graph state in which the tester acts in model
// state m.
func (s *GraphStream) ActiveOf(m int) int { return int(s.active[m]) }

// State returns graph state i, as Graph gives it.
func (s *GraphStream) State(i int) GState {
	x := s.x
	m := int(s.model[i])
	ms := &x.States[m]
	kind := Active
	switch {
	case int(s.entry[m]) == i && s.entry[m] != s.active[m]:
		kind = Passive
	case !s.out[m] && !ms.Frontier && (ms.Expanded || ms.ModelErr):
		// Terminal: nothing leaves it once it was expanded (a state a
		// live, partial graph has not expanded yet is not terminal, only
		// unexplored).
		kind = Terminal
	}
	gs := GState{ID: "S" + strconv.Itoa(i), Model: int32(m), Label: x.StateLabel(m), Kind: kind, Accepting: ms.Accepting,
		Frontier: ms.Frontier, Error: x.StateError(m), Deadlock: ms.Deadlock && kind != Passive,
		Initial: ms.Initial && int(s.entry[m]) == i}
	if x.Merged != nil {
		gs.Count = x.Merged[m]
	}
	if gs.Label == "" {
		gs.Label = gs.ID
	}
	return gs
}

// NumTrans returns the number of graph transitions: the timeouts of the
// passive twins, then the model's.
func (s *GraphStream) NumTrans() int { return len(s.model) - len(s.x.States) + len(s.x.Trans) }

// Trans calls f with each graph transition in Graph's order (the timeouts
// in the order of their states, then the model's transitions), until f
// returns false.
func (s *GraphStream) Trans(f func(t *GTrans) bool) {
	x := s.x
	for m := range x.States {
		if s.entry[m] != s.active[m] {
			t := GTrans{From: int(s.entry[m]), To: int(s.active[m]), Kind: model.Timeout, ModelTrans: -1}
			if !f(&t) {
				return
			}
		}
	}
	info := x.Model.Info()
	for i := range x.Trans {
		mt := &x.Trans[i]
		k := x.Config.Actions[mt.Action].Kind
		from := s.active[mt.From]
		if k != model.Controllable {
			from = s.entry[mt.From]
		}
		t := GTrans{From: int(from), To: int(s.entry[mt.To]), Action: info.Actions[mt.Action].Name, Args: x.ArgsOf(mt), Output: x.OutputOf(mt), Kind: k, ModelTrans: i}
		if !f(&t) {
			return
		}
	}
}

// Stats returns the graph's statistics, as Graph gives them.
func (s *GraphStream) Stats() Stats {
	x := s.x
	st := x.Stats
	st.States = len(s.model)
	st.Transitions = s.NumTrans()
	st.Passive = len(s.model) - len(x.States)
	st.Timeouts = st.Passive
	st.ModelStates, st.InitialStates, st.Deadlocks, st.ErrorStates = x.stateCounts()
	return st
}
