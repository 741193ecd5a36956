package model

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unsafe"

	"go.starlark.net/resolve"
	"go.starlark.net/starlark"
	"go.starlark.net/syntax"
)

type starWorker struct {
	m      *StarModel
	thread *starlark.Thread
	budget uint64
	// overBudget is set when the step budget cancelled the current call.
	overBudget bool
	fast       *fastRequire
	// guardAbort stops a step's guard run when it sets a variable.
	guardAbort *starlark.EvalError
	gstats     []guardStat // per action
	choice     choiceState
	buf        []byte
	r          rec
	// per-step buffers, reused
	outs    []Outcome
	argv    starlark.Tuple
	cur     []starlark.Value
	touched []bool
	obuf    []byte // outputs' encodings, checked
	// StepScratch's keys and states, DecodeScratch's state
	skeys   []byte
	sstates []sstate
	src     sstate
	slab    valSlab // the element arrays of the sequences StepScratch changes
	ends    []int   // where each variable's encoding ends in the last key made
	vslab   []starlark.Value
	eslab   []string
	cctx    cctx // compiled code's evaluations
	halt    halt // stops its code (Cancel)
	vcache  valCache
	gen     uint32               // the generation of the last DecodeScratch state (memo.go)
	plans   map[string]*thawPlan // by action and arguments (see thawPlan)
	pkey    []byte
	copies  []starlark.Value
	_       cacheLinePad
}

// cacheLinePad ends a worker's struct: its fields are written at every
// step, and two workers made one after the other would otherwise share a
// cache line (or the pair of lines the hardware fetches together), each
// core invalidating the other's copy. Two Go-native workers explored the
// bounded stack 25 % faster with it.
type cacheLinePad [128]byte

// NewWorker returns a Worker for one goroutine: of the model's product
// with its scenarios when it has some (Compose).
func (m *StarModel) NewWorker() (Worker, error) {
	w, err := m.newStarWorker()
	if err != nil {
		return nil, err
	}
	if len(m.scenarios) == 0 {
		return w, nil
	}
	return newProductWorker(w, m.scenarios)
}

// newStarWorker returns a worker of the model alone.
func (m *StarModel) newStarWorker() (*starWorker, error) {
	w := &starWorker{m: m, thread: newThread("worker"), budget: DefaultStepBudget}
	w.cctx.thread, w.cctx.halt = w.thread, &w.halt
	w.thread.OnMaxSteps = func(t *starlark.Thread) {
		w.overBudget = true
		t.Cancel("too many steps")
	}
	w.thread.SetLocal(localChoice, &w.choice)
	w.thread.SetLocal(localRec, &w.r)
	w.fast = &fastRequire{sentinel: &starlark.EvalError{Msg: "require failed"}}
	w.guardAbort = &starlark.EvalError{Msg: "the guard run sets a variable"}
	w.thread.SetLocal(localFast, w.fast)
	return w, nil
}

func (w *starWorker) SetBudget(steps uint64) {
	if steps > 0 {
		w.budget = steps
		w.cctx.limit = int(min(steps, uint64(compileBudget)))
	}
}

func (w *starWorker) Cancel(reason string) { w.halt.stop(w.thread, reason) }

// SetDetail makes failing requires report where they failed (slower; for
// explaining why an action is disabled).
func (w *starWorker) SetDetail(on bool) { w.fast.detail = on }

func orElse(s, d string) string {
	if s == "" {
		return d
	}
	return s
}

func (w *starWorker) call(fn starlark.Value, args starlark.Tuple) (starlark.Value, error) {
	w.thread.SetMaxExecutionSteps(w.thread.ExecutionSteps() + w.budget)
	w.halt.cancel(w.thread) // stopped by compiled code on another thread
	v, err := starlark.Call(w.thread, fn, args, nil)
	if w.overBudget {
		// The budget cancelled this call only; later calls run afresh.
		w.overBudget = false
		w.thread.Uncancel()
	}
	return v, err
}

