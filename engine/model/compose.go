package model

import (
	"encoding/binary"
	"fmt"
	"strings"
)

// Scenario is a machine composed with a model by synchronised product
// (docs/model-language.md, "Scenarios"): an action in the scenario's
// vocabulary happens only when the scenario takes it too, and moves both;
// an action outside the vocabulary moves the model alone. A product state
// is accepting when the model's state and every scenario's are.
type Scenario interface {
	// Name names the scenario in state details and messages.
	Name() string
	// Vocabulary reports whether the scenario constrains the model's
	// action (by index in ModelInfo.Actions).
	Vocabulary(action int) bool
	// NewRunner returns the scenario's evaluator for one goroutine.
	NewRunner() (ScenarioRunner, error)
}

// ScenarioRunner evaluates a scenario on one goroutine. Scenario states
// are strings: equal strings are the same scenario state.
type ScenarioRunner interface {
	// Inits returns the scenario's initial states.
	Inits() ([]string, error)
	// Step returns the scenario states after the model's action with the
	// inputs and output; none (with why) when the scenario does not take
	// that step there.
	Step(state string, action int, args []Value, output Value) (next []string, why string, err error)
	// Accepting reports whether the scenario may end in the state.
	Accepting(state string) (bool, error)
	// Position describes the state for a user: where the scenario is.
	Position(state string) string
	// SetBudget and Cancel are the Worker's, for scenarios that run code.
	SetBudget(steps uint64)
	Cancel(reason string)
}

// Compose makes every worker of the model a worker of its product with
// the scenarios (in order). Call it once, before making workers.
func (m *StarModel) Compose(scs ...Scenario) { m.scenarios = append(m.scenarios, scs...) }

// Scenarios returns the scenarios composed with the model.
func (m *StarModel) Scenarios() []Scenario { return m.scenarios }

// ScenarioVar is the name under which Vars shows a scenario's position
// (not an identifier, so no state variable has it); with several
// scenarios the scenario's name follows it.
const ScenarioVar = "@scenario"

// pstate is a state of the product: the model's state and one state per
// scenario. Its key is the scenarios' states, each with its length, then
// the model state's key.
type pstate struct {
	base State
	scen []string
	key  string
}

func (s *pstate) Key() string { return s.key }

func newPState(base State, scen []string) *pstate {
	n := len(base.Key())
	for _, k := range scen {
		n += binary.MaxVarintLen64 + len(k)
	}
	b := make([]byte, 0, n)
	for _, k := range scen {
		b = binary.AppendUvarint(b, uint64(len(k)))
		b = append(b, k...)
	}
	b = append(b, base.Key()...)
	return &pstate{base: base, scen: scen, key: string(b)}
}

// productWorker is a Worker of the product of a model with scenarios.
type productWorker struct {
	base    Worker
	scs     []Scenario
	runners []ScenarioRunner
	outs    []Outcome
}

func newProductWorker(base Worker, scs []Scenario) (*productWorker, error) {
	w := &productWorker{base: base, scs: scs}
	for _, sc := range scs {
		r, err := sc.NewRunner()
		if err != nil {
			return nil, err
		}
		w.runners = append(w.runners, r)
	}
	return w, nil
}

func (w *productWorker) state(st State) *pstate {
	if ps, ok := st.(*pstate); ok {
		return ps
	}
	panic(fmt.Sprintf("model: a state of the model without its scenarios (%T) given to the product's worker", st))
}

// scenarioInits is the product of the scenarios' initial states.
func (w *productWorker) scenarioInits() ([][]string, error) {
	combos := [][]string{nil}
	for _, r := range w.runners {
		ks, err := r.Inits()
		if err != nil {
			return nil, err
		}
		combos = cross(combos, ks)
	}
	return combos, nil
}

// cross extends every combination with every one of ks.
func cross(combos [][]string, ks []string) [][]string {
	out := make([][]string, 0, len(combos)*len(ks))
	for _, c := range combos {
		for _, k := range ks {
			out = append(out, append(append(make([]string, 0, len(c)+1), c...), k))
		}
	}
	return out
}

func (w *productWorker) Init() (State, error) {
	sts, err := w.Inits()
	if err != nil {
		return nil, err
	}
	if len(sts) == 0 {
		return nil, fmt.Errorf("the scenarios have no initial state")
	}
	return sts[0], nil
}

// Inits returns the product's initial states: every initial state of the
// model with every combination of the scenarios' initial states.
func (w *productWorker) Inits() ([]State, error) {
	bases, err := InitialStates(w.base)
	if err != nil {
		return nil, err
	}
	combos, err := w.scenarioInits()
	if err != nil {
		return nil, err
	}
	out := make([]State, 0, len(bases)*len(combos))
	for _, b := range bases {
		for _, c := range combos {
			out = append(out, newPState(b, c))
		}
	}
	return out, nil
}

