package model

import (
	"go.starlark.net/resolve"
	"go.starlark.net/starlark"
	"go.starlark.net/syntax"
)

// The operators and calls of compiled functions (see compile.go).

func (c *gcomp) binary(x *syntax.BinaryExpr) cexpr {
	if x.Op == syntax.IN || x.Op == syntax.NOT_IN {
		if m := c.memberTuple(x); m != nil {
			return m
		}
	}
	a, b := c.expr(x.X), c.expr(x.Y)
	if a == nil || b == nil {
		return nil
	}
	op := x.Op
	switch op {
	case syntax.AND, syntax.OR:
		and := op == syntax.AND
		return func(f *cframe) (starlark.Value, bool) {
			v, ok := a(f)
			if !ok {
				return nil, false
			}
			if bool(v.Truth()) != and {
				return v, true
			}
			return b(f)
		}
	case syntax.EQL, syntax.NEQ, syntax.LT, syntax.GT, syntax.LE, syntax.GE:
		return func(f *cframe) (starlark.Value, bool) {
			u, v, ok := operands(f, a, b)
			if !ok {
				return nil, false
			}
			if r, ok := compareFast(op, u, v); ok {
				return r, true
			}
			r, err := starlark.Compare(op, u, v)
			return starlark.Bool(r), err == nil
		}
	case syntax.IN, syntax.NOT_IN, syntax.PLUS, syntax.MINUS, syntax.STAR, syntax.SLASHSLASH, syntax.PERCENT,
		syntax.PIPE, syntax.AMP, syntax.CIRCUMFLEX, syntax.LTLT, syntax.GTGT:
		return func(f *cframe) (starlark.Value, bool) {
			u, v, ok := operands(f, a, b)
			if !ok {
				return nil, false
			}
			return f.ctx.binary(op, u, v)
		}
	}
	return nil
}

// operands evaluates a binary operator's operands, left first.
func operands(f *cframe, a, b cexpr) (u, v starlark.Value, ok bool) {
	if u, ok = a(f); !ok {
		return nil, nil, false
	}
	if v, ok = b(f); !ok {
		return nil, nil, false
	}
	return u, v, true
}

// compareFast compares two small ints or two strings as Compare does,
// without its dispatch; ok false for other operands.
func compareFast(op syntax.Token, u, v starlark.Value) (starlark.Value, bool) {
	var c int
	switch x := u.(type) {
	case starlark.Int:
		y, ok := v.(starlark.Int)
		if !ok {
			return nil, false
		}
		a, ok1 := x.Int64()
		b, ok2 := y.Int64()
		if !ok1 || !ok2 {
			return nil, false
		}
		c = cmp3(a < b, a > b)
	case starlark.String:
		y, ok := v.(starlark.String)
		if !ok {
			return nil, false
		}
		c = cmp3(x < y, x > y)
	default:
		return nil, false
	}
	switch op {
	case syntax.EQL:
		return starlark.Bool(c == 0), true
	case syntax.NEQ:
		return starlark.Bool(c != 0), true
	case syntax.LT:
		return starlark.Bool(c < 0), true
	case syntax.GT:
		return starlark.Bool(c > 0), true
	case syntax.LE:
		return starlark.Bool(c <= 0), true
	case syntax.GE:
		return starlark.Bool(c >= 0), true
	}
	return nil, false
}

func cmp3(less, greater bool) int {
	switch {
	case less:
		return -1
	case greater:
		return 1
	}
	return 0
}

func (c *gcomp) unary(x *syntax.UnaryExpr) cexpr {
	a := c.expr(x.X)
	if a == nil {
		return nil
	}
	switch x.Op {
	case syntax.NOT:
		return func(f *cframe) (starlark.Value, bool) {
			v, ok := a(f)
			if !ok {
				return nil, false
			}
			return !v.Truth(), true
		}
	case syntax.MINUS, syntax.PLUS:
		op := x.Op
		return func(f *cframe) (starlark.Value, bool) {
			v, ok := a(f)
			if !ok {
				return nil, false
			}
			r, err := starlark.Unary(op, v)
			return r, err == nil
		}
	}
	return nil
}

