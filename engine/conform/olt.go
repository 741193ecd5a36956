package conform

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"time"

	"github.com/modex/modex/engine/explore"
	"github.com/modex/modex/engine/model"
)

// TestConfig sets the limits and strategy of online testing.
type TestConfig struct {
	Runs  int // test runs (default 1)
	Steps int // steps per run before the cleanup phase (default 100)
	// TotalSteps bounds the steps of all runs together (0: no bound).
	TotalSteps int
	// CleanupSteps bounds the cleanup phase of a run (default Steps).
	CleanupSteps int
	// Seed is the seed of run 1; run i uses Seed+i-1.
	Seed uint64
	// Strategy chooses controllable actions (default StrategyRandom).
	Strategy Strategy
	// EndWait is how long the tester waits for observable events in a
	// non-accepting state where it may not act (Step 3 of the algorithm, and
	// the cleanup phase when no cleanup action is enabled) before failing
	// the run: events already on their way may still make the state
	// accepting (default 1 s).
	EndWait time.Duration
	// MaxStates bounds the set of model states tracked for nondeterminism
	// (default 1000); exceeding it makes the run inconclusive.
	MaxStates int
	// OnStep, when set, is called after every step (on the testing
	// goroutine).
	OnStep func(StepRecord)
	// OnRun, when set, is called when a run ends, with its result.
	OnRun func(RunResult)
	// CodeFeedback, for StrategyCode, is called after each run (after
	// OnRun): how many statements of the implementation the run reached
	// that no run had reached before.
	CodeFeedback func() int
	// KeepPassingSteps keeps the step log of runs that passed in the
	// result; by default only failing and inconclusive runs keep theirs
	// (OnStep and OnRun see every step either way), so that memory does not
	// grow with the number of runs.
	KeepPassingSteps bool
	// KeepFailingSteps, when above 0, keeps the whole step log of only the
	// first KeepFailingSteps runs with a failure; later ones keep their last
	// FailureTraceLen entries (what FailureReport prints) and count the
	// others in RunResult.StepsDropped, so that memory does not grow with
	// the steps of every failing run. OnRun sees every run whole.
	KeepFailingSteps int
	// Script, when set, drives the run's controllable steps in this order
	// (a rerun of a saved run, see SavedRun) instead of choosing them; the
	// run waits up to EndWait where the script observed an event, and
	// enters the cleanup phase when the script is done. A scripted step the
	// model does not enable waits for events up to EndWait, then ends the
	// run inconclusive ("could not reproduce").
	Script []SavedStep
}

// StepRecord is one entry of a test run's log: an action (a step) or a
// timeout. Steps are actions, controllable or observable, as in seed 000's
// Table 1 ("the total number of actions occurring in each test run");
// timeouts are logged but are not steps.
type StepRecord struct {
	Run   int
	Index int // position in the run's log (timeouts included)
	// Step is the step's number in its run, counting actions from 1; 0 for
	// a timeout.
	Step    int
	Kind    model.Kind // Controllable, Observable (or Internal) or Timeout
	Action  string
	Args    []model.Value
	Output  model.Value
	Cleanup bool     // taken in the cleanup phase
	States  []string // keys of the model states after the step
	From    []string // keys before the step
	Active  bool     // the tester is in an active state after the step
}

// Label is the step as shown in logs: Post(Client1, "hi"), ?Deliver(...),
// Create()/Client1, or "timeout".
func (s StepRecord) Label() string {
	if s.Kind == model.Timeout {
		return "timeout"
	}
	t := explore.GTrans{Action: s.Action, Args: s.Args, Output: s.Output, Kind: s.Kind}
	return t.Label()
}

// MaxStepLog bounds the step log one run keeps (between MaxStepLog and
// twice it entries): a run of a million steps keeps its last ones.
const MaxStepLog = 20_000

// RunResult is the outcome of one test run.
type RunResult struct {
	Run     int
	Seed    uint64
	Verdict Verdict
	// Actions is the number of steps taken: actions, controllable and
	// observable, the cleanup phase included; timeouts are not steps.
	Actions int
	Steps   []StepRecord // the log: every action and timeout
	// StepsDropped counts the entries let go from the start of Steps (see
	// TestConfig.KeepFailingSteps).
	StepsDropped int
	Failure      *Failure
	Reason       string // why the run was inconclusive
	Seconds      float64
	// GaveUp, for a suite's strategy case, says it passed without its goal
	// (CaseResult.GaveUp).
	GaveUp bool
}

