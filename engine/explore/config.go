package explore

import (
	"fmt"
	"time"

	"github.com/modex/modex/engine/model"
)

// TimeoutMode selects the timeout extension of seed 000 Definition 4.
type TimeoutMode int

// Timeout modes: Auto applies the extension when an included action is
// observable or internal; On always; Off never.
const (
	TimeoutAuto TimeoutMode = iota
	TimeoutOn
	TimeoutOff
)

// ActionConfig is the scenario control of one action.
type ActionConfig struct {
	// Exclude removes the action from exploration and testing.
	Exclude bool
	// Kind is the action's kind (the model's unless overridden).
	Kind model.Kind
	// Enabled is an extra enabling condition (scenario precondition); it is
	// applied to controllable actions only, as in seed 000 section 4.4.1.
	Enabled model.Expr
	// Domains per parameter; a nil entry uses the model's own domain.
	Domains []model.Expr
	// Combine is how the parameters' domains combine into inputs: 0 or 1
	// the full product; n >= 2 a covering array of strength n (2 is
	// pairwise), in which every n values of any n parameters appear
	// together in at least one combination (see Covering). An action with
	// no more than n parameters takes the full product.
	Combine int
	// Weight is a per-state weight expression for online testing.
	Weight model.Expr
	// Count, when > 0, is a decrementing weight (the "bag of marbles").
	Count int
	// Cleanup marks the action as a cleanup action.
	Cleanup bool
}

// Config is the scenario control of one exploration.
type Config struct {
	// Actions is indexed like ModelInfo.Actions.
	Actions []ActionConfig
	// Filters drop transitions to states where one of them is false.
	Filters []model.Expr
	// NoModelFilter ignores the model's own state_filter(s).
	NoModelFilter bool
	// Groupings prune states (seed 000 §4.4.4; Campbell and Veanes, "State
	// exploration with multiple state groupings"): a reached state is kept
	// when its value in at least one grouping is new; otherwise it is
	// pruned together with the transition that reached it. Transitions are
	// never redirected: the graph may miss transitions but has no false
	// ones (seed 001 §6.2). The grouping values label the states.
	Groupings []model.Expr
	// Timeout is the state-dependent timeout Δ(s) in seconds used by online
	// testing (default 0).
	Timeout model.Expr
	// Earliest is the state-dependent lower bound in seconds on when an
	// observable action may happen: counted from when the tester reached
	// the states the model may be in (the call of a controllable action,
	// the arrival of the previous observable one, the reset), an
	// observable action that comes sooner than the least of Earliest over
	// those states fails the run (online testing, and replays of traces
	// with times). Nil: no lower bound.
	Earliest model.Expr
	// Accepting overrides the model's accepting(s).
	Accepting model.Expr
	// Bounds; zero means none. Bounds count model states.
	MaxStates, MaxTransitions, MaxDepth int
	MaxTime                             time.Duration
	// Timeouts selects the timeout extension; KeepEmptyPassive keeps passive
	// states in which no observable action is enabled (by default they are
	// collapsed into their active twin).
	Timeouts         TimeoutMode
	KeepEmptyPassive bool
	// StopOnError stops exploring from states that violate the invariant.
	StopOnError bool
	// NoDeadlockCheck turns off reporting deadlocks: states, fully
	// expanded, in which no included action is enabled, that are neither
	// accepting nor error states (check_deadlock = false in a project).
	NoDeadlockCheck bool
	// Workers is the number of goroutines (default: the number of CPUs).
	Workers int
	// ReleaseInits lets the model go of its initial states' keys once the
	// exploration has stored them (model.InitReleaser): for a command that
	// explores once (half a million initial states are tens of megabytes);
	// whoever asks for them later has init() run again.
	ReleaseInits bool
	// DropTransitions counts the transitions without keeping them, for a
	// command that reports a summary (TLC keeps no transitions either):
	// Exploration.Trans stays empty, Stats.Transitions and GraphSize count
	// them, and PredecessorPath gives, for every state a transition
	// reached, the way by which the search first reached it (a shortest
	// one). What reads the graph's
	// transitions (Graph's arcs, Minimize, suites, overviews) sees none.
	// Ignored when Snapshot is set, and in a directed search (its graph
	// is what its walks visited).
	DropTransitions bool
	// StepBudget bounds one step or expression (default DefaultStepBudget).
	// MemoryBudget bounds the heap (bytes) while the model runs; past it
	// exploration stops, keeping what it found, and tests and replays end
	// with a model error (0: model.DefaultMemoryBudget, a quarter of the
	// machine's memory).
	MemoryBudget uint64
	StepBudget   uint64
	// Progress, when set, is called from an engine goroutine about every
	// ProgressEvery (default 100 ms) and once at the end.
	Progress      func(Progress)
	ProgressEvery time.Duration
	// Snapshot, when set, receives a consistent copy of the graph found so
	// far after a level of the search, at most every SnapshotEvery (default
	// 200 ms). It is called on the exploring goroutine: hand the copy off
	// rather than doing slow work in it.
	Snapshot      func(*Exploration)
	SnapshotEvery time.Duration
	// Search selects breadth-first search (SearchBFS, the default: every
	// reachable state) or directed search (SearchWalks: Walks sampled
	// walks of at most WalkDepth steps each, drawn by the actions'
	// weights from the random numbers of Seed; 0: DefaultWalks and
	// DefaultWalkDepth; a Seed below 0 is drawn from the clock, and
	// Stats.Seed says which was used). See walk.go.
	Search           SearchMode
	Walks, WalkDepth int
	Seed             int64
}

