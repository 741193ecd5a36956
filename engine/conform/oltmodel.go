package conform

// The model's side of an online test: the states a run may be in, what
// they allow, accept and forbid.

import (
	"fmt"
	"time"

	"github.com/modex/modex/engine/explore"
	"github.com/modex/modex/engine/model"
)

// describe returns states with their variables, for failure reports.
func (t *tester) describe(states []model.State) []ModelState {
	out := make([]ModelState, len(states))
	for i, s := range states {
		out[i] = ModelState{Key: s.Key(), Vars: t.w.Vars(s)}
	}
	return out
}

// closure adds the states reachable by internal actions (the model's own,
// unobservable steps), bounded by MaxStates.
func (t *tester) closure(states []model.State) ([]model.State, error) {
	seen := map[string]bool{}
	var out []model.State
	queue := append([]model.State(nil), states...)
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		if seen[s.Key()] {
			continue
		}
		seen[s.Key()] = true
		out = append(out, s)
		if len(out) > t.tc.MaxStates {
			return out, nil
		}
		for ai := range t.info.Actions {
			ac := &t.cfg.Actions[ai]
			if ac.Exclude || ac.Kind != model.Internal {
				continue
			}
			err := t.combos(s, ai, func(args []model.Value) error {
				outs, _, err := t.w.Step(s, ai, args)
				if err != nil {
					return err
				}
				for _, o := range outs {
					if o.Err != nil {
						return o.Err
					}
					queue = append(queue, o.Next)
				}
				return nil
			})
			if err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}

// combos calls f with every input combination of an action in a state
// (the combinations its configuration asks for: explore.InputRows).
func (t *tester) combos(st model.State, ai int, f func([]model.Value) error) error {
	a := t.info.Actions[ai]
	ac := &t.cfg.Actions[ai]
	doms := make([][]model.Value, len(a.Params))
	for p := range a.Params {
		vals, err := explore.ParamDomain(t.w, t.info, ac, st, ai, p)
		if err != nil {
			return err
		}
		if len(vals) == 0 {
			return nil
		}
		doms[p] = vals
	}
	var ferr error
	err := explore.ForEachInput(ac, doms, func(args []model.Value) {
		if ferr == nil {
			ferr = f(args)
		}
	})
	if err != nil {
		return fmt.Errorf("%s: %v", a.Name, err)
	}
	return ferr
}

func (t *tester) accepting(states []model.State) (bool, error) {
	for _, s := range states {
		var ok bool
		var err error
		if t.cfg.Accepting != nil {
			var v model.Value
			if v, err = t.w.Eval(t.cfg.Accepting, s); err == nil {
				ok = bool(v.Truth())
			}
		} else {
			ok, err = t.w.Accepting(s)
		}
		if err != nil {
			return false, err
		}
		if !ok {
			return false, nil
		}
	}
	return true, nil
}

func (t *tester) violated(states []model.State) string {
	for _, s := range states {
		msg, err := t.w.Invariant(s)
		if err != nil {
			return err.Error()
		}
		if msg == "" {
			return ""
		}
	}
	msg, _ := t.w.Invariant(states[0])
	return msg
}

// timeout evaluates Δ(s): the longest over the states tracked.
func (t *tester) timeout(states []model.State) (time.Duration, error) {
	if t.cfg.Timeout == nil {
		return 0, nil
	}
	var worst float64
	for _, s := range states {
		v, err := t.w.Eval(t.cfg.Timeout, s)
		if err != nil {
			return 0, err
		}
		f, ok := explore.Number(v)
		if !ok || f < 0 {
			return 0, fmt.Errorf("timeout `%s` must give a number of seconds, not %s", t.cfg.Timeout.Source(), model.Format(v))
		}
		worst = max(worst, f)
	}
	return time.Duration(worst * float64(time.Second)), nil
}
