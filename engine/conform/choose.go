package conform

import (
	"sort"

	"github.com/modex/modex/engine/explore"
	"github.com/modex/modex/engine/model"
)

type candidate struct {
	action int
	args   []model.Value
	ak     string
	// from and outs: the outcomes of the step from from, the one state
	// tracked when it was listed (control takes them instead of stepping
	// again); nil when several states were tracked.
	from model.State
	outs []model.Outcome
}

func (c candidate) label(info *model.ModelInfo) string {
	return info.Actions[c.action].Name + "(" + model.FormatArgs(c.args) + ")"
}

// candidates lists the controllable actions with inputs the tester may
// choose: enabled (model precondition and scenario enabling condition) in
// every state tracked, with a successor passing the filters, and with a
// positive weight; only cleanup actions in the cleanup phase.
func (t *tester) candidates(states []model.State, cleanup bool) ([]candidate, error) {
	var out []candidate
	first := states[0]
	for ai := range t.info.Actions {
		ac := &t.cfg.Actions[ai]
		if ac.Exclude || ac.Kind != model.Controllable || (cleanup && !ac.Cleanup) || t.skipped[ai] {
			continue
		}
		if w, err := t.weight(first, ai); err != nil {
			return nil, err
		} else if w <= 0 {
			continue
		}
		var key candKey
		if len(states) == 1 {
			key = candKey{first.Key(), ai}
			if cs, ok := t.cands[key]; ok {
				out = append(out, cs...)
				continue
			}
		}
		before := len(out)
		err := t.combos(first, ai, func(args []model.Value) error {
			var kept []model.Outcome
			for _, s := range states {
				if ac.Enabled != nil {
					v, err := t.w.Eval(ac.Enabled, s)
					if err != nil {
						return err
					}
					if !v.Truth() {
						return nil
					}
				}
				outs, _, err := t.w.Step(s, ai, args)
				if err != nil {
					return err
				}
				ok := false
				for _, o := range outs {
					if o.Err != nil {
						return o.Err
					}
					pass, err := t.passesFilters(o.Next)
					if err != nil {
						return err
					}
					ok = ok || pass
				}
				if !ok {
					return nil
				}
				if len(states) == 1 {
					kept = append([]model.Outcome(nil), outs...) // Step's slice is its worker's
				}
			}
			ak := ""
			for _, a := range args {
				k, _ := model.Key(a)
				ak += k
			}
			c := candidate{action: ai, args: args, ak: ak}
			if kept != nil {
				c.from, c.outs = first, kept
			}
			out = append(out, c)
			return nil
		})
		if err != nil {
			return nil, err
		}
		if len(states) == 1 {
			if t.cands == nil || len(t.cands) >= maxCands {
				t.cands = map[candKey][]candidate{}
			}
			t.cands[key] = append([]candidate(nil), out[before:]...)
		}
	}
	return out, nil
}

func (t *tester) passesFilters(s model.State) (bool, error) {
	if !t.cfg.NoModelFilter {
		ok, err := t.w.StateFilter(s)
		if err != nil || !ok {
			return false, err
		}
	}
	for _, f := range t.cfg.Filters {
		v, err := t.w.Eval(f, s)
		if err != nil {
			return false, err
		}
		if !v.Truth() {
			return false, nil
		}
	}
	return true, nil
}

// weight is ω(s, m): the per-state weight expression, or the decrementing
// count max(count − #(m), 0), or 1 (explore.ActionWeight: directed search
// weighs actions the same way).
func (t *tester) weight(s model.State, ai int) (float64, error) {
	return explore.ActionWeight(t.w, t.info, &t.cfg.Actions[ai], ai, s, t.counts[ai])
}

// choose picks an action method by weight, then inputs uniformly. The
// coverage strategy first narrows the candidates to transitions not taken
// yet, when there are any.
func (t *tester) choose(states []model.State, cands []candidate) candidate {
	if t.tc.Strategy == StrategyCode {
		cands = t.codeChoices(states[0], cands)
	}
	if t.tc.Strategy == StrategyCoverage {
		var fresh []candidate
		for _, c := range cands {
			if !t.takenFrom(states[0], c) {
				fresh = append(fresh, c)
			}
		}
		if len(fresh) > 0 {
			cands = fresh
		}
	}
	byAction := map[int][]candidate{}
	var actions []int
	for _, c := range cands {
		if _, ok := byAction[c.action]; !ok {
			actions = append(actions, c.action)
		}
		byAction[c.action] = append(byAction[c.action], c)
	}
	sort.Ints(actions)
	weights := make([]float64, len(actions))
	total := 0.0
	for i, ai := range actions {
		w, _ := t.weight(states[0], ai)
		weights[i] = w
		total += w
	}
	r := t.rng.Float64() * total
	pick := actions[len(actions)-1]
	for i, ai := range actions {
		if r < weights[i] {
			pick = ai
			break
		}
		r -= weights[i]
	}
	opts := byAction[pick]
	return opts[t.rng.IntN(len(opts))]
}

func (t *tester) takenFrom(s model.State, c candidate) bool {
	return t.taken[s.Key()+"\x00"+t.info.Actions[c.action].Name+"\x00"+c.ak]
}

// control applies a controllable step with the implementation's output:
// the states whose outcome matches it.
func (t *tester) control(states []model.State, c candidate, out any) ([]model.State, model.Value, []string, error) {
	var next []model.State
	var output model.Value
	seen := map[string]bool{}
	var expected []string
	for _, s := range states {
		outs := c.outs
		if len(states) != 1 || outs == nil || c.from.Key() != s.Key() {
			var err error
			if outs, _, err = t.w.Step(s, c.action, c.args); err != nil {
				return nil, nil, nil, err
			}
		}
		for _, o := range outs {
			if o.Err != nil {
				return nil, nil, nil, o.Err
			}
			if t.bind.Match(o.Output, out) {
				if !seen[o.Next.Key()] {
					seen[o.Next.Key()] = true
					next = append(next, o.Next)
					output = o.Output
				}
			} else {
				expected = append(expected, c.label(t.info)+"/"+model.Format(o.Output))
			}
		}
	}
	if len(next) == 0 {
		return nil, nil, expected, nil
	}
	closed, err := t.closure(next)
	return closed, output, expected, err
}
