package conform

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/modex/modex/engine/explore"
	"github.com/modex/modex/engine/model"
	"go.starlark.net/starlark"
)

// Roles of recorded events (seed 004, section 5.3.3 and Figure 5.5).
const (
	RoleAction = "action" // caused by the environment: it drives the model
	RoleEvent  = "event"  // done by the system: the model must reproduce it
	RoleIgnore = "ignore" // not part of the test
)

// EventMapping is the abstraction function for one kind of recorded event:
// the model action it stands for, its role, and which attribute feeds each
// parameter. Attributes no parameter names (times, thread ids) are ignored.
type EventMapping struct {
	Action string
	Role   string
	Params map[string]string // parameter -> attribute (default: same name)
	// For concurrent histories (CheckHistory): Output says whether an :ok
	// completion's value is the action's output (OutputAuto, OutputValue,
	// OutputNone); OkOutput, when set, is the output of every :ok
	// completion; FailOutput, when set, makes a :fail completion one that
	// took effect with this output (porcupine's cas) instead of one that
	// did not take effect.
	Output     string
	OkOutput   model.Value
	FailOutput model.Value
}

// ReplayConfig configures passive testing of a trace.
type ReplayConfig struct {
	// Mappings by event name; an event without one maps to the model action
	// of the same name, an action for controllable actions, an event for
	// the others.
	Mappings map[string]*EventMapping
	// Window lets events from different threads match out of order within
	// this many positions (seed 004 section 4.6); 0 keeps the trace order.
	Window int
	// ThreadAttr names the attribute that identifies an event's thread
	// (default "thread").
	ThreadAttr string
	// RequireAccepting fails a trace that ends outside an accepting state.
	RequireAccepting bool
	// MaxStates bounds the states the model may be in (default 1000);
	// hitting it makes the verdict inconclusive.
	MaxStates int
	// TimeAttr names the attribute that gives an event's time (XML and
	// JSON-lines traces; plain traces have none); "" for none. With it, an
	// event of the system (role event) that comes sooner after the
	// previous event than the configuration's Earliest allows in the
	// states the model may be in fails the replay there. TimeUnit is the
	// seconds one unit of it stands for (default 1; 0.000001 for
	// microseconds).
	TimeAttr string
	TimeUnit float64
	// File names the trace in error messages.
	File string
	// Key names the attribute that cuts a concurrent history into
	// independent parts checked apart (P-compositionality); "" for none.
	Key string
	// TimeBudget bounds the search of a concurrent history
	// (DefaultHistoryBudget when 0); MaxMemory its cache, in bytes
	// (DefaultHistoryMemory when 0). Running out is inconclusive.
	TimeBudget time.Duration
	MaxMemory  int
}

// maxPath bounds ReplayResult.Path: the first events of a long trace are
// shown step by step, the rest only counted (Matched), so that memory does
// not grow with the trace.
const maxPath = 10_000

// ReplayStep is one matched event.
type ReplayStep struct {
	Index  int // in the trace
	Line   int
	Label  string   // the model action it matched
	States []string // keys of the states the model may be in after it
	// Action, Args and Kind are the matched action's; Thread the event's
	// thread (ReplayConfig.ThreadAttr), "" when the trace names none.
	Action string
	Args   []model.Value
	Kind   model.Kind
	Thread string
}

// ReplayFailure says where and why a trace diverged from the model.
type ReplayFailure struct {
	Index int // event index (0-based)
	Line  int
	Event string // as recorded
	// Step is the failing event as the model action it maps to (nil when
	// the trace ended, or failed before its first event).
	Step     *ReplayStep
	Message  string
	States   []ModelState // the states the model may have been in
	Expected []string     // what those states would have accepted
}

// ReplayResult is the verdict of replaying one trace.
type ReplayResult struct {
	Verdict Verdict
	Total   int // events in the trace (ignored ones excluded)
	Matched int
	Path    []ReplayStep // the first 10,000 matched events

	Failure   *ReplayFailure
	Reason    string // why inconclusive
	MaxStates int    // the largest set of candidate states met
	Seconds   float64
}

type resolved struct {
	rec    *Record
	index  int
	action int
	args   []model.Value
	thread string
	// time is the event's time (ReplayConfig.TimeAttr) when timed.
	time  float64
	timed bool
}

// Replay checks a recorded trace against the model: it reproduces the
// events in order, tracking every state the model may be in (closed under
// internal actions and choose()), and gives pass, fail (at the first event
// no candidate state accepts) or inconclusive (a bound was hit).
func Replay(ctx context.Context, m model.Model, cfg *explore.Config, recs []Record, rc ReplayConfig) (*ReplayResult, error) {
	return ReplayTrace(ctx, m, cfg, &sliceTrace{recs: recs}, rc)
}