// sequence compiles a tuple or list display.
func (c *gcomp) sequence(xs []syntax.Expr, list bool) cexpr {
	parts, ok := c.exprs(xs)
	if !ok {
		return nil
	}
	if !list && c.constants(xs) {
		// A tuple of constants, ("e4", "w1", "w2") in pc in (...): made
		// once (a tuple cannot change, and nothing tells two equal ones
		// apart), not at every evaluation.
		t := make(starlark.Tuple, len(parts))
		for i, p := range parts {
			if t[i], ok = p(nil); !ok {
				return nil
			}
		}
		t.Freeze()
		var v starlark.Value = t // boxed once: a slice made a Value is allocated
		return func(*cframe) (starlark.Value, bool) { return v, true }
	}
	return func(f *cframe) (starlark.Value, bool) {
		t := make(starlark.Tuple, len(parts))
		for i, p := range parts {
			v, ok := p(f)
			if !ok {
				return nil, false
			}
			t[i] = v
		}
		if list {
			return starlark.NewList(t), true
		}
		return t, true
	}
}

// constants tells whether every expression of xs is a literal, None, True,
// False, a global of the module (frozen once it has loaded) or a tuple of
// such: values that need no frame.
func (c *gcomp) constants(xs []syntax.Expr) bool {
	for _, x := range xs {
		switch x := x.(type) {
		case *syntax.Literal:
		case *syntax.ParenExpr:
			if !c.constants([]syntax.Expr{x.X}) {
				return false
			}
		case *syntax.TupleExpr:
			if !c.constants(x.List) {
				return false
			}
		case *syntax.Ident:
			b, _ := x.Binding.(*resolve.Binding)
			if b == nil {
				return false
			}
			switch b.Scope {
			case resolve.Universal:
				if x.Name != "None" && x.Name != "True" && x.Name != "False" {
					return false
				}
			case resolve.Global, resolve.Predeclared:
				if v, ok := c.globals[x.Name]; !ok || v == nil {
					return false
				}
			default:
				return false
			}
		default:
			return false
		}
	}
	return true
}

func (c *gcomp) exprs(xs []syntax.Expr) ([]cexpr, bool) {
	parts := make([]cexpr, len(xs))
	for i, x := range xs {
		if !positional(x) {
			return nil, false
		}
		if parts[i] = c.expr(x); parts[i] == nil {
			return nil, false
		}
	}
	return parts, true
}

// positional tells whether a call's argument is a plain positional one
// (not name=value, *args or **kwargs).
func positional(x syntax.Expr) bool {
	if b, ok := x.(*syntax.BinaryExpr); ok && b.Op == syntax.EQ {
		return false
	}
	u, ok := x.(*syntax.UnaryExpr)
	return !ok || (u.Op != syntax.STAR && u.Op != syntax.STARSTAR)
}

// comprehension compiles [BODY for ... if ...] (not {...}).
func (c *gcomp) comprehension(x *syntax.Comprehension) cexpr {
	if x.Curly {
		return nil
	}
	body := c.expr(x.Body)
	if body == nil {
		return nil
	}
	run := c.clauses(x, func(f *cframe, out []starlark.Value) ([]starlark.Value, bool) {
		v, ok := body(f)
		if ok {
			if len(out) == cap(out) && !f.ctx.alloc(2*sizeOf(nil, int64(cap(out)))) {
				return out, false // growing it would pass the memory budget
			}
			out = append(out, v)
		}
		return out, ok
	}, true)
	if run == nil {
		return nil
	}
	return func(f *cframe) (starlark.Value, bool) {
		out, ok := run(f, nil)
		if !ok {
			return nil, false
		}
		return starlark.NewList(out), true
	}
}

// maxPresize bounds the room a comprehension's result is made with (past
// it, appending grows it).
const maxPresize = 4096

// clause is a comprehension's clauses compiled: it runs them from f with
// the elements made so far, and returns the elements then (passed and
// returned by value: a slice whose address a closure took would be
// allocated on every run).
type clause func(f *cframe, out []starlark.Value) ([]starlark.Value, bool)

