package model

import (
	"math/big"

	"go.starlark.net/resolve"
	"go.starlark.net/starlark"
	"go.starlark.net/syntax"
)

// Compiled functions of the state. The functions a model evaluates on
// every state — invariant(s), state_filter(s), accepting(s), a project's
// filter expressions and the helpers they call, an action's guard — are
// pure: they read the state's frozen values, the module's frozen globals
// and their arguments, and build nothing that outlives them. Those written
// in the subset below are compiled to Go closures, which run without the
// interpreter's frames, stacks and dispatch; anything else is left to the
// interpreter.
//
// The subset: statements return, if/elif/else, for over an iterable (names
// or a tuple of names), assignment to a local name (= += -= *= //= %=),
// break, continue, pass, a docstring; expressions: names (parameters,
// locals, the module's globals, None/True/False), literals, s.VAR of the
// state parameter, indexing, and/or/not, comparisons, in, not in,
// + - * // %, unary - and +, tuples, lists, list comprehensions,
// conditional expressions, calls of the model's functions (positional
// arguments, the state passed first or not at all), of pure universal
// builtins (len, all, any, min, max, range, sorted, ...) and of the
// methods of values that change nothing (d.get, s.union, ...). Each
// operation is the one Starlark's interpreter calls (starlark.Compare,
// starlark.Binary, Mapping.Get, the builtins themselves), so a compiled
// function that returns a value returns the interpreter's. One that meets
// an error — an index out of range, a key not in a dict, a type mismatch —
// or runs past its budget of steps says "unknown", and the caller runs the
// interpreter, which reports the error as it always did.

// cexpr evaluates a compiled expression; ok false means the interpreter
// would raise an error (or the value is not known here).
type cexpr func(f *cframe) (v starlark.Value, ok bool)

// flow is how a compiled statement ends.
type flow uint8

const (
	flowNext flow = iota
	flowReturn
	flowBreak
	flowContinue
	flowUnknown // an error: the interpreter must run it
	// flowDisabled: a require() of an action's guard failed (guardc.go;
	// the frame's why says which)
	flowDisabled
)

// cstmt runs a compiled statement; v is the returned value with flowReturn.
type cstmt func(f *cframe) (flow, starlark.Value)

// compileBudget bounds the steps (loop iterations, calls, comprehension
// elements) of one compiled evaluation; past it the interpreter runs it,
// under the step budget the user set.
const compileBudget = 200_000

// cfunc is a compiled function of the model.
type cfunc struct {
	nparams, nlocals int
	body             []cstmt // nil while being compiled (recursion) or if it did not compile
	failed           bool
}

// call runs the function with its parameters in locals.
func (cf *cfunc) call(f *cframe) (starlark.Value, bool) {
	if cf.body == nil {
		return nil, false
	}
	switch fl, v := runBlock(cf.body, f); fl {
	case flowReturn:
		return v, true
	case flowNext:
		return starlark.None, true
	}
	return nil, false
}

// eval runs a compiled function of the state alone (invariant, filters).
func (cf *cfunc) eval(s *sstate, ctx *cctx) (starlark.Value, bool) {
	return cf.call(ctx.start(s, cf.nlocals, compileBudget))
}

func runBlock(stmts []cstmt, f *cframe) (flow, starlark.Value) {
	for _, st := range stmts {
		if fl, v := st(f); fl != flowNext {
			return fl, v
		}
	}
	return flowNext, nil
}

// compiler compiles the functions of one model: it parses the model's
// files once and keeps each compiled function (per state passing mode).
type compiler struct {
	m       *StarModel
	sources map[string][]byte
	files   map[string]*syntax.File
	defs    map[defPos]*syntax.DefStmt
	funcs   map[funcKey]*cfunc
	// appends: list.append may be compiled (init(), whose lists are its
	// own; not the functions of the state, whose arguments may not be)
	appends bool
	// memoSize: the memo slots of the paths compiled so far, memoOff where
	// each path's are (memo.go)
	memoSize int
	memoOff  map[memoPath]int
	// globals: each module's globals, made once (Function.Globals copies
	// them at every call: once an action made loading quadratic in the
	// number of actions)
	globals map[*starlark.Module]starlark.StringDict
}

type funcKey struct {
	def      *syntax.DefStmt
	stateful bool
	body     bool // part of an action's body (see bodyc.go)
}

func newCompiler(m *StarModel, sources map[string][]byte) *compiler {
	return &compiler{m: m, sources: sources, files: map[string]*syntax.File{}, defs: map[defPos]*syntax.DefStmt{}, funcs: map[funcKey]*cfunc{}}
}

