package model

import (
	"slices"

	"go.starlark.net/starlark"
	"go.starlark.net/syntax"
)

// Compiled action bodies. An action whose leading require()s are compiled
// and are all of its requires (its cguard is complete) has the rest of its
// body compiled too, when it stays in the subset (compile.go) plus what an
// action does to its state: s.VAR = e, s.VAR[k]... = e, augmented
// assignments to them, any method of a value (s.ack[p].add(q)), and the
// functions of the model it passes the state to (broadcast(s, p, m)),
// compiled the same way. It runs on the step's record, as the interpreter
// would (the same thaw plan, copies and changes), only when the compiled
// guard held; no choose(), new(), require() or fail() (they are not in
// the subset). Anything that would raise an error or runs past its budget
// stops it, and the interpreter runs the action again from the start on a
// fresh record: what the compiled run changed was the run's own copies.

// runBody runs cf, an action's compiled body (after its leading
// requires), on r (a fresh record of s) with the action's arguments;
// false: the interpreter must run the action.
func (cf *cfunc) runBody(r *rec, s *sstate, args []starlark.Value, ctx *cctx) (starlark.Value, bool) {
	f := ctx.start(s, cf.nlocals, compileBudget)
	f.r = r
	copy(f.locals[1:], args)
	return cf.call(f)
}

// compileBodies compiles the bodies of the actions whose guards are
// complete.
func (m *StarModel) compileBodies(cc *compiler) {
	m.cbodies = make([]*cfunc, len(m.fns))
	for i, fn := range m.fns {
		if i >= len(m.cguards) || m.cguards[i] == nil || !m.cguards[i].complete {
			continue
		}
		def := cc.defOf(fn)
		if def == nil {
			continue
		}
		c := &gcomp{cc: cc, globals: cc.globalsOf(fn), nparams: fn.NumParams(), state: 0, body: true, requires: reqBody}
		g := m.cguards[i]
		stmts, ok := c.block(append(slices.Clip(g.assigns), def.Body[g.start:]...), false)
		if ok {
			m.cbodies[i] = &cfunc{nparams: fn.NumParams(), nlocals: m.cguards[i].nlocals, body: stmts}
		}
	}
}

// chooseCall compiles an action's choose(arg): the choice the run's
// odometer points at, as the interpreter's choose() makes it (choiceState
// .choose). An empty collection or an error says unknown: the interpreter
// runs the action again, and finds it disabled there or reports the
// error.
func (c *gcomp) chooseCall(arg syntax.Expr) cexpr {
	a := c.expr(arg)
	if a == nil {
		return nil
	}
	return func(f *cframe) (starlark.Value, bool) {
		coll, ok := a(f)
		if !ok || f.r == nil || !f.ctx.tick() {
			return nil, false
		}
		cs, _ := f.ctx.thread.Local(localChoice).(*choiceState)
		if cs == nil {
			return nil, false
		}
		v, err := cs.choose(coll)
		return v, err == nil && v != nil
	}
}

// stateTarget compiles s.VAR or X[K] as an assignment's target in an
// action's body.
func (c *gcomp) stateTarget(e syntax.Expr) func(f *cframe, v starlark.Value) bool {
	switch x := e.(type) {
	case *syntax.DotExpr:
		i, ok := c.stateVarIndex(x)
		if !ok {
			return nil
		}
		return func(f *cframe, v starlark.Value) bool { return f.r.setAt(i, v) == nil }
	case *syntax.IndexExpr:
		a, k := c.expr(x.X), c.expr(x.Y)
		if a == nil || k == nil {
			return nil
		}
		return func(f *cframe, v starlark.Value) bool {
			xv, ok := a(f)
			if !ok {
				return false
			}
			y, ok := k(f)
			return ok && setIndexValue(xv, y, v)
		}
	}
	return nil
}

// stateVarIndex returns the index of VAR in s.VAR.
func (c *gcomp) stateVarIndex(x *syntax.DotExpr) (int, bool) {
	if !c.isState(x.X) {
		return 0, false
	}
	i, ok := c.cc.m.varIndex[x.Name.Name]
	return i, ok
}

// setIndexValue is x[y] = z as the interpreter's setIndex does it; false
// where that raises an error (a frozen value among them).
func setIndexValue(x, y, z starlark.Value) bool {
	switch x := x.(type) {
	case starlark.HasSetKey:
		return x.SetKey(y, z) == nil
	case starlark.HasSetIndex:
		n := x.Len()
		i, err := starlark.AsInt32(y)
		if err != nil {
			return false
		}
		if i < 0 {
			i += n
		}
		return i >= 0 && i < n && x.SetIndex(i, z) == nil
	}
	return false
}

// augmentState compiles s.VAR op= e and X[K] op= e in an action's body:
// the target's parts first, then its value, then e, as the interpreter
// orders them. A list's += (which extends it in place) is left to the
// interpreter.
func (c *gcomp) augmentState(op syntax.Token, lhs syntax.Expr, rhs cexpr) cstmt {
	var get func(f *cframe) (starlark.Value, func(starlark.Value) bool, bool)
	switch x := lhs.(type) {
	case *syntax.DotExpr:
		i, ok := c.stateVarIndex(x)
		if !ok {
			return nil
		}
		get = func(f *cframe) (starlark.Value, func(starlark.Value) bool, bool) {
			old, err := f.r.attrAt(i)
			return old, func(v starlark.Value) bool { return f.r.setAt(i, v) == nil }, err == nil
		}
	case *syntax.IndexExpr:
		a, k := c.expr(x.X), c.expr(x.Y)
		if a == nil || k == nil {
			return nil
		}
		get = func(f *cframe) (starlark.Value, func(starlark.Value) bool, bool) {
			xv, ok := a(f)
			if !ok {
				return nil, nil, false
			}
			y, ok := k(f)
			if !ok {
				return nil, nil, false
			}
			old, ok := indexValue(xv, y)
			return old, func(v starlark.Value) bool { return setIndexValue(xv, y, v) }, ok
		}
	default:
		return nil
	}
	return func(f *cframe) (flow, starlark.Value) {
		old, set, ok := get(f)
		if !ok || old == nil {
			return flowUnknown, nil
		}
		if _, isList := old.(*starlark.List); isList {
			return flowUnknown, nil
		}
		v, ok := rhs(f)
		if !ok {
			return flowUnknown, nil
		}
		r, ok := f.ctx.binary(op, old, v)
		if !ok || !set(r) {
			return flowUnknown, nil
		}
		return flowNext, nil
	}
}