// Progress is a snapshot of a running exploration.
type Progress struct {
	States, Transitions int
	Tried               int64
	Seconds             float64
	Rate                float64 // tried transitions per second
	Done                bool
}

// DefaultConfig returns the configuration that uses the model's own
// declarations: all actions with their kinds and domains, no extra filters,
// groupings or bounds.
func DefaultConfig(m model.Model) *Config {
	info := m.Info()
	c := &Config{Actions: make([]ActionConfig, len(info.Actions))}
	for i, a := range info.Actions {
		c.Actions[i] = ActionConfig{Kind: a.Kind, Domains: make([]model.Expr, len(a.Params)), Cleanup: a.Cleanup}
	}
	return c
}

// MissingDomainError reports a parameter that has no domain.
type MissingDomainError struct {
	Action, Param string
	Pos           model.Pos
}

// Error names the action, parameter and position.
func (e *MissingDomainError) Error() string {
	return fmt.Sprintf("%s: missing domain for parameter %s of %s: declare it in the model's domains or in the project configuration", e.Pos, e.Param, e.Action)
}

// Check verifies that every included parameter has a domain (in the
// configuration or in the model).
func (c *Config) Check(m model.Model, w model.Worker) error {
	info := m.Info()
	if len(c.Actions) != len(info.Actions) {
		return fmt.Errorf("configuration has %d actions, model %s has %d", len(c.Actions), info.Name, len(info.Actions))
	}
	st, err := w.Init()
	if err != nil {
		return err
	}
	for i, a := range info.Actions {
		ac := c.Actions[i]
		if ac.Exclude {
			continue
		}
		for p, name := range a.Params {
			if p < len(ac.Domains) && ac.Domains[p] != nil {
				continue
			}
			if _, ok, _ := w.Domain(st, i, p); !ok {
				return &MissingDomainError{Action: a.Name, Param: name, Pos: a.Pos}
			}
		}
	}
	return nil
}

// ParamDomain evaluates the domain of one parameter of an action in a state:
// the configuration's expression when it has one, else the model's own.
func ParamDomain(w model.Worker, info *model.ModelInfo, ac *ActionConfig, st model.State, ai, p int) ([]model.Value, error) {
	if p < len(ac.Domains) && ac.Domains[p] != nil {
		x := ac.Domains[p]
		v, err := w.Eval(x, st)
		if err != nil {
			return nil, err
		}
		vals, err := model.Elements(v)
		if err != nil {
			a := info.Actions[ai]
			return nil, fmt.Errorf("%s: domain `%s` of %s.%s: %v", exprPos(x), x.Source(), a.Name, a.Params[p], err)
		}
		return vals, nil
	}
	vals, _, err := w.Domain(st, ai, p)
	return vals, err
}

// extended reports whether the timeout extension applies.
func (c *Config) extended() bool {
	switch c.Timeouts {
	case TimeoutOn:
		return true
	case TimeoutOff:
		return false
	}
	for _, a := range c.Actions {
		if !a.Exclude && (a.Kind == model.Observable || a.Kind == model.Internal) {
			return true
		}
	}
	return false
}
