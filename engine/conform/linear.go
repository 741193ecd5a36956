package conform

import (
	"context"
	"fmt"
	"maps"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modex/modex/engine/explore"
	"github.com/modex/modex/engine/model"
	"go.starlark.net/starlark"
)

// Output modes of an operation's completion (EventMapping.Output).
const (
	OutputAuto  = ""      // the completion's value is the output unless the invocation's value gave inputs
	OutputValue = "value" // the completion's value is the output
	OutputNone  = "none"  // the completion's value is not compared
)

// DefaultHistoryBudget is how long a history is searched when the
// configuration names no time budget.
const DefaultHistoryBudget = 60 * time.Second

// DefaultHistoryMemory bounds the memory of the search's cache (all
// partitions together) when the configuration names none.
const DefaultHistoryMemory = 2 << 30

// HistoryResult is the verdict on a concurrent history: linearizable
// (pass), not (fail), or undecided within the time or memory budget
// (inconclusive).
type HistoryResult struct {
	Verdict    Verdict
	Ops        int // operations checked (failed ones that did not take effect excluded)
	Dropped    int // :fail operations that did not take effect
	Processes  int
	Partitions int
	KeyAttr    string // the attribute the history was cut by ("" for none)
	// Order is a linearization of the history (pass) or of its longest
	// linearizable prefix (fail: of the failing partition): indexes into
	// History.Ops, at most MaxOrder of them (the last ones).
	Order []int
	// OrderFrom is how many operations come before Order (cut off).
	OrderFrom int
	Failure   *HistoryFailure
	Reason    string // why inconclusive
	// Nodes counts the search's steps; Cached the (operations done, model
	// state) pairs it remembered.
	Nodes, Cached int
	Seconds       float64
}

// MaxOrder bounds HistoryResult.Order.
const MaxOrder = 5000

// HistoryFailure says why a history is not linearizable: the longest
// linearizable prefix ends where an operation completes that no
// linearization of what came before can place.
type HistoryFailure struct {
	Op   int    // the operation (index into History.Ops)
	Line int    // its completion's line: the prefix before it linearizes
	Key  string // its partition ("" without partitioning)
	// Pending are the other operations invoked and not yet placed there
	// (at most 50): none of their orders lets Op take effect.
	Pending []int
	Message string     // why the model refuses Op after the prefix
	State   ModelState // the model's state after the prefix
}

// linOp is an operation resolved against the model.
type linOp struct {
	id       int // in History.Ops
	action   int
	args     []model.Value
	out      model.Value // the expected output; nil: any
	optional bool        // may never have taken effect (:info)
	call     int         // positions among the history's events
	ret      int
	sig      string // action, inputs and output: the successor memo's key
	step     string // action and inputs: the step memo's key
}

// OpLabel prints an operation as the model action it stands for, with the
// recorded output: write(3), read()/3, cas(1, 2)/True, read()/? (unknown).
func (h *History) OpLabel(i int) string {
	o := &h.Ops[i]
	var args []string
	for _, k := range slices.Sorted(maps.Keys(o.Attrs)) {
		args = append(args, shortValue(o.Attrs[k]))
	}
	if v := opValueText(o.Value); v != "" {
		args = append(args, v)
	}
	s := o.F + "(" + strings.Join(args, ", ") + ")"
	switch o.Status {
	case OpOK:
		if o.Result != starlark.None && !sameValue(o.Result, o.Value) {
			s += " → " + shortValue(o.Result)
		}
	case OpFail:
		s += " ✗"
	case OpInfo:
		s += " ?"
	}
	return s
}

// maxValueText bounds a value printed in a label or a message: a history's
// values may be as long as its lines (1 MB).
const maxValueText = 60

// shortValue prints a value, cut to maxValueText characters.
func shortValue(v model.Value) string {
	s := model.Format(v)
	if r := []rune(s); len(r) > maxValueText {
		return string(r[:maxValueText-1]) + "…"
	}
	return s
}

func opValueText(v model.Value) string {
	if v == nil || v == starlark.None {
		return ""
	}
	if l, ok := v.(*starlark.List); ok && l.Len() <= 8 {
		parts := make([]string, l.Len())
		for i := range parts {
			parts[i] = shortValue(l.Index(i))
		}
		return strings.Join(parts, ", ")
	}
	return shortValue(v)
}