func (w *starWorker) Init() (State, error) {
	// The first key only: not a state for each of half a million keys.
	keys, err := w.initKeys()
	if err != nil {
		return nil, err
	}
	return lazyState(keys[0]), nil
}

// initBudgetFactor is how many steps' budgets init() may use.
const initBudgetFactor = 100

// MaxInitialStates bounds the initial states init() may return.
const MaxInitialStates = 1 << 20

// Inits returns the initial states: init() returns one state (a dict of the
// state variables) or several (a list or tuple of such dicts; equal ones
// count once, in the order given). init() runs once per model (see
// StarModel.initVal): its states' keys are kept.
func (w *starWorker) Inits() ([]State, error) {
	keys, err := w.initKeys()
	if err != nil {
		return nil, err
	}
	out := make([]State, len(keys))
	for i, k := range keys {
		out[i] = lazyState(k)
	}
	return out, nil
}

// InitKeys returns the keys of the initial states (see InitKeyser): the
// slice is the model's, not to be changed.
func (w *starWorker) InitKeys() ([]string, error) { return w.initKeys() }

func (w *starWorker) Decode(key string) (State, error) { return w.m.decode(key) }

func (w *starWorker) readonly(st State) (*rec, error) {
	s, err := w.m.ensure(st)
	if err != nil {
		return nil, err
	}
	w.r = rec{m: w.m, st: s, readonly: true}
	return &w.r, nil
}

func (w *starWorker) Domain(st State, action, param int) ([]Value, bool, error) {
	d := w.m.domains[action][param]
	if d == nil {
		return nil, false, nil
	}
	if c, ok := w.m.constDomains[action][param]; ok {
		return c, true, nil
	}
	if _, ok := d.(starlark.Callable); ok {
		r, err := w.readonly(st)
		if err != nil {
			return nil, true, err
		}
		v, err := w.call(d, starlark.Tuple{r})
		if err != nil {
			return nil, true, convertErr(err, w.m.info.Actions[action].Pos, fmt.Sprintf("domain of %s.%s", w.m.info.Actions[action].Name, w.m.info.Actions[action].Params[param]))
		}
		d = v
	}
	vals, err := Elements(d)
	if err != nil {
		return nil, true, &PosError{Pos: w.m.info.Actions[action].Pos, Msg: fmt.Sprintf("domain of %s.%s: %v", w.m.info.Actions[action].Name, w.m.info.Actions[action].Params[param], err)}
	}
	return vals, true, nil
}

func (w *starWorker) Step(st State, action int, args []Value) ([]Outcome, string, error) {
	w.slab.pinned = true    // what this step makes may be kept,
	w.slab.srcPinned = true // and its inputs and outputs may be the source's
	return w.step(st, action, args, false)
}

// StepScratch is Step with the outcomes' states and keys in the worker's
// scratch (see ScratchStepper).
func (w *starWorker) StepScratch(st State, action int, args []Value) ([]Outcome, string, error) {
	w.skeys, w.sstates = w.skeys[:0], w.sstates[:0]
	w.vslab, w.eslab = w.vslab[:0], w.eslab[:0]
	w.slab.reset()
	if !w.slab.srcPinned && len(w.slab.dicts.reads)+len(w.slab.sets.reads) > 0 {
		for _, a := range args {
			if !Scalar(a) {
				w.slab.srcPinned = true // the input may be the source's, and kept
			}
		}
	}
	outs, why, err := w.step(st, action, args, true)
	for _, o := range outs {
		if o.Output != nil && !Scalar(o.Output) {
			w.slab.pinned = true    // the output may share the slab's arrays
			w.slab.srcPinned = true // or the source's values
		}
	}
	return outs, why, err
}