// defOf finds the definition of fn, or nil (a lambda, a builtin).
func (cc *compiler) defOf(fn *starlark.Function) *syntax.DefStmt {
	name := fn.Position().Filename()
	if _, seen := cc.files[name]; !seen {
		f := parseResolved(name, cc.sources[name])
		cc.files[name] = f
		if f != nil {
			collectDefs(f.Stmts, cc.defs)
		}
	}
	def := cc.defs[posOf(fn)]
	if def == nil || def.Name.Name != fn.Name() {
		return nil
	}
	return def
}

// function compiles fn; stateful: its first parameter is the state. It
// returns nil if fn is not in the subset.
func (cc *compiler) function(fn *starlark.Function, stateful bool) *cfunc {
	return cc.functionIn(fn, stateful, false)
}

// functionIn compiles fn as a function of the state (body false) or as
// part of an action's body, which may change the state (body true).
func (cc *compiler) functionIn(fn *starlark.Function, stateful, body bool) *cfunc {
	if fn.HasVarargs() || fn.HasKwargs() || fn.NumKwonlyParams() > 0 || (stateful && fn.NumParams() < 1) {
		return nil
	}
	def := cc.defOf(fn)
	if def == nil {
		return nil
	}
	k := funcKey{def, stateful, body}
	if cf, ok := cc.funcs[k]; ok {
		if cf.failed {
			return nil
		}
		return cf // compiled, or being compiled (a recursive call)
	}
	rf := def.Function.(*resolve.Function)
	cf := &cfunc{nparams: fn.NumParams(), nlocals: len(rf.Locals)}
	cc.funcs[k] = cf
	g := &gcomp{cc: cc, globals: cc.globalsOf(fn), nparams: cf.nparams, state: -1, body: body, init: cc.appends && fn == cc.m.init}
	if stateful {
		g.state = 0
	}
	stmts, ok := g.block(def.Body, true)
	if !ok {
		cf.failed = true
		return nil
	}
	cf.body = stmts
	return cf
}

// gcomp compiles the body of one function.
type gcomp struct {
	cc      *compiler
	globals starlark.StringDict
	nparams int
	state   int // the local index of the state parameter, -1 none
	loops   int // enclosing for loops
	// body: an action's body, whose state is its run's record (read and
	// changed through it)
	body bool
	// init: init() itself, whose outermost loops may run in parallel
	// (parinit.go)
	init bool
	// requires: how the action's own require() statements compile (in
	// its guard or its body; reqNone: not at all)
	requires reqMode
}

func (c *gcomp) block(stmts []syntax.Stmt, top bool) ([]cstmt, bool) {
	out := make([]cstmt, 0, len(stmts))
	for i, st := range stmts {
		if top && i == 0 && isDocstring(st) {
			continue
		}
		cs := c.stmt(st)
		if cs == nil {
			return nil, false
		}
		out = append(out, cs)
	}
	return out, true
}

func isDocstring(st syntax.Stmt) bool {
	es, ok := st.(*syntax.ExprStmt)
	if !ok {
		return false
	}
	lit, ok := es.X.(*syntax.Literal)
	return ok && lit.Token == syntax.STRING
}

func (c *gcomp) stmt(st syntax.Stmt) cstmt {
	switch x := st.(type) {
	case *syntax.ReturnStmt:
		if st := c.streamedReturn(x); st != nil {
			return st
		}
		if x.Result == nil {
			return func(*cframe) (flow, starlark.Value) { return flowReturn, starlark.None }
		}
		e := c.expr(x.Result)
		if e == nil {
			return nil
		}
		return func(f *cframe) (flow, starlark.Value) {
			v, ok := e(f)
			if !ok {
				return flowUnknown, nil
			}
			return flowReturn, v
		}
	case *syntax.IfStmt:
		return c.ifStmt(x)
	case *syntax.ForStmt:
		return c.forStmt(x)
	case *syntax.AssignStmt:
		return c.assign(x)
	case *syntax.ExprStmt: // a call for its effect: init()'s xs.append(x)
		if c.requires != reqNone {
			if cond, why, ok := c.requireCall(x); ok {
				return c.requireStmt(cond, why)
			}
		}
		call, ok := x.X.(*syntax.CallExpr)
		if !ok {
			return nil
		}
		e := c.call(call)
		if e == nil {
			return nil
		}
		return func(f *cframe) (flow, starlark.Value) {
			if _, ok := e(f); !ok {
				return flowUnknown, nil
			}
			return flowNext, nil
		}
	case *syntax.BranchStmt:
		switch {
		case x.Token == syntax.PASS:
			return func(*cframe) (flow, starlark.Value) { return flowNext, nil }
		case x.Token == syntax.BREAK && c.loops > 0:
			return func(*cframe) (flow, starlark.Value) { return flowBreak, nil }
		case x.Token == syntax.CONTINUE && c.loops > 0:
			return func(*cframe) (flow, starlark.Value) { return flowContinue, nil }
		}
	}
	return nil
}