// sameValue compares two values, lists and tuples alike (a history's
// vectors are lists; a model may return tuples).
func sameValue(a, b model.Value) bool {
	switch x := a.(type) {
	case starlark.String:
		y, ok := b.(starlark.String)
		return ok && x == y
	case starlark.NoneType, starlark.Bool:
		return a == b
	case starlark.Int:
		if y, ok := b.(starlark.Int); ok {
			c, err := x.Cmp(y, 0)
			return err == nil && c == 0
		}
		return false
	}
	sa, oka := a.(starlark.Indexable)
	sb, okb := b.(starlark.Indexable)
	_, stra := a.(starlark.String)
	_, strb := b.(starlark.String)
	if oka && okb && !stra && !strb {
		if sa.Len() != sb.Len() {
			return false
		}
		for i := 0; i < sa.Len(); i++ {
			if !sameValue(sa.Index(i), sb.Index(i)) {
				return false
			}
		}
		return true
	}
	k1, err1 := model.Key(a)
	k2, err2 := model.Key(b)
	return err1 == nil && err2 == nil && k1 == k2
}

// resolveOps maps the history's operations to model actions, grouped in
// partitions by the configuration's key (one partition without a key).
func resolveOps(info *model.ModelInfo, h *History, rc ReplayConfig) (parts [][]linOp, keys []string, dropped int, err error) {
	byName := map[string]int{}
	for i, a := range info.Actions {
		byName[a.Name] = i
	}
	index := map[string]int{}
	inf := h.Events + 1
	for i := range h.Ops {
		o := &h.Ops[i]
		lo, drop, err := resolveOp(info, byName, h, i, rc)
		if err != nil {
			return nil, nil, 0, &TraceError{File: h.File, Line: o.CallLine, Msg: err.Error()}
		}
		if drop {
			dropped++
			continue
		}
		if lo.optional {
			lo.ret = inf
			inf++
		}
		key, name := "", ""
		if rc.Key != "" {
			v, ok := o.Attrs[rc.Key]
			if !ok {
				return nil, nil, 0, &TraceError{File: h.File, Line: o.CallLine, Msg: fmt.Sprintf("%s by process %s has no :%s, the key the project partitions by", o.F, o.Process, rc.Key)}
			}
			// Parts by value (a map's keys in any order are one key),
			// named as printed.
			name = model.Format(v)
			if key, err = model.Key(v); err != nil {
				return nil, nil, 0, &TraceError{File: h.File, Line: o.CallLine, Msg: fmt.Sprintf(":%s %s: %v", rc.Key, model.Format(v), err)}
			}
		}
		k, ok := index[key]
		if !ok {
			k = len(parts)
			index[key] = k
			parts = append(parts, nil)
			keys = append(keys, name)
		}
		parts[k] = append(parts[k], lo)
	}
	return parts, keys, dropped, nil
}

// resolveOp maps one operation; drop is true for a :fail that did not
// take effect.
func resolveOp(info *model.ModelInfo, byName map[string]int, h *History, i int, rc ReplayConfig) (lo linOp, drop bool, err error) {
	o := &h.Ops[i]
	mp := rc.Mappings[o.F]
	action := o.F
	if mp != nil {
		if mp.Role == RoleIgnore {
			return lo, true, nil
		}
		if mp.Action != "" {
			action = mp.Action
		}
	}
	ai, ok := byName[action]
	if !ok {
		return lo, false, fmt.Errorf("operation %q maps to no action of the model (map it to one in [replay.events.%s], or ignore it)", o.F, o.F)
	}
	a := info.Actions[ai]
	lo = linOp{id: i, action: ai, call: o.Call, ret: o.Return}
	// Inputs: a parameter the mapping or its name ties to an attribute
	// takes it; the others take the invocation's value, spread when
	// there are several.
	var rest []int
	valueIsInput := false
	lo.args = make([]model.Value, len(a.Params))
	for pi, p := range a.Params {
		attr := p
		if mp != nil && mp.Params[p] != "" {
			attr = mp.Params[p]
		}
		if attr == "value" {
			lo.args[pi], valueIsInput = o.Value, true
		} else if v, ok := o.Attrs[attr]; ok {
			lo.args[pi] = v
		} else {
			rest = append(rest, pi)
		}
	}
	valueIsInput = valueIsInput || len(rest) > 0
	switch {
	case len(rest) == 1:
		lo.args[rest[0]] = o.Value
	case len(rest) > 1:
		seq, ok := o.Value.(starlark.Indexable)
		if _, str := o.Value.(starlark.String); !ok || str || seq.Len() != len(rest) {
			names := make([]string, len(rest))
			for k, pi := range rest {
				names[k] = a.Params[pi]
			}
			return lo, false, fmt.Errorf("%s takes %s from the invocation's :value, which is %s (want a vector of %d)", a.Name, strings.Join(names, ", "), model.Format(o.Value), len(rest))
		}
		for k, pi := range rest {
			lo.args[pi] = seq.Index(k)
		}
	}
	mode := OutputAuto
	var okOut, failOut model.Value
	if mp != nil {
		mode, okOut, failOut = mp.Output, mp.OkOutput, mp.FailOutput
	}
	switch o.Status {
	case OpOK:
		switch {
		case okOut != nil:
			lo.out = okOut
		case mode == OutputValue || mode == OutputAuto && !valueIsInput:
			lo.out = o.Result
		}
	case OpFail:
		if failOut == nil {
			return lo, true, nil // it did not take effect
		}
		lo.out = failOut
	default:
		lo.optional = true
	}
	if lo.step, err = callKey(ai, lo.args); err != nil {
		return lo, false, err
	}
	lo.sig = lo.step + "/*"
	if lo.out != nil {
		k, err := model.Key(lo.out)
		if err != nil {
			return lo, false, &TraceError{File: h.File, Line: o.ReturnLine, Msg: fmt.Sprintf("output %s: %v", model.Format(lo.out), err)}
		}
		lo.sig = lo.step + "/=" + k
	}
	return lo, false, nil
}