// ReplayTrace is Replay reading the trace as it goes: memory does not grow
// with the trace (the window of pending events and the first 10,000 steps of
// the path are kept).
func ReplayTrace(ctx context.Context, m model.Model, cfg *explore.Config, tr TraceReader, rc ReplayConfig) (*ReplayResult, error) {
	if rc.MaxStates <= 0 {
		rc.MaxStates = 1000
	}
	if rc.ThreadAttr == "" {
		rc.ThreadAttr = "thread"
	}
	if !(rc.TimeUnit > 0) {
		rc.TimeUnit = 1
	}
	t, err := newTester(ctx, m, cfg, nil, TestConfig{MaxStates: rc.MaxStates}, false)
	if err != nil {
		return nil, err
	}
	defer t.watchMemory()()
	ctx = t.ctx
	feed := &eventFeed{t: t, tr: tr, rc: rc}
	start := time.Now()
	res := &ReplayResult{Verdict: Pass}
	defer func() { res.Seconds = time.Since(start).Seconds(); res.Total = feed.events }()
	rr := &replayRun{ctx: ctx, t: t, feed: feed, res: res, rc: rc}
	failAt, stopped, bounded := rr.failAt, rr.stopped, rr.bounded
	// A model with several initial states starts in all of them: the
	// trace's events tell which ones it could have started in.
	inits, err := model.InitialStates(t.w)
	if err != nil {
		return failAt(nil, ModelError, "init(): "+err.Error(), nil, nil)
	}
	states, err := t.closure(inits)
	if err != nil {
		return failAt(nil, ModelError, err.Error(), inits, nil)
	}
	if bounded("at the start", states) {
		return res, nil
	}
	for {
		if err := feed.fill(rc.Window + 1); err != nil {
			return nil, err
		}
		pending := feed.pending
		if len(pending) == 0 {
			break
		}
		if ctx.Err() != nil {
			return stopped(&pending[0], states)
		}
		matched, next, err := t.matchEvent(states, pending, rc.Window)
		if err != nil {
			if ctx.Err() != nil {
				return stopped(&pending[0], states)
			}
			return failAt(&pending[0], ModelError, "the model failed: "+err.Error(), states, nil)
		}
		if matched < 0 {
			ev := pending[0]
			label := (&explore.GTrans{Action: t.info.Actions[ev.action].Name, Args: ev.args, Output: ev.rec.Output}).Label()
			feed.fill(64) // the next events name inputs the model may expect
			return failAt(&ev, Fail, fmt.Sprintf("no state the model may be in accepts %s", label), states, t.enabledLabels(states, feed.pending))
		}
		ev := feed.take(matched)
		if res, early := rr.timed(&ev, states); early {
			return res, nil
		}
		if next, err = t.closure(next); err != nil {
			if ctx.Err() != nil {
				return stopped(&ev, next)
			}
			return failAt(&ev, ModelError, "the model failed: "+err.Error(), next, nil)
		}
		if bounded("after event "+strconv.Itoa(ev.index+1)+" (line "+strconv.Itoa(ev.rec.Line)+")", next) {
			return res, nil
		}
		// Invariants hold in every state the model may be in (seed 004
		// §5.3.4): violating candidates are dropped; if none is left, the
		// trace fails there.
		kept, why, err := t.keepInvariant(next)
		if err != nil {
			return failAt(&ev, ModelError, "the invariant failed: "+err.Error(), next, nil)
		}
		if len(kept) == 0 {
			return failAt(&ev, Fail, "the invariant is violated: "+why, next, nil)
		}
		states = kept
		res.matched(t, ev, states)
	}
	if rc.RequireAccepting && !t.someAccepting(states) {
		return failAt(nil, Fail, "the trace ends outside an accepting state", states, nil)
	}
	return res, nil
}

// replayRun is what a replay's verdicts need.
type replayRun struct {
	ctx  context.Context
	t    *tester
	feed *eventFeed
	res  *ReplayResult
	rc   ReplayConfig
	// since is the time of the event replayed last, when it had one.
	since    float64
	hasSince bool
}

