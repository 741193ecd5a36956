package model

import (
	"fmt"

	"go.starlark.net/syntax"
)

type syntaxToken = syntax.Token

func threeway(op syntax.Token, c int) bool {
	switch op {
	case syntax.EQL:
		return c == 0
	case syntax.NEQ:
		return c != 0
	case syntax.LT:
		return c < 0
	case syntax.LE:
		return c <= 0
	case syntax.GT:
		return c > 0
	case syntax.GE:
		return c >= 0
	}
	return false
}

// Kind says who causes an action: the tester (controllable), the
// implementation (observable), the model itself (internal), or the passing
// of time in the timeout extension (timeout).
type Kind int

// The kinds of actions and transitions.
const (
	Controllable Kind = iota
	Observable
	Internal
	Timeout
)

var kindNames = [...]string{"controllable", "observable", "internal", "timeout"}

// String returns the kind's name as used in project files and exports.
func (k Kind) String() string {
	if k >= 0 && int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("kind(%d)", int(k))
}

// ParseKind reads a kind name; ok is false for an unknown name.
func ParseKind(s string) (Kind, bool) {
	for i, n := range kindNames[:3] {
		if n == s {
			return Kind(i), true
		}
	}
	return 0, false
}

// Pos is a position in a source file (1-based line and column).
type Pos struct {
	File string
	Line int
	Col  int
}

// String prints file:line:col.
func (p Pos) String() string {
	if p.Line == 0 {
		return p.File
	}
	return fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Col)
}

// PosError is an error at a source position: a model, project or expression
// error. Its message starts with file:line:col.
type PosError struct {
	Pos   Pos
	Msg   string
	Stack string // call stack, for runtime errors
}

// Error prints file:line:col: message, then the call stack if any.
func (e *PosError) Error() string {
	s := e.Pos.String() + ": " + e.Msg
	if e.Stack != "" {
		s += "\n" + e.Stack
	}
	return s
}

// ActionInfo describes one action method of a model.
type ActionInfo struct {
	Name    string
	Kind    Kind
	Params  []string
	Cleanup bool
	Pos     Pos
}

// ModelInfo describes a model program.
type ModelInfo struct {
	Name    string
	Path    string   // source file, empty for Go-native models
	Vars    []string // state variable names, sorted
	Actions []ActionInfo
	// Properties are top-level functions of s usable in project expressions.
	Properties []string
	// HasStateFilter says the model declares state_filter(s).
	HasStateFilter bool
	// Constants are the model's settable constants (declared with
	// constant(name, default)) and the values they have in this load.
	Constants []Constant
}

// Constant is a model constant a project configuration may set.
type Constant struct {
	Name    string
	Default Value
	Value   Value
	Pos     Pos // where constant() declares it
}

// Action returns the index of the named action, or -1.
func (m *ModelInfo) Action(name string) int {
	for i, a := range m.Actions {
		if a.Name == name {
			return i
		}
	}
	return -1
}

// State is a model state held by a Worker. Key is its canonical encoding:
// two states are the same state exactly when their keys are equal.
type State interface {
	Key() string
}

// Var is one state variable with its value, for display.
type Var struct {
	Name  string
	Value Value
}

// Outcome is one result of trying an action with inputs in a state. An
// action with choose() can have several outcomes.
type Outcome struct {
	Output Value // None when the action returns nothing
	Next   State // nil when Err is set
	Err    error // model error: the transition leads to an error state
}

// Expr is a compiled project expression (filter, grouping, weight, domain,
// enabling condition, ...), evaluated by a Worker in a state.
type Expr interface {
	// Source is the expression's text.
	Source() string
	// Pos is where the expression stands (zero for Go-native expressions).
	Pos() Pos
}

// Model is a model program: a Starlark file or a Go-native model.
type Model interface {
	Info() *ModelInfo
	// Compile compiles a project expression over the state s; pos is where the
	// expression stands, for error messages.
	Compile(src string, pos Pos) (Expr, error)
	// NewWorker returns an evaluator for one goroutine.
	NewWorker() (Worker, error)
}

