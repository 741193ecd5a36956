package model

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"

	"go.starlark.net/resolve"
	"go.starlark.net/starlark"
	"go.starlark.net/syntax"
)

// DefaultStepBudget is the execution-step budget of one action step or one
// expression evaluation unless the configuration sets another.
const DefaultStepBudget = 1_000_000

// loadBudget bounds the execution of a model file's top level.
const loadBudget = 50_000_000

// InitBudget is the least budget of init(), at load and when exploring: it
// may list up to MaxInitialStates states (a TLA+ Init of every state of an
// inductive invariant), a thousand steps each (about ten seconds).
const InitBudget = 1_000_000_000

var fileOptions = &syntax.FileOptions{
	Set:             true,
	While:           true,
	TopLevelControl: true,
	Recursion:       true,
}

// StarModel is a model program written in Starlark (see
// docs/model-language.md).
type StarModel struct {
	info      ModelInfo
	globals   starlark.StringDict
	init      *starlark.Function
	fns       []*starlark.Function // per action
	domains   [][]starlark.Value   // per action, per param: nil, a collection or a function
	accepting *starlark.Function
	invariant *starlark.Function
	filter    *starlark.Function
	varIndex  map[string]int
	dir       string
	// constDomains holds the model's domains that are plain collections,
	// collected once.
	constDomains []map[int][]starlark.Value
	// init() runs once: its value at load (frozen), made the initial
	// states' keys by the first Inits (init depends on nothing but the
	// constants, fixed at load; a TLA+ Init may list half a million states).
	initMu   sync.Mutex
	initVal  starlark.Value
	initKeys []string
	// initLived counts the initial keys' bytes in LongLived while init()
	// makes them and until they are let go (initSink.count)
	initLived *lived
	// initAgain: the keys were let go (ReleaseInitKeys); init() runs
	// again when they are asked for
	initAgain bool
	// cguards holds each action's compiled leading requires (nil: none;
	// see guardc.go); noCGuards turns them off.
	cguards   []*cguard
	noCGuards bool
	// cbodies holds the actions' compiled bodies (nil: none; see bodyc.go)
	cbodies []*cfunc
	// the compiled invariant, state_filter and accepting (nil: the
	// interpreter's; see compile.go), and the compiler for expressions
	cinvariant, cfilter, caccepting *cfunc
	cc                              *compiler
	ccMu                            sync.Mutex
	// noThaw gives every run deep copies of the variables it reads (see
	// thawPlan).
	noThaw bool
	// initTasks: the goroutines init()'s loops may run on (parinit.go)
	initTasks int
	// scenarios are composed with the model (compose.go): NewWorker's
	// workers are the product's
	scenarios []Scenario
}

// SetCompiledGuards turns the compiled guards and functions on (the
// default) or off: off, everything runs in the interpreter (to compare the
// two). Call it before making workers.
func (m *StarModel) SetCompiledGuards(on bool) { m.noCGuards = !on }

// SetThawPlans turns on (the default) or off the plans that give a step's
// run frozen values and shallow copies of the variables it does not change
// (see thawPlan): off, every run gets deep copies (to compare the two).
// Call it before making workers.
func (m *StarModel) SetThawPlans(on bool) { m.noThaw = !on }

// Info describes the model.
func (m *StarModel) Info() *ModelInfo { return &m.info }

// MaxSourceSize bounds a model file (and every file it loads).
const MaxSourceSize = 8 << 20

// LoadStarlark loads a model program from a .star file.
func LoadStarlark(path string) (*StarModel, error) {
	src, err := ReadSource(path)
	if err != nil {
		return nil, fmt.Errorf("reading model: %w", err)
	}
	return LoadStarlarkSource(path, src)
}

// ReadSource reads a model source file: a regular file of at most
// MaxSourceSize bytes (not a device such as /dev/zero, not a folder).
func ReadSource(path string) ([]byte, error) {
	if filepath.Ext(path) != ".star" {
		// Another kind of file (a .env, a key) would show its content in
		// the syntax errors.
		return nil, fmt.Errorf("%s: a model is a .star file", path)
	}
	return ReadFileLimited(path, MaxSourceSize)
}

