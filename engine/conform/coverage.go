package conform

import (
	"context"
	"fmt"
	"strings"
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
	// states and trans are the keys of the states and transitions, as the
	// tester makes them, to count which a test met.
	states, trans map[string]bool
}

// Bounds of the exploration that sizes a configuration for coverage
// figures (SizeOf): past them the figures say no "of Y". The keys of a
// configuration at the bound take tens of MB; a larger model is not worth
// exploring again after every test.
const (
	SizeStates = 200_000
	SizeTime   = 5 * time.Second
)

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
	size := ModelSize{States: len(x.States), Complete: x.Stats.Complete, states: make(map[string]bool, len(x.States)), trans: map[string]bool{}}
	for i := range x.States {
		size.states[x.StateKey(i)] = true
	}
	info := m.Info()
	for i := range x.Trans {
		t := &x.Trans[i]
		ak := ""
		for _, a := range x.ArgsOf(t) {
			k, _ := model.Key(a)
			ak += k
		}
		size.trans[x.StateKey(int(t.From))+"\x00"+info.Actions[t.Action].Name+"\x00"+ak+"\x00"+x.StateKey(int(t.To))] = true
	}
	size.Transitions = len(size.trans)
	return size, nil
}

// Coverage says how much of the model the test covered: "covered X of Y
// states and A of B transitions (P % of the states)", counting only the
// states and transitions of the configuration's explored graph (size, from
// SizeOf); states the test met outside it (a grouping keeps one state per
// group, a filter drops some, but the implementation goes where it goes)
// are said apart. Without a complete size, the plain counts.
func (r *TestResult) Coverage(size ModelSize) string { return r.Covered().Coverage(size) }

// Coverage says how much of the model the set covers, in the words of
// TestResult.Coverage (a campaign's merged coverage reads as one test's).
func (c Covered) Coverage(size ModelSize) string {
	met, metTrans := len(c.States), len(c.Transitions)
	if !size.Complete || size.States == 0 {
		return fmt.Sprintf("covered %d states and %d transitions", met, metTrans)
	}
	states, trans := size.Count(c)
	text := fmt.Sprintf("covered %d of %d states and %d of %d transitions (%.0f %% of the states)",
		states, size.States, trans, size.Transitions, 100*float64(states)/float64(size.States))
	if out := met - states; out > 0 {
		text += "; " + explore.Count(out, "more state") + " met outside the configuration's graph (pruned by its groupings or filters)"
	}
	return text
}

// Covered is a set of model states and transitions a test met, by key (as
// the tester makes them): campaigns merge them across machines.
type Covered struct {
	States, Transitions map[string]bool
}

// Covered returns the states and transitions the test met.
func (r *TestResult) Covered() Covered {
	return Covered{States: r.seen, Transitions: r.covered}
}

// Count returns how many of the covered states and transitions belong to
// the configuration's graph.
func (size ModelSize) Count(c Covered) (states, transitions int) {
	for k := range c.States {
		if size.states[k] {
			states++
		}
	}
	for k := range c.Transitions {
		if size.trans[k] {
			transitions++
		}
	}
	return states, transitions
}

// SkippedNote says which controllable actions the adapter does not
// implement, taken out of the test ("" when none): "2 actions not
// implemented: skipped (Pop, Push)". Coverage figures count what the test
// could reach without them.
func SkippedNote(skips []Skip) string {
	if len(skips) == 0 {
		return ""
	}
	names := make([]string, len(skips))
	for i, s := range skips {
		names[i] = s.Action
	}
	verb := "actions not implemented"
	if len(skips) == 1 {
		verb = "action not implemented"
	}
	return fmt.Sprintf("%d %s: skipped (%s)", len(skips), verb, strings.Join(names, ", "))
}