func (w *productWorker) Decode(key string) (State, error) {
	rest := key
	scen := make([]string, len(w.scs))
	for i := range scen {
		n, k := binary.Uvarint([]byte(rest[:min(len(rest), binary.MaxVarintLen64)]))
		if k <= 0 || uint64(len(rest)-k) < n {
			return nil, fmt.Errorf("not a state of the model with its scenarios")
		}
		scen[i] = rest[k : k+int(n)]
		rest = rest[k+int(n):]
	}
	base, err := w.base.Decode(rest)
	if err != nil {
		return nil, err
	}
	return &pstate{base: base, scen: scen, key: key}, nil
}

func (w *productWorker) Domain(st State, action, param int) ([]Value, bool, error) {
	return w.base.Domain(w.state(st).base, action, param)
}

func (w *productWorker) Step(st State, action int, args []Value) ([]Outcome, string, error) {
	ps := w.state(st)
	outs, why, err := w.base.Step(ps.base, action, args)
	if err != nil || len(outs) == 0 {
		return nil, why, err
	}
	w.outs = w.outs[:0]
	for _, o := range outs {
		if o.Err != nil {
			w.outs = append(w.outs, o)
			continue
		}
		combos, swhy, err := w.scenarioSteps(ps, action, args, o.Output)
		if err != nil {
			return nil, "", err
		}
		if len(combos) == 0 {
			why = swhy
		}
		for _, c := range combos {
			w.outs = append(w.outs, Outcome{Output: o.Output, Next: newPState(o.Next, c)})
		}
	}
	if len(w.outs) == 0 {
		return nil, why, nil
	}
	return w.outs, "", nil
}

// scenarioSteps returns the scenarios' states after the step: every
// combination of their successors (none when one refuses the step, with
// why).
func (w *productWorker) scenarioSteps(ps *pstate, action int, args []Value, out Value) ([][]string, string, error) {
	combos := [][]string{nil}
	for i, r := range w.runners {
		if !w.scs[i].Vocabulary(action) {
			for j := range combos {
				combos[j] = append(combos[j], ps.scen[i])
			}
			continue
		}
		next, why, err := r.Step(ps.scen[i], action, args, out)
		if err != nil {
			return nil, "", fmt.Errorf("scenario %s: %w", w.scs[i].Name(), err)
		}
		if len(next) == 0 {
			if why == "" {
				why = "not in the scenario here"
			}
			return nil, "scenario " + w.scs[i].Name() + ": " + why, nil
		}
		combos = cross(combos, next)
	}
	return combos, "", nil
}

func (w *productWorker) Eval(e Expr, st State) (Value, error) {
	return w.base.Eval(e, w.state(st).base)
}

func (w *productWorker) Accepting(st State) (bool, error) {
	ps := w.state(st)
	ok, err := w.base.Accepting(ps.base)
	if err != nil || !ok {
		return ok, err
	}
	for i, r := range w.runners {
		if ok, err := r.Accepting(ps.scen[i]); err != nil || !ok {
			return ok, err
		}
	}
	return true, nil
}

func (w *productWorker) Invariant(st State) (string, error) {
	return w.base.Invariant(w.state(st).base)
}

func (w *productWorker) StateFilter(st State) (bool, error) {
	return w.base.StateFilter(w.state(st).base)
}

// Vars returns the model's variables, then each scenario's position.
func (w *productWorker) Vars(st State) []Var {
	ps := w.state(st)
	vars := w.base.Vars(ps.base)
	for i, r := range w.runners {
		name := ScenarioVar
		if len(w.runners) > 1 {
			name += " " + w.scs[i].Name()
		}
		vars = append(vars, Var{Name: name, Value: Str(r.Position(ps.scen[i]))})
	}
	return vars
}

func (w *productWorker) SetBudget(steps uint64) {
	w.base.SetBudget(steps)
	for _, r := range w.runners {
		r.SetBudget(steps)
	}
}

func (w *productWorker) Cancel(reason string) {
	w.base.Cancel(reason)
	for _, r := range w.runners {
		r.Cancel(reason)
	}
}

// BaseKey returns the model's part of a state's key: the key itself when
// the model has no scenarios.
func (m *StarModel) BaseKey(key string) (string, error) {
	rest := key
	for range m.scenarios {
		n, k := binary.Uvarint([]byte(rest[:min(len(rest), binary.MaxVarintLen64)]))
		if k <= 0 || uint64(len(rest)-k) < n {
			return "", fmt.Errorf("not a state of the model with its scenarios")
		}
		rest = rest[k+int(n):]
	}
	return rest, nil
}

// ScenarioNames lists the composed scenarios' names, for messages.
func (m *StarModel) ScenarioNames() string {
	names := make([]string, len(m.scenarios))
	for i, s := range m.scenarios {
		names[i] = s.Name()
	}
	return strings.Join(names, ", ")
}