// Worker evaluates a model on one goroutine. Workers are not safe for
// concurrent use; make one per goroutine.
type Worker interface {
	// Init returns the initial state (the first, when the model has
	// several: see InitialStates).
	Init() (State, error)
	// Decode rebuilds a state from its key.
	Decode(key string) (State, error)
	// Domain returns the model's own domain for a parameter in st, or ok=false
	// when the model declares none.
	Domain(st State, action, param int) (vals []Value, ok bool, err error)
	// Step tries the action with the inputs in st; the outcomes slice is
	// valid until the next call to Step. why is non-empty when the
	// action is not enabled there (a require failed; why is its message or
	// "require failed at file:line:col"). args is read only: the explorer
	// passes the same slice again, and keeps it as the transition's inputs.
	Step(st State, action int, args []Value) (outs []Outcome, why string, err error)
	// Eval evaluates a compiled expression in st.
	Eval(e Expr, st State) (Value, error)
	// Accepting reports whether st is accepting (the model's accepting(s),
	// default true).
	Accepting(st State) (bool, error)
	// Invariant returns "" when st is fine, else the violation message.
	Invariant(st State) (string, error)
	// StateFilter applies the model's state_filter(s) (true when absent).
	StateFilter(st State) (bool, error)
	// Vars returns the state's variables for display.
	Vars(st State) []Var
	// SetBudget sets the execution-step budget of one step or expression.
	SetBudget(steps uint64)
	// Cancel stops evaluation in progress (safe from any goroutine).
	Cancel(reason string)
}

// ScratchStepper is a Worker that can also step without allocating the
// states it returns: with StepScratch, the outcomes' states and their keys
// are valid only until the worker's next StepScratch or Step, so a caller
// that keeps a key copies it. The explorer uses it when a worker has it.
type ScratchStepper interface {
	StepScratch(st State, action int, args []Value) (outs []Outcome, why string, err error)
	// DecodeScratch is Decode for the worker's goroutine alone: the state
	// is valid until the next DecodeScratch, and the values read from it
	// (which outcomes share) until the StepScratch after that — except
	// those a step took as inputs or gave as outputs, which stay. A value
	// taken from an outcome (Eval, Step) after the next DecodeScratch is
	// not protected: use outcomes before decoding the next source.
	DecodeScratch(key string) (State, error)
}

// CheapFacts is a Worker whose state filter, acceptance, invariant and
// compiled expressions are plain Go functions: evaluating a state's facts
// again costs less than looking up the facts already evaluated, so the
// explorer does not remember them per target. Go-native workers have it.
type CheapFacts interface {
	CheapFacts()
}

// isIdentifier reports whether s is a Starlark identifier.
func isIdentifier(s string) bool {
	if s == "" {
		return false
	}
	for i, c := range s {
		if c == '_' || ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z') || (i > 0 && '0' <= c && c <= '9') {
			continue
		}
		return false
	}
	return true
}

// MultiInit is a worker whose model may have several initial states.
type MultiInit interface {
	// Inits returns the initial states, distinct, in the model's order.
	Inits() ([]State, error)
}

// InitKeyser is a worker that lists the keys of its initial states (the
// keys of Inits' states), so that a caller given half a million of them can
// make their states a batch at a time, with Decode.
type InitKeyser interface {
	InitKeys() ([]string, error)
}

// InitReleaser is a worker whose model can let go of the initial states'
// keys it keeps once a caller has stored them (a command that explores
// once): the next InitKeys makes them again.
type InitReleaser interface {
	ReleaseInitKeys()
}

// InitTaker is a worker whose model can hand its initial states' keys
// over to a caller that explores once: the caller owns the list (it may
// clear each key once stored, so that the keys go to the collector as it
// goes), and the next InitKeys makes them again.
type InitTaker interface {
	TakeInitKeys() ([]string, error)
}

// InitialStates returns a model's initial states: several when its
// worker is a MultiInit (a Starlark init() returning a list of dicts), else
// the one Init returns.
func InitialStates(w Worker) ([]State, error) {
	if mi, ok := w.(MultiInit); ok {
		return mi.Inits()
	}
	st, err := w.Init()
	if err != nil {
		return nil, err
	}
	return []State{st}, nil
}