// timed checks the time of an event just matched in states: an event of
// the system (role event) that came sooner after the previous event than
// earliest allows there ends the replay (true, with its result). The first
// event has no previous one to count from.
func (r *replayRun) timed(ev *resolved, states []model.State) (*ReplayResult, bool) {
	if !ev.timed {
		return nil, false
	}
	prev, had := r.since, r.hasSince
	r.since, r.hasSince = ev.time, true
	if !had || !r.feed.observed(ev) {
		return nil, false
	}
	name, kind := r.t.info.Actions[ev.action].Name, r.t.cfg.Actions[ev.action].Kind
	f, err := r.t.early(states, seconds((ev.time-prev)*r.rc.TimeUnit), StepRecord{Kind: kind, Action: name, Args: ev.args})
	if err != nil {
		res, _ := r.failAt(ev, ModelError, "the model failed: "+err.Error(), states, nil)
		return res, true
	}
	if f != nil {
		res, _ := r.failAt(ev, Fail, f.Message, states, nil)
		return res, true
	}
	return nil, false
}

// failAt ends the replay with a verdict at an event (nil: at the end).
func (r *replayRun) failAt(ev *resolved, verdict Verdict, msg string, states []model.State, expected []string) (*ReplayResult, error) {
	if r.t.cutShort() {
		// Seen once the replay was stopped: maybe the stop's doing (the
		// model's code cancelled), no verdict either way.
		r.res.Verdict, r.res.Reason = Inconclusive, "cancelled"
		return r.res, nil
	}
	r.feed.countRest() // the summary gives the trace's length
	r.res.Verdict = verdict
	r.res.Failure = &ReplayFailure{Index: r.feed.records, Message: ShortText(msg), States: r.t.describe(states), Expected: shortAll(expected)}
	if ev != nil {
		r.res.Failure.Index, r.res.Failure.Line, r.res.Failure.Event = ev.index, ev.rec.Line, ShortText(ev.rec.String())
		name, kind := r.t.info.Actions[ev.action].Name, r.t.cfg.Actions[ev.action].Kind
		r.res.Failure.Step = &ReplayStep{Index: ev.index, Line: ev.rec.Line, Action: name, Args: ev.args, Kind: kind, Thread: ev.thread,
			Label: (&explore.GTrans{Action: name, Args: ev.args, Kind: kind}).Label()}
	}
	return r.res, nil
}

// stopped ends a cancelled replay inconclusive, saying so when the memory
// budget was the cause.
func (r *replayRun) stopped(ev *resolved, states []model.State) (*ReplayResult, error) {
	r.res.Verdict, r.res.Reason = Inconclusive, "cancelled"
	if msg, ok := model.MemoryExceeded(r.ctx); ok {
		// The same cause as the bound on states: too many candidates
		// (or too large ones), not a fault of the model.
		r.res.Reason = fmt.Sprintf("at event %d the replay ran out of memory: %s (raise memory_budget_mb, or narrow the model with max_states or the configuration)", ev.index+1, msg)
		r.feed.countRest()
	}
	return r.res, nil
}

// bounded ends the replay inconclusive when the states the model may be in
// — checked after every closure, before the invariant drops any, and after
// the last event — are more than the bound: a set cut at the bound could
// otherwise give a false fail.
func (r *replayRun) bounded(at string, states []model.State) bool {
	r.res.MaxStates = max(r.res.MaxStates, len(states))
	if len(states) <= r.rc.MaxStates {
		return false
	}
	r.feed.countRest()
	r.res.Verdict = Inconclusive
	r.res.Reason = fmt.Sprintf("%s the model may be in more than %d states (raise the bound)", at, r.rc.MaxStates)
	return true
}

// someAccepting reports whether one of the states is accepting.
func (t *tester) someAccepting(states []model.State) bool {
	for _, s := range states {
		if a, err := t.accepting([]model.State{s}); err == nil && a {
			return true
		}
	}
	return false
}

// eventFeed reads a trace's records as the replay needs them and maps
// them through the event mappings; ignored records are skipped.
type eventFeed struct {
	t       *tester
	tr      TraceReader
	rc      ReplayConfig
	pending []resolved // read, not yet matched
	records int        // records read
	events  int        // events read (ignored ones excluded)
	eof     bool
}

// fill reads until n events are pending or the trace ends.
func (f *eventFeed) fill(n int) error {
	for len(f.pending) < n && !f.eof {
		r, err := f.tr.Next()
		if errors.Is(err, io.EOF) {
			f.eof = true
			return nil
		}
		if err != nil {
			return err
		}
		rec := r
		ev, skip, err := resolveRecord(f.t.info, f.t.byName, &rec, f.rc)
		f.records++
		if err != nil {
			if te, ok := err.(*TraceError); ok {
				te.File = f.rc.File
			}
			return err
		}
		if skip {
			continue
		}
		ev.index = f.records - 1
		f.events++
		f.pending = append(f.pending, ev)
	}
	return nil
}

