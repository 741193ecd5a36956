package model

import (
	"go.starlark.net/starlark"
	"go.starlark.net/syntax"
)

// methodCall compiles X.NAME(args): a method that changes nothing, or, in
// an action's body, any method of a value (set.add and list.append without
// a bound method: insertCall).
func (c *gcomp) methodCall(fn *syntax.DotExpr, args []syntax.Expr) cexpr {
	if fn.Name.Name == "append" && c.cc.appends && len(args) == 1 {
		return c.appendCall(fn.X, args[0])
	}
	if !pureMethods[fn.Name.Name] && !c.body {
		return nil // a method that changes its receiver: only in an action's body
	}
	recv := c.expr(fn.X)
	parts, ok := c.exprs(args)
	if recv == nil || !ok {
		return nil
	}
	name := fn.Name.Name
	sized := copying[name]
	return func(f *cframe) (starlark.Value, bool) {
		r, ok := recv(f)
		if !ok {
			return nil, false
		}
		ha, ok := r.(starlark.HasAttrs)
		if !ok {
			return nil, false
		}
		if _, isRec := r.(*rec); isRec {
			return nil, false
		}
		if v, ok, done := insertCall(f, r, name, parts); done {
			return v, ok
		}
		m, err := ha.Attr(name)
		if err != nil || m == nil {
			return nil, false
		}
		if _, isBuiltin := m.(*starlark.Builtin); !isBuiltin {
			return nil, false // a field holding a function of the model
		}
		return callWith(f, m, r, sized, parts)
	}
}

// insertCall runs set.add(x) and list.append(x) without the bound method
// the interpreter makes for them (an allocation a call: PaxosCommit's
// s.msgs.add(...)): Set.Insert and List.Append change what set_add and
// list_append change, and fail where they fail (a frozen value, an
// unhashable element), when the call says unknown and the interpreter
// reports the error. done false: not such a call.
func insertCall(f *cframe, r starlark.Value, name string, parts []cexpr) (v starlark.Value, ok, done bool) {
	set, isSet := r.(*starlark.Set)
	list, isList := r.(*starlark.List)
	if len(parts) != 1 || !(isSet && name == "add" || isList && name == "append") {
		return nil, false, false
	}
	a, ok := parts[0](f)
	if !ok || !f.ctx.tick() {
		return nil, false, true
	}
	var err error
	if isSet {
		err = set.Insert(a)
	} else {
		err = list.Append(a)
	}
	if err != nil {
		return nil, false, true
	}
	return starlark.None, true, true
}
