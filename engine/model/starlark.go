package model

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"go.starlark.net/resolve"
	"go.starlark.net/starlark"
	"go.starlark.net/syntax"
)

// DefaultStepBudget is the execution-step budget of one action step or one
// expression evaluation unless the configuration sets another.
const DefaultStepBudget = 1_000_000

// loadBudget bounds the execution of a model file's top level and init().
const loadBudget = 50_000_000

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
}

// Info describes the model.
func (m *StarModel) Info() *ModelInfo { return &m.info }

// requireFailed is the error require() raises to discard a step. Without a
// message, the position is kept and printed only when asked for (failing
// requires are the common case in exploration).
type requireFailed struct {
	why string
	pos syntax.Position
}

func (r *requireFailed) reason() string {
	if r.why != "" {
		return r.why
	}
	return "require failed at " + synPos(r.pos).String()
}

func (r *requireFailed) Error() string { return "require failed: " + r.reason() }

// LoadStarlark loads a model program from a .star file.
func LoadStarlark(path string) (*StarModel, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading model: %w", err)
	}
	return LoadStarlarkSource(path, src)
}

// LoadStarlarkSource loads a model program from source text; path names the
// file in messages and anchors load().
func LoadStarlarkSource(path string, src []byte) (*StarModel, error) {
	m := &StarModel{dir: filepath.Dir(path), varIndex: map[string]int{}}
	m.info.Path = path
	m.info.Name = strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	thread := newThread("load " + path)
	thread.SetMaxExecutionSteps(loadBudget)
	cache := map[string]*loadEntry{}
	thread.Load = func(t *starlark.Thread, module string) (starlark.StringDict, error) {
		return m.load(t, module, cache)
	}
	globals, err := starlark.ExecFileOptions(fileOptions, thread, path, src, builtins())
	if err != nil {
		return nil, convertErr(err, Pos{File: path}, "loading the model")
	}
	m.globals = globals
	if err := m.declare(thread); err != nil {
		return nil, err
	}
	return m, nil
}

type loadEntry struct {
	globals starlark.StringDict
	err     error
}

func (m *StarModel) load(t *starlark.Thread, module string, cache map[string]*loadEntry) (starlark.StringDict, error) {
	if filepath.IsAbs(module) || strings.Contains(filepath.ToSlash(module), "..") {
		return nil, fmt.Errorf("load(%q): only files in the model's own folder may be loaded", module)
	}
	p := filepath.Join(m.dir, module)
	if e, ok := cache[p]; ok {
		if e == nil {
			return nil, fmt.Errorf("load(%q): cycle in load graph", module)
		}
		return e.globals, e.err
	}
	cache[p] = nil
	src, err := os.ReadFile(p)
	if err != nil {
		cache[p] = &loadEntry{err: err}
		return nil, err
	}
	g, err := starlark.ExecFileOptions(fileOptions, t, p, src, builtins())
	cache[p] = &loadEntry{g, err}
	return g, err
}

func builtins() starlark.StringDict {
	return starlark.StringDict{
		"require": starlark.NewBuiltin("require", builtinRequire),
		"new":     starlark.NewBuiltin("new", builtinNew),
		"choose":  starlark.NewBuiltin("choose", builtinChoose),
	}
}

func newThread(name string) *starlark.Thread {
	t := &starlark.Thread{Name: name}
	t.Print = func(*starlark.Thread, string) {} // models have no I/O
	return t
}

func fnPos(fn *starlark.Function) Pos {
	p := fn.Position()
	return Pos{File: p.Filename(), Line: int(p.Line), Col: int(p.Col)}
}

func (m *StarModel) declErr(msg string, args ...any) error {
	return &PosError{Pos: Pos{File: m.info.Path, Line: 1, Col: 1}, Msg: fmt.Sprintf(msg, args...)}
}

