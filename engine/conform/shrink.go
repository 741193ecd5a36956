package conform

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/modex/modex/engine/explore"
	"github.com/modex/modex/engine/model"
	"github.com/modex/modex/internal/safetext"
)

// ShrinkConfig tunes and bounds Shrink.
type ShrinkConfig struct {
	// Repeats is K: a candidate is run up to K times and counts as failing
	// when one of them fails the same way (implementations are
	// nondeterministic). Default 3.
	Repeats int
	// MaxTime bounds the time (default 5 minutes) and MaxRuns, when
	// positive, the runs against the implementation (default: no bound —
	// a fast implementation spent a budget of 400 runs in 0.3 s). The best
	// result so far is returned when either is spent; its re-runs
	// (MinReruns at least) run past them.
	MaxRuns int
	MaxTime time.Duration
	// Progress, when set, is called after every candidate tried.
	Progress func(ShrinkProgress)
}

// ShrinkProgress is reported while shrinking.
type ShrinkProgress struct {
	Phase string // "steps" (delta debugging), "events", "inputs" or "re-runs"
	Runs  int    // runs against the implementation so far
	Steps int    // controllable steps of the smallest failing script so far
}

// ShrinkResult is the outcome of Shrink.
type ShrinkResult struct {
	// From is the number of actions (controllable and observed; timeouts
	// are not counted) of the original run, Steps that of the shrunk run up
	// to its failure, the failing action included. A shrunk script may end
	// before the failure: the run's cleanup phase takes it there.
	From, Steps int
	// Fails of Of re-runs of the shrunk script failed the same way.
	Fails, Of int
	// Run is a failing run of the shrunk script: its log and failure.
	Run RunResult
	// Script is the shrunk script: controllable steps and the events
	// observed after them in the original run.
	Script []SavedStep
	// Runs is the number of runs spent; Skipped counts the candidates the
	// model rejected, which were not run.
	Runs, Skipped int
	Seconds       float64
	// Stopped says why shrinking stopped before it was done (a budget, a
	// cancellation), "" when it finished.
	Stopped string
}

// Summary says what shrinking gave, on one line ("shrunk: N steps (from M),
// fails R of K re-runs; …"), and why it stopped early if it did: the words
// of the command line, the workbench and campaigns alike.
func (r *ShrinkResult) Summary() string {
	text := fmt.Sprintf("shrunk: %d steps (from %d), fails %d of %d re-runs; %d runs, %d candidates the model rejects skipped, %.1f s",
		r.Steps, r.From, r.Fails, r.Of, r.Runs, r.Skipped, r.Seconds)
	if r.Stopped != "" {
		text += fmt.Sprintf("\nstopped early (%s): the shortest failing run found so far", safetext.Term(r.Stopped))
	}
	return text
}

// Saved is the shrunk run as a saved run, with the original's project,
// configuration, seed, strategy and steps: what rerunning it needs.
func (r *ShrinkResult) Saved(orig *SavedRun) *SavedRun {
	s := SaveRun(orig.Project, orig.Config, TestConfig{Strategy: orig.Strategy, Steps: orig.Steps}, r.Run)
	s.Seed = orig.Seed
	return s
}

// reproduceTries is how many times Repeats runs the original failing run
// gets to fail again before shrinking gives up.
const reproduceTries = 4

// errBudget stops the search when a budget is spent.
var errBudget = errors.New("budget spent")

// shrinker holds the state of one Shrink.
type shrinker struct {
	ctx     context.Context
	m       model.Model
	cfg     *explore.Config
	impl    Implementation
	tc      TestConfig
	sc      ShrinkConfig
	kind    FailureKind
	t       *tester     // for the model-only checks
	prefix  []SavedStep // events before the first controllable step
	res     ShrinkResult
	start   time.Time
	best    RunResult // the last failing run found
	phase   string
	current int // controllable steps of the best script
}