// ReadFileLimited reads a regular file of at most max bytes; a device, a
// folder or a larger file is an error naming the path.
func ReadFileLimited(path string, max int64) ([]byte, error) {
	// Checked before opening: opening a named pipe for reading blocks
	// until a writer comes, for ever if none does.
	if st, err := os.Stat(path); err != nil {
		return nil, err
	} else if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", path)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", path)
	}
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > max {
		return nil, fmt.Errorf("%s is larger than %d MiB", path, max>>20)
	}
	return data, nil
}

// LoadStarlarkSource loads a model program from source text; path names the
// file in messages and anchors load().
func LoadStarlarkSource(path string, src []byte) (*StarModel, error) {
	return LoadStarlarkWith(path, src, nil)
}

// LoadStarlarkWith loads a model program whose constant(name, default)
// declarations take the given values (a configuration's constants); a
// constant not given keeps its default. src nil reads the file at path.
func LoadStarlarkWith(path string, src []byte, constants map[string]Value) (*StarModel, error) {
	return LoadStarlarkOptions(path, src, LoadOptions{Constants: constants})
}

// LoadOptions are the settings of loading a model.
type LoadOptions struct {
	// Constants are the values of the model's constant(name, default)
	// declarations that do not keep their default.
	Constants map[string]Value
	// Workers is how many goroutines init() may run on (its loops that
	// give initial states; see docs/model-language.md): 0 is the number
	// of CPUs, 1 runs it on the caller's alone.
	Workers int
	// Context, when it ends (Ctrl-C, a closed window), stops the model's
	// code at load: the module's statements, init(), constant domains.
	Context context.Context
	// MemoryBudget bounds the heap (bytes) while the model loads, as
	// explore.Config's does while it runs (0: DefaultMemoryBudget).
	MemoryBudget uint64
}

// stoppedError is a load stopped by its context or its memory budget: the
// error the model's code gave (with its position), and the cause.
type stoppedError struct {
	cause, err error
}

// Stopped returns err, the error of model code stopped by cause (a
// context's cause: Canceled, DeadlineExceeded, or one wrapping
// ErrMemoryBudget), with its message and wrapping both.
func Stopped(cause, err error) error { return &stoppedError{cause: cause, err: err} }

func (e *stoppedError) Error() string   { return e.err.Error() }
func (e *stoppedError) Unwrap() []error { return []error{e.cause, e.err} }

// LoadStarlarkOptions loads a model program with the given options; src
// nil reads the file at path.
func LoadStarlarkOptions(path string, src []byte, opts LoadOptions) (*StarModel, error) {
	ctx := opts.Context
	if ctx == nil {
		ctx = context.Background()
	}
	ctx, stopWatch := WatchMemoryFinal(ctx, opts.MemoryBudget)
	defer stopWatch()
	thread := newThread("load " + path)
	h := new(halt)
	stop := context.AfterFunc(ctx, func() {
		why := "loading the model cancelled"
		if msg, ok := MemoryExceeded(ctx); ok {
			why = msg
		} else if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			why = "loading the model ran out of time (max_seconds)"
		}
		h.stop(thread, why)
	})
	defer stop()
	m, err := loadStarlark(path, src, opts, thread, h)
	if err != nil && ctx.Err() != nil {
		return nil, &stoppedError{cause: context.Cause(ctx), err: err}
	}
	return m, err
}