func (c *gcomp) ifStmt(x *syntax.IfStmt) cstmt {
	cond := c.expr(x.Cond)
	yes, ok1 := c.block(x.True, false)
	no, ok2 := c.block(x.False, false)
	if cond == nil || !ok1 || !ok2 {
		return nil
	}
	return func(f *cframe) (flow, starlark.Value) {
		v, ok := cond(f)
		if !ok {
			return flowUnknown, nil
		}
		if v.Truth() {
			return runBlock(yes, f)
		}
		return runBlock(no, f)
	}
}

func (c *gcomp) forStmt(x *syntax.ForStmt) cstmt {
	seq := c.expr(x.X)
	bind := c.target(x.Vars)
	c.loops++
	body, ok := c.block(x.Body, false)
	c.loops--
	if seq == nil || bind == nil || !ok {
		return nil
	}
	pure := c.pure()
	par := c.parallelLoop(x)
	// iteration runs the body for v: done when the loop ends there.
	iteration := func(f *cframe, v starlark.Value) (fl flow, r starlark.Value, done bool) {
		if !f.ctx.tick() || !bind(f, v) {
			return flowUnknown, nil, true
		}
		switch fl, r := runBlock(body, f); fl {
		case flowReturn, flowUnknown, flowDisabled:
			return fl, r, true
		case flowBreak:
			return flowNext, nil, true
		}
		return flowNext, nil, false
	}
	return func(f *cframe) (flow, starlark.Value) {
		xs, ok := seq(f)
		if !ok {
			return flowUnknown, nil
		}
		start := 0
		if elems, ok := parSequence(xs); ok && par != nil && f.ctx.par > 1 {
			var fl flow
			var r starlark.Value
			var done bool
			if start, fl, r, done = par.run(f, elems, iteration); done {
				return fl, r
			}
		}
		if elems, ok := indexable(xs, pure); ok {
			for i := start; i < elems.Len(); i++ {
				if fl, r, done := iteration(f, elems.Index(i)); done {
					return fl, r
				}
			}
			return flowNext, nil
		}
		it := starlark.Iterate(xs)
		if it == nil {
			return flowUnknown, nil
		}
		defer it.Done()
		var v starlark.Value
		for skip := start; skip > 0 && it.Next(&v); skip-- {
		}
		for it.Next(&v) {
			if fl, r, done := iteration(f, v); done {
				return fl, r
			}
		}
		return flowNext, nil
	}
}

// target compiles the names a for loop or an assignment binds: a local
// name or a tuple of them (unpacking a sequence of that length).
func (c *gcomp) target(e syntax.Expr) func(f *cframe, v starlark.Value) bool {
	switch x := e.(type) {
	case *syntax.ParenExpr:
		return c.target(x.X)
	case *syntax.Ident:
		i, ok := c.local(x)
		if !ok || i == c.state {
			return nil
		}
		return func(f *cframe, v starlark.Value) bool { f.locals[i] = v; return true }
	case *syntax.DotExpr, *syntax.IndexExpr:
		if c.body {
			return c.stateTarget(x)
		}
	case *syntax.TupleExpr, *syntax.ListExpr:
		var elems []syntax.Expr
		if t, ok := x.(*syntax.TupleExpr); ok {
			elems = t.List
		} else {
			elems = x.(*syntax.ListExpr).List
		}
		parts := make([]func(*cframe, starlark.Value) bool, len(elems))
		for i, el := range elems {
			if parts[i] = c.target(el); parts[i] == nil {
				return nil
			}
		}
		return func(f *cframe, v starlark.Value) bool {
			seq, ok := v.(starlark.Indexable)
			if !ok || seq.Len() != len(parts) {
				return false
			}
			if _, isStr := v.(starlark.String); isStr {
				return false // strings are not iterable in Starlark
			}
			for i, p := range parts {
				if !p(f, seq.Index(i)) {
					return false
				}
			}
			return true
		}
	}
	return nil
}

// local returns the index of a function-local name.
func (c *gcomp) local(x *syntax.Ident) (int, bool) {
	b, _ := x.Binding.(*resolve.Binding)
	if b == nil || (b.Scope != resolve.Local && b.Scope != resolve.Cell) {
		return 0, false
	}
	return b.Index, true
}