// Shrink searches for a shorter sequence of controllable steps that still
// makes the implementation fail with the same kind of failure as the saved
// run: delta debugging (ddmin) over the run's controllable steps, each
// with the events observed after it, then simpler inputs (values earlier
// in their domains). Candidates the model does not enable are skipped
// without running them; the others run up to Repeats times against the
// implementation (the saved run's seed, strategy and steps; tc gives the
// rest, e.g. EndWait). The shrunk script is finally re-run Repeats times to
// report how reliably it fails.
func Shrink(ctx context.Context, m model.Model, cfg *explore.Config, impl Implementation, tc TestConfig, orig *SavedRun, sc ShrinkConfig) (*ShrinkResult, error) {
	if orig.Failure == nil {
		return nil, fmt.Errorf("the run did not fail (verdict %s): nothing to shrink", orig.Verdict)
	}
	if err := orig.CanRerun(); err != nil {
		return nil, err
	}
	if sc.Repeats <= 0 {
		sc.Repeats = 3
	}
	if sc.MaxTime <= 0 {
		sc.MaxTime = 5 * time.Minute
	}
	tc.Runs, tc.Seed, tc.Strategy, tc.Steps = 1, orig.Seed, orig.Strategy, orig.Steps
	tc.OnRun, tc.OnStep, tc.TotalSteps = nil, nil, 0
	if tc.MaxStates <= 0 {
		tc.MaxStates = 1000 // as Test
	}
	t, err := newTester(ctx, m, cfg, impl, tc, true)
	if err != nil {
		return nil, err
	}
	s := &shrinker{ctx: ctx, m: m, cfg: cfg, impl: impl, tc: tc, sc: sc, kind: orig.Failure.Kind, t: t, start: time.Now()}
	s.res.From = max(orig.Failure.Step, len(orig.Trace))
	var chunks [][]SavedStep
	s.prefix, chunks = splitChunks(orig.Trace)
	s.current = len(chunks)
	s.phase = "steps"
	// The original must fail again (as saved, or without waiting for its
	// events), or there is nothing to compare with.
	// A flaky failure gets four times the candidates' tries.
	var ok bool
	for try := 0; try < reproduceTries && err == nil && !ok; try++ {
		chunks, ok, err = s.test(chunks)
	}
	if err == nil && !ok {
		return nil, fmt.Errorf("the saved run does not fail again in %d runs (%s expected), with or without waiting for its events: the failure does not reproduce", reproduceTries*sc.Repeats, s.kind)
	}
	// Without the waits for events first: they make most candidates of a
	// timing bug pass. Then steps, then events again, until nothing more
	// comes out.
	for size := -1; err == nil && size != scriptSize(s.prefix, chunks); {
		size = scriptSize(s.prefix, chunks)
		s.phase = "events"
		if chunks, err = s.dropEvents(chunks); err != nil {
			break
		}
		s.phase = "steps"
		if chunks, err = s.ddmin(chunks); err != nil {
			break
		}
		chunks, err = s.removePairs(chunks)
	}
	if err == nil {
		s.phase = "inputs"
		chunks, err = s.simplify(chunks)
	}
	if err != nil {
		if !errors.Is(err, errBudget) && ctx.Err() == nil {
			return nil, err
		}
		s.res.Stopped = err.Error()
		if ctx.Err() != nil {
			s.res.Stopped = "cancelled"
		}
	}
	s.res.Script = flatten(s.prefix, chunks)
	s.res.Run = s.best
	s.res.Steps = s.best.Actions
	if f := s.best.Failure; f != nil {
		s.res.Steps = f.Step // the failing action counts
	}
	if ctx.Err() == nil {
		// Stopped by a budget too: what it found is re-run, or the
		// result would claim nothing ("fails 0 of 0 re-runs").
		s.phase = "re-runs"
		s.rerunFinal()
	}
	s.res.Seconds = time.Since(s.start).Seconds()
	return &s.res, nil
}

