package explore

import (
	"fmt"
	"sort"

	"github.com/modex/modex/engine/model"
)

// PathTo returns the transitions (indices into g.Trans) of a shortest path
// from the initial state to graph state target, or nil when it is not
// reachable (or is the initial state).
func (g *Graph) PathTo(target int) []int {
	var from []int
	for i, s := range g.States {
		if s.Initial {
			if i == target {
				return nil
			}
			from = append(from, i)
		}
	}
	return g.shortestPathFrom(from, func(n int) bool { return n == target })
}

// ActionStatus says whether an action is enabled in a state and, when it is
// not, why.
type ActionStatus struct {
	Action  string
	Kind    model.Kind
	Enabled int      // input combinations that are enabled
	Tried   int      // input combinations tried
	Reasons []string // distinct reasons for the disabled ones, sorted
}

// Explain tries every included action with every input combination in the
// model state with the given key and reports, per action, how many are
// enabled and why the others are not (require messages, the scenario's
// enabling condition, empty domains, errors).
func Explain(m model.Model, cfg *Config, key string) ([]ActionStatus, error) {
	w, err := m.NewWorker()
	if err != nil {
		return nil, err
	}
	w.SetBudget(cfg.StepBudget)
	if d, ok := w.(interface{ SetDetail(bool) }); ok {
		d.SetDetail(true) // positions of failing requires, for the user
	}
	st, err := w.Decode(key)
	if err != nil {
		return nil, err
	}
	var out []ActionStatus
	for ai, a := range m.Info().Actions {
		ac := cfg.Actions[ai]
		if ac.Exclude {
			continue
		}
		as := ActionStatus{Action: a.Name, Kind: ac.Kind}
		reasons := map[string]bool{}
		if ac.Enabled != nil && ac.Kind == model.Controllable {
			v, err := w.Eval(ac.Enabled, st)
			if err != nil {
				reasons["enabling condition failed: "+err.Error()] = true
			} else if !v.Truth() {
				reasons["scenario: enabling condition `"+ac.Enabled.Source()+"` is false"] = true
			}
		}
		if len(reasons) == 0 {
			doms := make([][]model.Value, len(a.Params))
			for p := range a.Params {
				vals, err := ParamDomain(w, m.Info(), &ac, st, ai, p)
				if err != nil {
					reasons[fmt.Sprintf("domain of %s: %v", a.Params[p], err)] = true
				} else if len(vals) == 0 {
					reasons[fmt.Sprintf("the domain of %s is empty here", a.Params[p])] = true
				}
				doms[p] = vals
			}
			if len(reasons) == 0 {
				err := ForEachInput(&ac, doms, func(args []model.Value) {
					as.Tried++
					outs, why, err := w.Step(st, ai, args)
					switch {
					case err != nil:
						reasons[err.Error()] = true
					case len(outs) == 0:
						reasons[fmt.Sprintf("%s(%s): %s", a.Name, model.FormatArgs(args), why)] = true
					default:
						as.Enabled++
						for _, o := range outs {
							if o.Err != nil {
								reasons["model error: "+o.Err.Error()] = true
							}
						}
					}
				})
				if err != nil {
					reasons[err.Error()] = true
				}
			}
		}
		for r := range reasons {
			as.Reasons = append(as.Reasons, r)
		}
		sort.Strings(as.Reasons)
		out = append(out, as)
	}
	return out, nil
}

// ForEachCombination calls f with every combination of one value from each
// domain, in odometer order (the last domain varies fastest).
func ForEachCombination(doms [][]model.Value, f func([]model.Value)) {
	idx := make([]int, len(doms))
	for {
		args := make([]model.Value, len(doms))
		for p := range doms {
			args[p] = doms[p][idx[p]]
		}
		f(args)
		if !nextCombination(idx, doms) {
			return
		}
	}
}

// Find returns the model states (indices into x.States) where the
// expression is true. Error states that stand for model errors are skipped.
func (x *Exploration) Find(expr model.Expr) ([]int, error) {
	w, err := x.Model.NewWorker()
	if err != nil {
		return nil, err
	}
	w.SetBudget(x.Config.StepBudget)
	var out []int
	for i, s := range x.States {
		if s.ModelErr {
			continue
		}
		st, err := w.Decode(x.StateKey(i))
		if err != nil {
			return nil, err
		}
		v, err := w.Eval(expr, st)
		if err != nil {
			return out, fmt.Errorf("in state S%d: %w", i, err)
		}
		if v.Truth() {
			out = append(out, i)
		}
	}
	return out, nil
}
