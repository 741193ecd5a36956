package adapters

import (
	"context"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/modex/modex/engine/conform"
	"github.com/modex/modex/engine/explore"
	"github.com/modex/modex/engine/model"
)

// Status is how one action fared in an adapter check.
type Status string

// The statuses of an action in a check.
const (
	StatusOK             Status = "ok"
	StatusNotImplemented Status = "not implemented"
	StatusFailed         Status = "FAILED"
	StatusNotReached     Status = "not reached"
	StatusNotChecked     Status = "not checked"
)

// ActionCheck is one controllable action's check: a run that goes by a
// shortest path of the explored graph to a state where the model enables
// it, and takes it.
type ActionCheck struct {
	Action string
	Status Status
	// Path is the steps taken before the action (labels).
	Path []string
	// Detail says why it failed, was not reached or not checked.
	Detail string
}

// CheckResult is what modex adapter check found.
type CheckResult struct {
	Actions []ActionCheck
	// SaidUnimplemented are the actions the handshake said are not
	// implemented.
	SaidUnimplemented []string
	// Events counts the observable actions the implementation did, by
	// name (every observable action of the model has an entry).
	Events map[string]int
	// Halt is the failure that made the implementation unusable (a crash,
	// a timeout or a protocol violation), "" when none.
	Halt string
	// Problems are failures in the steps after a checked action (on the
	// way back to an accepting state).
	Problems []string
	// Invokes and Resets are the round trips measured.
	Invokes, Resets []time.Duration
	// GraphStates is the size of the explored graph the paths come from,
	// Complete whether the exploration finished.
	GraphStates int
	Complete    bool
}

// Failed counts the actions that failed, and the failures after a
// checked action.
func (r *CheckResult) Failed() int {
	n := len(r.Problems)
	for _, a := range r.Actions {
		if a.Status == StatusFailed {
			n++
		}
	}
	return n
}

// Check drives every controllable action of the configuration once, where
// the model enables it, through impl: for each, a run by a shortest path
// of the explored graph to the action, checked step by step as modex test
// checks it (outputs, events, refusals), ended in an accepting state.
func Check(ctx context.Context, m model.Model, cfg *explore.Config, impl conform.Implementation, base conform.TestConfig) (*CheckResult, error) {
	info := m.Info()
	x, err := exploreBounded(ctx, m, cfg)
	if x == nil {
		return nil, err
	}
	t := &timedImpl{Implementation: impl}
	res := &CheckResult{Events: map[string]int{}, GraphStates: len(x.States), Complete: x.Stats.Complete}
	if u, ok := impl.(conform.Unimplemented); ok {
		res.SaidUnimplemented = u.NotImplemented()
	}
	for i, a := range info.Actions {
		if !cfg.Actions[i].Exclude && cfg.Actions[i].Kind == model.Observable {
			res.Events[a.Name] = 0
		}
	}
	paths := shortestPaths(x)
	for i, a := range info.Actions {
		ac := cfg.Actions[i]
		if ac.Exclude || ac.Kind != model.Controllable {
			continue
		}
		ch := ActionCheck{Action: a.Name}
		path, ok := paths[int32(i)]
		switch {
		case slices.Contains(res.SaidUnimplemented, a.Name):
			ch.Status, ch.Detail = StatusNotImplemented, "said at start"
		case res.Halt != "":
			ch.Status, ch.Detail = StatusNotChecked, "the implementation is unusable"
		case !ok:
			ch.Status, ch.Detail = StatusNotReached, fmt.Sprintf("the model does not enable it in the explored graph (%s)", explore.Count(len(x.States), "state"))
		default:
			checkOne(ctx, m, cfg, t, base, x, path, &ch, res)
		}
		res.Actions = append(res.Actions, ch)
		if ctx.Err() != nil {
			return res, ctx.Err()
		}
	}
	res.Invokes, res.Resets = t.invokes, t.resets
	return res, nil
}