// splitChunks cuts a saved trace into the events before the first
// controllable step and chunks of one controllable step each, followed by
// the events observed after it.
func splitChunks(trace []SavedStep) ([]SavedStep, [][]SavedStep) {
	var prefix []SavedStep
	var chunks [][]SavedStep
	for _, st := range trace {
		switch {
		case st.Kind == "controllable":
			chunks = append(chunks, []SavedStep{st})
		case len(chunks) == 0:
			prefix = append(prefix, st)
		default:
			chunks[len(chunks)-1] = append(chunks[len(chunks)-1], st)
		}
	}
	return prefix, chunks
}

func scriptSize(prefix []SavedStep, chunks [][]SavedStep) int {
	return len(flatten(prefix, chunks))
}

func flatten(prefix []SavedStep, chunks [][]SavedStep) []SavedStep {
	out := append([]SavedStep{}, prefix...)
	for _, c := range chunks {
		out = append(out, c...)
	}
	return out
}

// test reports whether the script of the chunks (after the prefix) fails
// the same way in one of up to Repeats runs, without running it when the
// model rejects it. The first run waits for the script's events; the
// others, when the script has events, run without them (the waits hide
// timing bugs). It returns the chunks that failed: without their events
// (and the prefix dropped) when that is what failed.
func (s *shrinker) test(chunks [][]SavedStep) ([][]SavedStep, bool, error) {
	defer s.report(len(chunks))
	full, bare := flatten(s.prefix, chunks), flatten(nil, bareChunks(chunks))
	fullOK, err := s.t.feasible(full)
	if err != nil {
		return chunks, false, err
	}
	bareOK := false
	if len(bare) != len(full) {
		if bareOK, err = s.t.feasible(bare); err != nil {
			return chunks, false, err
		}
	}
	if !fullOK && !bareOK {
		s.res.Skipped++
		return chunks, false, nil
	}
	for r := range s.sc.Repeats {
		script, isBare := full, false
		if bareOK && (r > 0 || !fullOK) {
			script, isBare = bare, true
		}
		run, err := s.run(script)
		if err != nil {
			return chunks, false, err
		}
		if run.Failure != nil && run.Failure.Kind == s.kind {
			s.best, s.current = run, len(chunks)
			if isBare {
				s.prefix = nil
				return bareChunks(chunks), true, nil
			}
			return chunks, true, nil
		}
	}
	return chunks, false, nil
}

func (s *shrinker) report(steps int) {
	if s.sc.Progress != nil {
		s.sc.Progress(ShrinkProgress{Phase: s.phase, Runs: s.res.Runs, Steps: min(steps, s.current)})
	}
}

// run runs a script once, within the budgets.
func (s *shrinker) run(script []SavedStep) (RunResult, error) {
	if err := s.ctx.Err(); err != nil {
		return RunResult{}, err
	}
	if s.sc.MaxRuns > 0 && s.res.Runs >= s.sc.MaxRuns {
		return RunResult{}, fmt.Errorf("%w: %d runs", errBudget, s.sc.MaxRuns)
	}
	if time.Since(s.start) >= s.sc.MaxTime {
		return RunResult{}, fmt.Errorf("%w: %s", errBudget, s.sc.MaxTime)
	}
	return s.exec(script)
}

// exec runs a script once.
func (s *shrinker) exec(script []SavedStep) (RunResult, error) {
	s.res.Runs++
	tc := s.tc
	tc.Script = script
	res, err := Test(s.ctx, s.m, s.cfg, s.impl, tc)
	if err != nil {
		return RunResult{}, err
	}
	if len(res.Runs) == 0 {
		return RunResult{}, s.ctx.Err()
	}
	return res.Runs[0], nil
}

