package explore

// Counting transitions without keeping them (Config.DropTransitions): a
// summary needs how many there are, which states are deadlocks or errors
// and a way to each, not the graph. TLC keeps no transitions either.

// dropped is what an exploration keeps of the transitions it counts.
type dropped struct {
	n int // transitions counted
	// tail holds the transitions counted from base on: those of the
	// invocations still being settled, which a duplicate can only repeat
	// (see addTrans).
	base int
	tail []MTrans
	// preds is, per model state, the transition that first reached it
	// (From -1 for an initial state and for one not reached yet): the
	// level-order search reaches each state first by one of its shortest
	// ways.
	preds []pred
	// steps holds the distinct steps of preds (few: the model's actions
	// with their inputs and outputs), stepIDs their indexes (up to
	// maxStepIDs, see step); last is the index of the step added or found
	// last (states reached one after the other are often reached by the
	// same step).
	steps   []predStep
	stepIDs map[predStep]int32
	last    int32
}

// pred is a counted transition without its target (the state it is kept
// for): where it comes from and its step in dropped.steps, 8 bytes a state
// instead of 16.
type pred struct{ From, Step int32 }

// predStep is a transition's action, inputs and output.
type predStep struct{ Action, Args, Out int32 }

// maxStepIDs bounds the steps that dropped.step interns: a model whose
// steps hardly repeat (an output new in nearly every state) would
// otherwise pay a map entry a state on top of the step.
const maxStepIDs = 1 << 16

// stepIDBytes is about what an entry of dropped.stepIDs takes (for
// explorer.tableBytes).
const stepIDBytes = 32

// step returns an index of s in d.steps, adding it when new. Past
// maxStepIDs distinct steps, a step not seen among the first is added
// again each time: 12 bytes for such a state, no map entry.
func (d *dropped) step(s predStep) int32 {
	if len(d.steps) > 0 && d.steps[d.last] == s {
		return d.last
	}
	id, ok := d.stepIDs[s]
	if !ok {
		if d.stepIDs == nil {
			d.stepIDs = map[predStep]int32{}
		}
		id = int32(len(d.steps))
		d.steps = append(d.steps, s)
		if len(d.stepIDs) < maxStepIDs {
			d.stepIDs[s] = id
		}
	}
	d.last = id
	return id
}

// transLen is the number of transitions so far, kept or counted.
func (e *explorer) transLen() int {
	if d := e.ex.dropped; d != nil {
		return d.n
	}
	return len(e.ex.Trans)
}

// since returns the transitions counted from the n-th on (the
// invocations being settled: addTrans looks for duplicates there),
// forgetting those before.
func (d *dropped) since(n int) []MTrans {
	if n > d.base {
		k := min(n-d.base, len(d.tail))
		d.tail = d.tail[:copy(d.tail, d.tail[k:])]
		d.base += k
	}
	return d.tail
}

// count counts t, and keeps it as the way to its target when that is the
// first (states are the exploration's).
func (d *dropped) count(t MTrans, states []MState) {
	d.tail = append(d.tail, t)
	d.n++
	if n := len(states); len(d.preds) < n {
		old := len(d.preds)
		d.preds = grow(d.preds, n-old)[:n]
		for i := old; i < n; i++ {
			d.preds[i] = pred{From: -1}
		}
	}
	if p := &d.preds[t.To]; p.From < 0 && !states[t.To].Initial && t.To != t.From {
		*p = pred{From: t.From, Step: d.step(predStep{Action: t.Action, Args: t.Args, Out: t.Out})}
	}
}

// TransitionsDropped tells whether the exploration counted its transitions
// without keeping them (Config.DropTransitions): Trans is then empty,
// Stats.Transitions counts them, and PredecessorPath gives a way to each
// state.
func (x *Exploration) TransitionsDropped() bool { return x.dropped != nil }

// PredecessorPath returns the transitions by which an exploration that
// dropped its transitions first reached model state m from an initial
// state: one of the shortest ways there. It returns nil for an initial
// state, for a state whose first transition the max transitions bound
// refused (a frontier state, in no transition of a kept graph either), and
// when the transitions were kept (Graph and PathTo give ways then).
func (x *Exploration) PredecessorPath(m int) []MTrans {
	d := x.dropped
	if d == nil {
		return nil
	}
	var path []MTrans
	for m < len(d.preds) && d.preds[m].From >= 0 && len(path) <= len(x.States) {
		p := d.preds[m]
		s := d.steps[p.Step]
		path = append(path, MTrans{From: p.From, To: int32(m), Action: s.Action, Args: s.Args, Out: s.Out})
		m = int(p.From)
	}
	for i, j := 0, len(path)-1; i < j; i, j = i+1, j-1 {
		path[i], path[j] = path[j], path[i]
	}
	return path
}

// TransLabel is the label Graph gives the model transition t: Name(args),
// Name(args)/output, with a leading ? when observable.
func (x *Exploration) TransLabel(t *MTrans) string {
	g := GTrans{Action: x.Model.Info().Actions[t.Action].Name, Args: x.ArgsOf(t), Output: x.OutputOf(t), Kind: x.Config.Actions[t.Action].Kind}
	return g.Label()
}

// transitions is the number of model transitions, kept or counted.
func (x *Exploration) transitions() int {
	if x.dropped != nil {
		return x.dropped.n
	}
	return len(x.Trans)
}
