package conform

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/modex/modex/engine/explore"
	"github.com/modex/modex/engine/model"
)

// CaseResult is the outcome of one offline test case.
type CaseResult struct {
	Name    string
	Verdict Verdict
	Steps   int // steps done (actions; timeouts are not steps)
	Failure *Failure
	Reason  string // why inconclusive
	Seconds float64
	// Log is what the case did, as an online run's log: each action and
	// timeout taken (the failing step, when it fails, is Failure.Event).
	Log []StepRecord
	// GaveUp says a strategy case passed without its goal: nothing failed,
	// but the implementation never made the choice the goal needed, and
	// the case gave it up and finished (not a pass of what it was for).
	GaveUp bool
	// Walked lists the transitions of the suite's graph the case took
	// ("S1 -Label-> S2"), in order: what it covered, as opposed to what it
	// was planned to.
	Walked []string
}

// Walk is the key of a suite step in CaseResult.Walked.
func Walk(st explore.SuiteStep) string { return st.From + " -" + st.Label + "-> " + st.To }

// CoveredBy counts the distinct transitions the cases took.
func CoveredBy(cases []CaseResult) int {
	seen := map[string]bool{}
	for _, c := range cases {
		for _, w := range c.Walked {
			seen[w] = true
		}
	}
	return len(seen)
}

// SuiteResult is the outcome of running a suite.
type SuiteResult struct {
	Cases   []CaseResult
	Seconds float64
	// Halt, when set, is the failure that stopped the suite: the
	// implementation crashed, was killed, stopped answering or broke the
	// protocol in the case numbered Halt.Run (from 1), the last of Cases.
	Halt *Halt
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
	defer t.watchMemory()()
	start := time.Now()
	res := &SuiteResult{}
	for _, c := range suite.Cases {
		if t.ctx.Err() != nil {
			break
		}
		cr := t.runCase(c)
		res.Cases = append(res.Cases, cr)
		if tc.OnRun != nil {
			tc.OnRun(RunResult{Run: len(res.Cases), Verdict: cr.Verdict, Failure: cr.Failure, Reason: cr.Reason, Seconds: cr.Seconds, Actions: cr.Steps, GaveUp: cr.GaveUp})
		}
		if res.Halt = halt(len(res.Cases), cr.Failure); res.Halt != nil {
			break // the implementation is gone or unusable
		}
	}
	res.Seconds = time.Since(start).Seconds()
	return res, nil
}

func (t *tester) runCase(c explore.SuiteCase) CaseResult {
	return t.runSteps(c.Name, c.Steps, c.Plan, false)
}

// runSteps runs steps (or, when set, a strategy case's plan) as a case
// from the implementation's reset; prefix when they are part of a case,
// whose end need not be accepting.
func (t *tester) runSteps(name string, steps []explore.SuiteStep, plan *explore.Plan, prefix bool) CaseResult {
	start := time.Now()
	r := &caseRun{t: t, res: CaseResult{Name: name, Verdict: Pass}, prefix: prefix}
	t.bind = NewBinding()
	r.since = time.Now()
	states, f := t.startRun()
	if f != nil {
		r.failWith(f, nil)
	} else {
		r.states = states
		if plan != nil {
			r.plan(plan)
		} else {
			r.steps(labelled(steps))
		}
	}
	if r.res.Verdict == Pass && t.cutShort() {
		r.inconclusive("cancelled") // ended as the suite was stopped
	}
	r.res.Seconds = time.Since(start).Seconds()
	return r.res
}

// caseRun is the state of one suite case being run.
type caseRun struct {
	t      *tester
	res    CaseResult
	states []model.State
	// prefix runs part of a case: its end need not be accepting.
	prefix bool
	// last is the action just taken, for the log.
	last StepRecord
	// since is when the states were reached (for earliest), as online.
	since time.Time
}

func (r *caseRun) fail(kind FailureKind, msg string, states []model.State, expected []string) bool {
	if r.t.cutShort() {
		return r.inconclusive("cancelled") // see tester.cutShort
	}
	r.res.Verdict, r.res.Failure = r.t.failed(kind, r.res.Steps, msg, states, expected)
	return true
}

// failWith ends the case with f, a failure of the implementation (or of
// the model's start) found after the steps taken so far, in states.
func (r *caseRun) failWith(f *Failure, states []model.State) bool {
	r.fail(f.Kind, f.Message, states, f.Expected)
	if r.res.Failure != nil {
		r.res.Failure.Crash = f.Crash
	}
	return true
}

