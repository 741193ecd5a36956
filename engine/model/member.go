package model

import (
	"unsafe"

	"go.starlark.net/starlark"
	"go.starlark.net/syntax"
)

// memberTuple compiles (e1, ..., en) in Y (and not in) with a tuple that
// is not a constant: the tuple is built in the evaluation's scratch, not
// allocated, since a membership test keeps nothing of it (a hash and
// comparisons). PaxosCommit's ("phase2b", rm, b, v, ac) in s.msgs was a
// tenth of what its exploration allocated (docs/performance.md, "Two
// workers against one"). Nil when x is not one.
func (c *gcomp) memberTuple(x *syntax.BinaryExpr) cexpr {
	lhs := x.X
	for {
		p, ok := lhs.(*syntax.ParenExpr)
		if !ok {
			break
		}
		lhs = p.X
	}
	tx, ok := lhs.(*syntax.TupleExpr)
	if !ok || c.constants(tx.List) {
		return nil
	}
	parts, ok := c.exprs(tx.List)
	if !ok {
		return nil
	}
	coll := c.expr(x.Y)
	if coll == nil {
		return nil
	}
	op := x.Op
	return func(f *cframe) (starlark.Value, bool) {
		ctx := f.ctx
		off := len(ctx.tmp)
		pop := func() { clear(ctx.tmp[off:]); ctx.tmp = ctx.tmp[:off] }
		for _, p := range parts {
			v, ok := p(f) // what it pushes on the scratch it pops
			if !ok {
				pop()
				return nil, false
			}
			ctx.tmp = append(ctx.tmp, v)
		}
		y, ok := coll(f)
		if !ok {
			pop()
			return nil, false
		}
		end := off + len(parts) // the scratch may have moved: sliced now
		t := starlark.Tuple(ctx.tmp[off:end:end])
		var r starlark.Value
		if keeps(y) {
			r, ok = ctx.binary(op, t, y)
		} else {
			r, ok = ctx.binary(op, ctx.boxedTuple(t), y)
		}
		pop()
		return r, ok
	}
}

// keeps tells whether y's membership test might keep its key: anything but
// Starlark's sets, dicts, lists and tuples (which hash and compare it).
func keeps(y starlark.Value) bool {
	switch y.(type) {
	case *starlark.Set, *starlark.Dict, *starlark.List, starlark.Tuple:
		return false
	}
	return true
}

// boxedTuple returns t as a Value without allocating: the context's own
// boxed tuple, its header set to t's. Boxing a tuple copies its header to
// the heap (24 bytes: PaxosCommit's ("phase2b", rm, b, v, ac) in s.msgs
// made 0.2 GB of them); a membership test in a set, dict, list or tuple
// keeps nothing of its key once it returns, so one box serves every test
// of the context, one at a time (nothing compiled runs inside a test).
func (c *cctx) boxedTuple(t starlark.Tuple) starlark.Value {
	if c.tbox == nil {
		// a tuple of one element: boxing an empty one may share the
		// runtime's zero value, which must not be written
		c.tbox = starlark.Value(make(starlark.Tuple, 1))
	}
	type eface struct{ typ, data unsafe.Pointer }
	*(*starlark.Tuple)((*eface)(unsafe.Pointer(&c.tbox)).data) = t
	return c.tbox
}