// observed tells whether an event is the system's own: role event, or,
// with no role mapped, an action the configuration does not make
// controllable.
func (f *eventFeed) observed(ev *resolved) bool {
	if mp := f.rc.Mappings[ev.rec.Name]; mp != nil && mp.Role != "" {
		return mp.Role == RoleEvent
	}
	return f.t.cfg.Actions[ev.action].Kind != model.Controllable
}

// take removes the matched event k from the pending ones: the (at most
// Window) events before it shift one place right, so the rest of the trace
// is never copied.
func (f *eventFeed) take(k int) resolved {
	ev := f.pending[k]
	copy(f.pending[1:k+1], f.pending[:k])
	f.pending = f.pending[1:]
	return ev
}

// matched counts a reproduced event and records it in the path (the first
// maxPath events).
func (res *ReplayResult) matched(t *tester, ev resolved, states []model.State) {
	res.Matched++
	if len(res.Path) < maxPath {
		name, kind := t.info.Actions[ev.action].Name, t.cfg.Actions[ev.action].Kind
		label := (&explore.GTrans{Action: name, Args: ev.args, Kind: kind}).Label()
		res.Path = append(res.Path, ReplayStep{Index: ev.index, Line: ev.rec.Line, Label: label, States: keys(states),
			Action: name, Args: ev.args, Kind: kind, Thread: ev.thread})
	}
}

// countRest reads the rest of the trace only to count its events.
func (f *eventFeed) countRest() {
	for !f.eof {
		r, err := f.tr.Next()
		if err != nil {
			f.eof = true
			return
		}
		f.records++
		if _, skip, err := resolveRecord(f.t.info, f.t.byName, &r, f.rc); err == nil && !skip {
			f.events++
		}
	}
}

// matchEvent finds the pending event to replay next: the first one, then
// (with a window) later ones of threads with nothing pending before them.
// It returns the event's index in pending and the states after it, or -1.
func (t *tester) matchEvent(states []model.State, pending []resolved, window int) (int, []model.State, error) {
	blocked := map[string]bool{}
	for k := 0; k < len(pending) && k <= window; k++ {
		ev := pending[k]
		if k > 0 && (ev.thread == "" || blocked[ev.thread]) {
			blocked[ev.thread] = true
			continue
		}
		blocked[ev.thread] = true
		n, err := t.replayStep(states, ev)
		if err != nil {
			return -1, nil, err
		}
		if len(n) > 0 {
			return k, n, nil
		}
		if window == 0 {
			break
		}
	}
	return -1, nil, nil
}

// replayStep applies a recorded event to every candidate state.
func (t *tester) replayStep(states []model.State, ev resolved) ([]model.State, error) {
	var next []model.State
	seen := map[string]bool{}
	for _, s := range states {
		outs, _, err := t.w.Step(s, ev.action, ev.args)
		if err != nil {
			return nil, err
		}
		for _, o := range outs {
			if o.Err != nil {
				return nil, &modelError{o.Err}
			}
			if ev.rec.HasOutput {
				k1, _ := model.Key(o.Output)
				k2, _ := model.Key(ev.rec.Output)
				if k1 != k2 {
					continue
				}
			}
			if !seen[o.Next.Key()] {
				seen[o.Next.Key()] = true
				next = append(next, o.Next)
			}
		}
	}
	return next, nil
}

// modelError is an error of the model's own code met while replaying.
type modelError struct{ err error }

func (e *modelError) Error() string { return e.err.Error() }

// keepInvariant drops the candidate states that violate the model's
// invariant; it returns the states left and the message of a violation.
func (t *tester) keepInvariant(states []model.State) ([]model.State, string, error) {
	var kept []model.State
	why := ""
	for _, s := range states {
		msg, err := t.w.Invariant(s)
		if err != nil {
			return nil, "", &modelError{err}
		}
		if msg != "" {
			why = msg
			continue
		}
		kept = append(kept, s)
	}
	return kept, why, nil
}