// DecodeScratch is Decode into the worker's scratch (see ScratchStepper):
// the variables are decoded when read, and a variable a step changes is
// made from its encoding instead of copied from its decoded value.
func (w *starWorker) DecodeScratch(key string) (State, error) {
	w.src.slab = &w.slab
	w.src.cache = &w.vcache
	w.slab.retireSource()
	if err := w.m.decodeLazy(&w.src, key); err != nil {
		return nil, err
	}
	w.src.source = true
	if w.gen++; w.gen == 0 { // wrapped: no slot may look current
		clear(w.cctx.memo)
		w.gen = 1
	}
	w.src.gen = w.gen
	return &w.src, nil
}

// outState is the state of an outcome with key k: a lazy one, new, or one
// in the worker's scratch (earlier outcomes of the same step keep theirs: a
// slab that grows leaves them in its old array). A scratch state is
// decoded already: the step's values of the variables it changed (frozen)
// and the source's of the others — the invariant and filters read it
// before the next step without decoding it.
func (w *starWorker) outState(k []byte, scratch bool, src *sstate) *sstate {
	if !scratch {
		return lazyState(string(k))
	}
	start := len(w.skeys)
	w.skeys = append(w.skeys, k...)
	key := unsafe.String(unsafe.SliceData(w.skeys[start:]), len(k))
	st := sstate{key: key, objs: w.r.objs}
	if n := len(w.m.info.Vars); len(w.ends) == n && src.encs != nil {
		vals, encs := w.takeVals(n), w.takeEncs(n)
		prev := 0
		for i := range vals {
			encs[i] = key[prev:w.ends[i]]
			prev = w.ends[i]
			if w.r.touched[i] {
				vals[i] = w.r.cur[i]
				vals[i].Freeze()
			} else if v, err := src.val(i); err == nil {
				vals[i] = v
			} else {
				vals, encs = nil, nil
				break
			}
		}
		st.vals, st.encs = vals, encs
	}
	if st.vals == nil {
		st.objs = nil // decoded from the key when needed
	}
	w.sstates = append(w.sstates, st)
	return &w.sstates[len(w.sstates)-1]
}

// takeVals returns n values from the worker's scratch slab.
func (w *starWorker) takeVals(n int) []starlark.Value {
	if cap(w.vslab)-len(w.vslab) < n {
		w.vslab = make([]starlark.Value, 0, max(256, n))
	}
	off := len(w.vslab)
	w.vslab = w.vslab[:off+n]
	return w.vslab[off : off+n : off+n]
}

// takeEncs returns n strings from the worker's scratch slab.
func (w *starWorker) takeEncs(n int) []string {
	if cap(w.eslab)-len(w.eslab) < n {
		w.eslab = make([]string, 0, max(256, n))
	}
	off := len(w.eslab)
	w.eslab = w.eslab[:off+n]
	return w.eslab[off : off+n : off+n]
}