func (r *caseRun) inconclusive(why string) bool {
	if msg, ok := r.t.memoryStop(why); ok {
		return r.fail(FailModel, msg, r.states, nil)
	}
	r.res.Verdict, r.res.Reason = Inconclusive, why
	return true
}

// steps takes the case's steps in order, then checks the case ends in an
// accepting state.
func (r *caseRun) steps(steps []explore.SuiteStep) {
	t := r.t
	for len(steps) > 0 {
		st := steps[0]
		steps = steps[1:]
		if t.ctx.Err() != nil {
			r.inconclusive("cancelled")
			return
		}
		wait, err := t.timeout(r.states)
		if err != nil {
			r.fail(FailModel, err.Error(), r.states, nil)
			return
		}
		var done bool
		switch {
		case st.Kind == "timeout":
			done = r.timeout(wait)
		case st.Kind == "observable" || st.Kind == "internal":
			done = r.observe(st, wait)
		case st.Kind == "controllable":
			done = r.control(st)
		}
		if done {
			return
		}
		if st.Kind != "timeout" {
			r.res.Steps++ // timeouts are not steps
		}
		r.logged(st.Kind)
		r.res.Walked = append(r.res.Walked, Walk(st))
		if msg := t.violated(r.states); msg != "" {
			r.fail(FailInvariant, msg, r.states, nil)
			return
		}
	}
	if r.prefix {
		return
	}
	acc, err := t.accepting(r.states)
	if err != nil {
		r.fail(FailModel, err.Error(), r.states, nil)
	} else if !acc {
		r.fail(FailNotAccepting, "the case ended outside an accepting state", r.states, nil)
	}
}

// next waits for an event; done when the run ended.
func (r *caseRun) next(wait time.Duration) (*Event, bool) {
	ev, err := r.t.impl.Next(r.t.ctx, wait)
	if err != nil {
		if r.t.ctx.Err() != nil {
			return nil, r.inconclusive("cancelled")
		}
		return nil, r.failWith(implFailure("", err), r.states)
	}
	if ev != nil {
		ev.At = arrival(ev)
	}
	return ev, false
}

// judge checks an event against the model: a failure when the model does
// not allow it (or not so soon), inconclusive when it allows it but the
// case wanted something else.
func (r *caseRun) judge(ev *Event, wanted string) ([]model.State, []model.Value, bool) {
	next, args, kind, f := r.t.observe(r.states, ev)
	if f == nil {
		var err error
		if f, err = r.t.early(r.states, ev.At.Sub(r.since), StepRecord{Kind: kind, Action: ev.Action, Args: args}); err != nil {
			return nil, nil, r.fail(FailModel, err.Error(), r.states, nil)
		}
	}
	if f != nil && r.t.cutShort() {
		return nil, nil, r.inconclusive("cancelled")
	}
	if f != nil {
		f.Step = r.res.Steps + 1
		r.res.Verdict, r.res.Failure = Fail, f
		return nil, nil, true
	}
	if wanted != "" {
		label := (&explore.GTrans{Action: ev.Action, Args: args, Kind: kind}).Label()
		return nil, nil, r.inconclusive(fmt.Sprintf("step %d: the implementation did %s, which the model allows, instead of %s", r.res.Steps+1, label, wanted))
	}
	return next, args, false
}

// timeout expects nothing to happen for the state's timeout.
func (r *caseRun) timeout(wait time.Duration) bool {
	ev, done := r.next(wait)
	if done || ev == nil {
		return done
	}
	_, _, done = r.judge(ev, "a timeout")
	return done
}

// observe expects the step's observable action.
func (r *caseRun) observe(st explore.SuiteStep, wait time.Duration) bool {
	wait = max(wait, r.t.tc.EndWait)
	ev, done := r.next(wait)
	if done {
		return true
	}
	if ev == nil {
		return r.inconclusive(fmt.Sprintf("step %d: %s did not happen within %s (a timeout is allowed there)", r.res.Steps+1, st.Label, wait))
	}
	next, args, done := r.judge(ev, "")
	if done {
		return true
	}
	if ev.Action != st.Action || !sameArgs(args, st.Args) {
		_, _, done = r.judge(ev, st.Label)
		return done
	}
	r.states, r.since = next, ev.At
	r.last = StepRecord{Kind: model.Observable, Action: ev.Action, Args: args}
	return false
}