// enabledLabels lists what the states would accept, for failure reports.
func (t *tester) enabledLabels(states []model.State, pending []resolved) []string {
	// Inputs to try: the model's domains and the values the trace gives
	// the same action (a trace's thread ids and task names are in no domain).
	// The next events of the trace are enough to name what was expected.
	traceArgs := map[int][][]model.Value{}
	seenArgs := map[string]bool{}
	for _, ev := range pending[:min(len(pending), 64)] {
		k := fmt.Sprint(ev.action, model.FormatArgs(ev.args))
		if !seenArgs[k] {
			seenArgs[k] = true
			traceArgs[ev.action] = append(traceArgs[ev.action], ev.args)
		}
	}
	set := map[string]bool{}
	for _, s := range states {
		for ai, a := range t.info.Actions {
			ac := &t.cfg.Actions[ai]
			if ac.Exclude || ac.Kind == model.Internal {
				continue
			}
			try := func(args []model.Value) error {
				if outs, _, err := t.w.Step(s, ai, args); err == nil {
					for _, o := range outs {
						if o.Err == nil {
							set[(&explore.GTrans{Action: a.Name, Args: args, Output: o.Output, Kind: ac.Kind}).Label()] = true
						}
					}
				}
				return nil
			}
			t.combos(s, ai, try)
			for _, args := range traceArgs[ai] {
				try(args)
			}
		}
	}
	// Events the model would have reproduced first, then a few of the
	// environment's actions (always possible, rarely the point).
	var events, actions []string
	for l := range set {
		if strings.HasPrefix(l, "?") {
			events = append(events, l)
		} else {
			actions = append(actions, l)
		}
	}
	sort.Strings(events)
	sort.Strings(actions)
	if len(events) > 30 {
		events = append(events[:30], fmt.Sprintf("… and %d more events", len(events)-30))
	}
	if len(actions) > 3 {
		actions = append(actions[:3], fmt.Sprintf("… and %d more actions", len(actions)-3))
	}
	return append(events, actions...)
}

func resolveRecord(info *model.ModelInfo, byName map[string]int, r *Record, rc ReplayConfig) (resolved, bool, error) {
	mp := rc.Mappings[r.Name]
	action := r.Name
	if mp != nil {
		if mp.Role == RoleIgnore {
			return resolved{}, true, nil
		}
		if mp.Action != "" {
			action = mp.Action
		}
	}
	ai, ok := byName[action]
	if !ok {
		for name, i := range byName {
			if strings.EqualFold(name, action) {
				ai, ok = i, true
			}
		}
	}
	if !ok {
		return resolved{}, false, &TraceError{Line: r.Line, Msg: fmt.Sprintf("event %q maps to no action of the model (map it to one, or ignore it)", r.Name)}
	}
	a := info.Actions[ai]
	ev := resolved{rec: r, action: ai}
	ev.thread, _ = r.Attr(rc.ThreadAttr)
	if rc.TimeAttr != "" && r.Attrs != nil { // plain traces have no times
		v, ok := r.Attr(rc.TimeAttr)
		if !ok {
			return resolved{}, false, &TraceError{Line: r.Line, Msg: fmt.Sprintf("event %s has no time attribute %q (time_attr)", r.Name, rc.TimeAttr)}
		}
		f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
			return resolved{}, false, &TraceError{Line: r.Line, Msg: fmt.Sprintf("event %s: its time %s=%.40q is not a number", r.Name, rc.TimeAttr, v)}
		}
		ev.time, ev.timed = f, true
	}
	if r.Attrs == nil { // a plain trace: positional inputs
		if len(r.Args) != len(a.Params) {
			return resolved{}, false, &TraceError{Line: r.Line, Msg: fmt.Sprintf("%s takes %d inputs (%s), the trace gives %d", a.Name, len(a.Params), strings.Join(a.Params, ", "), len(r.Args))}
		}
		ev.args = r.Args
		return ev, false, nil
	}
	for _, p := range a.Params {
		attr := p
		if mp != nil && mp.Params[p] != "" {
			attr = mp.Params[p]
		}
		v, typed, ok := r.attrValue(attr)
		if !ok {
			return resolved{}, false, &TraceError{Line: r.Line, Msg: fmt.Sprintf("event %s has no attribute %q for parameter %s of %s", r.Name, attr, p, a.Name)}
		}
		if typed == nil {
			typed = attrValue(v)
		}
		ev.args = append(ev.args, typed)
	}
	return ev, false, nil
}

// attrValue returns an attribute's text, its typed value when it has one
// (a JSON array or object) and whether it is present.
func (r *Record) attrValue(key string) (string, model.Value, bool) {
	for _, a := range r.Attrs {
		if a.Key == key {
			return a.Value, a.Typed, true
		}
	}
	return "", nil, false
}

// attrValue reads an attribute as a model value: an integer, a boolean, None,
// or else the string.
func attrValue(s string) model.Value {
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		return model.Int(int(n))
	}
	switch s {
	case "true", "True":
		return starlark.True
	case "false", "False":
		return starlark.False
	case "null", "None":
		return starlark.None
	}
	return model.Str(s)
}