func (w *starWorker) step(st State, action int, args []Value, scratch bool) ([]Outcome, string, error) {
	s, err := w.m.ensure(st)
	if err != nil {
		return nil, "", err
	}
	fn := w.m.fns[action]
	if cap(w.argv) < len(args)+1 {
		w.argv = make(starlark.Tuple, len(args)+1)
	}
	argv := w.argv[:len(args)+1]
	copy(argv[1:], args)
	n := len(w.m.info.Vars)
	if cap(w.cur) < n {
		w.cur, w.touched = make([]starlark.Value, n), make([]bool, n)
	}
	why, disabled, held := w.guard(s, action, fn, argv)
	if disabled {
		w.outs = w.outs[:0]
		return nil, why, nil
	}
	w.choice.prefix = w.choice.prefix[:0]
	clear(w.choice.picks)
	w.choice.picks = w.choice.picks[:0]
	outs := w.outs[:0]
	why = ""
	plan := w.thawPlan(action, args)
	var cb *cfunc
	if held && action < len(w.m.cbodies) {
		cb = w.m.cbodies[action]
	}
	for {
		res, err := w.run(s, fn, argv, plan, cb)
		if ee, ok := err.(*starlark.EvalError); ok && ee == w.fast.sentinel {
			if why == "" {
				why = orElse(w.fast.why, "require failed")
			}
		} else if err != nil {
			var rf *requireFailed
			if errors.As(err, &rf) {
				if why == "" {
					why = rf.reason()
				}
			} else if isCancelled(err) {
				return nil, "", err
			} else {
				outs = append(outs, Outcome{Err: convertErr(err, fnPos(fn), "action "+fn.Name())})
			}
		} else {
			if res != nil {
				res.Freeze()
			}
			buf, ends, err := w.r.encode(w.buf[:0], w.ends)
			w.ends = ends
			if err != nil {
				outs = append(outs, Outcome{Err: &PosError{Pos: fnPos(fn), Msg: "action " + fn.Name() + ": " + err.Error()}})
			} else {
				w.buf = buf
				var err error // the output must be encodable too
				if w.obuf, err = AppendValue(w.obuf[:0], res); err != nil {
					outs = append(outs, Outcome{Err: &PosError{Pos: fnPos(fn), Msg: "action " + fn.Name() + " output: " + err.Error()}})
				} else {
					outs = append(outs, Outcome{Output: res, Next: w.outState(buf, scratch, s)})
				}
			}
		}
		// Advance the choice odometer.
		p := w.choice.prefix[:min(len(w.choice.prefix), w.choice.pos)]
		j := len(p) - 1
		for j >= 0 && p[j]+1 >= w.choice.sizes[j] {
			j--
		}
		if j < 0 {
			break
		}
		w.choice.prefix = p[:j+1]
		w.choice.prefix[j]++
		// The collections of the choices after j may change with it.
		if len(w.choice.picks) > j+1 {
			clear(w.choice.picks[j+1:])
			w.choice.picks = w.choice.picks[:j+1]
		}
	}
	if len(outs) > 0 {
		why = ""
	}
	w.outs = outs
	return outs, why, nil
}

// guard runs an action on the state's shared, frozen values, as a
// read-only first run that tells cheaply whether the action is disabled:
// most tries of an exploration fail a require() before they change
// anything, and a run on the shared values copies no variable (a step's run
// makes a mutable copy of every variable it reads). The run is stopped by
// the first change it tries (a variable set, a frozen value changed, new())
// or by the first choose() — its outcome then is the full run's to find —
// and a require() that fails before either means the full run would fail
// it at the same point: the action is disabled. Explaining (detail) always
// runs in full. held: the action's compiled requires are all of its
// requires and hold (its compiled body may run).
func (w *starWorker) guard(s *sstate, action int, fn *starlark.Function, argv starlark.Tuple) (why string, disabled, held bool) {
	if w.fast.detail {
		return "", false, false
	}
	if action < len(w.m.cguards) && w.m.cguards[action] != nil && !w.m.noCGuards {
		cg := w.m.cguards[action]
		switch t, why := cg.eval(s, argv[1:], &w.cctx); {
		case t == cFalse:
			return orElse(why, "require failed"), true, false
		case t == cTrue && (cg.complete || cg.atChoose):
			return "", false, cg.complete
		}
	}
	if w.gstats == nil {
		w.gstats = make([]guardStat, len(w.m.fns))
	}
	g := &w.gstats[action]
	if !g.worth() {
		return "", false, false
	}
	w.choice.prefix = w.choice.prefix[:0]
	clear(w.choice.picks)
	w.choice.picks = w.choice.picks[:0]
	w.choice.pos = 0
	w.choice.sizes = w.choice.sizes[:0]
	w.r = rec{m: w.m, st: s, readonly: true, guard: true, abort: w.guardAbort, objs: s.objs}
	argv[0] = &w.r
	_, err := w.call(fn, argv)
	if ee, ok := err.(*starlark.EvalError); ok && ee == w.fast.sentinel && w.choice.pos == 0 {
		disabled = true
	}
	g.count(disabled)
	if disabled {
		return orElse(w.fast.why, "require failed"), true, false
	}
	return "", false, false
}