// checkOne runs the script that takes the action at the end of path.
func checkOne(ctx context.Context, m model.Model, cfg *explore.Config, t *timedImpl, base conform.TestConfig, x *explore.Exploration, path []int32, ch *ActionCheck, res *CheckResult) {
	info := m.Info()
	var script []conform.SavedStep
	for k, ti := range path {
		tr := &x.Trans[ti]
		kind := cfg.Actions[tr.Action].Kind
		if kind == model.Internal {
			continue
		}
		var args []string
		for _, v := range x.ArgsOf(tr) {
			args = append(args, model.Format(v))
		}
		script = append(script, conform.SavedStep{Kind: kind.String(), Action: info.Actions[tr.Action].Name, Args: args})
		if k < len(path)-1 {
			label := info.Actions[tr.Action].Name + "(" + strings.Join(args, ", ") + ")"
			if kind == model.Observable {
				label = "?" + label
			}
			ch.Path = append(ch.Path, label)
		}
	}
	tc := base
	tc.Runs, tc.Script, tc.KeepPassingSteps, tc.OnRun = 1, script, true, nil
	tc.Steps = max(tc.Steps, len(script)+1)
	r, err := conform.Test(ctx, m, cfg, t, tc)
	if err != nil {
		ch.Status, ch.Detail = StatusFailed, err.Error()
		return
	}
	for _, sk := range r.Skipped {
		if sk.Action == ch.Action {
			ch.Status, ch.Detail = StatusNotImplemented, "said on first use"
			return
		}
	}
	run := r.Runs[0]
	for _, st := range run.Steps {
		if st.Kind == model.Observable {
			res.Events[st.Action]++
		}
	}
	if r.Halt != nil {
		res.Halt = string(run.Failure.Kind) + ": " + run.Failure.Message
	}
	// The action's own step is checked when the run recorded it (a step is
	// recorded once the implementation's answer agreed with the model).
	taken := false
	for _, st := range run.Steps {
		taken = taken || (st.Kind == model.Controllable && st.Action == ch.Action)
	}
	switch {
	case taken && run.Verdict == conform.Pass:
		ch.Status = StatusOK
	case taken && run.Failure != nil:
		// Its step agreed; a later one (the way back to an accepting
		// state) did not: a problem of that step's action.
		ch.Status, ch.Detail = StatusOK, "then the run failed"
		res.Problems = append(res.Problems, fmt.Sprintf("after %s: %s at step %d: %s", ch.Action, run.Failure.Kind, run.Failure.Step, run.Failure.Message))
	case taken:
		ch.Status, ch.Detail = StatusOK, "then "+run.Reason
	case run.Failure != nil:
		ch.Status, ch.Detail = StatusFailed, fmt.Sprintf("%s at step %d: %s", run.Failure.Kind, run.Failure.Step, run.Failure.Message)
	case run.Reason != "":
		why := strings.TrimPrefix(run.Reason, "could not reproduce: ")
		ch.Status, ch.Detail = StatusNotReached, strings.Replace(why, "of the saved run", "of its path", 1)
	default:
		ch.Status, ch.Detail = StatusNotReached, "the run ended before its path was done"
	}
}

// shortestPaths finds, for each action taken in the exploration, a
// shortest path from an initial state ending with one of its transitions
// (transition indices).
func shortestPaths(x *explore.Exploration) map[int32][]int32 {
	adj := make([][]int32, len(x.States))
	for i := range x.Trans {
		adj[x.Trans[i].From] = append(adj[x.Trans[i].From], int32(i))
	}
	via := make([]int32, len(x.States)) // the transition that reached a state, -1 for initial, -2 unreached
	for i := range via {
		via[i] = -2
	}
	var queue []int32
	for i := range x.States {
		if x.States[i].Initial {
			via[i] = -1
			queue = append(queue, int32(i))
		}
	}
	paths := map[int32][]int32{}
	pathTo := func(s int32) []int32 {
		var p []int32
		for via[s] >= 0 {
			p = append(p, via[s])
			s = x.Trans[via[s]].From
		}
		slices.Reverse(p)
		return p
	}
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		for _, ti := range adj[s] {
			tr := &x.Trans[ti]
			if _, ok := paths[tr.Action]; !ok {
				paths[tr.Action] = append(pathTo(s), ti)
			}
			if via[tr.To] == -2 {
				via[tr.To] = ti
				queue = append(queue, tr.To)
			}
		}
	}
	return paths
}

