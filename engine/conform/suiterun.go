package conform

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/modex/modex/engine/explore"
	"github.com/modex/modex/engine/model"
)

// CaseResult is the outcome of one offline test case.
type CaseResult struct {
	Name    string
	Verdict Verdict
	Steps   int // steps done
	Failure *Failure
	Reason  string // why inconclusive
	Seconds float64
}

// SuiteResult is the outcome of running a suite.
type SuiteResult struct {
	Cases   []CaseResult
	Seconds float64
}

// Passed reports whether every case passed.
func (r *SuiteResult) Passed() bool {
	for _, c := range r.Cases {
		if c.Verdict != Pass {
			return false
		}
	}
	return len(r.Cases) > 0
}

// RunSuite executes an offline test suite against the implementation. A
// controllable step is invoked and its output checked; an observable step
// waits (up to the larger of Δ(s) and tc.EndWait) for that event; a timeout
// step waits Δ(s) and expects nothing. An implementation that takes another
// observable step the model allows ends the case inconclusive, one the model
// does not allow fails it.
func RunSuite(ctx context.Context, m model.Model, cfg *explore.Config, impl Implementation, suite *explore.Suite, tc TestConfig) (*SuiteResult, error) {
	if tc.EndWait <= 0 {
		tc.EndWait = time.Second
	}
	if tc.MaxStates <= 0 {
		tc.MaxStates = 1000
	}
	t, err := newTester(ctx, m, cfg, impl, tc, true)
	if err != nil {
		return nil, err
	}
	start := time.Now()
	res := &SuiteResult{}
	for _, c := range suite.Cases {
		if ctx.Err() != nil {
			break
		}
		cr := t.runCase(c)
		res.Cases = append(res.Cases, cr)
		if tc.OnRun != nil {
			tc.OnRun(RunResult{Run: len(res.Cases), Verdict: cr.Verdict, Failure: cr.Failure, Reason: cr.Reason, Seconds: cr.Seconds})
		}
		if cr.Failure != nil && (cr.Failure.Kind == FailCrash || cr.Failure.Kind == FailProtocol || cr.Failure.Kind == FailTimeout) {
			break
		}
	}
	res.Seconds = time.Since(start).Seconds()
	return res, nil
}

