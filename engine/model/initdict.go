package model

import (
	"sync/atomic"

	"go.starlark.net/starlark"
	"go.starlark.net/syntax"
)

// initialDict compiles init()'s initial({"v1": e1, ..., "vn": en}), a dict
// display whose keys are distinct string literals, so that the state is
// encoded from the values without a dict: Bakery's init() gives 655,200
// states, and each dict (about 480 bytes, six keys hashed in and read out
// again) was a third of what its loop allocated. When the keys are not
// the model's variables (or the variables are not known yet), the dict is
// made and given as initial() would, with the same errors. nil: not such
// a display, or a value that does not compile.
func (c *gcomp) initialDict(x *syntax.DictExpr) cexpr {
	names := make([]string, len(x.List))
	vals := make([]cexpr, len(x.List))
	seen := map[string]bool{}
	for i, e := range x.List {
		entry, ok := e.(*syntax.DictEntry)
		if !ok {
			return nil
		}
		lit, ok := entry.Key.(*syntax.Literal)
		if !ok || lit.Token != syntax.STRING {
			return nil
		}
		name := lit.Value.(string)
		if seen[name] {
			return nil
		}
		seen[name] = true
		if vals[i] = c.expr(entry.Value); vals[i] == nil {
			return nil
		}
		names[i] = name
	}
	m := c.cc.m
	var slots atomic.Pointer[[]int] // the variable of each key, once known
	return func(f *cframe) (starlark.Value, bool) {
		var buf [16]starlark.Value
		vs := buf[:0]
		for _, e := range vals {
			v, ok := e(f)
			if !ok {
				return nil, false
			}
			vs = append(vs, v)
		}
		sink, _ := f.ctx.thread.Local(localInit).(*initSink)
		if !f.ctx.tick() || sink == nil {
			return nil, false
		}
		sl := slots.Load()
		if sl == nil && len(m.info.Vars) > 0 {
			s := varSlots(m, names)
			sl = &s
			slots.Store(sl)
		}
		if sl == nil || *sl == nil {
			d := starlark.NewDict(len(names))
			for i, name := range names {
				if d.SetKey(starlark.String(name), vs[i]) != nil {
					return nil, false
				}
			}
			return starlark.None, sink.add(d) == nil
		}
		return starlark.None, sink.addValues(*sl, vs) == nil
	}
}

// varSlots returns the index of the variable each name is, or nil unless
// the names are the model's variables, each once.
func varSlots(m *StarModel, names []string) []int {
	if len(names) != len(m.info.Vars) {
		return nil
	}
	out := make([]int, len(names))
	for i, name := range names {
		v, ok := m.varIndex[name]
		if !ok {
			return nil
		}
		out[i] = v
	}
	return out
}