// clauses compiles a comprehension's clauses around leaf, which the
// innermost runs for each element (and adds it to out); sized: out is
// made with room for one for clause's sequence.
func (c *gcomp) clauses(x *syntax.Comprehension, leaf clause, sized bool) clause {
	// A list is read by index (no iterator to allocate) where nothing can
	// change it meanwhile: in pure code, or when the comprehension calls
	// none of the model's functions and no method that may change a value.
	byIndex := c.pure() || !c.mayChange(x)
	// One for clause and no if: the result has its sequence's length.
	fors := 0
	for _, cl := range x.Clauses {
		if _, isFor := cl.(*syntax.ForClause); isFor {
			fors++
		} else {
			sized = false
		}
	}
	sized = sized && fors == 1
	// Clauses nest right to left: the last runs innermost and adds.
	inner := leaf
	for i := len(x.Clauses) - 1; i >= 0; i-- {
		next := inner
		switch cl := x.Clauses[i].(type) {
		case *syntax.ForClause:
			seq, bind := c.expr(cl.X), c.target(cl.Vars)
			if seq == nil || bind == nil {
				return nil
			}
			inner = func(f *cframe, out []starlark.Value) ([]starlark.Value, bool) {
				xs, ok := seq(f)
				if !ok {
					return out, false
				}
				if sized && out == nil {
					if n := starlark.Len(xs); n > 0 {
						out = make([]starlark.Value, 0, min(n, maxPresize))
					}
				}
				if elems, ok := indexable(xs, byIndex); ok {
					for i := range elems.Len() {
						if !f.ctx.tick() || !bind(f, elems.Index(i)) {
							return out, false
						}
						if out, ok = next(f, out); !ok {
							return out, false
						}
					}
					return out, true
				}
				it := starlark.Iterate(xs)
				if it == nil {
					return out, false
				}
				defer it.Done()
				var v starlark.Value
				for it.Next(&v) {
					if !f.ctx.tick() || !bind(f, v) {
						return out, false
					}
					if out, ok = next(f, out); !ok {
						return out, false
					}
				}
				return out, true
			}
		case *syntax.IfClause:
			cond := c.expr(cl.Cond)
			if cond == nil {
				return nil
			}
			inner = func(f *cframe, out []starlark.Value) ([]starlark.Value, bool) {
				v, ok := cond(f)
				if !ok {
					return out, false
				}
				if !bool(v.Truth()) {
					return out, true
				}
				return next(f, out)
			}
		default:
			return nil
		}
	}
	return inner
}

// streamedReturn compiles init()'s `return [STATE for ... if ...]` to give
// each state to the sink as the comprehension makes it, instead of a list
// of them all (CoffeeCan's half a million dicts at once), when nothing in
// the comprehension can change a state it made before (it calls none of
// the model's functions and no method that may change a value). The keys, their order and
// the variables are the list's; anything else the list would be (empty,
// a state of other variables, too many) says unknown, and the interpreter
// runs init() and reports it as before.
func (c *gcomp) streamedReturn(x *syntax.ReturnStmt) cstmt {
	comp, ok := x.Result.(*syntax.Comprehension)
	if !c.init || c.loops > 0 || !ok || comp.Curly || c.mayChange(comp) {
		return nil
	}
	body := c.expr(comp.Body)
	if body == nil {
		return nil
	}
	run := c.clauses(comp, func(f *cframe, _ []starlark.Value) ([]starlark.Value, bool) {
		v, ok := body(f)
		if !ok {
			return nil, false
		}
		sink, _ := f.ctx.thread.Local(localInit).(*initSink)
		return nil, sink != nil && sink.addReturned(v) == nil
	}, false)
	if run == nil {
		return nil
	}
	return func(f *cframe) (flow, starlark.Value) {
		sink, _ := f.ctx.thread.Local(localInit).(*initSink)
		if sink == nil || sink.calls > 0 {
			return flowUnknown, nil
		}
		if _, ok := run(f, nil); !ok || sink.returned == 0 {
			return flowUnknown, nil
		}
		sink.streamed = true
		return flowReturn, starlark.None
	}
}

// mayChange reports whether x calls one of the model's functions or a
// method that may change a value (append, insert, pop ...), which could
// change a list it iterates.
func (c *gcomp) mayChange(x syntax.Node) bool {
	found := false
	syntax.Walk(x, func(n syntax.Node) bool {
		if call, ok := n.(*syntax.CallExpr); ok {
			switch fn := call.Fn.(type) {
			case *syntax.DotExpr:
				found = found || !pureMethods[fn.Name.Name]
			case *syntax.Ident:
				found = found || !pureBuiltins[fn.Name] || c.globals[fn.Name] != nil
			default:
				found = true
			}
		}
		return !found
	})
	return found
}

// pureBuiltins are the universal builtins a compiled function may call:
// they read their arguments and change nothing.
var pureBuiltins = map[string]bool{
	"len": true, "all": true, "any": true, "min": true, "max": true, "abs": true, "bool": true,
	"range": true, "sorted": true, "reversed": true, "tuple": true, "list": true, "set": true,
	"str": true, "int": true, "enumerate": true, "zip": true, "type": true, "repr": true, "hash": true,
}

// pureMethods are the methods of values that change nothing.
var pureMethods = map[string]bool{
	"get": true, "keys": true, "values": true, "items": true, "index": true, "count": true,
	"union": true, "intersection": true, "difference": true, "symmetric_difference": true,
	"issubset": true, "issuperset": true, "startswith": true, "endswith": true, "find": true,
	"lower": true, "upper": true, "strip": true, "split": true, "join": true,
}