// loadStarlark loads a model on thread; h stops its compiled code.
func loadStarlark(path string, src []byte, opts LoadOptions, thread *starlark.Thread, h *halt) (*StarModel, error) {
	constants := opts.Constants
	if src == nil {
		var err error
		if src, err = ReadSource(path); err != nil {
			return nil, fmt.Errorf("reading model: %w", err)
		}
	}
	m := &StarModel{dir: filepath.Dir(path), varIndex: map[string]int{}, initTasks: opts.Workers, initLived: new(lived)}
	// A model dropped with its keys (the workbench opened another) takes
	// them back from LongLived.
	runtime.AddCleanup(m, (*lived).release, m.initLived)
	if m.initTasks <= 0 {
		m.initTasks = runtime.GOMAXPROCS(0)
	}
	m.info.Path = path
	m.info.Name = strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	thread.SetMaxExecutionSteps(loadBudget)
	thread.SetLocal(localConstants, &constantTable{given: constants, info: &m.info})
	cache := map[string]*loadEntry{}
	sources := map[string][]byte{path: src}
	thread.Load = func(t *starlark.Thread, module string) (starlark.StringDict, error) {
		return m.load(t, module, cache, sources)
	}
	globals, err := starlark.ExecFileOptions(fileOptions, thread, path, src, builtins())
	if err != nil {
		return nil, convertErr(err, Pos{File: path}, "loading the model")
	}
	m.globals = globals
	m.cc = newCompiler(m, sources)
	if err := m.declare(thread, h); err != nil {
		return nil, err
	}
	m.compile(m.cc)
	for name := range constants {
		if m.constant(name) == nil {
			return nil, m.declErr("the configuration sets constant %s, which the model does not declare with constant(%q, default)", name, name)
		}
	}
	thread.SetLocal(localConstants, nil) // constant() is for loading only
	return m, nil
}

// constant returns the model's constant of that name, or nil.
func (m *StarModel) constant(name string) *Constant {
	for i := range m.info.Constants {
		if m.info.Constants[i].Name == name {
			return &m.info.Constants[i]
		}
	}
	return nil
}

type loadEntry struct {
	globals starlark.StringDict
	err     error
}

func (m *StarModel) load(t *starlark.Thread, module string, cache map[string]*loadEntry, sources map[string][]byte) (starlark.StringDict, error) {
	p, err := m.modulePath(module)
	if err != nil {
		return nil, err
	}
	if e, ok := cache[p]; ok {
		if e == nil {
			return nil, fmt.Errorf("load(%q): cycle in load graph", module)
		}
		return e.globals, e.err
	}
	cache[p] = nil
	src, err := ReadSource(p)
	if err != nil {
		cache[p] = &loadEntry{err: err}
		return nil, err
	}
	g, err := starlark.ExecFileOptions(fileOptions, t, p, src, builtins())
	cache[p] = &loadEntry{g, err}
	sources[p] = src
	return g, err
}

// modulePath resolves a load() name: a .star file inside the model's folder
// (or a subfolder), symbolic links resolved, so that no name reaches a file
// outside the project.
func (m *StarModel) modulePath(module string) (string, error) {
	outside := fmt.Errorf("load(%q): only .star files in the model's own folder may be loaded", module)
	if filepath.IsAbs(module) || filepath.Ext(module) != ".star" {
		return "", outside
	}
	for _, part := range strings.Split(filepath.ToSlash(module), "/") {
		if part == ".." {
			return "", outside
		}
	}
	dir, err := filepath.EvalSymlinks(m.dir)
	if err != nil {
		return "", err
	}
	real, err := filepath.EvalSymlinks(filepath.Join(m.dir, module))
	if err != nil {
		return "", fmt.Errorf("load(%q): %w", module, err)
	}
	if rel, err := filepath.Rel(dir, real); err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", outside
	}
	return filepath.Join(m.dir, module), nil
}
func fnPos(fn *starlark.Function) Pos {
	p := fn.Position()
	return Pos{File: p.Filename(), Line: int(p.Line), Col: int(p.Col)}
}

func (m *StarModel) declErr(msg string, args ...any) error {
	return &PosError{Pos: Pos{File: m.info.Path, Line: 1, Col: 1}, Msg: fmt.Sprintf(msg, args...)}
}