var augOps = map[syntax.Token]syntax.Token{
	syntax.PLUS_EQ: syntax.PLUS, syntax.MINUS_EQ: syntax.MINUS, syntax.STAR_EQ: syntax.STAR,
	syntax.SLASHSLASH_EQ: syntax.SLASHSLASH, syntax.PERCENT_EQ: syntax.PERCENT,
}

func (c *gcomp) assign(x *syntax.AssignStmt) cstmt {
	rhs := c.expr(x.RHS)
	if rhs == nil {
		return nil
	}
	if x.Op == syntax.EQ {
		bind := c.target(x.LHS)
		if bind == nil {
			return nil
		}
		return func(f *cframe) (flow, starlark.Value) {
			v, ok := rhs(f)
			if !ok || !bind(f, v) {
				return flowUnknown, nil
			}
			return flowNext, nil
		}
	}
	op, ok := augOps[x.Op]
	if ok && c.body {
		if _, isID := x.LHS.(*syntax.Ident); !isID {
			return c.augmentState(op, x.LHS, rhs)
		}
	}
	id, isID := x.LHS.(*syntax.Ident)
	if !ok || !isID {
		return nil
	}
	i, ok := c.local(id)
	if !ok || i == c.state {
		return nil
	}
	return func(f *cframe) (flow, starlark.Value) {
		old := f.locals[i]
		if old == nil {
			return flowUnknown, nil
		}
		if _, isList := old.(*starlark.List); isList {
			return flowUnknown, nil // += on a list extends it in place
		}
		v, ok := rhs(f)
		if !ok {
			return flowUnknown, nil
		}
		r, ok := f.ctx.binary(op, old, v)
		if !ok {
			return flowUnknown, nil
		}
		f.locals[i] = r
		return flowNext, nil
	}
}

