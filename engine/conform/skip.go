package conform

import (
	"fmt"

	"github.com/modex/modex/engine/model"
)

// Incremental adapters: the controllable actions an adapter does not
// implement (yet) leave the tester's choices (docs/adapter-protocol.md).

// kindUnimplemented marks perform's answer for an action the adapter does
// not implement: never a run's failure.
const kindUnimplemented FailureKind = "not-implemented"

// skip takes a controllable action the adapter does not implement out of
// the tester's choices for the rest of the test (a name the model lacks,
// or said twice, is ignored).
func (t *tester) skip(name string, run int, reason string) {
	ai, ok := t.byName[name]
	if !ok || t.skipped[ai] || t.cfg.Actions[ai].Kind != model.Controllable {
		return
	}
	t.skipped[ai] = true
	t.skips = append(t.skips, Skip{Action: name, Run: run, Reason: reason})
}

// skipBlocks says why a run that cannot end in an accepting state is
// inconclusive rather than failed: an action the model enables here, which
// might lead on, is one the adapter does not implement ("" when none).
func (t *tester) skipBlocks(states []model.State) string {
	if len(t.skips) == 0 {
		return ""
	}
	skipped := t.skipped
	t.skipped = make([]bool, len(skipped))
	cands, err := t.candidates(states, false)
	t.skipped = skipped
	if err != nil {
		return ""
	}
	for _, c := range cands {
		if skipped[c.action] {
			name := t.info.Actions[c.action].Name
			return fmt.Sprintf("the run could not end in an accepting state without %s, which the adapter does not implement", name)
		}
	}
	return ""
}