// TestResult is the outcome of online testing.
type TestResult struct {
	Runs []RunResult
	// Coverage: distinct model states and transitions visited, all runs.
	States, Transitions int
	// Steps is the number of actions of all runs (timeouts not counted).
	Steps   int
	Seconds float64
	// Halt, when set, is the failure that stopped the test: the
	// implementation crashed, was killed, stopped answering or broke the
	// protocol in run Halt.Run, the last of Runs, and no run was done
	// after it.
	Halt *Halt
	// Skipped are the controllable actions the adapter does not implement
	// (said at start or on first use), taken out of the tester's choices,
	// in the order it said so.
	Skipped []Skip
	// seen and covered are the model states and transitions met (keys as
	// tester.cover makes them), for Coverage.
	seen, covered map[string]bool
}

// Passed reports whether every run passed.
func (r *TestResult) Passed() bool {
	for _, run := range r.Runs {
		if run.Verdict != Pass {
			return false
		}
	}
	return len(r.Runs) > 0
}

type tester struct {
	ctx       context.Context
	m         model.Model
	info      *model.ModelInfo
	cfg       *explore.Config
	tc        TestConfig
	impl      Implementation
	w         model.Worker
	rng       *rand.Rand
	bind      *Binding
	counts    []int
	skipped   []bool // by action: the adapter does not implement it
	skips     []Skip
	reward    map[string]float64 // StrategyCode: by step key
	runKeys   []string           // StrategyCode: the run's steps' keys
	covered   map[string]bool    // transition keys
	taken     map[string]bool    // (state, action, inputs) already taken
	seen      map[string]bool    // state keys
	byName    map[string]int
	total     int  // actions taken in all runs
	observing bool // the configuration has observable or internal actions
	// cands remembers, for one tracked state and an action, the inputs
	// it is enabled with and their outcomes (a model step is a function
	// of the state and inputs): a long run revisits states.
	cands map[candKey][]candidate
}

// candKey is a state's key and an action.
type candKey struct {
	state  string
	action int
}

// maxCands bounds tester.cands (it starts again when full).
const maxCands = 20000

// Test runs online testing (the OLT algorithm of seed 000 section 3) of the
// implementation against the model under the configuration.
func Test(ctx context.Context, m model.Model, cfg *explore.Config, impl Implementation, tc TestConfig) (*TestResult, error) {
	if tc.Runs <= 0 {
		tc.Runs = 1
	}
	if tc.Steps <= 0 {
		tc.Steps = 100
	}
	if tc.CleanupSteps <= 0 {
		tc.CleanupSteps = tc.Steps
	}
	if tc.MaxStates <= 0 {
		tc.MaxStates = 1000
	}
	if tc.EndWait <= 0 {
		tc.EndWait = time.Second
	}
	if tc.Strategy == "" {
		tc.Strategy = StrategyRandom
	}
	if _, err := ParseStrategy(string(tc.Strategy)); err != nil {
		return nil, err
	}
	t, err := newTester(ctx, m, cfg, impl, tc, true)
	if err != nil {
		return nil, err
	}
	defer t.watchMemory()()
	start := time.Now()
	res := &TestResult{}
	failing := 0 // runs with a failure so far
	for r := 1; r <= tc.Runs; r++ {
		if tc.TotalSteps > 0 && t.total >= tc.TotalSteps {
			break
		}
		if t.ctx.Err() != nil {
			break
		}
		run := t.run(r, tc.Seed+uint64(r-1))
		if tc.OnRun != nil {
			tc.OnRun(run)
		}
		t.feedback()
		if run.Verdict == Pass && !tc.KeepPassingSteps {
			run.Steps = nil // memory stays flat over long campaigns
		}
		if run.Failure != nil && tc.KeepFailingSteps > 0 {
			if failing++; failing > tc.KeepFailingSteps && len(run.Steps) > FailureTraceLen {
				n := len(run.Steps) - FailureTraceLen
				run.StepsDropped += n
				run.Steps = append([]StepRecord(nil), run.Steps[n:]...)
			}
		}
		res.Runs = append(res.Runs, run)
		if res.Halt = halt(run.Run, run.Failure); res.Halt != nil {
			break // the implementation is gone or unusable
		}
	}
	res.States, res.Transitions, res.Steps = len(t.seen), len(t.covered), t.total
	res.Skipped = t.skips
	res.seen, res.covered = t.seen, t.covered
	res.Seconds = time.Since(start).Seconds()
	return res, nil
}

