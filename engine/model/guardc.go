package model

import (
	"math/big"

	"go.starlark.net/resolve"
	"go.starlark.net/starlark"
	"go.starlark.net/syntax"
)

// Compiled guards. Nine tries in ten of an exploration find the action
// disabled, most of them at the action's first require(): LamportMutex's
// ReceiveRequest(s, p, q) starts with
//
//	require(p != q and len(s.network[q][p]) > 0 and s.network[q][p][0][0] == "req")
//
// and a Starlark call to find that false costs a frame, its locals and the
// interpreter's dispatch for each of 23 million tries. The require()s that
// open an action are compiled here into Go closures over the state's frozen
// values and the action's arguments: the names a conjunct may use are the
// parameters, s.VAR, the module's globals (frozen at load), None, True,
// False and len(); its operators are and, or, not, comparisons, in, not in,
// + - * // %, unary -, indexing, tuples and conditional expressions — each
// evaluated by the functions Starlark's interpreter calls for it
// (starlark.Compare, starlark.Binary, Mapping.Get ...), so a compiled
// conjunct has the value the interpreter would give it.
//
// A compiled guard is the longest prefix of the conjuncts (of A and B and
// C, of consecutive requires) that compiles. It only ever says an action
// is disabled when the interpreter would: the prefix is evaluated in the
// interpreter's order, and a conjunct that is false after true ones is the
// interpreter's failing require() at the same point. Anything else — an
// error (an index out of range, a key not in a dict, a comparison of a
// string with an int) or a conjunct the compiler does not know — leaves
// the try to the interpreter, which reports the error as before.

// ctruth is what a compiled guard tells of a try.
type ctruth uint8

const (
	cUnknown ctruth = iota // the interpreter must run the action
	cFalse                 // a require() fails: the action is disabled
	cTrue                  // every compiled conjunct holds
)

// cexpr evaluates a compiled expression; ok false means the interpreter
// would raise an error (or the value is not known here).
type cexpr func(e *cenv) (v starlark.Value, ok bool)

// cenv is what a compiled guard reads: the state and the action's
// arguments (after s).
type cenv struct {
	s    *sstate
	args []starlark.Value
}

// cguard is an action's compiled leading require()s.
type cguard struct {
	conds []cexpr
	whys  []string // per conjunct, its require()'s reason ("" none)
	// complete: the compiled conjuncts are all of the leading requires',
	// and the rest of the action calls no require() (directly or through
	// a function of the model): when they hold, the action is enabled
	// unless it raises an error, so the interpreter's read-only guard run
	// has nothing to find.
	complete bool
}

// eval tells whether the try is disabled, and why.
func (g *cguard) eval(s *sstate, args []starlark.Value) (ctruth, string) {
	e := cenv{s: s, args: args}
	for i, c := range g.conds {
		v, ok := c(&e)
		if !ok {
			return cUnknown, ""
		}
		if !v.Truth() {
			return cFalse, g.whys[i]
		}
	}
	return cTrue, ""
}

// compileGuards compiles each action's leading requires; sources holds the
// text of the model's files by name (the main file and those it loads).
// An action whose definition is not found (a lambda, a file that changed)
// gets no compiled guard.
func (m *StarModel) compileGuards(sources map[string][]byte) {
	m.cguards = make([]*cguard, len(m.fns))
	files := map[string]*syntax.File{}
	defs := map[defPos]*syntax.DefStmt{}
	for i, fn := range m.fns {
		name := fn.Position().Filename()
		f, seen := files[name]
		if !seen {
			f = parseResolved(name, sources[name])
			files[name] = f
			if f != nil {
				collectDefs(f.Stmts, defs)
			}
		}
		def := defs[posOf(fn)]
		if f == nil || def == nil || def.Name.Name != fn.Name() {
			continue
		}
		c := &gcomp{m: m, fn: fn, globals: fn.Globals(), defs: defs, nparams: fn.NumParams()}
		m.cguards[i] = c.guard(def)
	}
}

// parseResolved parses and resolves a model file as the interpreter did,
// or returns nil.
func parseResolved(name string, src []byte) *syntax.File {
	if src == nil {
		return nil
	}
	f, err := fileOptions.Parse(name, src, 0)
	if err != nil {
		return nil
	}
	pre := builtins()
	if err := resolve.File(f, func(n string) bool { return pre.Has(n) }, starlark.Universe.Has); err != nil {
		return nil
	}
	return f
}

// defPos is where a function is defined: its file, line and column.
type defPos struct {
	file      string
	line, col int32
}

