package model

import (
	"go.starlark.net/starlark"
	"go.starlark.net/syntax"
)

// all() and any(), compiled.

// decided marks a truthFold whose answer an element has decided.
var decided = []starlark.Value{}

// truthFold is all([e for ...]) or any([e for ...]) without the list
// (LamportMutex's filter all([s.clock[p] <= MAX_CLOCK for p in PROCS]) on
// every successor): every element is evaluated as the comprehension
// evaluates it, in the same order, with the same errors and budget, and
// only whether one of them decides the answer is kept.
func (c *gcomp) truthFold(x *syntax.Comprehension, all bool) cexpr {
	body := c.expr(x.Body)
	if body == nil {
		return nil
	}
	run := c.clauses(x, func(f *cframe, out []starlark.Value) ([]starlark.Value, bool) {
		v, ok := body(f)
		if ok && out == nil && bool(v.Truth()) != all {
			out = decided
		}
		return out, ok
	}, false)
	if run == nil {
		return nil
	}
	return func(f *cframe) (starlark.Value, bool) {
		out, ok := run(f, nil)
		if !ok {
			return nil, false
		}
		return starlark.Bool((out == nil) == all), true
	}
}

// truthAll is all(xs) or any(xs).
func truthAll(a cexpr, all bool) cexpr {
	return func(f *cframe) (starlark.Value, bool) {
		v, ok := a(f)
		if !ok {
			return nil, false
		}
		// Truth changes nothing: a list is read by index meanwhile.
		if elems, ok := indexable(v, true); ok {
			for i := range elems.Len() {
				if bool(elems.Index(i).Truth()) != all {
					return starlark.Bool(!all), true
				}
			}
			return starlark.Bool(all), true
		}
		it := starlark.Iterate(v)
		if it == nil {
			return nil, false
		}
		defer it.Done()
		var x starlark.Value
		for it.Next(&x) {
			if bool(x.Truth()) != all {
				return starlark.Bool(!all), true
			}
		}
		return starlark.Bool(all), true
	}
}