// watchMemory makes the tester's context end when the heap passes the
// configuration's memory budget, cancelling the model's code; the returned
// function stops watching.
func (t *tester) watchMemory() func() {
	ctx, stopWatch := model.WatchMemory(t.ctx, t.cfg.MemoryBudget)
	t.ctx = ctx
	stop := context.AfterFunc(ctx, func() {
		why := "cancelled"
		if msg, ok := model.MemoryExceeded(ctx); ok {
			why = msg
		}
		t.w.Cancel(why)
	})
	return func() { stop(); stopWatch() }
}

// newTester prepares a tester: a worker with the step budget and the
// action index; check also verifies that every parameter has a domain.
func newTester(ctx context.Context, m model.Model, cfg *explore.Config, impl Implementation, tc TestConfig, check bool) (*tester, error) {
	w, err := m.NewWorker()
	if err != nil {
		return nil, err
	}
	w.SetBudget(cfg.StepBudget)
	if check {
		if err := cfg.Check(m, w); err != nil {
			return nil, err
		}
	}
	t := &tester{ctx: ctx, m: m, info: m.Info(), cfg: cfg, tc: tc, impl: impl, w: w,
		covered: map[string]bool{}, taken: map[string]bool{}, seen: map[string]bool{}, byName: map[string]int{}}
	t.skipped = make([]bool, len(t.info.Actions))
	for i, a := range t.info.Actions {
		t.byName[a.Name] = i
		if ac := cfg.Actions[i]; !ac.Exclude && ac.Kind != model.Controllable {
			t.observing = true
		}
	}
	if u, ok := impl.(Unimplemented); ok {
		for _, name := range u.NotImplemented() {
			t.skip(name, 0, "the adapter said so at start")
		}
	}
	return t, nil
}

// startRun resets the implementation and returns the states the model
// starts in, or the failure (without its states) that kept the run from
// starting.
func (t *tester) startRun() ([]model.State, *Failure) {
	if err := t.impl.Reset(t.ctx); err != nil {
		return nil, implFailure("reset", err)
	}
	// With several initial states the run starts in all of them: the
	// implementation may be in any, and what it is seen to do keeps the
	// ones it agrees with (as for a nondeterministic output).
	inits, err := model.InitialStates(t.w)
	if err != nil {
		return nil, &Failure{Kind: FailModel, Message: err.Error()}
	}
	states, err := t.closure(inits)
	if err != nil {
		return nil, &Failure{Kind: FailModel, Message: err.Error()}
	}
	return states, nil
}

// onlineRun is the state of one online test run.
type onlineRun struct {
	t      *tester
	n      int
	res    RunResult
	states []model.State
	active bool // the tester may act (else it observes first)
	ending bool // nothing to do and not accepting: waiting for events
	// cleanupSteps counts the steps of the cleanup phase.
	cleanupSteps int
	pos          int // next entry of TestConfig.Script
	// scriptWaited is set while a scripted step the model does not enable
	// yet waits for events (see control).
	scriptWaited bool
	// since is when the tester reached states (for earliest): the reset,
	// the call of the controllable action, the previous event's arrival.
	since time.Time
}

// fail ends the run with a failure in states, found after the steps taken
// so far (an invariant broken by the last step, a crash while waiting, …).
func (r *onlineRun) fail(kind FailureKind, msg string, states []model.State, expected []string) bool {
	if r.t.cutShort() {
		return r.inconclusive("cancelled")
	}
	r.res.Verdict, r.res.Failure = r.t.failed(kind, r.res.Actions, msg, states, expected)
	return true
}