// call compiles a call of a universal builtin, a method that changes
// nothing, or a function of the model.
func (c *gcomp) call(x *syntax.CallExpr) cexpr {
	switch fn := x.Fn.(type) {
	case *syntax.Ident:
		b, _ := fn.Binding.(*resolve.Binding)
		if b == nil {
			return nil
		}
		switch b.Scope {
		case resolve.Universal:
			return c.builtinCall(fn.Name, x.Args)
		case resolve.Predeclared:
			// A project expression's names of the model are predeclared,
			// and they hide the builtins (Compile): clock_ok(s).
			if callee, ok := c.globals[fn.Name].(*starlark.Function); ok {
				return c.modelCall(callee, x.Args)
			}
			if fn.Name == "choose" && c.requires == reqBody && len(x.Args) == 1 && positional(x.Args[0]) {
				return c.chooseCall(x.Args[0])
			}
			if fn.Name == "initial" && c.cc.appends && len(x.Args) == 1 {
				return c.initialCall(x.Args[0])
			}
			return nil
		case resolve.Global:
			callee, ok := c.globals[fn.Name].(*starlark.Function)
			if !ok {
				return nil
			}
			return c.modelCall(callee, x.Args)
		}
	case *syntax.DotExpr:
		return c.methodCall(fn, x.Args)
	}
	return nil
}

// initialCall compiles init()'s initial(state): any error stops it (the
// interpreter runs init() again from the start, and reports it).
func (c *gcomp) initialCall(arg syntax.Expr) cexpr {
	if !positional(arg) {
		return nil
	}
	if d, ok := arg.(*syntax.DictExpr); ok {
		if e := c.initialDict(d); e != nil {
			return e
		}
	}
	a := c.expr(arg)
	if a == nil {
		return nil
	}
	return func(f *cframe) (starlark.Value, bool) {
		v, ok := a(f)
		if !ok {
			return nil, false
		}
		sink, _ := f.ctx.thread.Local(localInit).(*initSink)
		if !f.ctx.tick() || sink == nil {
			return nil, false
		}
		return starlark.None, sink.add(v) == nil
	}
}

func (c *gcomp) builtinCall(name string, args []syntax.Expr) cexpr {
	if !pureBuiltins[name] {
		return nil
	}
	parts, ok := c.exprs(args)
	if !ok {
		return nil
	}
	if name == "len" && len(parts) == 1 {
		a := parts[0]
		return func(f *cframe) (starlark.Value, bool) {
			v, ok := a(f)
			if !ok {
				return nil, false
			}
			n := starlark.Len(v)
			return starlark.MakeInt(n), n >= 0
		}
	}
	if (name == "all" || name == "any") && len(parts) == 1 {
		// Folded only where nothing can change an element already made
		// before the last is: all() reads them once the list is whole.
		if x, ok := args[0].(*syntax.Comprehension); ok && !x.Curly && (c.pure() || !c.mayChange(x)) {
			if fold := c.truthFold(x, name == "all"); fold != nil {
				return fold
			}
		}
		return truthAll(parts[0], name == "all")
	}
	fn := starlark.Universe[name]
	sized := copying[name]
	return func(f *cframe) (starlark.Value, bool) { return callWith(f, fn, nil, sized, parts) }
}

// callWith calls a builtin (a function, or a bound method of recv) with
// the compiled arguments; sized: it makes a copy of its receiver and
// arguments, whose size is asked for first.
func callWith(f *cframe, fn, recv starlark.Value, sized bool, parts []cexpr) (starlark.Value, bool) {
	argv, ok := evalArgs(f, parts)
	if !ok {
		return nil, false
	}
	if !f.ctx.tick() || sized && !f.ctx.alloc(copySize(recv, argv)) {
		return nil, false
	}
	v, err := starlark.Call(f.ctx.thread, fn, argv, nil)
	return v, err == nil
}

func evalArgs(f *cframe, parts []cexpr) (starlark.Tuple, bool) {
	argv := make(starlark.Tuple, len(parts))
	for i, p := range parts {
		v, ok := p(f)
		if !ok {
			return nil, false
		}
		argv[i] = v
	}
	return argv, true
}

