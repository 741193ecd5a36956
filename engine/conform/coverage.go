package conform

import (
	"context"
	"fmt"
	"time"

	"github.com/modex/modex/engine/explore"
	"github.com/modex/modex/engine/model"
)

// ModelSize is the size of a configuration's model, for coverage figures:
// its model states and transitions (distinct source, action, inputs and
// target, as a test counts the transitions it covers; timeouts are not
// transitions of the model).
type ModelSize struct {
	States, Transitions int
	// Complete is false when the exploration stopped at a bound: the model
	// is larger than the figures.
	Complete bool
}

// SizeOf explores the configuration, at most maxStates model states and
// for at most limit, to size it.
func SizeOf(ctx context.Context, m model.Model, cfg *explore.Config, maxStates int, limit time.Duration) (ModelSize, error) {
	c := *cfg
	if c.MaxStates == 0 || c.MaxStates > maxStates {
		c.MaxStates = maxStates
	}
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	x, err := explore.Explore(ctx, m, &c)
	if err != nil {
		return ModelSize{}, err
	}
	type key struct{ from, to, action, args int32 }
	trans := map[key]bool{}
	for _, t := range x.Trans {
		trans[key{t.From, t.To, t.Action, t.Args}] = true
	}
	return ModelSize{States: len(x.States), Transitions: len(trans), Complete: x.Stats.Complete}, nil
}

// Coverage says how much of the model the test covered: "covered X of Y
// states and A of B transitions (P % of the states)", the model's figures
// from SizeOf; without them when the model could not be sized whole.
func (r *TestResult) Coverage(size ModelSize) string {
	if !size.Complete || size.States == 0 {
		return fmt.Sprintf("covered %d states and %d transitions", r.States, r.Transitions)
	}
	return fmt.Sprintf("covered %d of %d states and %d of %d transitions (%.0f %% of the states)",
		r.States, size.States, r.Transitions, size.Transitions, 100*float64(r.States)/float64(size.States))
}