// failWith ends the run with f, a failure of the implementation (or of
// the model's start) found after the steps taken so far, in states.
func (r *onlineRun) failWith(f *Failure, states []model.State) bool {
	r.fail(f.Kind, f.Message, states, f.Expected)
	if r.res.Failure != nil {
		r.res.Failure.Crash = f.Crash
	}
	return true
}

// failed is the verdict and failure of a run or case that failed with kind
// at step: the model's own failures are model errors, never the
// implementation's.
func (t *tester) failed(kind FailureKind, step int, msg string, states []model.State, expected []string) (Verdict, *Failure) {
	v := Fail
	if kind == FailModel {
		v = ModelError
	}
	return v, &Failure{Kind: kind, Step: step, Message: ShortText(msg), States: t.describe(states), Expected: shortAll(expected)}
}

// cutShort reports whether the test was stopped (Ctrl-C, a cancelled
// context; not the memory budget, whose stop is the model's error): a
// failure seen from then on may be the stop's own doing — the model's code
// cancelled, the implementation's reset or answer cut off — and a run
// that ends then is cut short, with no verdict either way.
func (t *tester) cutShort() bool {
	if t.ctx.Err() == nil {
		return false
	}
	_, memory := model.MemoryExceeded(t.ctx)
	return !memory
}

// memoryStop says, for a run stopped for why, whether it was the model
// exceeding its memory budget (a model error), and the message.
func (t *tester) memoryStop(why string) (string, bool) {
	if why != "cancelled" {
		return "", false
	}
	return model.MemoryExceeded(t.ctx)
}

// failAction ends the run with a failure of the action about to be the
// next step (refused, a wrong output, an observable the model forbids).
func (r *onlineRun) failAction(f *Failure, states []model.State) bool {
	if r.t.cutShort() {
		return r.inconclusive("cancelled")
	}
	f.Step = r.res.Actions + 1
	f.Message, f.Expected = ShortText(f.Message), shortAll(f.Expected)
	if f.States == nil && states != nil {
		f.States = r.t.describe(states)
	}
	r.res.Verdict, r.res.Failure = Fail, f
	return true
}

// inconclusive ends the run without a verdict either way.
func (r *onlineRun) inconclusive(reason string) bool {
	if msg, ok := r.t.memoryStop(reason); ok {
		return r.fail(FailModel, msg, r.states, nil)
	}
	r.res.Verdict, r.res.Reason = Inconclusive, reason
	return true
}

// record logs a step or timeout; only actions count as steps.
func (r *onlineRun) record(rec StepRecord) {
	if len(r.res.Steps) >= 2*MaxStepLog {
		// A run of millions of steps keeps its last MaxStepLog to
		// MaxStepLog*2 entries: its memory stays flat.
		n := len(r.res.Steps) - MaxStepLog
		r.res.StepsDropped += n
		r.res.Steps = append(make([]StepRecord, 0, 2*MaxStepLog), r.res.Steps[n:]...)
	}
	rec.Run, rec.Index = r.n, r.res.StepsDropped+len(r.res.Steps)
	if rec.Kind != model.Timeout {
		r.res.Actions++
		rec.Step = r.res.Actions
		r.t.total++
		if rec.Cleanup {
			r.cleanupSteps++
		}
	}
	r.res.Steps = append(r.res.Steps, rec)
	if r.t.tc.OnStep != nil {
		r.t.tc.OnStep(rec)
	}
}

// run performs one test run.
func (t *tester) run(n int, seed uint64) RunResult {
	start := time.Now()
	r := &onlineRun{t: t, n: n, res: RunResult{Run: n, Seed: seed, Verdict: Pass}}
	t.rng = rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	t.bind = NewBinding()
	t.counts = make([]int, len(t.info.Actions))
	// Runs start in a passive state (the timeout extension).
	r.since = time.Now()
	states, f := t.startRun()
	if f != nil {
		r.failWith(f, nil)
	} else {
		r.states = states
		t.visit(states)
		for !r.step() {
		}
	}
	if r.res.Verdict == Pass && t.cutShort() {
		// Ended as the test was stopped: cut short, never a pass.
		r.inconclusive("cancelled")
	}
	r.res.Seconds = time.Since(start).Seconds()
	return r.res
}