func posOf(fn *starlark.Function) defPos {
	p := fn.Position()
	return defPos{p.Filename(), p.Line, p.Col}
}

// collectDefs indexes the def statements of a file (at any depth) by the
// position the interpreter gives their functions.
func collectDefs(stmts []syntax.Stmt, out map[defPos]*syntax.DefStmt) {
	for _, st := range stmts {
		syntax.Walk(st, func(n syntax.Node) bool {
			if d, ok := n.(*syntax.DefStmt); ok {
				if rf, ok := d.Function.(*resolve.Function); ok {
					out[defPos{rf.Pos.Filename(), rf.Pos.Line, rf.Pos.Col}] = d
				}
			}
			return true
		})
	}
}

// gcomp compiles one action's guard.
type gcomp struct {
	m       *StarModel
	fn      *starlark.Function
	globals starlark.StringDict
	defs    map[defPos]*syntax.DefStmt
	nparams int
}

// guard compiles the leading require()s of def's body.
func (c *gcomp) guard(def *syntax.DefStmt) *cguard {
	g := &cguard{complete: true}
	body := def.Body
	i := 0
	if len(body) > 0 { // a docstring
		if es, ok := body[0].(*syntax.ExprStmt); ok {
			if lit, ok := es.X.(*syntax.Literal); ok && lit.Token == syntax.STRING {
				i++
			}
		}
	}
	for ; i < len(body); i++ {
		cond, why, ok := c.requireCall(body[i])
		if !ok {
			break
		}
		for _, conj := range conjuncts(cond, nil) {
			ce := c.expr(conj)
			if ce == nil {
				g.complete = false
				return g.orNil()
			}
			g.conds = append(g.conds, ce)
			g.whys = append(g.whys, why)
		}
	}
	if g.complete {
		g.complete = !c.mayRequire(body[i:], map[*syntax.DefStmt]bool{})
	}
	return g.orNil()
}

func (g *cguard) orNil() *cguard {
	if len(g.conds) == 0 {
		return nil
	}
	return g
}

// requireCall recognises `require(COND)` and `require(COND, "why")`.
func (c *gcomp) requireCall(st syntax.Stmt) (syntax.Expr, string, bool) {
	es, ok := st.(*syntax.ExprStmt)
	if !ok {
		return nil, "", false
	}
	call, ok := es.X.(*syntax.CallExpr)
	if !ok || !isBuiltin(call.Fn, "require", resolve.Predeclared) {
		return nil, "", false
	}
	switch len(call.Args) {
	case 1:
		if _, kw := call.Args[0].(*syntax.BinaryExpr); kw && call.Args[0].(*syntax.BinaryExpr).Op == syntax.EQ {
			return nil, "", false // require(cond=...)
		}
		return call.Args[0], "", true
	case 2:
		lit, ok := call.Args[1].(*syntax.Literal)
		if !ok || lit.Token != syntax.STRING {
			return nil, "", false
		}
		if b, kw := call.Args[0].(*syntax.BinaryExpr); kw && b.Op == syntax.EQ {
			return nil, "", false
		}
		return call.Args[0], lit.Value.(string), true
	}
	return nil, "", false
}

// isBuiltin tells whether e names the builtin name in scope.
func isBuiltin(e syntax.Expr, name string, scope resolve.Scope) bool {
	id, ok := e.(*syntax.Ident)
	if !ok || id.Name != name {
		return false
	}
	b, ok := id.Binding.(*resolve.Binding)
	return ok && b.Scope == scope
}

// conjuncts flattens A and B and C (parenthesised or not) in order.
func conjuncts(e syntax.Expr, out []syntax.Expr) []syntax.Expr {
	switch x := e.(type) {
	case *syntax.ParenExpr:
		return conjuncts(x.X, out)
	case *syntax.BinaryExpr:
		if x.Op == syntax.AND {
			return conjuncts(x.Y, conjuncts(x.X, out))
		}
	}
	return append(out, e)
}

// mayRequire tells whether statements may call require(): directly, or
// through a call of anything but a universal builtin or a method of a
// value (a function of the model is looked into; any other callee
// counts as may).
func (c *gcomp) mayRequire(stmts []syntax.Stmt, seen map[*syntax.DefStmt]bool) bool {
	may := false
	for _, st := range stmts {
		syntax.Walk(st, func(n syntax.Node) bool {
			if may {
				return false
			}
			switch x := n.(type) {
			case *syntax.Ident:
				if x.Name == "require" {
					may = true
				}
			case *syntax.CallExpr:
				may = c.calleeMayRequire(x.Fn, seen)
			}
			return !may
		})
		if may {
			return true
		}
	}
	return false
}

