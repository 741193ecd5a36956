package explore

import (
	"strconv"

	"github.com/modex/modex/engine/model"
)

// SetLevelChunk sets how many states of a level are expanded before a
// merge, for tests; it returns a function that restores the default.
func SetLevelChunk(n int) (restore func()) {
	old := levelChunk
	levelChunk = n
	return func() { levelChunk = old }
}

// DroppedTail is the number of counted transitions an exploration that
// dropped its transitions still holds for finding duplicates.
func DroppedTail(x *Exploration) int { return len(x.dropped.tail) }

// ReferenceGraph is Graph as it was written before GraphStream (the
// graph built whole, in one function), for tests to compare with.
func ReferenceGraph(x *Exploration) *Graph {
	g := &Graph{Extended: x.Config.extended(), Entry: make([]int, len(x.States)), ActiveOf: make([]int, len(x.States))}
	info := x.Model.Info()
	kindOf := func(t *MTrans) model.Kind { return x.Config.Actions[t.Action].Kind }
	hasObs := x.hasObservables()
	add := func(m int, kind StateKind) int {
		s := &x.States[m]
		gs := GState{Model: int32(m), Label: x.StateLabel(m), Kind: kind, Accepting: s.Accepting, Frontier: s.Frontier, Error: x.StateError(m),
			Deadlock: s.Deadlock && kind != Passive}
		if x.Merged != nil {
			gs.Count = x.Merged[m]
		}
		g.States = append(g.States, gs)
		return len(g.States) - 1
	}
	for m := range x.States {
		s := &x.States[m]
		twin := g.Extended && s.Expanded && !s.ModelErr && (hasObs[m] || x.Config.KeepEmptyPassive)
		if twin {
			p := add(m, Passive)
			a := add(m, Active)
			g.Entry[m], g.ActiveOf[m] = p, a
			g.Trans = append(g.Trans, GTrans{From: p, To: a, Kind: model.Timeout, ModelTrans: -1})
		} else {
			a := add(m, Active)
			g.Entry[m], g.ActiveOf[m] = a, a
		}
	}
	for i := range x.Trans {
		t := &x.Trans[i]
		k := kindOf(t)
		from := g.ActiveOf[t.From]
		if k != model.Controllable {
			from = g.Entry[t.From]
		}
		g.Trans = append(g.Trans, GTrans{From: from, To: g.Entry[t.To], Action: info.Actions[t.Action].Name, Args: x.ArgsOf(t), Output: x.OutputOf(t), Kind: k, ModelTrans: i})
	}
	out := make([]bool, len(g.States))
	for _, t := range g.Trans {
		out[t.From] = true
	}
	for i := range g.States {
		s := &g.States[i]
		s.ID = "S" + strconv.Itoa(i)
		if s.Label == "" {
			s.Label = s.ID
		}
		// Terminal: nothing leaves it once it was expanded (a state a live,
		// partial graph has not expanded yet is not terminal, only
		// unexplored).
		if ms := &x.States[s.Model]; s.Kind == Active && !out[i] && !s.Frontier && (ms.Expanded || ms.ModelErr) {
			s.Kind = Terminal
		}
	}
	for m := range x.States {
		if x.States[m].Initial {
			g.States[g.Entry[m]].Initial = true
		}
	}
	g.Stats = x.Stats
	g.Stats.States = len(g.States)
	g.Stats.Transitions = len(g.Trans)
	g.Stats.Passive = len(g.States) - len(x.States)
	g.Stats.Timeouts = g.Stats.Passive
	g.Stats.ModelStates, g.Stats.InitialStates, g.Stats.Deadlocks, g.Stats.ErrorStates = x.stateCounts()
	return g
}

// SuiteSize is the bytes a strategy suite's file was estimated to take as
// its cases were made.
func SuiteSize(s *Suite) int64 { return s.size }

// SetMaxSuiteBytes sets the bound of a strategy suite's file made, for
// tests; it returns a function that restores it.
func SetMaxSuiteBytes(n int64) (restore func()) {
	old := maxSuiteBytes
	maxSuiteBytes = n
	return func() { maxSuiteBytes = old }
}