// declare reads the model's declarations from its globals.
func (m *StarModel) declare(thread *starlark.Thread, h *halt) error {
	initFn, ok := m.globals["init"].(*starlark.Function)
	if !ok {
		return m.declErr("the model has no init() function (it must return a dict of state variables)")
	}
	if initFn.NumParams() != 0 {
		return &PosError{Pos: fnPos(initFn), Msg: "init() takes no parameters"}
	}
	m.init = initFn
	fnAction, err := m.declareActions()
	if err != nil {
		return err
	}
	if err := m.declareFunctions(); err != nil {
		return err
	}
	if err := m.declareDomains(fnAction); err != nil {
		return err
	}
	m.declareProperties(fnAction)
	if err := m.declareVars(thread, h); err != nil {
		return err
	}
	m.globals.Freeze()
	return nil
}

// declareActions reads actions, observables, internal and cleanup; it
// returns the index of each action function.
func (m *StarModel) declareActions() (map[*starlark.Function]int, error) {
	g := m.globals
	fnAction := map[*starlark.Function]int{}
	for _, kl := range []struct {
		name string
		kind Kind
	}{{"actions", Controllable}, {"observables", Observable}, {"internal", Internal}} {
		v, ok := g[kl.name]
		if !ok {
			continue
		}
		seq, ok := v.(starlark.Indexable)
		if !ok {
			return nil, m.declErr("%s must be a list of action functions, not %s", kl.name, v.Type())
		}
		for i := 0; i < seq.Len(); i++ {
			fn, ok := seq.Index(i).(*starlark.Function)
			if !ok {
				return nil, m.declErr("%s[%d] is a %s, not a function", kl.name, i, seq.Index(i).Type())
			}
			if _, dup := fnAction[fn]; dup {
				return nil, &PosError{Pos: fnPos(fn), Msg: fmt.Sprintf("action %s is listed twice", fn.Name())}
			}
			if fn.NumParams() < 1 || fn.HasVarargs() || fn.HasKwargs() {
				return nil, &PosError{Pos: fnPos(fn), Msg: fmt.Sprintf("action %s must take the state s as its first parameter (and no *args/**kwargs)", fn.Name())}
			}
			a := ActionInfo{Name: fn.Name(), Kind: kl.kind, Pos: fnPos(fn)}
			for p := 1; p < fn.NumParams(); p++ {
				name, _ := fn.Param(p)
				a.Params = append(a.Params, name)
			}
			fnAction[fn] = len(m.fns)
			m.fns = append(m.fns, fn)
			m.info.Actions = append(m.info.Actions, a)
		}
	}
	if len(m.fns) == 0 {
		return nil, m.declErr("the model declares no actions: list them in actions, observables or internal")
	}
	if v, ok := g["cleanup"]; ok {
		seq, ok := v.(starlark.Indexable)
		if !ok {
			return nil, m.declErr("cleanup must be a list of actions")
		}
		for i := 0; i < seq.Len(); i++ {
			fn, _ := seq.Index(i).(*starlark.Function)
			ai, ok := fnAction[fn]
			if !ok {
				return nil, m.declErr("cleanup[%d] is not a declared action", i)
			}
			m.info.Actions[ai].Cleanup = true
		}
	}
	return fnAction, nil
}

// declareFunctions reads accepting, invariant and state_filter.
func (m *StarModel) declareFunctions() error {
	g := m.globals
	opt := func(name string) (*starlark.Function, error) {
		v, ok := g[name]
		if !ok {
			return nil, nil
		}
		fn, ok := v.(*starlark.Function)
		if !ok || fn.NumParams() != 1 {
			return nil, m.declErr("%s must be a function of the state s", name)
		}
		return fn, nil
	}
	var err error
	if m.accepting, err = opt("accepting"); err != nil {
		return err
	}
	if m.invariant, err = opt("invariant"); err != nil {
		return err
	}
	if m.filter, err = opt("state_filter"); err != nil {
		return err
	}
	m.info.HasStateFilter = m.filter != nil
	return nil
}