// logged adds the step just taken (r.last, for actions) to the case's log.
func (r *caseRun) logged(kind string) {
	rec := r.last
	if kind == "timeout" {
		rec = StepRecord{Kind: model.Timeout}
	} else {
		rec.Step = r.res.Steps
	}
	rec.Index = len(r.res.Log)
	rec.States = keys(r.states)
	r.res.Log = append(r.res.Log, rec)
}

// plan follows a strategy case's plan (explore.Plan): the tester's move
// at its states, at the implementation's states whichever of the planned
// choices it makes, until the goal step is taken, then on to an end. An
// event the model allows that the plan does not list leaves the game (the
// configuration pruned it): inconclusive; so is a run the implementation
// keeps from the goal for maxPlanSteps.
func (r *caseRun) plan(p *explore.Plan) {
	moves, finish, waits, ends := planTables(p)
	cur, done, missed := p.Start, false, false
	limit := maxPlanSteps(p)
	for n := 0; ; n++ {
		if n == limit && !done {
			// The implementation kept the run from the goal: give it up
			// and finish (nothing seen failed).
			done, missed, n = true, true, 0
		}
		if !done && p.GoalState != "" && cur == p.GoalState {
			done = true // the state to reach
		}
		if done && ends[cur] {
			r.finished()
			if missed && r.res.Verdict == Pass {
				r.res.GaveUp = true
				r.res.Reason = "its goal did not happen (the implementation chose otherwise): given up, the run finished"
			}
			return
		}
		if n == limit {
			r.inconclusive(fmt.Sprintf("the implementation kept the run from an accepting state for %d steps", limit))
			return
		}
		if r.t.ctx.Err() != nil {
			r.inconclusive("cancelled")
			return
		}
		table := moves
		if done {
			table = finish
		}
		st, mine := table[cur]
		if !done && p.GoalState == "" && cur == p.Goal.From && p.Goal.Kind == "controllable" {
			st, mine = p.Goal, true
		}
		var taken explore.SuiteStep
		var stop bool
		switch {
		case mine:
			taken, stop = st, r.control(st)
		case len(waits[cur]) > 0:
			taken, stop = r.choose(waits[cur])
		case !done:
			// The implementation steered the run where the goal can no
			// longer be reached: give it up and finish.
			done, missed = true, true
			continue
		default:
			r.inconclusive(fmt.Sprintf("step %d: the run reached %s, where the plan has nothing to do (the implementation steered it off the plan)", r.res.Steps+1, cur))
			return
		}
		if stop {
			return
		}
		if taken.Kind == "timeout" && taken.At != "" && taken.To == taken.At {
			// The tester waited for events and none came: the goal will
			// not happen; finishing, the implementation is stuck.
			if !done {
				done, missed = true, true
				continue
			}
			if cands, err := r.t.candidates(r.states, false); err != nil || len(cands) > 0 {
				// The tester could still act: the plan's hope, not the
				// implementation, failed.
				r.inconclusive(fmt.Sprintf("step %d: the plan waited for events that did not come within %s", r.res.Steps+1, r.t.tc.EndWait))
				return
			}
			r.fail(FailNotAccepting, fmt.Sprintf("no observable action came within %s, and the state is not accepting", r.t.tc.EndWait), r.states, r.t.expectedObservables(r.states))
			return
		}
		if taken.Kind != "timeout" {
			r.res.Steps++
		}
		r.logged(taken.Kind)
		r.res.Walked = append(r.res.Walked, Walk(taken))
		if msg := r.t.violated(r.states); msg != "" {
			r.fail(FailInvariant, msg, r.states, nil)
			return
		}
		if !done && p.GoalState == "" && taken.From == p.Goal.From && taken.To == p.Goal.To && taken.Label == p.Goal.Label {
			done = true
		}
		cur = taken.To
	}
}

// planTables indexes a plan by state: the tester's moves before and after
// the goal, the choices it waits for, the ends.
func planTables(p *explore.Plan) (moves, finish map[string]explore.SuiteStep, waits map[string][]explore.SuiteStep, ends map[string]bool) {
	index := func(steps []explore.SuiteStep) map[string]explore.SuiteStep {
		m := map[string]explore.SuiteStep{}
		for _, st := range steps {
			m[st.From] = st
		}
		return m
	}
	waits, ends = map[string][]explore.SuiteStep{}, map[string]bool{}
	for _, st := range distinctWaits(p) {
		at := st.From
		if st.At != "" {
			at = st.At // the tester waits for it in the active twin
		}
		waits[at] = append(waits[at], st)
	}
	for _, e := range p.Ends {
		ends[e] = true
	}
	return index(p.Moves), index(p.Finish), waits, ends
}

