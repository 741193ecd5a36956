package conform

import (
	"sort"

	"github.com/modex/modex/engine/model"
)

// The code strategy (StrategyCode) follows the implementation's code
// coverage: after each run, TestConfig.CodeFeedback says how many
// statements of the implementation it reached for the first time; the
// controllable steps of a run that reached new code earn a reward (per
// model state, action and arguments), which decays by half each run and
// goes when a run takes the step again and finds nothing new. The
// tester prefers the candidates with the largest reward (at least half the
// best), and, where none has one, the transitions not taken yet (the
// coverage strategy). Given the seed and what the implementation does, it
// chooses the same.

// codeDecay is what a reward keeps from one run to the next.
const codeDecay = 0.5

// stepKey is a controllable step's key for the rewards: the state, the
// action, the arguments.
func (t *tester) stepKey(s model.State, c candidate) string {
	return s.Key() + "\x00" + t.info.Actions[c.action].Name + "\x00" + c.ak
}

// noteStep remembers a controllable step of the run, for its reward.
func (t *tester) noteStep(s model.State, c candidate) {
	if t.tc.Strategy == StrategyCode {
		t.runKeys = append(t.runKeys, t.stepKey(s, c))
	}
}

// feedback asks how much new code the run reached and rewards its steps.
func (t *tester) feedback() {
	if t.tc.Strategy != StrategyCode || t.tc.CodeFeedback == nil {
		return
	}
	gained := t.tc.CodeFeedback()
	if t.reward == nil {
		t.reward = map[string]float64{}
	}
	for k, v := range t.reward {
		if v *= codeDecay; v < 1e-3 {
			delete(t.reward, k)
		} else {
			t.reward[k] = v
		}
	}
	for _, k := range t.runKeys {
		if gained > 0 {
			t.reward[k] += float64(gained)
		} else {
			delete(t.reward, k) // taken again, it found nothing new
		}
	}
	t.runKeys = t.runKeys[:0]
}

// codeChoices narrows the candidates to the best rewarded ones (at least
// half the best reward), or, with no reward, to those not taken yet; in
// the order given.
func (t *tester) codeChoices(s model.State, cands []candidate) []candidate {
	best := 0.0
	scores := make([]float64, len(cands))
	for i, c := range cands {
		scores[i] = t.reward[t.stepKey(s, c)]
		best = max(best, scores[i])
	}
	var out []candidate
	if best > 0 {
		for i, c := range cands {
			if scores[i] >= best/2 {
				out = append(out, c)
			}
		}
		sort.SliceStable(out, func(i, j int) bool { return out[i].action < out[j].action })
		return out
	}
	for _, c := range cands {
		if !t.takenFrom(s, c) {
			out = append(out, c)
		}
	}
	if len(out) == 0 {
		return cands
	}
	return out
}