// declareDomains reads the model's parameter domains and evaluates the
// constant ones once.
func (m *StarModel) declareDomains(fnAction map[*starlark.Function]int) error {
	g := m.globals
	m.domains = make([][]starlark.Value, len(m.fns))
	for i, a := range m.info.Actions {
		m.domains[i] = make([]starlark.Value, len(a.Params))
	}
	if v, ok := g["domains"]; ok {
		d, ok := v.(*starlark.Dict)
		if !ok {
			return m.declErr("domains must be a dict from actions to dicts of parameter domains")
		}
		for _, kv := range d.Items() {
			fn, _ := kv[0].(*starlark.Function)
			ai, ok := fnAction[fn]
			if !ok {
				return m.declErr("domains: key %s is not a declared action", kv[0])
			}
			pd, ok := kv[1].(*starlark.Dict)
			if !ok {
				return m.declErr("domains[%s] must be a dict from parameter names to domains", fn.Name())
			}
			for _, pv := range pd.Items() {
				pname, _ := starlark.AsString(pv[0])
				pi := indexOf(m.info.Actions[ai].Params, pname)
				if pi < 0 {
					return &PosError{Pos: fnPos(fn), Msg: fmt.Sprintf("domains[%s]: %s has no parameter %s", fn.Name(), fn.Name(), pv[0])}
				}
				m.domains[ai][pi] = pv[1]
			}
		}
	}
	m.constDomains = make([]map[int][]starlark.Value, len(m.fns))
	for ai := range m.domains {
		m.constDomains[ai] = map[int][]starlark.Value{}
		for pi, d := range m.domains[ai] {
			if d == nil {
				continue
			}
			if _, callable := d.(starlark.Callable); callable {
				continue
			}
			vals, err := Elements(d)
			if err != nil {
				return &PosError{Pos: m.info.Actions[ai].Pos, Msg: fmt.Sprintf("domain of %s.%s: %v", m.info.Actions[ai].Name, m.info.Actions[ai].Params[pi], err)}
			}
			for _, v := range vals {
				v.Freeze()
			}
			m.constDomains[ai][pi] = vals
		}
	}
	return nil
}

// declareProperties lists the functions of s that are not actions, for
// project expressions.
func (m *StarModel) declareProperties(fnAction map[*starlark.Function]int) {
	g := m.globals
	reserved := map[string]bool{"init": true, "accepting": true, "invariant": true, "state_filter": true}
	for name, v := range g {
		if fn, ok := v.(*starlark.Function); ok && fn.NumParams() == 1 && !reserved[name] {
			if _, isAction := fnAction[fn]; !isAction {
				m.info.Properties = append(m.info.Properties, name)
			}
		}
	}
	sort.Strings(m.info.Properties)
}

// declareVars runs init() once to learn the state variables.
func (m *StarModel) declareVars(thread *starlark.Thread, h *halt) error {
	thread.SetMaxExecutionSteps(thread.ExecutionSteps() + InitBudget)
	r := &rec{m: m}
	thread.SetLocal(localRec, r)
	sink := newInitSink(m)
	thread.SetLocal(localInit, sink)
	defer thread.SetLocal(localInit, nil)
	v, ok := m.compiledInit(m.cc, thread, h)
	if !ok {
		sink.reset() // the interpreter runs init() from the start
		m.info.Vars = nil
		clear(m.varIndex)
		var err error
		if v, err = starlark.Call(thread, m.init, nil, nil); err != nil {
			sink.uncount()
			return convertErr(err, fnPos(m.init), "init()")
		}
	}
	if keys, given, err := sink.result(v); given {
		m.initKeys = keys
		return err
	}
	v.Freeze()
	m.initVal = v
	if seq, ok := v.(starlark.Indexable); ok && (v.Type() == "list" || v.Type() == "tuple") && seq.Len() > 0 {
		v = seq.Index(0) // several initial states: the first names the variables (the others are checked against it)
	}
	d, ok := v.(*starlark.Dict)
	if !ok {
		return &PosError{Pos: fnPos(m.init), Msg: fmt.Sprintf("init() must return a dict of state variables (or a non-empty list of them, or give them by initial()), not %s", v.Type())}
	}
	return m.setVars(d)
}

