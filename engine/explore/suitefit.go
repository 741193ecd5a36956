package explore

import (
	"fmt"
	"strings"

	"github.com/modex/modex/engine/model"
)

// CheckFits reports whether the suite can be run under the configuration
// cfg (named name) of a model with actions info: every action its cases
// take or wait for must be in the configuration, with the kind the suite
// gave it. A suite generated for another configuration that leaves out or
// turns around one of its actions would otherwise run against the wrong
// rules (issue 53: a suite whose actions a configuration excludes passed).
func (s *Suite) CheckFits(info *model.ModelInfo, cfg *Config, name string) error {
	index := map[string]int{}
	for i, a := range info.Actions {
		index[a.Name] = i
	}
	for ci := range s.Cases {
		c := &s.Cases[ci]
		steps := c.Steps
		if c.Plan != nil {
			steps = append(append(append(append([]SuiteStep(nil), c.Steps...), c.Plan.Moves...), c.Plan.Finish...), c.Plan.Waits...)
		}
		for k, st := range steps {
			if st.Kind == "timeout" && cfg.Timeouts == TimeoutOff {
				return s.misfit(name, fmt.Sprintf("configuration %s has no timeouts, the suite waits for one (%s, step %d)", name, c.Name, k+1))
			}
			if st.Action == "" || st.Kind == "timeout" {
				continue
			}
			where := fmt.Sprintf("%s, step %d (%s)", c.Name, k+1, st.Action)
			i, ok := index[st.Action]
			switch {
			case !ok:
				return s.misfit(name, fmt.Sprintf("the model has no action %s (%s)", st.Action, where))
			case cfg.Actions[i].Exclude:
				return s.misfit(name, fmt.Sprintf("configuration %s leaves out %s (%s)", name, st.Action, where))
			case st.Kind != "" && st.Kind != cfg.Actions[i].Kind.String():
				return s.misfit(name, fmt.Sprintf("configuration %s makes %s %s, the suite %s (%s)", name, st.Action, cfg.Actions[i].Kind, st.Kind, where))
			}
		}
	}
	return nil
}

func (s *Suite) misfit(name, why string) error {
	var b strings.Builder
	fmt.Fprintf(&b, "the suite does not fit configuration %s: %s", name, why)
	if s.Config != "" && s.Config != name {
		fmt.Fprintf(&b, "; it was generated for %s: run it with that configuration, or generate one for %s", s.Config, name)
	}
	return fmt.Errorf("%s", b.String())
}