// callKey identifies an action with its inputs: the action's number and
// the inputs' canonical encodings, each with its length.
func callKey(ai int, args []model.Value) (string, error) {
	var b strings.Builder
	fmt.Fprintf(&b, "%d(", ai)
	for _, a := range args {
		k, err := model.Key(a)
		if err != nil {
			return "", fmt.Errorf("input %s: %v", model.Format(a), err)
		}
		fmt.Fprintf(&b, "%d:%s", len(k), k)
	}
	b.WriteByte(')')
	return b.String(), nil
}

// CheckHistory decides whether a concurrent history is linearizable with
// respect to the model: whether its operations, each taking effect at one
// instant between its invocation and its completion, form a run of the
// model's actions with the recorded outputs. It is Wing & Gong's search
// with Lowe's cache of (operations done, model state), as porcupine; with
// ReplayConfig.Key the history is cut by key and the parts are checked
// apart and in parallel (P-compositionality). Running out of the time
// budget (or memory) makes the verdict inconclusive.
func CheckHistory(ctx context.Context, m model.Model, cfg *explore.Config, h *History, rc ReplayConfig) (*HistoryResult, error) {
	start := time.Now()
	parts, keys, dropped, err := resolveOps(m.Info(), h, rc)
	if err != nil {
		return nil, err
	}
	budget := rc.TimeBudget
	if budget <= 0 {
		budget = DefaultHistoryBudget
	}
	ctx, cancel := context.WithTimeout(ctx, budget)
	defer cancel()
	res := &HistoryResult{Verdict: Pass, Ops: len(h.Ops) - dropped, Dropped: dropped, Partitions: len(parts), KeyAttr: rc.Key}
	procs := map[string]bool{}
	for _, o := range h.Ops {
		procs[o.Process] = true
	}
	res.Processes = len(procs)
	memory := rc.MaxMemory
	if memory <= 0 {
		memory = DefaultHistoryMemory
	}
	outs, err := searchRounds(ctx, m, cfg, parts, memory)
	if err != nil {
		return nil, err
	}
	res.merge(h, outs, keys, budget, ctx)
	res.Seconds = time.Since(start).Seconds()
	return res, nil
}

// firstRoundNodes is the search's steps per part in the first round.
const firstRoundNodes = 20_000

// searchRounds searches the parts in rounds, in parallel: each round lets
// every undecided part go on for up to four times the steps of the last.
// It ends at the first round where a part fails, so a part that fails
// quickly is not kept waiting by a hard one, and the failure reported is
// the same from run to run (the first failing part of that round).
func searchRounds(ctx context.Context, m model.Model, cfg *explore.Config, parts [][]linOp, memory int) ([]linOutcome, error) {
	r := &rounds{ctx: ctx, m: m, cfg: cfg, parts: parts, memory: int64(memory),
		searches: make([]*linSearch, len(parts)), outs: make([]linOutcome, len(parts))}
	todo := make([]int, len(parts))
	for k := range todo {
		todo[k] = k
		// Until searched: a search stopped before it began is undecided.
		r.outs[k] = linOutcome{verdict: Inconclusive, reason: stopByContext, ops: parts[k]}
	}
	workers := min(runtime.GOMAXPROCS(0), len(parts))
	for budget := firstRoundNodes; len(todo) > 0 && ctx.Err() == nil; budget *= 4 {
		var wg sync.WaitGroup
		r.todo, r.next = todo, 0
		for w := 0; w < min(workers, len(todo)); w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				r.work(budget)
			}()
		}
		wg.Wait()
		if r.err != nil {
			return nil, r.err
		}
		var left []int
		failed := false
		for _, k := range todo {
			switch {
			case r.outs[k].verdict == Fail:
				failed = true
			case r.outs[k].reason == stopByNodes:
				left = append(left, k)
			}
		}
		if failed {
			for _, k := range left {
				r.outs[k].verdict, r.outs[k].reason = Inconclusive, "not searched to the end: another part fails"
			}
			break
		}
		todo = left
	}
	for k := range r.outs {
		if r.outs[k].reason == stopByNodes {
			r.outs[k].reason = stopByContext
		}
	}
	return r.outs, nil
}