// setVars names the state variables after the keys of an initial state.
func (m *StarModel) setVars(d *starlark.Dict) error {
	for _, kv := range d.Items() {
		name, ok := starlark.AsString(kv[0])
		if !ok || !isIdentifier(name) {
			return &PosError{Pos: fnPos(m.init), Msg: fmt.Sprintf("init(): state variable name %s is not an identifier", kv[0])}
		}
		m.info.Vars = append(m.info.Vars, name)
	}
	sort.Strings(m.info.Vars)
	for i, n := range m.info.Vars {
		m.varIndex[n] = i
	}
	return nil
}

func indexOf(xs []string, x string) int {
	for i, s := range xs {
		if s == x {
			return i
		}
	}
	return -1
}

// convertErr turns a Starlark error into a PosError naming file:line:col and
// the call stack.
func convertErr(err error, fallback Pos, what string) error {
	var se syntax.Error
	if errors.As(err, &se) {
		return &PosError{Pos: synPos(se.Pos), Msg: "syntax error: " + se.Msg}
	}
	var rl resolve.ErrorList
	if errors.As(err, &rl) && len(rl) > 0 {
		return &PosError{Pos: synPos(rl[0].Pos), Msg: rl[0].Msg}
	}
	var ee *starlark.EvalError
	if errors.As(err, &ee) {
		pos := fallback
		for i := len(ee.CallStack) - 1; i >= 0; i-- {
			p := ee.CallStack[i].Pos
			if p.IsValid() && p.Filename() != "<builtin>" {
				pos = synPos(p)
				break
			}
		}
		msg := ee.Msg
		if strings.Contains(msg, "too many steps") {
			msg = fmt.Sprintf("%s exceeded its execution-step budget (an infinite loop?)", what)
		} else {
			msg = what + ": " + msg
		}
		return &PosError{Pos: pos, Msg: msg, Stack: formatStack(ee.CallStack)}
	}
	var pe *PosError
	if errors.As(err, &pe) {
		return pe
	}
	return &PosError{Pos: fallback, Msg: what + ": " + err.Error()}
}

// maxStackLines bounds a printed call stack: runaway recursion would
// otherwise print one line per frame (100,000 of them).
const maxStackLines = 40

// formatStack prints a call stack like starlark.CallStack.String, with runs
// of identical frames (recursion) folded into one line and at most
// maxStackLines lines, keeping the outermost and the innermost frames.
func formatStack(cs starlark.CallStack) string {
	type frame struct {
		text string
		n    int
	}
	var frames []frame
	for _, fr := range cs {
		text := fmt.Sprintf("  %s: in %s", fr.Pos, fr.Name)
		if k := len(frames); k > 0 && frames[k-1].text == text {
			frames[k-1].n++
			continue
		}
		frames = append(frames, frame{text, 1})
	}
	lines := make([]string, 0, len(frames))
	for _, f := range frames {
		line := f.text
		if f.n > 1 {
			line += fmt.Sprintf(" (repeated %d times)", f.n)
		}
		lines = append(lines, line)
	}
	if len(lines) > maxStackLines {
		keep := maxStackLines / 2
		cut := len(lines) - 2*keep
		lines = append(append(lines[:keep:keep], fmt.Sprintf("  … %d more frames …", cut)), lines[len(lines)-keep:]...)
	}
	return "Traceback (most recent call last):\n" + strings.Join(lines, "\n") + "\n"
}

func synPos(p syntax.Position) Pos {
	return Pos{File: p.Filename(), Line: int(p.Line), Col: int(p.Col)}
}
