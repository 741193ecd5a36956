package model

import (
	"fmt"
	"sort"
	"strings"
	"unsafe"
)

// NativeModel is a model program written in Go, for speed and for Go users
// embedding Modex in their own tests. S is the state type; a step returns a
// new state and never changes the one it was given.
//
// Encode must be canonical: two states are the same state exactly when their
// encodings are equal. Decode reverses Encode; the slice it gets is only
// valid during the call and must not be changed (it shares the stored key's
// memory).
//
// For speed, make S a value with no pointers whose steps and Decode do not
// allocate, and whose size is 8 bytes or a multiple of 16: a state is
// copied several times per step, and on amd64 a 24-byte copy stalls on the
// stores that wrote it (the benchmark's array stack explores a fifth faster
// at 16 bytes than at 24; docs/performance.md).
type NativeModel[S any] struct {
	Name    string
	Vars    []string // state variable names, in the order Show returns them
	Init    func() S
	Encode  func(dst []byte, s S) []byte
	Decode  func(key []byte) (S, error)
	Show    func(s S) []Value // variable values for display, in Vars order
	Actions []NativeAction[S]
	// Optional.
	Accepting func(s S) bool
	Invariant func(s S) string // "" when fine
	Filter    func(s S) bool
	// Properties can be named in project expressions (filters, groupings,
	// weights, ...): a Go-native model accepts an expression that is exactly
	// a property name, or name(s).
	Properties map[string]func(s S) Value
}

// NativeAction is one action of a Go-native model.
type NativeAction[S any] struct {
	Name    string
	Kind    Kind
	Params  []string
	Cleanup bool
	// Domains gives, per parameter, the values to try in a state.
	Domains []func(s S) []Value
	// Step applies the action; ok is false when it is not enabled (why may
	// say why). It must not change s, nor args (the explorer passes the
	// same slice again and keeps it as the transition's inputs).
	Step func(s S, args []Value) (next S, out Value, ok bool, why string)
}

type nativeModel[S any] struct {
	def  *NativeModel[S]
	info ModelInfo
}

// Native checks a Go-native model and returns it as a Model.
func Native[S any](def *NativeModel[S]) (Model, error) {
	if def.Init == nil || def.Encode == nil || def.Decode == nil {
		return nil, fmt.Errorf("native model %s: Init, Encode and Decode are required", def.Name)
	}
	if len(def.Actions) == 0 {
		return nil, fmt.Errorf("native model %s declares no actions", def.Name)
	}
	m := &nativeModel[S]{def: def}
	m.info = ModelInfo{Name: def.Name, Vars: def.Vars, HasStateFilter: def.Filter != nil}
	for _, a := range def.Actions {
		if a.Step == nil {
			return nil, fmt.Errorf("native model %s: action %s has no Step", def.Name, a.Name)
		}
		if len(a.Domains) != len(a.Params) {
			return nil, fmt.Errorf("native model %s: action %s has %d parameters but %d domains", def.Name, a.Name, len(a.Params), len(a.Domains))
		}
		m.info.Actions = append(m.info.Actions, ActionInfo{Name: a.Name, Kind: a.Kind, Params: a.Params, Cleanup: a.Cleanup, Pos: Pos{File: def.Name}})
	}
	for name := range def.Properties {
		m.info.Properties = append(m.info.Properties, name)
	}
	sort.Strings(m.info.Properties)
	return m, nil
}

func (m *nativeModel[S]) Info() *ModelInfo { return &m.info }

type nativeExpr[S any] struct {
	src string
	fn  func(S) Value
}

func (e *nativeExpr[S]) Source() string { return e.src }

// Pos is zero: a Go-native expression has no position in a model file.
func (e *nativeExpr[S]) Pos() Pos { return Pos{} }

func (m *nativeModel[S]) Compile(src string, pos Pos) (Expr, error) {
	name := strings.TrimSuffix(strings.TrimSpace(src), "(s)")
	fn, ok := m.def.Properties[name]
	if !ok {
		return nil, &PosError{Pos: pos, Msg: fmt.Sprintf("Go-native model %s has no property %q (it has: %s)", m.def.Name, name, strings.Join(m.info.Properties, ", "))}
	}
	return &nativeExpr[S]{src: src, fn: fn}, nil
}

type nstate[S any] struct {
	key string
	s   S
}

func (n *nstate[S]) Key() string { return n.key }

type nativeWorker[S any] struct {
	m    *nativeModel[S]
	buf  []byte
	outs [1]Outcome
	next nstate[S] // StepScratch's state, its key in buf
	src  nstate[S] // DecodeScratch's state
	_    cacheLinePad
}