// guardStat counts an action's guard runs and how many of them found it
// disabled: a guard run of an enabled try is wasted (the full run does it
// again, after the error the first change raised, which costs about what a
// disabled try's run saves), and an action disabled in less than three
// tries in five (a test's Push; the bounded stack's, full in half of its
// states) is run in full at once, its guard run again one time in sixteen
// to notice when that changes.
type guardStat struct {
	runs, disabled, skipped uint32
}

func (g *guardStat) worth() bool {
	if g.runs < 32 || g.disabled*5 >= g.runs*3 {
		return true
	}
	g.skipped++
	return g.skipped%16 == 0
}

func (g *guardStat) count(disabled bool) {
	g.runs++
	if disabled {
		g.disabled++
	}
	if g.runs >= 1024 { // the recent runs count most
		g.runs, g.disabled = g.runs/2, g.disabled/2
	}
}

func isCancelled(err error) bool {
	var ee *starlark.EvalError
	return errors.As(err, &ee) && strings.Contains(ee.Msg, "cancelled") && !strings.Contains(ee.Msg, "too many steps")
}

func (w *starWorker) callOnState(fn starlark.Value, st State, what string, pos Pos) (starlark.Value, error) {
	r, err := w.readonly(st)
	if err != nil {
		return nil, err
	}
	v, err := w.call(fn, starlark.Tuple{r})
	if err != nil {
		return nil, convertErr(err, pos, what)
	}
	return v, nil
}

// compiled runs a compiled function of the state; ok false: the
// interpreter must (no compiled function, an error, or off).
func (w *starWorker) compiled(cf *cfunc, st State) (starlark.Value, bool) {
	if cf == nil || w.m.noCGuards {
		return nil, false
	}
	s, err := w.m.ensure(st)
	if err != nil {
		return nil, false
	}
	return cf.eval(s, &w.cctx)
}

func (w *starWorker) Eval(e Expr, st State) (Value, error) {
	x := e.(*starExpr)
	if v, ok := w.compiled(x.cf, st); ok {
		return v, nil
	}
	v, err := w.callOnState(x.fn, st, x.what, x.pos)
	if err != nil {
		err = x.place(err)
	}
	return v, err
}

// place maps a runtime error's position inside the expression (compiled
// as "lambda s: (SRC", from line 1, column 1 of the project file) to where
// the expression stands in the project file: p.toml:7:14, not p.toml:1:28.
func (x *starExpr) place(err error) error {
	pe, ok := err.(*PosError)
	if !ok || pe.Pos.File != x.pos.File {
		return err
	}
	moved := func(p Pos) Pos {
		if p.Line <= 1 {
			return Pos{File: p.File, Line: x.pos.Line, Col: x.pos.Col + max(p.Col-1-len(exprPrefix), 0)}
		}
		return Pos{File: p.File, Line: x.pos.Line + p.Line - 1, Col: p.Col}
	}
	out := *pe
	out.Pos = moved(pe.Pos)
	// The traceback names the same place the same way.
	out.Stack = exprFrame.ReplaceAllStringFunc(pe.Stack, func(m string) string {
		sub := exprFrame.FindStringSubmatch(m)
		if sub[1] != x.pos.File {
			return m
		}
		line, _ := strconv.Atoi(sub[2])
		col, _ := strconv.Atoi(sub[3])
		return moved(Pos{File: sub[1], Line: line, Col: col}).String()
	})
	return &out
}

// exprFrame matches a position in a traceback: FILE:LINE:COL.
var exprFrame = regexp.MustCompile(`(\S+):(\d+):(\d+)`)

func (w *starWorker) Accepting(st State) (bool, error) {
	if w.m.accepting == nil {
		return true, nil
	}
	v, ok := w.compiled(w.m.caccepting, st)
	if !ok {
		var err error
		if v, err = w.callOnState(w.m.accepting, st, "accepting(s)", fnPos(w.m.accepting)); err != nil {
			return false, err
		}
	}
	return bool(v.Truth()), nil
}