func (c *gcomp) calleeMayRequire(fn syntax.Expr, seen map[*syntax.DefStmt]bool) bool {
	switch f := fn.(type) {
	case *syntax.DotExpr: // a method: of a value, unless of a global (a module)
		id, ok := f.X.(*syntax.Ident)
		if !ok {
			return false
		}
		b, _ := id.Binding.(*resolve.Binding)
		return b == nil || b.Scope == resolve.Global
	case *syntax.Ident:
		b, _ := f.Binding.(*resolve.Binding)
		if b == nil {
			return true
		}
		switch b.Scope {
		case resolve.Universal:
			return false
		case resolve.Predeclared:
			return f.Name == "require"
		case resolve.Global:
			callee, ok := c.globals[f.Name].(*starlark.Function)
			if !ok {
				return true
			}
			def := c.defs[posOf(callee)]
			if def == nil || def.Name.Name != callee.Name() {
				return true
			}
			if seen[def] {
				return false // being looked into
			}
			seen[def] = true
			return c.mayRequire(def.Body, seen)
		}
	}
	return true
}

var (
	cNone  = func(*cenv) (starlark.Value, bool) { return starlark.None, true }
	cTrueV = func(*cenv) (starlark.Value, bool) { return starlark.True, true }
	cFalsV = func(*cenv) (starlark.Value, bool) { return starlark.False, true }
)

// expr compiles e, or returns nil.
func (c *gcomp) expr(e syntax.Expr) cexpr {
	switch x := e.(type) {
	case *syntax.ParenExpr:
		return c.expr(x.X)
	case *syntax.Ident:
		return c.ident(x)
	case *syntax.Literal:
		return literal(x)
	case *syntax.DotExpr:
		return c.stateVar(x)
	case *syntax.IndexExpr:
		return c.index(x)
	case *syntax.BinaryExpr:
		return c.binary(x)
	case *syntax.UnaryExpr:
		return c.unary(x)
	case *syntax.CallExpr:
		return c.call(x)
	case *syntax.TupleExpr:
		return c.tuple(x.List)
	case *syntax.CondExpr:
		cond, a, b := c.expr(x.Cond), c.expr(x.True), c.expr(x.False)
		if cond == nil || a == nil || b == nil {
			return nil
		}
		return func(e *cenv) (starlark.Value, bool) {
			v, ok := cond(e)
			if !ok {
				return nil, false
			}
			if v.Truth() {
				return a(e)
			}
			return b(e)
		}
	}
	return nil
}

func (c *gcomp) ident(x *syntax.Ident) cexpr {
	b, _ := x.Binding.(*resolve.Binding)
	if b == nil {
		return nil
	}
	switch b.Scope {
	case resolve.Local, resolve.Cell:
		// A parameter after s; another local is not bound yet where the
		// leading requires stand.
		i := b.Index
		if i < 1 || i >= c.nparams {
			return nil
		}
		return func(e *cenv) (starlark.Value, bool) { return e.args[i-1], true }
	case resolve.Global:
		v, ok := c.globals[x.Name]
		if !ok || v == nil {
			return nil
		}
		return func(*cenv) (starlark.Value, bool) { return v, true }
	case resolve.Universal:
		switch x.Name {
		case "None":
			return cNone
		case "True":
			return cTrueV
		case "False":
			return cFalsV
		}
	}
	return nil
}

func literal(x *syntax.Literal) cexpr {
	var v starlark.Value
	switch x.Token {
	case syntax.STRING:
		v = starlark.String(x.Value.(string))
	case syntax.INT:
		switch n := x.Value.(type) {
		case int64:
			v = starlark.MakeInt64(n)
		case *big.Int:
			v = starlark.MakeBigInt(n)
		default:
			return nil
		}
	case syntax.FLOAT:
		f, ok := x.Value.(float64)
		if !ok {
			return nil
		}
		v = starlark.Float(f)
	default:
		return nil
	}
	return func(*cenv) (starlark.Value, bool) { return v, true }
}

// stateVar compiles s.VAR, s being the action's first parameter.
func (c *gcomp) stateVar(x *syntax.DotExpr) cexpr {
	id, ok := x.X.(*syntax.Ident)
	if !ok {
		return nil
	}
	b, _ := id.Binding.(*resolve.Binding)
	if b == nil || (b.Scope != resolve.Local && b.Scope != resolve.Cell) || b.Index != 0 {
		return nil
	}
	i, ok := c.m.varIndex[x.Name.Name]
	if !ok {
		return nil
	}
	return func(e *cenv) (starlark.Value, bool) {
		v, err := e.s.val(i)
		return v, err == nil && v != nil
	}
}