var (
	cNone  = func(*cframe) (starlark.Value, bool) { return starlark.None, true }
	cTrueV = func(*cframe) (starlark.Value, bool) { return starlark.True, true }
	cFalsV = func(*cframe) (starlark.Value, bool) { return starlark.False, true }
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
	case *syntax.SliceExpr:
		return c.slice(x)
	case *syntax.BinaryExpr:
		return c.binary(x)
	case *syntax.UnaryExpr:
		return c.unary(x)
	case *syntax.CallExpr:
		return c.call(x)
	case *syntax.TupleExpr:
		return c.sequence(x.List, false)
	case *syntax.ListExpr:
		return c.sequence(x.List, true)
	case *syntax.DictExpr:
		return c.dict(x)
	case *syntax.Comprehension:
		return c.comprehension(x)
	case *syntax.CondExpr:
		cond, a, b := c.expr(x.Cond), c.expr(x.True), c.expr(x.False)
		if cond == nil || a == nil || b == nil {
			return nil
		}
		return func(f *cframe) (starlark.Value, bool) {
			v, ok := cond(f)
			if !ok {
				return nil, false
			}
			if v.Truth() {
				return a(f)
			}
			return b(f)
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
		i := b.Index
		if i == c.state {
			return nil // the state only as s.VAR or passed on first
		}
		return func(f *cframe) (starlark.Value, bool) {
			v := f.locals[i]
			return v, v != nil // nil: not bound yet
		}
	case resolve.Global, resolve.Predeclared: // predeclared: a project expression's
		v, ok := c.globals[x.Name]
		if !ok || v == nil {
			return nil
		}
		return func(*cframe) (starlark.Value, bool) { return v, true }
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
	return func(*cframe) (starlark.Value, bool) { return v, true }
}

// isState tells whether e is the function's state parameter.
func (c *gcomp) isState(e syntax.Expr) bool {
	id, ok := e.(*syntax.Ident)
	if !ok || c.state < 0 {
		return false
	}
	i, ok := c.local(id)
	return ok && i == c.state
}

// stateVar compiles s.VAR.
func (c *gcomp) stateVar(x *syntax.DotExpr) cexpr {
	if !c.isState(x.X) {
		return nil
	}
	i, ok := c.cc.m.varIndex[x.Name.Name]
	if !ok {
		return nil
	}
	if c.body {
		return func(f *cframe) (starlark.Value, bool) {
			v, err := f.r.attrAt(i)
			return v, err == nil && v != nil
		}
	}
	return func(f *cframe) (starlark.Value, bool) {
		v, err := f.s.val(i)
		return v, err == nil && v != nil
	}
}

func (c *gcomp) index(x *syntax.IndexExpr) cexpr {
	if m := c.memoIndex(x); m != nil {
		return m
	}
	a, k := c.expr(x.X), c.expr(x.Y)
	if a == nil || k == nil {
		return nil
	}
	return func(f *cframe) (starlark.Value, bool) {
		v, ok := a(f)
		if !ok {
			return nil, false
		}
		y, ok := k(f)
		if !ok {
			return nil, false
		}
		return indexValue(v, y)
	}
}

// indexValue is x[y] as the interpreter's getIndex computes it.
func indexValue(x, y starlark.Value) (starlark.Value, bool) {
	switch x := x.(type) {
	case *starlark.Dict:
		z, found, err := x.Get(y)
		return z, err == nil && found
	case starlark.Tuple:
		if i, ok := smallInt(y); ok {
			if i < 0 {
				i += len(x)
			}
			if i < 0 || i >= len(x) {
				return nil, false
			}
			return x[i], true
		}
	case starlark.Mapping:
		z, found, err := x.Get(y)
		return z, err == nil && found
	}
	seq, ok := x.(starlark.Indexable)
	if !ok {
		return nil, false
	}
	n := seq.Len()
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
	return seq.Index(i), true
}

// smallInt returns an Int's value when it fits in an int.
func smallInt(v starlark.Value) (int, bool) {
	n, ok := v.(starlark.Int)
	if !ok {
		return 0, false
	}
	i, ok := n.Int64()
	if !ok || i != int64(int(i)) || i > 1<<31 || i < -(1<<31) {
		return 0, false
	}
	return int(i), true
}

// compile compiles what the model evaluates on every state: the actions'
// guards, invariant, state_filter and accepting. The compiler is kept for
// the project's expressions (CompileExpr).
func (m *StarModel) compile(cc *compiler) {
	m.cc = cc
	cc.funcs = map[funcKey]*cfunc{} // none with appends
	m.compileGuards(cc)
	m.compileBodies(cc)
	for _, x := range []struct {
		fn  *starlark.Function
		out **cfunc
	}{{m.invariant, &m.cinvariant}, {m.filter, &m.cfilter}, {m.accepting, &m.caccepting}} {
		if x.fn != nil {
			*x.out = cc.function(x.fn, true)
		}
	}
}

// compileExpr compiles a project expression over s (compiled by the
// interpreter as `lambda s: (SRC)` with the model's globals predeclared),
// or returns nil.
func (m *StarModel) compileExpr(src string) *cfunc {
	if m.cc == nil {
		return nil
	}
	m.ccMu.Lock()
	defer m.ccMu.Unlock()
	e, err := fileOptions.ParseExpr("expr", exprPrefix+src+"\n)", 0)
	if err != nil {
		return nil
	}
	lam, ok := e.(*syntax.LambdaExpr)
	if !ok {
		return nil
	}
	pre := builtins()
	if _, err := resolve.ExprOptions(fileOptions, lam, func(n string) bool { return pre.Has(n) || m.globals.Has(n) }, starlark.Universe.Has); err != nil {
		return nil
	}
	rf, ok := lam.Function.(*resolve.Function)
	if !ok || len(rf.Params) != 1 {
		return nil
	}
	g := &gcomp{cc: m.cc, globals: m.globals, nparams: 1, state: 0}
	body := g.expr(lam.Body)
	if body == nil {
		return nil
	}
	ret := func(f *cframe) (flow, starlark.Value) {
		v, ok := body(f)
		if !ok {
			return flowUnknown, nil
		}
		return flowReturn, v
	}
	return &cfunc{nparams: 1, nlocals: len(rf.Locals), body: []cstmt{ret}}
}

// initBudgetCompiled bounds a compiled init()'s steps (a TLA+ Init may
// list half a million states); past it init() runs in the interpreter.
const initBudgetCompiled = 200_000_000

// compiledInit runs init() compiled, if it is in the subset (with
// list.append and dict displays), or returns ok false.
func (m *StarModel) compiledInit(cc *compiler, thread *starlark.Thread, h *halt) (starlark.Value, bool) {
	return m.runCompiledInit(m.initFunc(cc), thread, h)
}

// initFunc compiles init() (nil: not in the subset).
func (m *StarModel) initFunc(cc *compiler) *cfunc {
	if cc == nil || m.init == nil {
		return nil
	}
	cc.appends = true
	cf := cc.function(m.init, false)
	cc.appends = false
	return cf
}

// runCompiledInit runs init() compiled by initFunc, or returns ok false;
// h stops it.
func (m *StarModel) runCompiledInit(cf *cfunc, thread *starlark.Thread, h *halt) (starlark.Value, bool) {
	if cf == nil {
		return nil, false
	}
	ctx := &cctx{thread: thread, par: m.initTasks, halt: h}
	return cf.call(ctx.start(nil, cf.nlocals, initBudgetCompiled))
}
