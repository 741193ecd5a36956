package model

import (
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
// Local assignments among the leading requires (Bakery's w2 opens with
// n = s.nxt[p], then require(... s.num[n] ...)) are compiled as steps of
// the guard that bind the local; the interpreter's guard run cost that
// action a Starlark call for each of its 1.3 million tries.
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

// cguard is an action's compiled leading require()s.
type cguard struct {
	nlocals int // the action's locals (its parameters first)
	conds   []cexpr
	whys    []string // per conjunct, its require()'s reason ("" none)
	start   int      // the index in the body of the first statement after the leading requires
	// prefixK, prefixConds: the first prefixConds conjuncts read the
	// state and the first prefixK arguments alone (-1: no such prefix;
	// see prefix.go)
	prefixK, prefixConds int
	// assigns: the local assignments among the leading requires
	// (`n = s.nxt[p]` before require(... n ...)): the guard makes them as
	// it goes (conds holds them as steps that hold), and the compiled body
	// makes them again before the rest
	assigns []syntax.Stmt
	// complete: the compiled conjuncts are all of the leading requires',
	// and the rest of the action calls no require() (directly or through
	// a function of the model): when they hold, the action is enabled
	// unless it raises an error, so the interpreter's read-only guard run
	// has nothing to find.
	complete bool
	// atChoose: the last conjunct is the choose() that follows the
	// requires (chooseProbe): when the conjuncts hold, the interpreter's
	// read-only guard run could find nothing false before that choice
	atChoose bool
}

// eval tells whether the try is disabled, and why; scratch is the
// worker's buffer for the locals.
func (g *cguard) eval(s *sstate, args []starlark.Value, ctx *cctx) (ctruth, string) {
	f := ctx.start(s, g.nlocals, compileBudget)
	copy(f.locals[1:], args)
	for i, c := range g.conds {
		v, ok := c(f)
		if !ok {
			return cUnknown, ""
		}
		if !v.Truth() {
			if f.why != "" { // a require() in a loop or a branch
				return cFalse, f.why
			}
			return cFalse, g.whys[i]
		}
	}
	return cTrue, ""
}

// compileGuards compiles each action's leading requires. An action whose
// definition is not found (a lambda) gets no compiled guard.
func (m *StarModel) compileGuards(cc *compiler) {
	m.cguards = make([]*cguard, len(m.fns))
	for i, fn := range m.fns {
		def := cc.defOf(fn)
		if def == nil {
			continue
		}
		c := &gcomp{cc: cc, globals: cc.globalsOf(fn), nparams: fn.NumParams(), state: 0}
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

// guard compiles the leading require()s of def's body: the requires, the
// local assignments and the if and for statements among them (those
// whose requires fail the guard), up to the first statement that does
// not compile, or a choose() (see chooseProbe).
func (c *gcomp) guard(def *syntax.DefStmt) *cguard {
	g := &cguard{complete: true, nlocals: len(def.Function.(*resolve.Function).Locals)}
	var conjs []syntax.Node
	defer func() { g.prefixNeeds(conjs, c.nparams) }()
	c.requires = reqGuard
	defer func() { c.requires = reqNone }()
	body := def.Body
	i := 0
	if len(body) > 0 && isDocstring(body[0]) {
		i++
	}
	// what the guard holds at its last conjunct (assignments after it are
	// the body's, or, when a conjunct does not compile, nobody's)
	atConj := [3]int{i, 0, 0} // the next statement, len(g.conds), len(g.assigns)
	step := func(ce cexpr, n syntax.Node, st syntax.Stmt) {
		g.conds = append(g.conds, ce)
		g.whys = append(g.whys, "")
		conjs = append(conjs, n) // its value needs what n reads
		g.assigns = append(g.assigns, st)
	}
	for ; i < len(body); i++ {
		if slot, rhs, ce := c.localAssign(body[i]); ce != nil {
			step(assignCond(slot, ce), rhs, body[i])
			continue
		}
		if ce, req := c.guardStmt(body[i]); ce != nil {
			step(ce, body[i], body[i])
			if req {
				atConj = [3]int{i + 1, len(g.conds), len(g.assigns)}
			}
			continue
		}
		if ce, why, arg := c.chooseProbe(body[i]); ce != nil {
			g.conds = append(g.conds, ce)
			g.whys = append(g.whys, why)
			conjs = append(conjs, arg)
			atConj = [3]int{i, len(g.conds), len(g.assigns)} // the body makes the choice
			g.atChoose = true
			break
		}
		cond, why, ok := c.requireCall(body[i])
		if !ok {
			break
		}
		for _, conj := range conjuncts(cond, nil) {
			ce := c.expr(conj)
			if ce == nil {
				g.complete = false // the require's compiled conjuncts are kept
				g.cut(atConj, &conjs)
				return g.orNil()
			}
			g.conds = append(g.conds, ce)
			g.whys = append(g.whys, why)
			conjs = append(conjs, conj)
			atConj = [3]int{i + 1, len(g.conds), len(g.assigns)}
		}
	}
	i = atConj[0]
	g.cut(atConj, &conjs)
	if g.complete {
		g.complete = !c.mayRequire(body[i:], map[*syntax.DefStmt]bool{})
	}
	g.start = i
	return g.orNil()
}

// reqMode is how an action's own require() statements compile.
type reqMode uint8

const (
	reqNone  reqMode = iota // not at all (functions of the state, helpers)
	reqGuard                // in its guard: false ends the guard, disabled
	reqBody                 // in its body, run again after the guard held: false is unknown
)

// requireStmt compiles require(cond) (with why, its reason) as a statement
// of an action's guard or body.
func (c *gcomp) requireStmt(cond syntax.Expr, why string) cstmt {
	e := c.expr(cond)
	if e == nil {
		return nil
	}
	guard := c.requires == reqGuard
	return func(f *cframe) (flow, starlark.Value) {
		v, ok := e(f)
		switch {
		case !ok:
			return flowUnknown, nil
		case bool(v.Truth()):
			return flowNext, nil
		case guard:
			f.why = why
			return flowDisabled, nil
		}
		return flowUnknown, nil // the guard found it true: the interpreter decides
	}
}

// guardStmt compiles an if or a for statement among an action's leading
// requires (Phase2a's for m in s.msgs: require(...)) as a step of its
// guard: it binds its locals as the interpreter would, and a require() in
// it that fails makes the step false, with that require()'s reason. One
// that returns is not compiled. req: it calls require().
func (c *gcomp) guardStmt(st syntax.Stmt) (cexpr, bool) {
	switch st.(type) {
	case *syntax.IfStmt, *syntax.ForStmt:
	default:
		return nil, false
	}
	req, ret := false, false
	syntax.Walk(st, func(n syntax.Node) bool {
		switch x := n.(type) {
		case *syntax.ReturnStmt:
			ret = true
		case *syntax.CallExpr:
			req = req || isBuiltin(x.Fn, "require", resolve.Predeclared)
		}
		return !ret
	})
	if ret {
		return nil, false
	}
	cs := c.stmt(st)
	if cs == nil {
		return nil, false
	}
	return func(f *cframe) (starlark.Value, bool) {
		switch fl, _ := cs(f); fl {
		case flowNext:
			return starlark.True, true
		case flowDisabled:
			return starlark.False, true
		}
		return nil, false
	}, req
}

// chooseCallOf recognises NAME = choose(EXPR) (or choose(EXPR) alone):
// the call and EXPR.
func chooseCallOf(st syntax.Stmt) (*syntax.CallExpr, syntax.Expr) {
	var e syntax.Expr
	switch x := st.(type) {
	case *syntax.AssignStmt:
		if x.Op != syntax.EQ {
			return nil, nil
		}
		e = x.RHS
	case *syntax.ExprStmt:
		e = x.X
	default:
		return nil, nil
	}
	call, ok := e.(*syntax.CallExpr)
	if !ok || !isBuiltin(call.Fn, "choose", resolve.Predeclared) || len(call.Args) != 1 || !positional(call.Args[0]) {
		return nil, nil
	}
	return call, call.Args[0]
}

// chooseProbe compiles the choose() that follows an action's requires
// (Phase1b's m = choose([m for m in s.msgs if ...])) as its guard's last
// conjunct: false when the collection is empty, which disables the action
// there as a failed require() does, with the interpreter's reason. The
// body makes the choice. It returns the conjunct, its reason and EXPR.
func (c *gcomp) chooseProbe(st syntax.Stmt) (cexpr, string, syntax.Expr) {
	call, arg := chooseCallOf(st)
	if call == nil {
		return nil, "", nil
	}
	e := c.expr(arg)
	if e == nil {
		return nil, "", nil
	}
	return func(f *cframe) (starlark.Value, bool) {
		v, ok := e(f)
		if !ok {
			return nil, false
		}
		if _, it := v.(starlark.Iterable); !it {
			return nil, false // the interpreter's error
		}
		n := starlark.Len(v)
		return starlark.Bool(n != 0), n >= 0
	}, emptyChoice(synPos(call.Lparen)), arg
}

// cut drops the assignments after the last conjunct (at).
func (g *cguard) cut(at [3]int, conjs *[]syntax.Node) {
	g.conds, g.whys, g.assigns = g.conds[:at[1]], g.whys[:at[1]], g.assigns[:at[2]]
	*conjs = (*conjs)[:at[1]]
}

// localAssign recognises `NAME = EXPR` binding a local that is not a
// parameter, with EXPR compiled: its slot, EXPR and the compiled EXPR
// (nil: not such an assignment).
func (c *gcomp) localAssign(st syntax.Stmt) (int, syntax.Expr, cexpr) {
	as, ok := st.(*syntax.AssignStmt)
	if !ok || as.Op != syntax.EQ {
		return 0, nil, nil
	}
	id, ok := as.LHS.(*syntax.Ident)
	if !ok {
		return 0, nil, nil
	}
	b, _ := id.Binding.(*resolve.Binding)
	if b == nil || b.Scope != resolve.Local || b.Index < c.nparams {
		return 0, nil, nil
	}
	return b.Index, as.RHS, c.expr(as.RHS)
}

// assignCond is a leading assignment as a step of the guard: it binds the
// local and holds.
func assignCond(slot int, e cexpr) cexpr {
	return func(f *cframe) (starlark.Value, bool) {
		v, ok := e(f)
		if !ok {
			return nil, false
		}
		f.locals[slot] = v
		return starlark.True, true
	}
}

func (g *cguard) orNil() *cguard {
	if len(g.conds) == 0 && !g.complete {
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
	if len(call.Args) == 0 || len(call.Args) > 2 || !positional(call.Args[0]) {
		return nil, "", false // require(cond=...), require(*xs)
	}
	if len(call.Args) == 1 {
		return call.Args[0], "", true
	}
	lit, ok := call.Args[1].(*syntax.Literal)
	if !ok || lit.Token != syntax.STRING {
		return nil, "", false
	}
	return call.Args[0], lit.Value.(string), true
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
			def := c.cc.defOf(callee)
			if def == nil {
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