// ddmin is Zeller's delta debugging: the smallest subsequence of chunks
// found that still fails, 1-minimal when the budget allows (removing any
// one chunk makes it pass or be rejected by the model).
func (s *shrinker) ddmin(chunks [][]SavedStep) ([][]SavedStep, error) {
	n := 2
	for len(chunks) >= 2 {
		parts := split(chunks, n)
		reduced := false
		for _, p := range parts {
			won, ok, err := s.test(p)
			if err != nil {
				return chunks, err
			}
			if ok {
				chunks, n, reduced = won, 2, true
				break
			}
		}
		if !reduced && n > 2 {
			for i := range parts {
				won, ok, err := s.test(complement(parts, i))
				if err != nil {
					return chunks, err
				}
				if ok {
					chunks, n, reduced = won, max(n-1, 2), true
					break
				}
			}
		}
		if !reduced {
			if n >= len(chunks) {
				break
			}
			n = min(2*n, len(chunks))
		}
	}
	return chunks, nil
}

// pairLimit is the longest script whose pairs of chunks removePairs tries.
const pairLimit = 12

// removePairs tries removing two chunks at once from a short script: ddmin
// is only 1-minimal, and a step that enables another (a Pop after its
// Push) comes out only with it.
func (s *shrinker) removePairs(chunks [][]SavedStep) ([][]SavedStep, error) {
	if len(chunks) > pairLimit {
		return chunks, nil
	}
	for i := 0; i < len(chunks); i++ {
		for j := i + 1; j < len(chunks); j++ {
			trial := append(append(append([][]SavedStep{}, chunks[:i]...), chunks[i+1:j]...), chunks[j+1:]...)
			won, ok, err := s.test(trial)
			if err != nil {
				return chunks, err
			}
			if ok {
				chunks, i, j = won, -1, len(won) // start again
			}
		}
	}
	return chunks, nil
}

// dropEvents tries the script without the events observed in the
// original run chunk by chunk (test tries them all at once). A script's
// events only make the run wait for them; without the waits, steps follow
// each other as fast as the model's timeouts allow, which is how timing
// bugs (two messages overtaking each other) show.
func (s *shrinker) dropEvents(chunks [][]SavedStep) ([][]SavedStep, error) {
	for i := range chunks {
		if len(chunks[i]) == 1 {
			continue
		}
		trial := append([][]SavedStep{}, chunks...)
		trial[i] = chunks[i][:1]
		won, ok, err := s.test(trial)
		if err != nil {
			return chunks, err
		}
		if ok {
			chunks = won
		}
	}
	return chunks, nil
}

// bareChunks is chunks without their events: controllable steps only.
func bareChunks(chunks [][]SavedStep) [][]SavedStep {
	bare := make([][]SavedStep, len(chunks))
	for i, c := range chunks {
		bare[i] = c[:1]
	}
	return bare
}

// split cuts chunks into n parts of nearly equal length.
func split(chunks [][]SavedStep, n int) [][][]SavedStep {
	var parts [][][]SavedStep
	start := 0
	for i := range n {
		end := (i + 1) * len(chunks) / n
		if end > start {
			parts = append(parts, chunks[start:end])
		}
		start = end
	}
	return parts
}

func complement(parts [][][]SavedStep, skip int) [][]SavedStep {
	var out [][]SavedStep
	for i, p := range parts {
		if i != skip {
			out = append(out, p...)
		}
	}
	return out
}

// simplify tries, step by step, inputs that come earlier in their domains
// (at most four per step), keeping the first that still fails.
func (s *shrinker) simplify(chunks [][]SavedStep) ([][]SavedStep, error) {
	for i := 0; i < len(chunks); i++ {
		alts, err := s.t.earlierInputs(flatten(s.prefix, chunks[:i]), chunks[i][0])
		if err != nil {
			return chunks, err
		}
		for k, args := range alts {
			if k == 4 {
				break
			}
			trial := append([][]SavedStep{}, chunks...)
			step := chunks[i][0]
			step.Args = args
			// The events observed after the old inputs may not come: they
			// are dropped with them.
			trial[i] = []SavedStep{step}
			won, ok, err := s.test(trial)
			if err != nil {
				return chunks, err
			}
			if ok {
				chunks = won
				break
			}
		}
	}
	return chunks, nil
}