// step takes one step of the run (or ends it): true when the run is over.
func (r *onlineRun) step() bool {
	t := r.t
	if t.ctx.Err() != nil {
		return r.inconclusive("cancelled")
	}
	cleanup := r.res.Actions-r.cleanupSteps >= t.tc.Steps || (t.tc.TotalSteps > 0 && t.total >= t.tc.TotalSteps)
	if t.tc.Script != nil {
		cleanup = r.nextScripted() < 0
	}
	if cleanup {
		acc, err := t.accepting(r.states)
		if err != nil {
			return r.fail(FailModel, err.Error(), r.states, nil)
		}
		if acc {
			return true
		}
		if r.cleanupSteps >= t.tc.CleanupSteps {
			if why := t.skipBlocks(r.states); why != "" {
				return r.inconclusive(why)
			}
			return r.fail(FailNotAccepting, fmt.Sprintf("the cleanup phase did not reach an accepting state in %d steps", t.tc.CleanupSteps), r.states, nil)
		}
	}
	if !r.active {
		return r.observe(cleanup) // Step 1
	}
	return r.control(cleanup) // Steps 2 and 3
}

// observe waits for an observable action up to the state's timeout
// (Step 1 of the algorithm).
func (r *onlineRun) observe(cleanup bool) bool {
	t, states := r.t, r.states
	wait, err := t.timeout(states)
	if err != nil {
		return r.fail(FailModel, err.Error(), states, nil)
	}
	if r.ending || r.expectsEvent() || r.scriptWaited {
		wait = max(wait, t.tc.EndWait)
	}
	ev, err := t.impl.Next(t.ctx, wait)
	if err != nil {
		if t.ctx.Err() != nil {
			return r.inconclusive("cancelled")
		}
		return r.failWith(implFailure("", err), states)
	}
	at := arrival(ev)
	if ev == nil && r.ending {
		if why := t.skipBlocks(states); why != "" {
			return r.inconclusive(why)
		}
		return r.fail(FailNotAccepting, fmt.Sprintf("no action is enabled, the state is not accepting, and no observable action came within %s", t.tc.EndWait), states, t.expectedObservables(states))
	}
	r.ending = false
	if ev != nil {
		r.scriptWaited = false // what came may enable the scripted step
	}
	if ev == nil {
		r.active = true
		if t.observing {
			// Without observable actions every timeout is certain: the
			// implementation was still checked for stray events, but the
			// log does not list them.
			r.record(StepRecord{Kind: model.Timeout, Cleanup: cleanup, States: keys(states), From: keys(states), Active: true})
		}
		return false
	}
	if r.expectsEvent() {
		r.pos++
	}
	next, args, kind, fail := t.observe(states, ev)
	if fail != nil {
		return r.failAction(fail, nil)
	}
	early, err := t.early(states, at.Sub(r.since), StepRecord{Kind: kind, Action: ev.Action, Args: args})
	if err != nil {
		return r.fail(FailModel, err.Error(), states, nil)
	}
	if early != nil {
		return r.failAction(early, nil)
	}
	if len(next) > t.tc.MaxStates {
		return r.inconclusive(fmt.Sprintf("the model may be in more than %d states", t.tc.MaxStates))
	}
	t.cover(states, ev.Action, args, next)
	r.record(StepRecord{Kind: kind, Action: ev.Action, Args: args, Cleanup: cleanup, States: keys(next), From: keys(states)})
	r.states, r.since = next, at
	if msg := t.violated(next); msg != "" {
		return r.fail(FailInvariant, msg, next, nil)
	}
	return false
}