func (t *tester) runCase(c explore.SuiteCase) (res CaseResult) {
	start := time.Now()
	res = CaseResult{Name: c.Name, Verdict: Pass}
	defer func() { res.Seconds = time.Since(start).Seconds() }()
	t.bind = NewBinding()
	fail := func(kind FailureKind, msg string, states []model.State, expected []string) CaseResult {
		res.Verdict = Fail
		res.Failure = &Failure{Kind: kind, Step: res.Steps, Message: msg, States: t.describe(states), Expected: expected}
		return res
	}
	inconclusive := func(why string) CaseResult {
		res.Verdict, res.Reason = Inconclusive, why
		return res
	}
	states, kind, err := t.startRun()
	if err != nil {
		return fail(kind, err.Error(), nil, nil)
	}
	// unexpectedEvent judges an event the case did not ask for.
	unexpectedEvent := func(ev *Event, wanted string) CaseResult {
		_, args, kind, f := t.observe(states, ev)
		if f != nil {
			f.Step = res.Steps
			res.Verdict, res.Failure = Fail, f
			return res
		}
		label := (&explore.GTrans{Action: ev.Action, Args: args, Kind: kind}).Label()
		return inconclusive(fmt.Sprintf("step %d: the implementation did %s, which the model allows, instead of %s", res.Steps, label, wanted))
	}
	for _, st := range c.Steps {
		if t.ctx.Err() != nil {
			return inconclusive("cancelled")
		}
		wait, err := t.timeout(states)
		if err != nil {
			return fail(FailModel, err.Error(), states, nil)
		}
		switch st.Kind {
		case "timeout":
			ev, err := t.impl.Next(t.ctx, wait)
			if err != nil {
				return fail(implKind(err), err.Error(), states, nil)
			}
			if ev != nil {
				return unexpectedEvent(ev, "a timeout")
			}
		case "observable", "internal":
			ev, err := t.impl.Next(t.ctx, max(wait, t.tc.EndWait))
			if err != nil {
				return fail(implKind(err), err.Error(), states, nil)
			}
			if ev == nil {
				return inconclusive(fmt.Sprintf("step %d: %s did not happen within %s (a timeout is allowed there)", res.Steps, st.Label, max(wait, t.tc.EndWait)))
			}
			next, args, kind, f := t.observe(states, ev)
			if f != nil {
				f.Step = res.Steps
				res.Verdict, res.Failure = Fail, f
				return res
			}
			if ev.Action != st.Action || !sameArgs(args, st.Args) {
				label := (&explore.GTrans{Action: ev.Action, Args: args, Kind: kind}).Label()
				return inconclusive(fmt.Sprintf("step %d: the implementation did %s, which the model allows, instead of %s", res.Steps, label, st.Label))
			}
			states = next
		case "controllable":
			ai, ok := t.byName[st.Action]
			if !ok {
				return fail(FailModel, fmt.Sprintf("the suite names action %s, which the model lacks", st.Action), states, nil)
			}
			args, ok, err := t.findArgs(states[0], ai, st.Args)
			if err != nil {
				return fail(FailModel, err.Error(), states, nil)
			}
			if ok {
				outs, _, err := t.w.Step(states[0], ai, args)
				if err != nil {
					return fail(FailModel, err.Error(), states, nil)
				}
				ok = len(outs) > 0
			}
			if !ok {
				return inconclusive(fmt.Sprintf("step %d: %s is not possible in the model's state here (a grouping merged states the suite tells apart, or the suite does not fit this configuration)", res.Steps, st.Label))
			}
			wire := make([]any, len(args))
			for i, a := range args {
				if wire[i], err = t.bind.ToWire(a); err != nil {
					return fail(FailModel, fmt.Sprintf("%s: %v", st.Label, err), states, nil)
				}
			}
			out, err := t.impl.Invoke(t.ctx, st.Action, wire)
			if err != nil {
				var ref *RefusedError
				if errors.As(err, &ref) {
					return fail(FailRefused, fmt.Sprintf("the implementation refused %s: %s", st.Label, ref.Reason), states, []string{st.Label})
				}
				return fail(implKind(err), fmt.Sprintf("%s: %v", st.Label, err), states, nil)
			}
			next, output, expected, err := t.control(states, candidate{action: ai, args: args}, out)
			if err != nil {
				return fail(FailModel, err.Error(), states, nil)
			}
			if len(next) == 0 {
				return fail(FailOutput, fmt.Sprintf("%s returned %s", st.Label, CanonJSON(out)), states, expected)
			}
			if st.Output != "" && model.Format(output) != st.Output {
				return inconclusive(fmt.Sprintf("step %d: %s gave output %s, which the model allows, where the case expected %s", res.Steps, st.Action, model.Format(output), st.Output))
			}
			states = next
		}
		res.Steps++
		if msg := t.violated(states); msg != "" {
			return fail(FailInvariant, msg, states, nil)
		}
	}
	acc, err := t.accepting(states)
	if err != nil {
		return fail(FailModel, err.Error(), states, nil)
	}
	if !acc {
		return fail(FailNotAccepting, "the case ended outside an accepting state", states, nil)
	}
	return res
}

func sameArgs(args []model.Value, want []string) bool {
	if len(args) != len(want) {
		return false
	}
	for i, a := range args {
		if model.Format(a) != want[i] {
			return false
		}
	}
	return true
}

// findArgs finds the inputs of an action in a state that print as want.
func (t *tester) findArgs(st model.State, ai int, want []string) ([]model.Value, bool, error) {
	var found []model.Value
	err := t.combos(st, ai, func(args []model.Value) error {
		if found == nil && sameArgs(args, want) {
			found = args
		}
		return nil
	})
	if found == nil && len(want) == 0 && len(t.info.Actions[ai].Params) == 0 {
		found = []model.Value{}
	}
	return found, found != nil, err
}
