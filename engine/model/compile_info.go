package model

import "go.starlark.net/starlark"

// What the compiler knows of a model: its modules' globals, and which of
// the model's functions run compiled (see compile.go).

// globalsOf returns the globals of fn's module.
func (cc *compiler) globalsOf(fn *starlark.Function) starlark.StringDict {
	g, ok := cc.globals[fn.Module()]
	if !ok {
		if cc.globals == nil {
			cc.globals = map[*starlark.Module]starlark.StringDict{}
		}
		g = fn.Globals()
		cc.globals[fn.Module()] = g
	}
	return g
}

// Compiled names the model's functions that run compiled (the rest run in
// the interpreter): "init", "invariant", "state_filter", "accepting", and
// "NAME guard" and "NAME body" for each action NAME, in that order.
func (m *StarModel) Compiled() []string {
	var out []string
	if m.cc == nil {
		return nil
	}
	m.ccMu.Lock()
	cf := m.initFunc(newCompiler(m, m.cc.sources))
	m.ccMu.Unlock()
	if cf != nil && cf.body != nil {
		out = append(out, "init")
	}
	for _, x := range []struct {
		name string
		cf   *cfunc
	}{{"invariant", m.cinvariant}, {"state_filter", m.cfilter}, {"accepting", m.caccepting}} {
		if x.cf != nil && x.cf.body != nil {
			out = append(out, x.name)
		}
	}
	for i, a := range m.info.Actions {
		if i < len(m.cguards) && m.cguards[i] != nil && m.cguards[i].complete {
			out = append(out, a.Name+" guard")
		}
		if i < len(m.cbodies) && m.cbodies[i] != nil {
			out = append(out, a.Name+" body")
		}
	}
	return out
}