// control performs a controllable action chosen by weight (Step 2), or,
// when none is enabled, ends the run in an accepting state or waits for the
// implementation to reach one (Step 3).
func (r *onlineRun) control(cleanup bool) bool {
	t, states := r.t, r.states
	cands, err := t.candidates(states, cleanup)
	if err != nil {
		return r.fail(FailModel, err.Error(), states, nil)
	}
	if len(cands) == 0 && t.tc.Script != nil && !cleanup {
		// The script's next step is not possible here: events on their
		// way may enable it; else the rerun cannot go on.
		_, why := r.scriptedChoice(cands)
		if t.observing && !r.scriptWaited {
			r.scriptWaited, r.active = true, false
			return false
		}
		return r.inconclusive(why)
	}
	if len(cands) == 0 {
		acc, err := t.accepting(states)
		if err != nil {
			return r.fail(FailModel, err.Error(), states, nil)
		}
		if acc {
			return true
		}
		r.ending, r.active = true, false
		return false
	}
	var c candidate
	if t.tc.Script != nil && !cleanup {
		var why string
		if c, why = r.scriptedChoice(cands); why != "" {
			if t.observing && !r.scriptWaited {
				// Events may be on their way that enable the step: wait
				// for them (up to the end wait) before giving up.
				r.scriptWaited, r.active = true, false
				return false
			}
			return r.inconclusive(why)
		}
		r.scriptWaited = false
	} else {
		c = t.choose(states, cands)
	}
	name := t.info.Actions[c.action].Name
	called := time.Now() // earliest counts from here: the step may take effect at once
	next, output, f := t.perform(states, c, c.label(t.info))
	if f != nil && f.Kind == kindUnimplemented {
		// Nothing was done: the action leaves the choices, and the
		// tester chooses again in the same state.
		t.skip(name, r.n, f.Message)
		if t.tc.Script != nil && !cleanup {
			return r.inconclusive(fmt.Sprintf("could not reproduce: %s", f.Message))
		}
		return false
	}
	if f != nil {
		if f.Kind == "" {
			return r.inconclusive("cancelled")
		}
		return r.failAction(f, states)
	}
	t.counts[c.action]++
	if !cleanup {
		t.noteStep(states[0], c) // the cleanup's steps are not the strategy's
	}
	t.cover(states, name, c.args, next)
	// Without observable actions the tester is active again at once (its
	// timeouts are not logged).
	r.record(StepRecord{Kind: model.Controllable, Action: name, Args: c.args, Output: output, Cleanup: cleanup, States: keys(next), From: keys(states), Active: !t.observing})
	r.states, r.since = next, called
	r.active = false
	if msg := t.violated(next); msg != "" {
		return r.fail(FailInvariant, msg, next, nil)
	}
	return false
}

// perform invokes a controllable action on the implementation and checks
// what it did against the model: the states after it and its output, or a
// failure without its states (Kind "" when the run was cancelled).
func (t *tester) perform(states []model.State, c candidate, label string) ([]model.State, model.Value, *Failure) {
	wire := make([]any, len(c.args))
	for i, a := range c.args {
		var err error
		if wire[i], err = t.bind.ToWire(a); err != nil {
			return nil, nil, &Failure{Kind: FailModel, Message: fmt.Sprintf("%s: %v", label, err)}
		}
	}
	out, err := t.impl.Invoke(t.ctx, t.info.Actions[c.action].Name, wire)
	if err != nil {
		if t.ctx.Err() != nil {
			return nil, nil, &Failure{}
		}
		var ni *NotImplementedError
		if errors.As(err, &ni) {
			return nil, nil, &Failure{Kind: kindUnimplemented, Message: ni.Error()}
		}
		var ref *RefusedError
		if errors.As(err, &ref) {
			return nil, nil, &Failure{Kind: FailRefused, Message: fmt.Sprintf("the implementation refused %s: %s", label, ref.Reason), Expected: []string{label},
				Event: &StepRecord{Kind: model.Controllable, Action: t.info.Actions[c.action].Name, Args: c.args}}
		}
		return nil, nil, implFailure(label, err)
	}
	next, output, expected, err := t.control(states, c, out)
	if err != nil {
		return nil, nil, &Failure{Kind: FailModel, Message: err.Error()}
	}
	if len(next) == 0 {
		return nil, nil, &Failure{Kind: FailOutput, Message: t.outputMessage(label, out, expected), Expected: expected, Seen: CanonJSON(out),
			Event: &StepRecord{Kind: model.Controllable, Action: t.info.Actions[c.action].Name, Args: c.args}}
	}
	return next, output, nil
}