// maxPlanSteps bounds a plan's run: ten times its planned steps, at least
// a hundred.
func maxPlanSteps(p *explore.Plan) int {
	return max(100, 10*(len(p.Moves)+len(p.Finish)+len(distinctWaits(p))+1))
}

// distinctWaits is a plan's waits, each once: a suite file (data) that
// lists a choice many times would otherwise make every step of its run
// scan them all, and its run's bound grow with them — quadratic.
func distinctWaits(p *explore.Plan) []explore.SuiteStep {
	type key struct{ kind, action, args, output, label, from, to, at string }
	seen := make(map[key]bool, len(p.Waits))
	out := make([]explore.SuiteStep, 0, len(p.Waits))
	for _, st := range p.Waits {
		k := key{st.Kind, st.Action, strings.Join(st.Args, "\x00"), st.Output, st.Label, st.From, st.To, st.At}
		if !seen[k] {
			seen[k] = true
			out = append(out, st)
		}
	}
	return out
}

// finished checks the case ended in an accepting state.
func (r *caseRun) finished() {
	if r.prefix {
		return
	}
	acc, err := r.t.accepting(r.states)
	if err != nil {
		r.fail(FailModel, err.Error(), r.states, nil)
	} else if !acc {
		r.fail(FailNotAccepting, "the case ended outside an accepting state", r.states, nil)
	}
}

// choose waits for the implementation's choice at one of its states: one
// of options (a timeout among them when one is planned). An event the
// model allows that no option lists leaves the game: inconclusive.
func (r *caseRun) choose(options []explore.SuiteStep) (explore.SuiteStep, bool) {
	wait, err := r.t.timeout(r.states)
	if err != nil {
		return explore.SuiteStep{}, r.fail(FailModel, err.Error(), r.states, nil)
	}
	var timeout *explore.SuiteStep
	var planned []string
	for i := range options {
		if options[i].Kind == "timeout" {
			timeout = &options[i]
		}
		planned = append(planned, options[i].Label)
	}
	if timeout == nil || timeout.At != "" && timeout.To == timeout.At {
		// Nothing but events to wait for (a timeout that would only
		// wait again counts for nothing): as long as the run's end waits.
		wait = max(wait, r.t.tc.EndWait)
	}
	ev, done := r.next(wait)
	if done {
		return explore.SuiteStep{}, true
	}
	if ev == nil {
		if timeout != nil {
			return *timeout, false
		}
		return explore.SuiteStep{}, r.inconclusive(fmt.Sprintf("step %d: nothing happened within %s; the plan waited for %s", r.res.Steps+1, wait, strings.Join(planned, ", ")))
	}
	next, args, done := r.judge(ev, "")
	if done {
		return explore.SuiteStep{}, true
	}
	for _, o := range options {
		if o.Kind != "timeout" && ev.Action == o.Action && sameArgs(args, o.Args) {
			r.states, r.since = next, ev.At
			r.last = StepRecord{Kind: model.Observable, Action: ev.Action, Args: args}
			return o, false
		}
	}
	label := (&explore.GTrans{Action: ev.Action, Args: args, Kind: model.Observable}).Label()
	return explore.SuiteStep{}, r.inconclusive(fmt.Sprintf("step %d: the implementation did %s, which the model allows but the plan does not (the configuration may have pruned it); it waited for %s",
		r.res.Steps+1, label, strings.Join(planned, ", ")))
}