func (m *nativeModel[S]) NewWorker() (Worker, error) { return &nativeWorker[S]{m: m}, nil }

func (w *nativeWorker[S]) wrap(s S) *nstate[S] {
	w.buf = w.m.def.Encode(w.buf[:0], s)
	return &nstate[S]{key: string(w.buf), s: s}
}

func (w *nativeWorker[S]) Init() (State, error) { return w.wrap(w.m.def.Init()), nil }

func (w *nativeWorker[S]) Decode(key string) (State, error) {
	s, err := w.m.def.Decode(unsafe.Slice(unsafe.StringData(key), len(key)))
	if err != nil {
		return nil, err
	}
	return &nstate[S]{key: key, s: s}, nil
}

func (w *nativeWorker[S]) Domain(st State, action, param int) ([]Value, bool, error) {
	d := w.m.def.Actions[action].Domains[param]
	if d == nil {
		return nil, false, nil
	}
	return d(st.(*nstate[S]).s), true, nil
}

func (w *nativeWorker[S]) Step(st State, action int, args []Value) ([]Outcome, string, error) {
	return w.step(st, action, args, false)
}

// DecodeScratch is Decode into the worker's scratch (see ScratchStepper).
func (w *nativeWorker[S]) DecodeScratch(key string) (State, error) {
	s, err := w.m.def.Decode(unsafe.Slice(unsafe.StringData(key), len(key)))
	if err != nil {
		return nil, err
	}
	w.src = nstate[S]{key: key, s: s}
	return &w.src, nil
}

// StepScratch is Step with the outcome's state in the worker's scratch
// (see ScratchStepper).
func (w *nativeWorker[S]) StepScratch(st State, action int, args []Value) ([]Outcome, string, error) {
	return w.step(st, action, args, true)
}

func (w *nativeWorker[S]) step(st State, action int, args []Value, scratch bool) ([]Outcome, string, error) {
	step := w.m.def.Actions[action].Step
	var out Value
	var ok bool
	var why string
	// The slice is reused: callers consume outcomes before the next Step.
	if scratch {
		// Straight into the scratch: each copy of a state costs (a copy of
		// 24 bytes stalls on store forwarding).
		w.next.s, out, ok, why = step(st.(*nstate[S]).s, args)
		if !ok {
			return nil, why, nil
		}
		w.buf = w.m.def.Encode(w.buf[:0], w.next.s)
		w.next.key = unsafe.String(unsafe.SliceData(w.buf), len(w.buf))
		w.outs[0] = Outcome{Output: out, Next: &w.next}
	} else {
		var next S
		next, out, ok, why = step(st.(*nstate[S]).s, args)
		if !ok {
			return nil, why, nil
		}
		w.outs[0] = Outcome{Output: out, Next: w.wrap(next)}
	}
	if out == nil {
		w.outs[0].Output = None
	}
	return w.outs[:], "", nil
}

func (w *nativeWorker[S]) Eval(e Expr, st State) (Value, error) {
	x, ok := e.(*nativeExpr[S])
	if !ok {
		return nil, fmt.Errorf("expression %q was not compiled for this model", e.Source())
	}
	return x.fn(st.(*nstate[S]).s), nil
}

func (w *nativeWorker[S]) Accepting(st State) (bool, error) {
	if w.m.def.Accepting == nil {
		return true, nil
	}
	return w.m.def.Accepting(st.(*nstate[S]).s), nil
}

func (w *nativeWorker[S]) Invariant(st State) (string, error) {
	if w.m.def.Invariant == nil {
		return "", nil
	}
	return w.m.def.Invariant(st.(*nstate[S]).s), nil
}

func (w *nativeWorker[S]) StateFilter(st State) (bool, error) {
	if w.m.def.Filter == nil {
		return true, nil
	}
	return w.m.def.Filter(st.(*nstate[S]).s), nil
}

func (w *nativeWorker[S]) Vars(st State) []Var {
	if w.m.def.Show == nil {
		return nil
	}
	vals := w.m.def.Show(st.(*nstate[S]).s)
	out := make([]Var, 0, len(vals))
	for i, v := range vals {
		name := fmt.Sprintf("v%d", i)
		if i < len(w.m.def.Vars) {
			name = w.m.def.Vars[i]
		}
		out = append(out, Var{Name: name, Value: v})
	}
	return out
}

// CheapFacts marks the worker's facts as Go functions (see CheapFacts).
func (w *nativeWorker[S]) CheapFacts() {}

func (w *nativeWorker[S]) SetBudget(uint64) {}
func (w *nativeWorker[S]) Cancel(string)    {}