// MinReruns is the least number of re-runs of a shrunk script: "fails k
// of n" says how reliably it fails only when n is not tiny.
const MinReruns = 10

// rerunFinal runs the shrunk script Repeats times, and MinReruns at least,
// and counts the failures of the same kind. The re-runs are part of the
// answer: they run past the budgets.
func (s *shrinker) rerunFinal() {
	for range max(s.sc.Repeats, MinReruns) {
		if s.ctx.Err() != nil {
			return
		}
		run, err := s.exec(s.res.Script)
		if err != nil {
			continue
		}
		s.res.Of++
		if run.Failure != nil && run.Failure.Kind == s.kind {
			s.res.Fails++
		}
		s.report(s.current)
	}
}

// feasible tells whether the model enables the script's controllable
// steps in order, letting the observed events happen where the model
// allows them (an event it does not allow there is left out: the
// implementation may not produce it in a shorter run either).
func (t *tester) feasible(script []SavedStep) (bool, error) {
	_, ok, err := t.modelAfter(script)
	return ok, err
}

// modelAfter returns the model's states after the script (see feasible);
// false when the model does not enable one of its controllable steps.
func (t *tester) modelAfter(script []SavedStep) ([]model.State, bool, error) {
	states, err := t.modelStart()
	if err != nil {
		return nil, false, err
	}
	for _, st := range script {
		if st.Kind != "controllable" {
			if next, err := t.modelEvent(states, st); err != nil {
				return nil, false, err
			} else if len(next) > 0 {
				states = next
			}
			continue
		}
		c, ok, err := t.scriptCandidate(states, st)
		// As a scripted run waits for events before it gives up on a
		// step, let the model take observable steps (a few rounds).
		for round := 0; err == nil && !ok && round < eventRounds; round++ {
			var more []model.State
			if more, err = t.withEvents(states); err == nil && len(more) > len(states) {
				states = more
				c, ok, err = t.scriptCandidate(states, st)
			} else {
				break
			}
		}
		if err != nil || !ok {
			return nil, false, err
		}
		t.counts[c.action]++
		next, err := t.successors(states, c.action, c.args, true)
		if err != nil || len(next) == 0 {
			return nil, false, err
		}
		states = next
	}
	return states, true, nil
}

// eventRounds bounds the observable steps the model may take before a
// scripted step in feasible.
const eventRounds = 3