// rounds is what the goroutines of a round share.
type rounds struct {
	ctx    context.Context
	m      model.Model
	cfg    *explore.Config
	parts  [][]linOp
	memory int64 // the bound of all searches' memory together
	used   atomic.Int64
	// searches are the undecided parts' searches, kept between rounds.
	searches []*linSearch
	outs     []linOutcome

	mu   sync.Mutex
	todo []int // the parts of this round
	next int   // the next of them to take
	err  error
}

// work takes the round's parts one by one and lets each search go on up
// to budget steps.
func (r *rounds) work(budget int) {
	var spare *tester // a model worker for the next new search
	for {
		r.mu.Lock()
		i := r.next
		r.next++
		stop := i >= len(r.todo) || r.err != nil || r.ctx.Err() != nil
		r.mu.Unlock()
		if stop {
			return
		}
		k := r.todo[i]
		s := r.searches[k]
		if s == nil {
			if spare == nil {
				t, err := newTester(r.ctx, r.m, r.cfg, nil, TestConfig{MaxStates: maxHistoryClosure}, false)
				if err != nil {
					r.mu.Lock()
					r.err = err
					r.mu.Unlock()
					return
				}
				spare = t
			}
			s = &linSearch{ctx: r.ctx, t: spare, ops: r.parts[k], maxBytes: r.memory, used: &r.used}
		}
		r.outs[k] = s.run(budget)
		if r.outs[k].reason == stopByNodes {
			// Undecided: the search keeps its place and its model
			// worker for the next round.
			r.searches[k] = s
			if s.t == spare {
				spare = nil
			}
		} else {
			r.searches[k] = nil
			r.used.Add(-int64(s.bytes)) // its memory is given back
		}
	}
}

// maxHistoryClosure bounds the states the model's internal actions may
// lead to after one operation; more is inconclusive.
const maxHistoryClosure = 10_000

// merge gathers the partitions' outcomes: the first failing partition
// gives the verdict, else the first undecided one, else all passed.
func (res *HistoryResult) merge(h *History, outs []linOutcome, keys []string, budget time.Duration, ctx context.Context) {
	failed, open := -1, -1
	for k := range outs {
		o := &outs[k]
		res.Nodes += o.nodes
		res.Cached += o.cached
		switch {
		case o.verdict == Fail && failed < 0:
			failed = k
		case o.verdict != Pass && o.verdict != Fail && open < 0:
			open = k // undecided (or never searched)
		}
	}
	pick := func(o *linOutcome) {
		res.Order, res.OrderFrom = o.order, o.orderFrom
	}
	switch {
	case failed >= 0:
		o := &outs[failed]
		res.Verdict = Fail
		pick(o)
		o.failure.Key = keys[failed]
		if f := o.failure; f.Op >= 0 && f.Op < len(h.Ops) {
			f.Line = h.Ops[f.Op].ReturnLine
		}
		res.Failure = o.failure
	case open >= 0:
		o := &outs[open]
		res.Verdict = o.verdict
		res.Reason = o.reason
		if o.reason == stopByContext {
			res.Reason = fmt.Sprintf("the search ran out of its time budget (%s)", budget)
			if ctx.Err() == context.Canceled {
				res.Reason = "stopped before the search ended"
			}
		}
		if len(keys) > 1 {
			res.Reason += fmt.Sprintf(" (key %s, %d operations)", keys[open], len(o.ops))
		}
		if o.failure != nil {
			res.Failure = o.failure
		}
	default:
		// Linearizations of independent keys interleave by their own
		// order: list them partition after partition.
		for k := range outs {
			res.Order = append(res.Order, outs[k].order...)
		}
		if len(res.Order) > MaxOrder {
			res.OrderFrom = len(res.Order) - MaxOrder
			res.Order = res.Order[res.OrderFrom:]
		}
	}
}

// linOutcome is one partition's verdict.
type linOutcome struct {
	verdict       Verdict
	reason        string
	order         []int // History.Ops indexes
	orderFrom     int
	failure       *HistoryFailure
	nodes, cached int
	ops           []linOp
}