// outputMessage says what the implementation returned, in the model's
// notation (as the outputs the model allowed are written; JSON when the
// value has no model form), and, when the model allowed one output for the
// step and either is long, where the two first differ.
func (t *tester) outputMessage(label string, out any, expected []string) string {
	seen := CanonJSON(out)
	if v, err := t.bind.FromWire(out); err == nil {
		seen = model.Format(v)
	}
	msg := fmt.Sprintf("%s returned %s", label, seen)
	var wants []string
	for _, e := range expected {
		if w, ok := strings.CutPrefix(e, label+"/"); ok {
			wants = append(wants, w)
		}
	}
	if len(wants) == 1 && (len(seen) > 40 || len(wants[0]) > 40) {
		msg += "; " + FirstDifference(seen, wants[0])
	}
	return msg
}

func keys(states []model.State) []string {
	out := make([]string, len(states))
	for i, s := range states {
		out[i] = s.Key()
	}
	return out
}

func (t *tester) visit(states []model.State) {
	for _, s := range states {
		t.seen[s.Key()] = true
	}
}

func (t *tester) cover(from []model.State, action string, args []model.Value, to []model.State) {
	ak := ""
	for _, a := range args {
		k, _ := model.Key(a)
		ak += k
	}
	for _, f := range from {
		t.taken[f.Key()+"\x00"+action+"\x00"+ak] = true
		for _, s := range to {
			t.covered[f.Key()+"\x00"+action+"\x00"+ak+"\x00"+s.Key()] = true
		}
	}
	t.visit(to)
}

// observe handles an observable event: the states the model may be in after
// it, or a failure.
func (t *tester) observe(states []model.State, ev *Event) ([]model.State, []model.Value, model.Kind, *Failure) {
	ai, ok := t.byName[ev.Action]
	if !ok || t.cfg.Actions[ai].Exclude || t.cfg.Actions[ai].Kind == model.Controllable {
		return nil, nil, 0, &Failure{Kind: FailProtocol, Message: fmt.Sprintf("the implementation reported %q, which is not an observable action of the model", ev.Action),
			States: t.describe(states), Expected: t.expectedObservables(states)}
	}
	args := make([]model.Value, len(ev.Args))
	for i, x := range ev.Args {
		v, err := t.bind.FromWire(x)
		if err != nil {
			return nil, nil, 0, &Failure{Kind: FailProtocol, Message: fmt.Sprintf("event %s: argument %d: %v", ev.Action, i+1, err), States: t.describe(states)}
		}
		args[i] = v
	}
	kind := t.cfg.Actions[ai].Kind
	label := (&explore.GTrans{Action: ev.Action, Args: args, Kind: kind}).Label()
	if len(args) != len(t.info.Actions[ai].Params) {
		return nil, nil, 0, &Failure{Kind: FailProtocol, Message: fmt.Sprintf("%s: %s takes %d arguments", label, ev.Action, len(t.info.Actions[ai].Params)), States: t.describe(states)}
	}
	closed, err := t.successors(states, ai, args, false)
	if err != nil {
		return nil, nil, 0, &Failure{Kind: FailModel, Message: err.Error(), States: t.describe(states)}
	}
	if len(closed) == 0 {
		return nil, nil, 0, &Failure{Kind: FailUnexpected, Message: fmt.Sprintf("the implementation did %s, which the model does not allow here", label),
			States: t.describe(states), Expected: t.expectedObservables(states), Event: &StepRecord{Kind: kind, Action: ev.Action, Args: args}}
	}
	return closed, args, kind, nil
}

// expectedObservables lists the observable steps the model allows.
func (t *tester) expectedObservables(states []model.State) []string {
	set := map[string]bool{}
	for _, s := range states {
		for ai, a := range t.info.Actions {
			ac := &t.cfg.Actions[ai]
			if ac.Exclude || ac.Kind != model.Observable {
				continue
			}
			t.combos(s, ai, func(args []model.Value) error {
				if outs, _, err := t.w.Step(s, ai, args); err == nil && len(outs) > 0 {
					set[(&explore.GTrans{Action: a.Name, Args: args, Kind: model.Observable}).Label()] = true
				}
				return nil
			})
		}
	}
	var out []string
	for l := range set {
		out = append(out, l)
	}
	sort.Strings(out)
	if len(out) == 0 {
		out = []string{"(no observable action: only a timeout)"}
	}
	return out
}