// modelCall compiles a call of a function of the model: positional
// arguments, as many as it has parameters; the state, if passed, first.
func (c *gcomp) modelCall(callee *starlark.Function, args []syntax.Expr) cexpr {
	if len(args) != callee.NumParams() {
		return nil
	}
	stateful := len(args) > 0 && c.isState(args[0])
	rest := args
	if stateful {
		rest = args[1:]
	}
	parts, ok := c.exprs(rest)
	if !ok {
		return nil
	}
	cf := c.cc.functionIn(callee, stateful, c.body && stateful)
	if cf == nil {
		return nil
	}
	off := 0
	if stateful {
		off = 1
	}
	return func(f *cframe) (starlark.Value, bool) {
		if !f.ctx.tick() {
			return nil, false
		}
		nf := f.ctx.push(f.s, cf.nlocals)
		nf.r = f.r
		defer f.ctx.pop(nf)
		for i, p := range parts {
			v, ok := p(f)
			if !ok {
				return nil, false
			}
			nf.locals[i+off] = v
		}
		return cf.call(nf)
	}
}

// appendCall compiles xs.append(x) for init(): xs must be a list init()
// made (one not frozen); it changes nothing else, and init() runs again in
// the interpreter, from the start, if the compiled run stops.
func (c *gcomp) appendCall(recv, arg syntax.Expr) cexpr {
	l, a := c.expr(recv), c.expr(arg)
	if l == nil || a == nil {
		return nil
	}
	return func(f *cframe) (starlark.Value, bool) {
		xs, ok := l(f)
		if !ok {
			return nil, false
		}
		list, ok := xs.(*starlark.List)
		if !ok {
			return nil, false
		}
		v, ok := a(f)
		if !ok {
			return nil, false
		}
		if !f.ctx.tick() {
			return nil, false
		}
		if n := list.Len(); n >= allocFloor/int(valueSize) && n&(n-1) == 0 && !f.ctx.alloc(2*sizeOf(nil, int64(n))) {
			return nil, false // doubling it would pass the memory budget
		}
		return starlark.None, list.Append(v) == nil
	}
}

// dict compiles a dict display.
func (c *gcomp) dict(x *syntax.DictExpr) cexpr {
	keys := make([]cexpr, len(x.List))
	vals := make([]cexpr, len(x.List))
	for i, e := range x.List {
		entry, ok := e.(*syntax.DictEntry)
		if !ok {
			return nil
		}
		if keys[i], vals[i] = c.expr(entry.Key), c.expr(entry.Value); keys[i] == nil || vals[i] == nil {
			return nil
		}
	}
	return func(f *cframe) (starlark.Value, bool) {
		d := starlark.NewDict(len(keys))
		for i := range keys {
			k, ok := keys[i](f)
			if !ok {
				return nil, false
			}
			v, ok := vals[i](f)
			if !ok || d.SetKey(k, v) != nil {
				return nil, false
			}
		}
		return d, true
	}
}

// slice compiles x[lo:hi] (a step other than 1 is the interpreter's).
func (c *gcomp) slice(x *syntax.SliceExpr) cexpr {
	if x.Step != nil {
		return nil
	}
	seq := c.expr(x.X)
	var lo, hi cexpr
	if x.Lo != nil {
		lo = c.expr(x.Lo)
	}
	if x.Hi != nil {
		hi = c.expr(x.Hi)
	}
	if seq == nil || x.Lo != nil && lo == nil || x.Hi != nil && hi == nil {
		return nil
	}
	bound := func(f *cframe, e cexpr, n, def int) (int, bool) {
		if e == nil {
			return def, true
		}
		v, ok := e(f)
		if !ok {
			return 0, false
		}
		if v == starlark.None {
			return def, true
		}
		i, err := starlark.AsInt32(v)
		if err != nil {
			return 0, false
		}
		if i < 0 {
			return max(i+n, 0), true
		}
		return min(i, n), true
	}
	return func(f *cframe) (starlark.Value, bool) {
		v, ok := seq(f)
		if !ok {
			return nil, false
		}
		s, ok := v.(starlark.Sliceable)
		if !ok {
			return nil, false
		}
		n := s.Len()
		start, ok := bound(f, lo, n, 0)
		if !ok {
			return nil, false
		}
		end, ok := bound(f, hi, n, n)
		if !ok {
			return nil, false
		}
		return s.Slice(start, max(start, end), 1), true
	}
}

// pure tells whether the code compiled can change no value (not an
// action's body, not init() with its appends): then a list it iterates
// cannot change while it does.
func (c *gcomp) pure() bool { return !c.body && !c.cc.appends }

// indexable returns a list or tuple to iterate by index (no iterator to
// allocate) when nothing can change it meanwhile: a tuple, or a list in
// pure code.
func indexable(xs starlark.Value, pure bool) (starlark.Indexable, bool) {
	// xs converted, not x: a tuple boxed again would be allocated (24
	// bytes a loop)
	switch xs.(type) {
	case starlark.Tuple:
		return xs.(starlark.Indexable), true
	case *starlark.List:
		return xs.(starlark.Indexable), pure
	}
	return nil, false
}