// control performs the step's controllable action.
func (r *caseRun) control(st explore.SuiteStep) bool {
	t, states := r.t, r.states
	ai, ok := t.byName[st.Action]
	if !ok {
		return r.fail(FailModel, fmt.Sprintf("the suite names action %s, which the model lacks", st.Action), states, nil)
	}
	args, ok, err := t.findArgs(states[0], ai, st.Args)
	if err != nil {
		return r.fail(FailModel, err.Error(), states, nil)
	}
	if ok {
		outs, _, err := t.w.Step(states[0], ai, args)
		if err != nil {
			return r.fail(FailModel, err.Error(), states, nil)
		}
		ok = len(outs) > 0
	}
	if !ok {
		return r.inconclusive(fmt.Sprintf("step %d: %s is not possible in the model's state here (the suite does not fit this model or configuration)", r.res.Steps+1, st.Label))
	}
	called := time.Now()
	next, output, f := t.perform(states, candidate{action: ai, args: args}, st.Label)
	if f != nil {
		if f.Kind == "" {
			return r.inconclusive("cancelled")
		}
		if f.Kind == kindUnimplemented {
			return r.inconclusive(fmt.Sprintf("step %d: %s", r.res.Steps+1, f.Message))
		}
		r.failWith(f, states)
		if r.res.Failure != nil { // nil when a stop cut the case short (fail says inconclusive)
			r.res.Failure.Step = r.res.Steps + 1 // the failing action is a step, as online
			r.res.Failure.Event = f.Event
		}
		return true
	}
	if st.Output != "" && model.Format(output) != st.Output {
		return r.inconclusive(fmt.Sprintf("step %d: %s gave output %s, which the model allows, where the case expected %s", r.res.Steps+1, st.Action, model.Format(output), st.Output))
	}
	r.states, r.since = next, called
	r.last = StepRecord{Kind: model.Controllable, Action: st.Action, Args: args, Output: output}
	return false
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

// findArgs finds the inputs of an action in a state that print as want:
// for each parameter, the first value of its domain there that does. It
// looks them up in the domains whatever combinations of them the
// configuration tries (explore.InputRows): a step recorded is checked
// with its own inputs, as an observed event is.
func (t *tester) findArgs(st model.State, ai int, want []string) ([]model.Value, bool, error) {
	a := t.info.Actions[ai]
	if len(want) != len(a.Params) {
		return nil, false, nil
	}
	found := make([]model.Value, len(want))
	for p := range a.Params {
		vals, err := explore.ParamDomain(t.w, t.info, &t.cfg.Actions[ai], st, ai, p)
		if err != nil {
			return nil, false, err
		}
		for _, v := range vals {
			if model.Format(v) == want[p] {
				found[p] = v
				break
			}
		}
		if found[p] == nil {
			return nil, false, nil
		}
	}
	return found, true, nil
}

// ShrinkCase finds the shortest prefix of a failing offline test case that
// still fails the same way (kind): prefixes ending at each action in turn,
// each run up to repeats times (the implementation may be
// nondeterministic). A prefix need not end in an accepting state, so a
// case that failed only for ending outside one does not shrink. It returns
// the number of steps of the prefix (timeouts included, as in the case)
// and its failing result; the whole case when no shorter prefix fails.
func ShrinkCase(ctx context.Context, m model.Model, cfg *explore.Config, impl Implementation, c explore.SuiteCase, tc TestConfig, kind FailureKind, repeats int) (int, CaseResult, error) {
	if tc.EndWait <= 0 {
		tc.EndWait = time.Second
	}
	if tc.MaxStates <= 0 {
		tc.MaxStates = 1000
	}
	repeats = max(repeats, 1)
	t, err := newTester(ctx, m, cfg, impl, tc, true)
	if err != nil {
		return 0, CaseResult{}, err
	}
	if kind == FailNotAccepting {
		return len(c.Steps), CaseResult{}, fmt.Errorf("the case failed for ending outside an accepting state: no prefix fails that way")
	}
	for n := 1; n < len(c.Steps); n++ {
		if c.Steps[n-1].Kind == "timeout" {
			continue // a prefix ends with an action
		}
		for range repeats {
			if err := ctx.Err(); err != nil {
				return 0, CaseResult{}, err
			}
			res := t.runSteps(c.Name, c.Steps[:n], nil, true) // a strategy case shrinks along its main line
			if res.Failure != nil && res.Failure.Kind == kind {
				return n, res, nil
			}
		}
	}
	return len(c.Steps), CaseResult{}, nil
}

// labelled gives the steps without a label (a suite written by hand) the
// label their action, inputs and output make, for messages: "step 1:
// Pop()/1 is not possible", not "step 1:  is not possible".
func labelled(steps []explore.SuiteStep) []explore.SuiteStep {
	var out []explore.SuiteStep
	for i, st := range steps {
		if st.Label != "" || st.Kind == "timeout" {
			continue
		}
		if out == nil {
			out = append([]explore.SuiteStep(nil), steps...)
		}
		label := st.Action + "(" + strings.Join(st.Args, ", ") + ")"
		if st.Kind == "observable" {
			label = "?" + label
		}
		if st.Output != "" {
			label += "/" + st.Output
		}
		out[i].Label = label
	}
	if out == nil {
		return steps
	}
	return out
}
