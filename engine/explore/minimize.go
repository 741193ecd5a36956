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
// keys; Merged says how many states each class has). Partition refinement by signatures: each round splits the classes
// by the labels and target classes of their states' transitions, until no
// class splits — at most as many rounds as the longest distinguishing
// path, each linear in the transitions.
func (x *Exploration) Minimize() (*Exploration, []int) {
	n := len(x.States)
	off, adj := x.outAdjacency()
	class, count := x.markClasses()
	next := make([]int, n)
	var sig []byte
	for {
		index := make(map[string]int, count)
		for i := 0; i < n; i++ {
			sig = x.signature(sig[:0], class, i, adj[off[i]:off[i+1]])
			c, ok := index[string(sig)]
			if !ok {
				c = len(index)
				index[string(sig)] = c
			}
			next[i] = c
		}
		class, next = next, class
		if len(index) == count {
			break
		}
		count = len(index)
	}
	return x.quotientExploration(class, count, off, adj), class
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

// signature appends state i's class and the sorted, distinct (action,
// inputs, output, target class) of its transitions to buf.
func (x *Exploration) signature(buf []byte, class []int, i int, out []int32) []byte {
	buf = binary.AppendUvarint(buf, uint64(class[i]))
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
		keys: x.keys, strs: x.strs, States: make([]MState, 0, count), Merged: make([]int, count)}
	for i := range x.States {
		c := class[i]
		y.Merged[c] += x.merged(i)
		if c == len(rep) {
			rep = append(rep, i)
			y.States = append(y.States, x.States[i])
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