func (w *starWorker) Invariant(st State) (string, error) {
	if w.m.invariant == nil {
		return "", nil
	}
	v, ok := w.compiled(w.m.cinvariant, st)
	if !ok {
		var err error
		if v, err = w.callOnState(w.m.invariant, st, "invariant(s)", fnPos(w.m.invariant)); err != nil {
			return "", err
		}
	}
	if s, ok := starlark.AsString(v); ok {
		if s == "" {
			return "invariant violated", nil
		}
		return s, nil
	}
	if v.Truth() {
		return "", nil
	}
	return "invariant violated at " + fnPos(w.m.invariant).String(), nil
}

func (w *starWorker) StateFilter(st State) (bool, error) {
	if w.m.filter == nil {
		return true, nil
	}
	v, ok := w.compiled(w.m.cfilter, st)
	if !ok {
		var err error
		if v, err = w.callOnState(w.m.filter, st, "state_filter(s)", fnPos(w.m.filter)); err != nil {
			return false, err
		}
	}
	return bool(v.Truth()), nil
}

func (w *starWorker) Vars(st State) []Var {
	s, err := w.m.ensure(st)
	if err != nil {
		return nil
	}
	out := make([]Var, len(s.vals))
	for i := range s.vals {
		v, err := s.val(i)
		if err != nil {
			v = starlark.String("<" + err.Error() + ">")
		}
		out[i] = Var{Name: w.m.info.Vars[i], Value: v}
	}
	return out
}

type starExpr struct {
	src  string
	what string // "expression `SRC`", for errors
	pos  Pos
	fn   starlark.Value
	cf   *cfunc // compiled (nil: the interpreter's)
}

func (e *starExpr) Source() string { return e.src }

// Pos is where the expression stands.
func (e *starExpr) Pos() Pos { return e.pos }

const exprPrefix = "lambda s: ("

// Compile compiles a project expression over s in the model's global scope.
func (m *StarModel) Compile(src string, pos Pos) (Expr, error) {
	if strings.TrimSpace(src) == "" {
		return nil, &PosError{Pos: pos, Msg: "empty expression"}
	}
	shift := func(p syntax.Position, prefix int) Pos {
		line, col := int(p.Line), int(p.Col)
		if line <= 1 {
			return Pos{File: pos.File, Line: pos.Line, Col: pos.Col + col - 1 - prefix}
		}
		return Pos{File: pos.File, Line: pos.Line + line - 1, Col: col}
	}
	if _, err := fileOptions.ParseExpr(pos.File, src, 0); err != nil {
		var se syntax.Error
		if errors.As(err, &se) {
			return nil, &PosError{Pos: shift(se.Pos, 0), Msg: "in expression `" + src + "`: " + se.Msg}
		}
		return nil, &PosError{Pos: pos, Msg: err.Error()}
	}
	thread := newThread("compile")
	thread.SetMaxExecutionSteps(1000)
	env := builtins()
	for k, v := range m.globals {
		env[k] = v
	}
	f, err := starlark.ExprFuncOptions(fileOptions, pos.File, exprPrefix+src+"\n)", env)
	if err != nil {
		var rl resolve.ErrorList
		if errors.As(err, &rl) && len(rl) > 0 {
			return nil, &PosError{Pos: shift(rl[0].Pos, len(exprPrefix)), Msg: "in expression `" + src + "`: " + rl[0].Msg}
		}
		var se syntax.Error
		if errors.As(err, &se) {
			return nil, &PosError{Pos: shift(se.Pos, len(exprPrefix)), Msg: "in expression `" + src + "`: " + se.Msg}
		}
		return nil, &PosError{Pos: pos, Msg: "in expression `" + src + "`: " + err.Error()}
	}
	fn, err := starlark.Call(thread, f, nil, nil)
	if err != nil {
		return nil, &PosError{Pos: pos, Msg: err.Error()}
	}
	return &starExpr{src: src, what: "expression `" + src + "`", pos: pos, fn: fn, cf: m.compileExpr(src)}, nil
}
