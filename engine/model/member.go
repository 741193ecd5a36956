package model

import (
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
		r, ok := ctx.binary(op, starlark.Tuple(ctx.tmp[off:end:end]), y)
		pop()
		return r, ok
	}
}