// declare reads the model's declarations from its globals.
func (m *StarModel) declare(thread *starlark.Thread) error {
	g := m.globals
	initFn, ok := g["init"].(*starlark.Function)
	if !ok {
		return m.declErr("the model has no init() function (it must return a dict of state variables)")
	}
	if initFn.NumParams() != 0 {
		return &PosError{Pos: fnPos(initFn), Msg: "init() takes no parameters"}
	}
	m.init = initFn
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
			return m.declErr("%s must be a list of action functions, not %s", kl.name, v.Type())
		}
		for i := 0; i < seq.Len(); i++ {
			fn, ok := seq.Index(i).(*starlark.Function)
			if !ok {
				return m.declErr("%s[%d] is a %s, not a function", kl.name, i, seq.Index(i).Type())
			}
			if _, dup := fnAction[fn]; dup {
				return &PosError{Pos: fnPos(fn), Msg: fmt.Sprintf("action %s is listed twice", fn.Name())}
			}
			if fn.NumParams() < 1 || fn.HasVarargs() || fn.HasKwargs() {
				return &PosError{Pos: fnPos(fn), Msg: fmt.Sprintf("action %s must take the state s as its first parameter (and no *args/**kwargs)", fn.Name())}
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
		return m.declErr("the model declares no actions: list them in actions, observables or internal")
	}
	if v, ok := g["cleanup"]; ok {
		seq, ok := v.(starlark.Indexable)
		if !ok {
			return m.declErr("cleanup must be a list of actions")
		}
		for i := 0; i < seq.Len(); i++ {
			fn, _ := seq.Index(i).(*starlark.Function)
			ai, ok := fnAction[fn]
			if !ok {
				return m.declErr("cleanup[%d] is not a declared action", i)
			}
			m.info.Actions[ai].Cleanup = true
		}
	}
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
	reserved := map[string]bool{"init": true, "accepting": true, "invariant": true, "state_filter": true}
	for name, v := range g {
		if fn, ok := v.(*starlark.Function); ok && fn.NumParams() == 1 && !reserved[name] {
			if _, isAction := fnAction[fn]; !isAction {
				m.info.Properties = append(m.info.Properties, name)
			}
		}
	}
	sort.Strings(m.info.Properties)
	// Run init() once to learn the state variables.
	thread.SetMaxExecutionSteps(thread.ExecutionSteps() + loadBudget)
	r := &rec{m: m}
	thread.SetLocal(localRec, r)
	v, err := starlark.Call(thread, m.init, nil, nil)
	if err != nil {
		return convertErr(err, fnPos(m.init), "init()")
	}
	d, ok := v.(*starlark.Dict)
	if !ok {
		return &PosError{Pos: fnPos(m.init), Msg: fmt.Sprintf("init() must return a dict of state variables, not %s", v.Type())}
	}
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
	m.globals.Freeze()
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

// --- builtins ---

const (
	localRec    = "modex.rec"
	localChoice = "modex.choice"
	localFast   = "modex.fast"
)

// fastRequire lets a failing require() skip Starlark's error machinery in
// exploration and testing: Starlark wraps a builtin's error in an EvalError
// with the whole call stack and source positions unless the error already
// is one, so require returns this worker's sentinel EvalError and notes its
// message here. With detail set (when a user asks why an action is
// disabled) require reports the position of the failing call instead.
type fastRequire struct {
	sentinel *starlark.EvalError
	why      string
	detail   bool
}

func builtinRequire(t *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var cond starlark.Value
	var why string
	if err := starlark.UnpackArgs("require", args, kwargs, "cond", &cond, "why?", &why); err != nil {
		return nil, err
	}
	if cond.Truth() {
		return starlark.None, nil
	}
	if fr, _ := t.Local(localFast).(*fastRequire); fr != nil && !fr.detail {
		fr.why = why
		return nil, fr.sentinel
	}
	if why == "" {
		return nil, &requireFailed{pos: t.CallFrame(1).Pos}
	}
	return nil, &requireFailed{why: why}
}

func builtinNew(t *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var kind string
	if err := starlark.UnpackPositionalArgs("new", args, kwargs, 1, &kind); err != nil {
		return nil, err
	}
	if !isIdentifier(kind) {
		return nil, fmt.Errorf("new: kind %q is not an identifier", kind)
	}
	r, _ := t.Local(localRec).(*rec)
	if r == nil || r.readonly {
		return nil, fmt.Errorf("new() may only be called in actions and init()")
	}
	return r.newObject(kind), nil
}

type choiceState struct {
	prefix []int
	sizes  []int
	pos    int
}

func builtinChoose(t *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var coll starlark.Value
	if err := starlark.UnpackPositionalArgs("choose", args, kwargs, 1, &coll); err != nil {
		return nil, err
	}
	cs, _ := t.Local(localChoice).(*choiceState)
	if cs == nil {
		return nil, fmt.Errorf("choose() may only be called in actions")
	}
	elems, err := Elements(coll)
	if err != nil {
		return nil, fmt.Errorf("choose: %v", err)
	}
	if len(elems) == 0 {
		return nil, &requireFailed{why: "choose from an empty collection at " + synPos(t.CallFrame(1).Pos).String()}
	}
	if cs.pos >= len(cs.prefix) {
		cs.prefix = append(cs.prefix, 0)
	}
	if cs.pos >= len(cs.sizes) {
		cs.sizes = append(cs.sizes, 0)
	}
	i := cs.prefix[cs.pos]
	cs.sizes[cs.pos] = len(elems)
	cs.pos++
	if i >= len(elems) {
		i = len(elems) - 1
	}
	return elems[i], nil
}

// collection lists the elements of a domain or choose() argument in
// canonical order: lists, tuples and other sequences as they are; sets and
// dicts (their keys) sorted by canonical encoding; duplicates removed.
func Elements(v starlark.Value) ([]starlark.Value, error) {
	var out []starlark.Value
	sorted := false
	switch x := v.(type) {
	case *starlark.Set, *starlark.Dict:
		sorted = true
		it := x.(starlark.Iterable).Iterate()
		var e starlark.Value
		for it.Next(&e) {
			out = append(out, e)
		}
		it.Done()
	case starlark.Iterable:
		it := x.Iterate()
		var e starlark.Value
		for it.Next(&e) {
			out = append(out, e)
		}
		it.Done()
	default:
		return nil, fmt.Errorf("a domain must be a list, tuple, set or dict, not %s", v.Type())
	}
	keys := make([]string, len(out))
	seen := make(map[string]bool, len(out))
	j := 0
	for _, e := range out {
		k, err := Key(e)
		if err != nil {
			return nil, err
		}
		if seen[k] {
			continue
		}
		seen[k] = true
		keys[j], out[j] = k, e
		j++
	}
	out, keys = out[:j], keys[:j]
	if sorted {
		idx := make([]int, j)
		for i := range idx {
			idx[i] = i
		}
		sort.Slice(idx, func(a, b int) bool { return keys[idx[a]] < keys[idx[b]] })
		res := make([]starlark.Value, j)
		for i, k := range idx {
			res[i] = out[k]
		}
		out = res
	}
	return out, nil
}

// --- states ---

type objCount struct {
	kind string
	n    int
}

// sstate is a decoded Starlark model state: frozen variable values plus the
// per-kind object counters.
type sstate struct {
	key  string
	vals []starlark.Value // nil until decoded
	encs []string         // per-variable encodings (substrings of key)
	objs []objCount
}

func (s *sstate) Key() string { return s.key }

// lazyState returns a state that is decoded only when its values are needed.
func lazyState(key string) *sstate { return &sstate{key: key} }

// ensure decodes a lazy state.
func (m *StarModel) ensure(st State) (*sstate, error) {
	s := st.(*sstate)
	if s.vals != nil || len(m.info.Vars) == 0 && s.objs != nil {
		return s, nil
	}
	d, err := m.decode(s.key)
	if err != nil {
		return nil, err
	}
	*s = *d
	return s, nil
}

func (m *StarModel) decode(key string) (*sstate, error) {
	d := decoder{b: key}
	st := &sstate{key: key, vals: make([]starlark.Value, len(m.info.Vars)), encs: make([]string, len(m.info.Vars)), objs: []objCount{}}
	for i := range st.vals {
		start := d.pos
		v, err := d.value()
		if err != nil {
			return nil, err
		}
		st.vals[i] = v
		st.encs[i] = key[start:d.pos]
	}
	n, err := d.uvarint()
	if err != nil {
		return nil, err
	}
	for i := uint64(0); i < n; i++ {
		k, err := d.str()
		if err != nil {
			return nil, err
		}
		c, err := d.uvarint()
		if err != nil {
			return nil, err
		}
		st.objs = append(st.objs, objCount{k, int(c)})
	}
	if d.pos != len(key) {
		return nil, d.fail("trailing bytes")
	}
	return st, nil
}

// rec is the state record s seen by actions and expressions.
type rec struct {
	m        *StarModel
	st       *sstate
	cur      []starlark.Value
	touched  []bool
	readonly bool
	objs     []objCount
	objsOwn  bool
}

var _ starlark.HasSetField = (*rec)(nil)

func (r *rec) String() string {
	var sb strings.Builder
	sb.WriteString("state(")
	for i, n := range r.m.info.Vars {
		if i > 0 {
			sb.WriteString(", ")
		}
		sb.WriteString(n)
		sb.WriteString("=")
		sb.WriteString(r.value(i).String())
	}
	sb.WriteString(")")
	return sb.String()
}
func (r *rec) Type() string          { return "state" }
func (r *rec) Freeze()               {}
func (r *rec) Truth() starlark.Bool  { return true }
func (r *rec) Hash() (uint32, error) { return 0, fmt.Errorf("unhashable: state") }
func (r *rec) AttrNames() []string   { return r.m.info.Vars }

func (r *rec) value(i int) starlark.Value {
	if r.touched != nil && r.touched[i] {
		return r.cur[i]
	}
	if r.st == nil {
		return starlark.None
	}
	return r.st.vals[i]
}

func (r *rec) Attr(name string) (starlark.Value, error) {
	i, ok := r.m.varIndex[name]
	if !ok {
		return nil, starlark.NoSuchAttrError(fmt.Sprintf("the state has no variable %q (variables: %s)", name, strings.Join(r.m.info.Vars, ", ")))
	}
	if r.readonly {
		return r.st.vals[i], nil
	}
	if !r.touched[i] {
		r.cur[i] = deepCopy(r.st.vals[i])
		r.touched[i] = true
	}
	return r.cur[i], nil
}

func (r *rec) SetField(name string, v starlark.Value) error {
	i, ok := r.m.varIndex[name]
	if !ok {
		return starlark.NoSuchAttrError(fmt.Sprintf("the state has no variable %q (variables: %s)", name, strings.Join(r.m.info.Vars, ", ")))
	}
	if r.readonly {
		return fmt.Errorf("the state is read-only here: cannot set s.%s", name)
	}
	r.cur[i] = v
	r.touched[i] = true
	return nil
}

func (r *rec) newObject(kind string) Object {
	if !r.objsOwn {
		r.objs = append([]objCount(nil), r.objs...)
		r.objsOwn = true
	}
	for i := range r.objs {
		if r.objs[i].kind == kind {
			r.objs[i].n++
			return Object{Kind: kind, N: r.objs[i].n}
		}
	}
	r.objs = append(r.objs, objCount{kind, 1})
	sort.Slice(r.objs, func(a, b int) bool { return r.objs[a].kind < r.objs[b].kind })
	return Object{Kind: kind, N: 1}
}

// encode builds the key of the state the record now holds.
func (r *rec) encode(buf []byte) ([]byte, error) {
	var err error
	for i, name := range r.m.info.Vars {
		if r.touched[i] || r.st == nil {
			if buf, err = AppendValuePath(buf, r.cur[i], name); err != nil {
				return nil, err
			}
		} else {
			buf = append(buf, r.st.encs[i]...)
		}
	}
	buf = appendUvarint(buf, uint64(len(r.objs)))
	for _, o := range r.objs {
		buf = appendStr(buf, o.kind)
		buf = appendUvarint(buf, uint64(o.n))
	}
	return buf, nil
}

// --- worker ---

type starWorker struct {
	m      *StarModel
	thread *starlark.Thread
	budget uint64
	// overBudget is set when the step budget cancelled the current call.
	overBudget bool
	fast       *fastRequire
	choice     choiceState
	buf        []byte
	r          rec
	// per-step buffers, reused
	outs    []Outcome
	argv    starlark.Tuple
	cur     []starlark.Value
	touched []bool
}

// NewWorker returns a Worker for one goroutine.
func (m *StarModel) NewWorker() (Worker, error) {
	w := &starWorker{m: m, thread: newThread("worker"), budget: DefaultStepBudget}
	w.thread.OnMaxSteps = func(t *starlark.Thread) {
		w.overBudget = true
		t.Cancel("too many steps")
	}
	w.thread.SetLocal(localChoice, &w.choice)
	w.thread.SetLocal(localRec, &w.r)
	w.fast = &fastRequire{sentinel: &starlark.EvalError{Msg: "require failed"}}
	w.thread.SetLocal(localFast, w.fast)
	return w, nil
}

func (w *starWorker) SetBudget(steps uint64) {
	if steps > 0 {
		w.budget = steps
	}
}

func (w *starWorker) Cancel(reason string) { w.thread.Cancel(reason) }

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
	v, err := starlark.Call(w.thread, fn, args, nil)
	if w.overBudget {
		// The budget cancelled this call only; later calls run afresh.
		w.overBudget = false
		w.thread.Uncancel()
	}
	return v, err
}

