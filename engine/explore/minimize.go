package explore

import (
	"encoding/binary"
	"slices"
)

// Minimize merges the states of an exploration that have the same future:
// the coarsest strong bisimulation over the transitions' labels (action,
// inputs and output), in which two states are equivalent only when they
// also agree on their marks — accepting, deadlock, cut off by a bound
// (frontier), model error, and the text of an invariant violation. It is Spec
// Explorer's "exploration cleanup": a variable that never influences what
// can happen (a counter nobody reads, a log) multiplies the states of the
// graph, and the minimised graph is the graph without it.
//
// It returns a new exploration over the same model and configuration whose
// states are the classes, each standing for its first state in exploration
// order (its variables, label and depth are that state's; it is initial
// when any of its states is), in order of that first state, with one
// transition per class, label and target class; and class, which maps each
// state of x to its class. x is not changed (the new exploration shares its
// keys; Merged says how many states each class has). Partition
// refinement by signatures (see refiner): classes split by the labels and
// target classes of their states' transitions until none splits.
func (x *Exploration) Minimize() (*Exploration, []int) {
	off, adj := x.outAdjacency()
	class, _ := x.markClasses()
	r := refiner{x: x, class: class, off: off, adj: adj}
	r.preds()
	r.run()
	// Numbered in order of their first state: the partition is the unique
	// coarsest one, its numbers do not depend on the order of the splits.
	index := map[int]int{}
	out := make([]int, len(class))
	for i, c := range class {
		n, ok := index[c]
		if !ok {
			n = len(index)
			index[c] = n
		}
		out[i] = n
	}
	return x.quotientExploration(out, len(index), off, adj), out
}

// refiner splits classes until every state of a class has the same moves
// to the same classes. A class keeps its number for the part that keeps
// its signature (the first time it is split, its largest part); only the
// states with a successor that moved are looked at again, so that a long
// chain of splits — a path that tells states apart one step at a time —
// does not go over every state each time.
type refiner struct {
	x     *Exploration
	class []int
	off   []int
	adj   []int32
	poff  []int    // predecessors of state i: pred[poff[i]:poff[i+1]]
	pred  []int32  //
	sig   []string // each class's signature (its members' moves), once known
	known []bool
	size  []int // states in each class
	dirty []bool
	queue []int
	buf   []byte
}

// preds lists each state's predecessors.
func (r *refiner) preds() {
	n := len(r.x.States)
	r.poff = make([]int, n+1)
	for i := range r.x.Trans {
		r.poff[r.x.Trans[i].To+1]++
	}
	for i := 1; i <= n; i++ {
		r.poff[i] += r.poff[i-1]
	}
	r.pred = make([]int32, len(r.x.Trans))
	fill := slices.Clone(r.poff[:n])
	for i := range r.x.Trans {
		t := r.x.Trans[i].To
		r.pred[fill[t]] = r.x.Trans[i].From
		fill[t]++
	}
}

func (r *refiner) run() {
	n := len(r.x.States)
	classes := 0
	for _, c := range r.class {
		classes = max(classes, c+1)
	}
	r.sig, r.known, r.size = make([]string, classes), make([]bool, classes), make([]int, classes)
	for _, c := range r.class {
		r.size[c]++
	}
	r.dirty = make([]bool, n)
	for i := 0; i < n; i++ {
		r.dirty[i] = true
		r.queue = append(r.queue, i)
	}
	for len(r.queue) > 0 {
		batch := r.queue
		r.queue = nil
		// The batch by class, classes in order of first appearance.
		byClass := map[int][]int{}
		var order []int
		for _, s := range batch {
			c := r.class[s]
			if byClass[c] == nil {
				order = append(order, c)
			}
			byClass[c] = append(byClass[c], s)
		}
		for _, c := range order {
			r.split(c, byClass[c])
		}
	}
}

// split looks again at the states of class c whose moves may have changed:
// those whose signature is no longer the class's move to new classes (one
// per signature), and their predecessors are looked at next.
func (r *refiner) split(c int, states []int) {
	groups := map[string][]int{}
	var keys []string
	for _, s := range states {
		if r.class[s] != c {
			continue // moved by an earlier split of this batch: looked at again later if needed
		}
		r.dirty[s] = false
		r.buf = r.x.signature(r.buf[:0], r.class, r.adj[r.off[s]:r.off[s+1]])
		k := string(r.buf)
		if r.known[c] && k == r.sig[c] {
			continue
		}
		if groups[k] == nil {
			keys = append(keys, k)
		}
		groups[k] = append(groups[k], s)
	}
	changed := 0
	for _, k := range keys {
		changed += len(groups[k])
	}
	if changed == r.size[c] && len(keys) > 0 {
		// No state keeps the class's signature (the first look at it, or
		// all its successors moved): its largest group keeps it.
		best := keys[0]
		for _, k := range keys[1:] {
			if len(groups[k]) > len(groups[best]) {
				best = k
			}
		}
		r.sig[c], r.known[c] = best, true
		delete(groups, best)
	}
	for _, k := range keys {
		g, ok := groups[k]
		if !ok {
			continue
		}
		nc := len(r.sig)
		r.sig, r.known, r.size = append(r.sig, k), append(r.known, true), append(r.size, len(g))
		r.size[c] -= len(g)
		for _, s := range g {
			r.class[s] = nc
		}
		for _, s := range g {
			for _, p := range r.pred[r.poff[s]:r.poff[s+1]] {
				if !r.dirty[p] {
					r.dirty[p] = true
					r.queue = append(r.queue, int(p))
				}
			}
		}
	}
}