// timedImpl measures an implementation's round trips.
type timedImpl struct {
	conform.Implementation
	mu              sync.Mutex
	invokes, resets []time.Duration
}

// NotImplemented forwards what the handshake said.
func (t *timedImpl) NotImplemented() []string {
	if u, ok := t.Implementation.(conform.Unimplemented); ok {
		return u.NotImplemented()
	}
	return nil
}

func (t *timedImpl) Reset(ctx context.Context) error {
	start := time.Now()
	err := t.Implementation.Reset(ctx)
	t.mu.Lock()
	t.resets = append(t.resets, time.Since(start))
	t.mu.Unlock()
	return err
}

func (t *timedImpl) Invoke(ctx context.Context, action string, args []any) (any, error) {
	start := time.Now()
	out, err := t.Implementation.Invoke(ctx, action, args)
	t.mu.Lock()
	t.invokes = append(t.invokes, time.Since(start))
	t.mu.Unlock()
	return out, err
}

// Write prints the check's report.
func (r *CheckResult) Write(w io.Writer) {
	width := 0
	for _, a := range r.Actions {
		width = max(width, len(a.Action))
	}
	for _, a := range r.Actions {
		line := fmt.Sprintf("  %-*s  %s", width, a.Action, a.Status)
		if len(a.Path) > 0 {
			line += fmt.Sprintf(" (after %s)", strings.Join(a.Path, " "))
		}
		if a.Detail != "" {
			line += ": " + a.Detail
		}
		fmt.Fprintln(w, line)
	}
	for _, p := range r.Problems {
		fmt.Fprintf(w, "  FAILED %s\n", p)
	}
	if len(r.Events) > 0 {
		var names []string
		for n := range r.Events {
			names = append(names, n)
		}
		sort.Strings(names)
		var parts []string
		for _, n := range names {
			parts = append(parts, fmt.Sprintf("%s %s", n, times(r.Events[n])))
		}
		fmt.Fprintf(w, "observable actions seen: %s\n", strings.Join(parts, ", "))
	}
	fmt.Fprintf(w, "round trips: %s; %s\n", latency("invoke", r.Invokes), latency("reset", r.Resets))
	if r.Halt != "" {
		fmt.Fprintf(w, "the implementation became unusable: %s\n", r.Halt)
	} else {
		fmt.Fprintln(w, "no protocol violation, crash or timeout")
	}
	counts := map[Status]int{}
	for _, a := range r.Actions {
		counts[a.Status]++
	}
	fmt.Fprintf(w, "%d of %s ok, %d not implemented, %d failed, %d not reached, %d not checked\n",
		counts[StatusOK], explore.Count(len(r.Actions), "action"), counts[StatusNotImplemented], counts[StatusFailed], counts[StatusNotReached], counts[StatusNotChecked])
}

func times(n int) string {
	switch n {
	case 0:
		return "never"
	case 1:
		return "once"
	}
	return fmt.Sprintf("%d times", n)
}

// latency summarises round trips: how many, the median and the largest.
func latency(what string, ds []time.Duration) string {
	if len(ds) == 0 {
		return "no " + what
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return fmt.Sprintf("%s, median %s, max %s", explore.Count(len(s), what), round(s[len(s)/2]), round(s[len(s)-1]))
}

func round(d time.Duration) time.Duration {
	switch {
	case d >= time.Second:
		return d.Round(time.Millisecond)
	case d >= time.Millisecond:
		return d.Round(10 * time.Microsecond)
	}
	return d.Round(time.Microsecond)
}