func (w *starWorker) Init() (State, error) {
	w.r = rec{m: w.m, cur: make([]starlark.Value, len(w.m.info.Vars)), touched: make([]bool, len(w.m.info.Vars))}
	v, err := w.call(w.m.init, nil)
	if err != nil {
		return nil, convertErr(err, fnPos(w.m.init), "init()")
	}
	d, ok := v.(*starlark.Dict)
	if !ok {
		return nil, &PosError{Pos: fnPos(w.m.init), Msg: "init() must return a dict"}
	}
	for _, kv := range d.Items() {
		name, _ := starlark.AsString(kv[0])
		i, ok := w.m.varIndex[name]
		if !ok {
			return nil, &PosError{Pos: fnPos(w.m.init), Msg: fmt.Sprintf("init() returned a different set of variables (%s)", kv[0])}
		}
		w.r.cur[i] = kv[1]
		w.r.touched[i] = true
	}
	buf, err := w.r.encode(nil)
	if err != nil {
		return nil, &PosError{Pos: fnPos(w.m.init), Msg: "init(): " + err.Error()}
	}
	return w.m.decode(string(buf))
}

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
	w.choice.prefix = w.choice.prefix[:0]
	outs := w.outs[:0]
	why := ""
	for {
		w.choice.pos = 0
		w.choice.sizes = w.choice.sizes[:0]
		cur, touched := w.cur[:n], w.touched[:n]
		clear(cur)
		clear(touched)
		w.r = rec{m: w.m, st: s, cur: cur, touched: touched, objs: s.objs}
		argv[0] = &w.r
		res, err := w.call(fn, argv)
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
			buf, err := w.r.encode(w.buf[:0])
			if err != nil {
				outs = append(outs, Outcome{Err: &PosError{Pos: fnPos(fn), Msg: "action " + fn.Name() + ": " + err.Error()}})
			} else {
				w.buf = buf
				if _, err := Key(res); err != nil {
					outs = append(outs, Outcome{Err: &PosError{Pos: fnPos(fn), Msg: "action " + fn.Name() + " output: " + err.Error()}})
				} else {
					outs = append(outs, Outcome{Output: res, Next: lazyState(string(buf))})
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
	}
	if len(outs) > 0 {
		why = ""
	}
	w.outs = outs
	return outs, why, nil
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

func (w *starWorker) Eval(e Expr, st State) (Value, error) {
	x := e.(*starExpr)
	return w.callOnState(x.fn, st, "expression `"+x.src+"`", x.pos)
}

func (w *starWorker) Accepting(st State) (bool, error) {
	if w.m.accepting == nil {
		return true, nil
	}
	v, err := w.callOnState(w.m.accepting, st, "accepting(s)", fnPos(w.m.accepting))
	if err != nil {
		return false, err
	}
	return bool(v.Truth()), nil
}

func (w *starWorker) Invariant(st State) (string, error) {
	if w.m.invariant == nil {
		return "", nil
	}
	v, err := w.callOnState(w.m.invariant, st, "invariant(s)", fnPos(w.m.invariant))
	if err != nil {
		return "", err
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
	v, err := w.callOnState(w.m.filter, st, "state_filter(s)", fnPos(w.m.filter))
	if err != nil {
		return false, err
	}
	return bool(v.Truth()), nil
}

func (w *starWorker) Vars(st State) []Var {
	s, err := w.m.ensure(st)
	if err != nil {
		return nil
	}
	out := make([]Var, len(s.vals))
	for i, v := range s.vals {
		out[i] = Var{Name: w.m.info.Vars[i], Value: v}
	}
	return out
}

// --- expressions ---

type starExpr struct {
	src string
	pos Pos
	fn  starlark.Value
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
	return &starExpr{src: src, pos: pos, fn: fn}, nil
}
