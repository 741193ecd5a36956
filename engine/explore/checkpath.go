package explore

import (
	"fmt"
	"strings"

	"github.com/modex/modex/engine/fpset"
	"github.com/modex/modex/engine/model"
)

// rebuild finds the way to a violation again: the trace gives the
// fingerprints of the states from an initial one to it; the initial state
// with the first is found among the model's, and each next one among the
// successors of the last, stepped again by the same expansion (TLC rebuilds
// its traces the same way).
func (c *checker) rebuild(f *firstViolation) (*Violation, error) {
	fps, err := c.trace.Chain(f.idx)
	if err != nil {
		return nil, err
	}
	c.mem = nil // every target new: each comes with its key and facts
	e := c.e
	key, err := c.initialWith(fps[0])
	if err != nil {
		return nil, err
	}
	v := &Violation{Kind: f.kind, Message: f.message}
	for i, fp := range fps[1:] {
		r, err := c.expandKey(key)
		if err != nil {
			return nil, err
		}
		step, next, isErr, ok := c.stepTo(r, fp)
		if !ok {
			return nil, fmt.Errorf("the way to the %s could not be rebuilt: no step from the state at depth %d reaches the next (is the model deterministic?)", f.kind, i)
		}
		v.Path = append(v.Path, step)
		if isErr {
			v.failed = true
			break // the last step failed: key stays the state it failed in
		}
		key = next
	}
	w := e.workers[0]
	st, err := w.Decode(key)
	if err != nil {
		return v, nil // the state that could not be decoded (its error is the message)
	}
	v.Vars = w.Vars(st)
	if f.kind == "invariant" {
		msg, err := w.Invariant(st)
		if err != nil {
			return nil, err
		}
		v.Message = msg
	}
	return v, nil
}

// initialWith returns the key of the initial state whose fingerprint is fp.
func (c *checker) initialWith(fp uint64) (string, error) {
	inits, err := c.e.initialStates()
	if err != nil {
		return "", err
	}
	for i := range inits.n {
		if k := inits.key(i); fpset.Fingerprint(k) == fp {
			return strings.Clone(k), nil
		}
	}
	return "", fmt.Errorf("the way to a violation could not be rebuilt: no initial state has its first state's fingerprint %#x", fp)
}

// expandKey expands the state with this key, alone, as the search did.
func (c *checker) expandKey(key string) (*srcResult, error) {
	x := c.e.ex
	x.keys = append(x.keys[:0], []byte(key))  // a copy, never changed (see loadChunk)
	x.States = append(x.States[:0], MState{}) // its key: the whole chunk
	r := &c.e.expandLevel([]int32{0})[0]
	if !r.done {
		return nil, fmt.Errorf("the way to a violation could not be rebuilt: %v", c.e.ctx.Err())
	}
	if r.err != nil {
		return nil, r.err
	}
	return r, nil
}

// stepTo finds, among the pending transitions of an expansion, the first
// that reaches the state (or error state) with fingerprint fp: its step,
// its target's key (a copy), and whether the target is an error state.
func (c *checker) stepTo(r *srcResult, fp uint64) (step GTrans, next string, isErr, ok bool) {
	e := c.e
	for j := range r.trans {
		pt := &r.trans[j]
		switch {
		case pt.x != nil && pt.x.err != nil:
			isErr = true
			if fpset.Fingerprint("\xff!"+pt.x.err.Error()) != fp {
				continue
			}
		case pt.info == nil:
			continue
		case pt.info.err != nil:
			isErr = true
			if fpset.Fingerprint("\xff!"+pt.info.err.Error()) != fp {
				continue
			}
		default:
			isErr = false
			if pt.info.filtered || pt.hk.a != fp {
				continue
			}
		}
		a := e.info.Actions[pt.action]
		step = GTrans{Action: a.Name, Kind: e.cfg.Actions[pt.action].Kind, ModelTrans: -1}
		switch {
		case pt.argsID >= 0:
			step.Args = e.ex.ArgTable[pt.argsID]
		case pt.x != nil:
			step.Args = pt.x.args
		}
		switch {
		case pt.outID >= 0:
			step.Output = e.ex.OutTable[pt.outID]
		case pt.x != nil && pt.x.out != nil:
			step.Output = pt.x.out
		}
		if isErr {
			return step, "", true, true
		}
		return step, strings.Clone(pt.key), false, true
	}
	return GTrans{}, "", false, false
}

// ViolationText says what the violation is and how it is reached, in the
// words of modex explore's report of a deadlock: "invariant violated:
// MSG, in the state reached by A(1), B(2)", and the state's variables on
// the next lines, indented.
func (v *Violation) ViolationText() string {
	var steps []string
	for i := range v.Path {
		if l := v.Path[i].Label(); l != "" {
			steps = append(steps, l)
		}
	}
	path := strings.Join(steps, ", ")
	if path == "" {
		path = "an initial state"
	}
	var b strings.Builder
	switch v.Kind {
	case "invariant":
		fmt.Fprintf(&b, "invariant violated: %s, in the state reached by %s", v.Message, path)
	case "deadlock":
		fmt.Fprintf(&b, "deadlock: nothing is enabled in the state reached by %s (check_deadlock = false in the configuration turns the check off)", path)
	default:
		if v.failed {
			fmt.Fprintf(&b, "model error: %s, at the last step of %s", v.Message, path)
		} else {
			fmt.Fprintf(&b, "model error: %s, in the state reached by %s", v.Message, path)
		}
	}
	for _, x := range v.Vars {
		fmt.Fprintf(&b, "\n    %s = %s", x.Name, model.Format(x.Value))
	}
	return b.String()
}

// Words is a check's summary in the words of modex explore's, with the
// search's depth: "1000000 states, 5400000 transitions, 6000000 tried,
// depth 54, 5.895 s, complete", and the initial states, error states and
// deadlocks when there are any.
func (r *CheckResult) Words() string {
	st := r.Stats
	extra := ""
	if n := st.InitialStates; n > 1 {
		extra += fmt.Sprintf(", %d initial", n)
	}
	if st.ErrorStates > 0 {
		extra += ", " + Count(st.ErrorStates, "error state")
	}
	if st.Deadlocks > 0 {
		extra += ", " + Count(st.Deadlocks, "deadlock")
	}
	size := SizeWords(st.States+st.Passive, st.Transitions+st.Timeouts, st.States)
	return fmt.Sprintf("%s, %d tried, depth %d, %.3f s, %s%s", size, st.Tried, r.Depth, st.Seconds, st.Ending(), extra)
}

// Figures says what a check's fingerprints and files come to: TLC's two
// estimates of a fingerprint collision, the states generated, the disk and
// the heap it took at most.
func (r *CheckResult) Figures() string {
	actual := "no figure from the fingerprints (the check stopped)"
	if r.Stats.Complete {
		actual = fmt.Sprintf("%.1e from the fingerprints", r.CollisionActual)
	}
	return fmt.Sprintf("checked without a graph: fingerprint collision probability %.1e calculated (optimistic), %s; %s generated; disk %s at most (%s, %s); peak heap %s",
		r.Collision, actual, Thousands(r.Generated), Bytes(r.DiskBytes), Count(r.Spills, "spill"), Count(r.Merges, "merge"), Bytes(int64(r.PeakHeap)))
}