// withEvents adds to states those one observable step away (bounded by
// MaxStates).
func (t *tester) withEvents(states []model.State) ([]model.State, error) {
	out := append([]model.State(nil), states...)
	seen := map[string]bool{}
	for _, s := range states {
		seen[s.Key()] = true
	}
	for _, s := range states {
		for ai := range t.info.Actions {
			if ac := &t.cfg.Actions[ai]; ac.Exclude || ac.Kind != model.Observable {
				continue
			}
			err := t.combos(s, ai, func(args []model.Value) error {
				next, err := t.successors([]model.State{s}, ai, args, false)
				for _, n := range next {
					if !seen[n.Key()] && len(out) < t.tc.MaxStates {
						seen[n.Key()] = true
						out = append(out, n)
					}
				}
				return err
			})
			if err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}

// modelStart is the model's initial states, with the tester's counts
// reset as at the start of a run.
func (t *tester) modelStart() ([]model.State, error) {
	t.counts = make([]int, len(t.info.Actions))
	inits, err := model.InitialStates(t.w)
	if err != nil {
		return nil, err
	}
	return t.closure(inits)
}

// scriptCandidate finds the controllable step of a script among the
// candidates of the states (as a scripted run does).
func (t *tester) scriptCandidate(states []model.State, st SavedStep) (candidate, bool, error) {
	cands, err := t.candidates(states, false)
	if err != nil {
		return candidate{}, false, err
	}
	for _, c := range cands {
		if t.info.Actions[c.action].Name == st.Action && sameArgs(c.args, st.Args) {
			return c, true, nil
		}
	}
	return candidate{}, false, nil
}

// successors are the states after an action from any of states (passing
// the filters when filtered), closed under internal actions.
func (t *tester) successors(states []model.State, ai int, args []model.Value, filtered bool) ([]model.State, error) {
	var next []model.State
	seen := map[string]bool{}
	for _, s := range states {
		outs, _, err := t.w.Step(s, ai, args)
		if err != nil {
			return nil, err
		}
		for _, o := range outs {
			if o.Err != nil {
				return nil, o.Err
			}
			if filtered {
				if ok, err := t.passesFilters(o.Next); err != nil || !ok {
					if err != nil {
						return nil, err
					}
					continue
				}
			}
			if !seen[o.Next.Key()] {
				seen[o.Next.Key()] = true
				next = append(next, o.Next)
			}
		}
	}
	if len(next) == 0 {
		return nil, nil
	}
	return t.closure(next)
}

// modelEvent applies an observed event of a script to states: nil when the
// model does not allow it there (or its inputs are not in its domains).
func (t *tester) modelEvent(states []model.State, st SavedStep) ([]model.State, error) {
	ai, ok := t.byName[st.Action]
	if !ok || t.cfg.Actions[ai].Exclude || t.cfg.Actions[ai].Kind == model.Controllable {
		return nil, nil
	}
	var next []model.State
	for _, s := range states {
		args, ok, err := t.findArgs(s, ai, st.Args)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		n, err := t.successors([]model.State{s}, ai, args, false)
		if err != nil {
			return nil, err
		}
		next = append(next, n...)
	}
	return next, nil
}

// earlierInputs lists the inputs of step's action, enabled after the
// script, that come before step's inputs in the action's domains.
func (t *tester) earlierInputs(script []SavedStep, step SavedStep) ([][]string, error) {
	states, ok, err := t.modelAfter(script)
	if err != nil || !ok {
		return nil, err
	}
	cands, err := t.candidates(states, false)
	if err != nil {
		return nil, err
	}
	var out [][]string
	for _, c := range cands {
		if t.info.Actions[c.action].Name != step.Action {
			continue
		}
		if sameArgs(c.args, step.Args) {
			break // the domains' order: only those before
		}
		args := make([]string, len(c.args))
		for i, a := range c.args {
			args[i] = model.Format(a)
		}
		out = append(out, args)
	}
	return out, nil
}

// ShrinkReplay finds the shortest prefix of a recorded trace that already
// fails replay: the least n such that the first n records fail (a prefix
// is not asked to end in an accepting state). Replay is deterministic, so
// a binary search over the prefix length finds it in O(log n) replays; the
// result is checked by replaying it. It returns n and the prefix's result.
func ShrinkReplay(ctx context.Context, m model.Model, cfg *explore.Config, recs []Record, rc ReplayConfig) (int, *ReplayResult, error) {
	rc.RequireAccepting = false
	fails := func(n int) (*ReplayResult, error) {
		res, err := Replay(ctx, m, cfg, recs[:n], rc)
		if err != nil {
			return nil, err
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if res.Verdict != Fail {
			return nil, nil
		}
		return res, nil
	}
	best, err := fails(len(recs))
	if err != nil {
		return 0, nil, err
	}
	if best == nil {
		return 0, nil, fmt.Errorf("the trace does not fail as a prefix (only for ending outside an accepting state, or not at all): nothing to shrink")
	}
	lo, hi := 0, len(recs) // recs[:lo] passes (or is empty), recs[:hi] fails
	if f := best.Failure; f != nil {
		// The divergence is at or before the failing record.
		for i, r := range recs {
			if r.Line > 0 && r.Line == f.Line {
				if res, err := fails(i + 1); err != nil {
					return 0, nil, err
				} else if res != nil {
					hi, best = i+1, res
				}
				break
			}
		}
	}
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		res, err := fails(mid)
		if err != nil {
			return 0, nil, err
		}
		if res != nil {
			hi, best = mid, res
		} else {
			lo = mid
		}
	}
	return hi, best, nil
}