// outAdjacency lists the transitions leaving each state: those of state i
// are adj[off[i]:off[i+1]] (indices into x.Trans).
func (x *Exploration) outAdjacency() ([]int, []int32) {
	off := make([]int, len(x.States)+1)
	for i := range x.Trans {
		off[x.Trans[i].From+1]++
	}
	for i := 1; i < len(off); i++ {
		off[i] += off[i-1]
	}
	adj := make([]int32, len(x.Trans))
	fill := slices.Clone(off[:len(x.States)])
	for i := range x.Trans {
		f := x.Trans[i].From
		adj[fill[f]] = int32(i)
		fill[f]++
	}
	return off, adj
}

// markClasses is the first partition: states with the same marks.
func (x *Exploration) markClasses() ([]int, int) {
	type mark struct {
		accepting, frontier, modelErr, deadlock bool
		err                                     string
	}
	index := map[mark]int{}
	class := make([]int, len(x.States))
	for i := range x.States {
		s := &x.States[i]
		k := mark{s.Accepting, s.Frontier, s.ModelErr, s.Deadlock, x.StateError(i)}
		c, ok := index[k]
		if !ok {
			c = len(index)
			index[k] = c
		}
		class[i] = c
	}
	return class, len(index)
}

// signature appends the sorted, distinct (action, inputs, output, target
// class) of a state's transitions out to buf.
func (x *Exploration) signature(buf []byte, class []int, out []int32) []byte {
	type edge struct{ action, args, out, to int32 }
	var small [16]edge
	edges := small[:0]
	for _, t := range out {
		tr := &x.Trans[t]
		edges = append(edges, edge{tr.Action, tr.Args, tr.Out, int32(class[tr.To])})
	}
	slices.SortFunc(edges, func(a, b edge) int {
		if a.action != b.action {
			return int(a.action - b.action)
		}
		if a.args != b.args {
			return int(a.args - b.args)
		}
		if a.out != b.out {
			return int(a.out - b.out)
		}
		return int(a.to - b.to)
	})
	for j, e := range edges {
		if j > 0 && e == edges[j-1] {
			continue
		}
		buf = binary.AppendUvarint(buf, uint64(e.action))
		buf = binary.AppendUvarint(buf, uint64(e.args))
		buf = binary.AppendUvarint(buf, uint64(e.out))
		buf = binary.AppendUvarint(buf, uint64(e.to))
	}
	return buf
}

// quotientExploration builds the exploration of the classes: the first
// state of each class stands for it, with its transitions to classes.
func (x *Exploration) quotientExploration(class []int, count int, off []int, adj []int32) *Exploration {
	// Classes are numbered in order of their first state, so class c's
	// first state is found when c first appears.
	rep := make([]int, 0, count)
	y := &Exploration{Model: x.Model, Config: x.Config, Stats: x.Stats, ArgTable: x.ArgTable, OutTable: x.OutTable,
		strs: x.strs, States: make([]MState, 0, count), Merged: make([]int, count)}
	for i := range x.States {
		c := class[i]
		y.Merged[c] += x.merged(i)
		if c == len(rep) {
			rep = append(rep, i)
			s := x.States[i]
			// A key follows the key of the state before in the arena
			// (StateKey): the representatives' keys are copied.
			s.setKeyLoc(y.storeKey(x.StateKey(i)))
			y.States = append(y.States, s)
			y.setNote(c, x.note(i))
			continue
		}
		s := &y.States[c]
		s.Initial = s.Initial || x.States[i].Initial
		s.Depth = min(s.Depth, x.States[i].Depth)
	}
	seen := map[MTrans]bool{}
	for c, r := range rep {
		for _, t := range adj[off[r]:off[r+1]] {
			tr := x.Trans[t]
			tr.From, tr.To = int32(c), int32(class[tr.To])
			if !seen[tr] {
				seen[tr] = true
				y.Trans = append(y.Trans, tr)
			}
		}
	}
	y.Stats.States, y.Stats.Transitions = len(y.States), len(y.Trans)
	y.countStates()
	return y
}

// merged is the number of states state i stands for (1 in an exploration
// that was not minimised).
func (x *Exploration) merged(i int) int {
	if x.Merged == nil {
		return 1
	}
	return x.Merged[i]
}
