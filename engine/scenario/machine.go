package scenario

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"go.starlark.net/starlark"

	"github.com/modex/modex/engine/model"
)

// Machine is a scenario given as a small Starlark model: its own state
// variables, and actions named as the model's, with the model's
// parameters. Its vocabulary is its actions; the model's step takes the
// machine's action with the same inputs; a machine action that returns
// something other than None must return the model's output.
type Machine struct {
	name string
	m    *model.StarModel
	// of maps the model's action to the machine's (-1: not in the
	// vocabulary)
	of []int
}

// LoadMachine loads a scenario machine for the model's actions. Every
// action of the machine must be an action of the model with as many
// parameters; errors name the machine file's line and column.
func LoadMachine(path string, info *model.ModelInfo) (*Machine, error) {
	m, err := model.LoadStarlark(path)
	if err != nil {
		return nil, err
	}
	mi := m.Info()
	if len(mi.Constants) > 0 {
		return nil, &model.PosError{Pos: mi.Constants[0].Pos, Msg: "scenario machine: constants are not supported in a scenario machine"}
	}
	s := &Machine{name: filepath.Base(path), m: m, of: make([]int, len(info.Actions))}
	for i := range s.of {
		s.of[i] = -1
	}
	for k, a := range mi.Actions {
		ai := info.Action(a.Name)
		if ai < 0 {
			return nil, &model.PosError{Pos: a.Pos, Msg: fmt.Sprintf("scenario machine: %s is not an action of the model %s (it has %s)", a.Name, info.Name, actionList(info))}
		}
		if want := info.Actions[ai].Params; len(a.Params) != len(want) {
			return nil, &model.PosError{Pos: a.Pos, Msg: fmt.Sprintf("scenario machine: wrong arity: %s takes %d parameter%s in the model (%s), here %d", a.Name, len(want), plural(len(want)), strings.Join(want, ", "), len(a.Params))}
		}
		s.of[ai] = k
	}
	return s, nil
}

// Name is the machine's file name.
func (s *Machine) Name() string { return s.name }

// Vocabulary reports whether the machine has the action.
func (s *Machine) Vocabulary(action int) bool { return action < len(s.of) && s.of[action] >= 0 }

// NewRunner makes a worker of the machine.
func (s *Machine) NewRunner() (model.ScenarioRunner, error) {
	w, err := s.m.NewWorker()
	if err != nil {
		return nil, err
	}
	return &machineRunner{s: s, w: w}, nil
}

type machineRunner struct {
	s *Machine
	w model.Worker
}

func (r *machineRunner) Inits() ([]string, error) {
	sts, err := model.InitialStates(r.w)
	if err != nil {
		return nil, err
	}
	keys := make([]string, len(sts))
	for i, st := range sts {
		keys[i] = st.Key()
	}
	return keys, nil
}

func (r *machineRunner) Step(state string, action int, args []model.Value, out model.Value) ([]string, string, error) {
	st, err := r.w.Decode(state)
	if err != nil {
		return nil, "", err
	}
	outs, why, err := r.w.Step(st, r.s.of[action], args)
	if err != nil {
		return nil, "", err
	}
	var next []string
	for _, o := range outs {
		if o.Err != nil {
			return nil, "", o.Err
		}
		if o.Output != nil && o.Output != starlark.None && !sameValue(o.Output, out) {
			why = fmt.Sprintf("the machine's output %s is not the model's %s", model.Format(o.Output), model.Format(out))
			continue
		}
		if k := o.Next.Key(); !slices.Contains(next, k) {
			next = append(next, k)
		}
	}
	if len(next) == 0 && why == "" {
		why = "the machine does not take it"
	}
	return next, why, nil
}

func sameValue(a, b model.Value) bool {
	ka, err := model.Key(a)
	if err != nil {
		return false
	}
	kb, err := model.Key(b)
	return err == nil && ka == kb
}

func (r *machineRunner) Accepting(state string) (bool, error) {
	st, err := r.w.Decode(state)
	if err != nil {
		return false, err
	}
	return r.w.Accepting(st)
}

// Position prints the machine's variables.
func (r *machineRunner) Position(state string) string {
	st, err := r.w.Decode(state)
	if err != nil {
		return err.Error()
	}
	var parts []string
	for _, v := range r.w.Vars(st) {
		parts = append(parts, v.Name+" = "+model.Format(v.Value))
	}
	return strings.Join(parts, ", ")
}

func (r *machineRunner) SetBudget(steps uint64) { r.w.SetBudget(steps) }
func (r *machineRunner) Cancel(reason string)   { r.w.Cancel(reason) }