func (c *gcomp) index(x *syntax.IndexExpr) cexpr {
	a, k := c.expr(x.X), c.expr(x.Y)
	if a == nil || k == nil {
		return nil
	}
	return func(e *cenv) (starlark.Value, bool) {
		v, ok := a(e)
		if !ok {
			return nil, false
		}
		y, ok := k(e)
		if !ok {
			return nil, false
		}
		return indexValue(v, y)
	}
}

// indexValue is x[y] as the interpreter's getIndex computes it.
func indexValue(x, y starlark.Value) (starlark.Value, bool) {
	switch x := x.(type) {
	case starlark.Mapping:
		z, found, err := x.Get(y)
		return z, err == nil && found
	case starlark.Indexable:
		n := x.Len()
		i, err := starlark.AsInt32(y)
		if err != nil {
			return nil, false
		}
		if i < 0 {
			i += n
		}
		if i < 0 || i >= n {
			return nil, false
		}
		return x.Index(i), true
	}
	return nil, false
}

func (c *gcomp) binary(x *syntax.BinaryExpr) cexpr {
	a, b := c.expr(x.X), c.expr(x.Y)
	if a == nil || b == nil {
		return nil
	}
	op := x.Op
	switch op {
	case syntax.AND, syntax.OR:
		and := op == syntax.AND
		return func(e *cenv) (starlark.Value, bool) {
			v, ok := a(e)
			if !ok {
				return nil, false
			}
			if bool(v.Truth()) != and {
				return v, true
			}
			return b(e)
		}
	case syntax.EQL, syntax.NEQ, syntax.LT, syntax.GT, syntax.LE, syntax.GE:
		return func(e *cenv) (starlark.Value, bool) {
			u, ok := a(e)
			if !ok {
				return nil, false
			}
			v, ok := b(e)
			if !ok {
				return nil, false
			}
			r, err := starlark.Compare(op, u, v)
			return starlark.Bool(r), err == nil
		}
	case syntax.IN, syntax.NOT_IN, syntax.PLUS, syntax.MINUS, syntax.STAR, syntax.SLASHSLASH, syntax.PERCENT:
		return func(e *cenv) (starlark.Value, bool) {
			u, ok := a(e)
			if !ok {
				return nil, false
			}
			v, ok := b(e)
			if !ok {
				return nil, false
			}
			r, err := starlark.Binary(op, u, v)
			return r, err == nil
		}
	}
	return nil
}

func (c *gcomp) unary(x *syntax.UnaryExpr) cexpr {
	a := c.expr(x.X)
	if a == nil {
		return nil
	}
	switch x.Op {
	case syntax.NOT:
		return func(e *cenv) (starlark.Value, bool) {
			v, ok := a(e)
			if !ok {
				return nil, false
			}
			return !v.Truth(), true
		}
	case syntax.MINUS, syntax.PLUS:
		op := x.Op
		return func(e *cenv) (starlark.Value, bool) {
			v, ok := a(e)
			if !ok {
				return nil, false
			}
			r, err := starlark.Unary(op, v)
			return r, err == nil
		}
	}
	return nil
}

// call compiles len(x).
func (c *gcomp) call(x *syntax.CallExpr) cexpr {
	if !isBuiltin(x.Fn, "len", resolve.Universal) || len(x.Args) != 1 {
		return nil
	}
	if b, ok := x.Args[0].(*syntax.BinaryExpr); ok && b.Op == syntax.EQ {
		return nil // a keyword argument
	}
	if _, ok := x.Args[0].(*syntax.UnaryExpr); ok && (x.Args[0].(*syntax.UnaryExpr).Op == syntax.STAR || x.Args[0].(*syntax.UnaryExpr).Op == syntax.STARSTAR) {
		return nil // len(*xs)
	}
	a := c.expr(x.Args[0])
	if a == nil {
		return nil
	}
	return func(e *cenv) (starlark.Value, bool) {
		v, ok := a(e)
		if !ok {
			return nil, false
		}
		n := starlark.Len(v)
		return starlark.MakeInt(n), n >= 0
	}
}

func (c *gcomp) tuple(xs []syntax.Expr) cexpr {
	parts := make([]cexpr, len(xs))
	for i, x := range xs {
		if parts[i] = c.expr(x); parts[i] == nil {
			return nil
		}
	}
	return func(e *cenv) (starlark.Value, bool) {
		t := make(starlark.Tuple, len(parts))
		for i, p := range parts {
			v, ok := p(e)
			if !ok {
				return nil, false
			}
			t[i] = v
		}
		return t, true
	}
}
