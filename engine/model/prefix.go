package model

import (
	"go.starlark.net/resolve"
	"go.starlark.net/syntax"
)

// Guards of a prefix of the arguments. A PlusCal translation's actions open
// with the process's label, require(s.pc[p] == "e2" and i in
// s.unchecked[p]): for a process p whose label is another, every i is
// disabled by a conjunct that reads p alone. An explorer that asks that
// conjunct once per p skips the combinations of the other arguments
// (MCBakery: 26 of a state's 46 tries are such combinations, and one p in
// nine has the label). The answer is the compiled guard's, so it only ever
// says disabled when the interpreter's first failing require() would be
// among those conjuncts, with the same values: they read nothing but the
// state and the arguments of the prefix.

// PrefixGuard is a worker whose actions' leading requires can be asked
// about a prefix of the arguments (the explorer skips the combinations of
// the rest).
type PrefixGuard interface {
	// GuardPrefix returns k, fewer than the action's parameters, such that
	// the action's first compiled conjuncts read the state and its first k
	// arguments alone; ok false when there is none.
	GuardPrefix(action int) (k int, ok bool)
	// DisabledByPrefix reports whether those conjuncts are false in st for
	// the first k arguments args: then the action is disabled for every
	// value of the others. False says nothing.
	DisabledByPrefix(st State, action int, args []Value) bool
}

// prefixNeeds sets, per compiled conjunct, how many leading parameters it
// reads (nparams when it reads other locals too), and the guard's prefix:
// the leading conjuncts that need no more than the first does.
func (g *cguard) prefixNeeds(conjs []syntax.Node, nparams int) {
	g.prefixK = -1
	if len(conjs) == 0 {
		return
	}
	need := func(e syntax.Node) int {
		n := 0
		syntax.Walk(e, func(x syntax.Node) bool {
			id, ok := x.(*syntax.Ident)
			if !ok {
				return true
			}
			if b, ok := id.Binding.(*resolve.Binding); ok && (b.Scope == resolve.Local || b.Scope == resolve.Cell) {
				if b.Index >= nparams {
					n = nparams // a comprehension's own variable: not a prefix
				} else {
					n = max(n, b.Index) // local 0 is the state; parameter i is local i
				}
			}
			return true
		})
		return n
	}
	k := need(conjs[0])
	if k >= nparams-1 { // the state and every parameter: no prefix to skip by
		return
	}
	j := 0
	for j < len(conjs) && need(conjs[j]) <= k {
		j++
	}
	g.prefixK, g.prefixConds = k, j
}

// evalPrefix evaluates the prefix's conjuncts with the first prefixK
// arguments.
func (g *cguard) evalPrefix(s *sstate, args []Value, ctx *cctx) ctruth {
	f := ctx.start(s, g.nlocals, compileBudget)
	copy(f.locals[1:], args[:g.prefixK])
	for _, c := range g.conds[:g.prefixConds] {
		v, ok := c(f)
		if !ok {
			return cUnknown
		}
		if !v.Truth() {
			return cFalse
		}
	}
	return cTrue
}

// GuardPrefix implements PrefixGuard.
func (w *starWorker) GuardPrefix(action int) (int, bool) {
	if w.m.noCGuards || action >= len(w.m.cguards) || w.m.cguards[action] == nil {
		return 0, false
	}
	k := w.m.cguards[action].prefixK
	return k, k >= 0
}

// DisabledByPrefix implements PrefixGuard.
func (w *starWorker) DisabledByPrefix(st State, action int, args []Value) bool {
	k, ok := w.GuardPrefix(action)
	if !ok || len(args) < k || w.fast.detail {
		return false
	}
	s, err := w.m.ensure(st)
	if err != nil {
		return false
	}
	return w.m.cguards[action].evalPrefix(s, args, &w.cctx) == cFalse
}
