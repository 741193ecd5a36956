package explore

import (
	"fmt"
	"sync/atomic"

	"github.com/modex/modex/engine/model"
)

// evalTarget evaluates filters, groupings, acceptance and the invariant of a
// newly reached state.
func (e *explorer) evalTarget(w model.Worker, st model.State, initial bool) *targetInfo {
	return e.evalTargetInto(w, st, initial, &targetInfo{})
}

func (e *explorer) evalTargetInto(w model.Worker, st model.State, initial bool, info *targetInfo) *targetInfo {
	if !initial {
		if !e.cfg.NoModelFilter {
			ok, err := w.StateFilter(st)
			if err != nil {
				info.err = err
				return info
			}
			if !ok {
				info.filtered = true
				return info
			}
		}
		for _, f := range e.cfg.Filters {
			v, err := w.Eval(f, st)
			if err != nil {
				info.err = err
				return info
			}
			if !v.Truth() {
				info.filtered = true
				return info
			}
		}
	}
	for i, g := range e.cfg.Groupings {
		v, err := w.Eval(g, st)
		if err != nil {
			info.err = err
			return info
		}
		k, err := model.Key(v)
		if err != nil {
			info.err = fmt.Errorf("grouping `%s`: %v", g.Source(), err)
			return info
		}
		info.groupKeys = append(info.groupKeys, e.hash(k))
		if i > 0 {
			info.label += " | "
		}
		info.label += model.Format(v)
	}
	var err error
	if e.cfg.Accepting != nil {
		var v model.Value
		v, err = w.Eval(e.cfg.Accepting, st)
		info.accepting = err == nil && bool(v.Truth())
	} else {
		info.accepting, err = w.Accepting(st)
	}
	if err != nil {
		info.err = err
		return info
	}
	info.invariant, info.err = w.Invariant(st)
	return info
}

// maxSlab bounds the pending transitions a worker reserves room for ahead
// of a chunk (about 5 MB): the estimate comes from the last chunk, and one
// state with many successors (a TLA+ Init's many initial states) would
// otherwise reserve its fan-out times the chunk. Past it the slab grows by
// appending, as it would anyway.
const maxSlab = 1 << 16

// slabSize is the room reserved for a worker's pending transitions: the
// last chunk's successors per state times the states it takes, bounded.
func slabSize(perState float64, states, workers int) int {
	want := perState*float64(states)/float64(workers)*1.1 + 16
	return int(min(want, maxSlab))
}

// expandLevel computes the successors of every state of a level, in
// parallel; results are in level order.
func (e *explorer) expandLevel(level []int32) []srcResult {
	if cap(e.results) < len(level) {
		e.results = make([]srcResult, len(level))
	}
	results := e.results[:len(level)]
	clear(results)
	var next atomic.Int64
	const chunk = 8
	nw := len(e.workers)
	if len(level) < 2*chunk {
		nw = 1
	}
	work := func(w *expWorker) {
		// The slab (results live until the merge) sized from the last
		// chunk; the scratch of the last chunk is used again.
		w.newChunk(slabSize(e.perState, len(level), nw))
		for {
			start := int(next.Add(chunk)) - chunk
			if start >= len(level) {
				return
			}
			var tried int64 // counted for the progress reports once per block
			for i := start; i < min(start+chunk, len(level)) && e.ctx.Err() == nil; i++ {
				e.expand(w, e.ex.StateKey(int(level[i])), &results[i])
				tried += results[i].tried
			}
			e.tried.Add(tried)
			if e.ctx.Err() != nil {
				return
			}
		}
	}
	e.onWorkers(nw, work)
	if len(level) > 0 {
		n := 0
		for i := range results {
			n += len(results[i].trans)
		}
		e.perState = float64(n) / float64(len(level))
	}
	return results
}

// onWorkers runs work on the first nw workers at once, the first on this
// goroutine, the others on the crew's helpers, and waits for them.
func (e *explorer) onWorkers(nw int, work func(w *expWorker)) {
	e.onHelpers(nw-1, func(i int) { work(e.workers[i+1]) }, func() { work(e.workers[0]) })
}

// expand tries every included action with every input combination in one
// state, the one with this key, into res (not returned: a result copied
// out of the registers stalls on store forwarding).
func (e *explorer) expand(w *expWorker, key string, res *srcResult) {
	*res = srcResult{}
	var tried int64
	start := len(w.trans)
	res.trans = w.trans[start:start]
	defer func() {
		// The segment of the slab this state filled; later appends may move
		// the slab, but the segment keeps its own backing array.
		n := len(res.trans)
		if n > 0 && n <= cap(w.trans)-start && &w.trans[:start+1][start] == &res.trans[0] {
			w.trans = w.trans[:start+n] // filled in place
		} else {
			w.trans = append(w.trans[:start], res.trans...)
		}
		res.trans = w.trans[start : start+n : start+n]
		res.tried = tried
	}()
	st, err := w.decodeSource(key)
	if err != nil {
		res.err = err
		res.done = true
		return
	}
	for ai := range e.info.Actions {
		ac := &e.cfg.Actions[ai]
		if ac.Exclude {
			continue
		}
		doms, rows, ok, err := e.inputs(w, st, ai, ac, &tried)
		if err != nil {
			if e.ctx.Err() != nil {
				return
			}
			pt := pendTrans{action: int32(ai), argsID: -1, outID: -1, first: true, x: &pendExtra{err: err}}
			res.enabled = true
			if e.one != nil {
				e.one.settle(e, &pt) // one worker settles as it goes: no merge reads res.trans
				continue
			}
			res.trans = append(res.trans, pt)
			continue
		}
		if !ok {
			continue
		}
		if !e.tryInputs(w, st, ai, doms, rows, res, &tried) {
			return // cancelled
		}
	}
	res.done = true
	return
}

// inputs evaluates an action's enabling condition and parameter domains in
// st, and the combinations of them to try (nil: all; see inputRows); ok is
// false when the action is disabled or a domain is empty. The domains live
// in w's buffers until the next call.
func (e *explorer) inputs(w *expWorker, st model.State, ai int, ac *ActionConfig, tried *int64) (doms [][]model.Value, rows [][]int, ok bool, err error) {
	if ac.Enabled != nil && ac.Kind == model.Controllable {
		v, err := w.Eval(ac.Enabled, st)
		if err != nil {
			return nil, nil, false, err
		}
		if !v.Truth() {
			*tried++
			return nil, nil, false, nil
		}
	}
	params := e.info.Actions[ai].Params
	doms = w.doms[:0]
	for range params {
		doms = append(doms, nil)
	}
	w.doms = doms
	empty := false
	for p := range params {
		vals, err := ParamDomain(w.Worker, e.info, ac, st, ai, p)
		if err != nil {
			return nil, nil, false, err
		}
		if len(vals) == 0 {
			empty = true
		}
		doms[p] = vals
	}
	if empty {
		return doms, nil, false, nil
	}
	if ac.Combine >= 2 {
		rows, err = e.inputRows(ac, ai, doms)
	}
	return doms, rows, err == nil, err
}

// tryInputs tries the action with the combinations of inputs from doms
// (rows of indices, or every one when rows is nil) and appends the pending
// transitions to res; false when cancelled.
func (e *explorer) tryInputs(w *expWorker, st model.State, ai int, doms [][]model.Value, rows [][]int, res *srcResult, tried *int64) bool {
	idx := w.idx[:0]
	for range doms {
		idx = append(idx, 0)
	}
	w.idx = idx
	next := firstInputs(idx, rows)
	// Canonical keys of the domain values, computed once per state, or
	// remembered with their input ids from the last state that had the
	// same domain (no parameter, or one).
	memo := w.memo(ai, len(e.info.Actions), doms)
	for len(w.dkeys) < len(doms) {
		w.dkeys = append(w.dkeys, nil)
	}
	dkeys := w.dkeys[:len(doms)]
	if memo != nil {
		dkeys = memo.keys // not into w.dkeys: the next action would write over the memo's keys
	} else {
		for p, vals := range doms {
			dkeys[p] = dkeys[p][:0]
			for _, v := range vals {
				dkeys[p] = append(dkeys[p], w.key(v))
			}
		}
	}
	pk, prune := -1, false
	if w.prefix != nil && len(doms) > 0 {
		pk, prune = w.prefix.GuardPrefix(ai)
	}
	for {
		if prune && rows == nil && w.prefixDisabled(st, ai, doms, idx, pk, tried) {
			// every combination with these first pk arguments: skipped
			for p := pk; p < len(doms); p++ {
				idx[p] = len(doms[p]) - 1
			}
			if !nextCombination(idx, doms) {
				return true
			}
			continue
		}
		if prune && rows != nil {
			if skipped, more := w.skipRows(st, ai, doms, rows, idx, pk, &next, tried); !more {
				return true
			} else if skipped {
				continue
			}
		}
		var argsKey string // needed only for inputs not interned yet
		var args []model.Value
		argsID := memo.id(idx)
		switch {
		case argsID >= 0:
			args = e.ex.ArgTable[argsID]
		case memo != nil:
			args, argsKey, argsID = e.memoInputs(memo, idx, doms)
		default:
			argsKey = inputsKey(dkeys, idx)
			if id, known := e.argIDs[argsKey]; known {
				argsID, args = id, e.ex.ArgTable[id]
			} else {
				args = inputsAt(doms, idx)
			}
		}
		*tried++
		outs, err := w.step(st, ai, args)
		if err != nil {
			return false // cancelled
		}
		if len(outs) > 0 {
			res.enabled = true
		}
		for k := range outs {
			o := &outs[k] // not a copy: reading it whole stalls on the step's narrow stores
			if e.one != nil {
				if handled, cancelled := e.settleOne(w, ai, argsID, k == 0, o); cancelled {
					return false
				} else if handled {
					continue
				}
				var pt pendTrans
				if !e.pending(w, ai, argsID, argsKey, args, k == 0, o, &pt) {
					return false
				}
				e.one.settle(e, &pt)
				continue
			}
			res.trans = append(res.trans, pendTrans{})
			if !e.pending(w, ai, argsID, argsKey, args, k == 0, o, &res.trans[len(res.trans)-1]) {
				return false
			}
		}
		if !nextInputs(idx, doms, rows, &next) {
			return true
		}
	}
}

// pending fills pt, the pending transition of one outcome of a step, looking
// up (or evaluating once per chunk) its target; false when cancelled.
func (e *explorer) pending(w *expWorker, ai int, argsID int32, argsKey string, args []model.Value, first bool, o *model.Outcome, pt *pendTrans) bool {
	*pt = pendTrans{action: int32(ai), argsID: argsID, outID: -1, first: first}
	extra := func() *pendExtra {
		if pt.x == nil {
			pt.x = &pendExtra{args: args, argsKey: argsKey}
		}
		return pt.x
	}
	if argsID < 0 {
		extra()
	}
	if o.Err != nil {
		extra().err = o.Err
		return true
	}
	if id := e.outID(w, ai, o.Output); id >= 0 {
		pt.outID = id
	} else {
		x := extra()
		x.out, x.outKey = o.Output, string(w.buf)
	}
	key := o.Next.Key()
	pt.hk = e.hash(key)
	if id, known := e.lookup(pt.hk); known {
		pt.known, pt.to = true, id // its key is not kept until the merge
		return true
	}
	if e.one != nil {
		pt.absent = true // settled before the next step: no copy, no second look
	} else if w.scratch != nil {
		key = w.keep(key) // the worker's scratch holds it until its next step
	}
	pt.key = key
	if w.remember {
		if i, ok := w.cache.get(pt.hk); ok {
			pt.info = w.cached[i]
			return true
		}
	}
	info := e.evalTargetInto(w.Worker, o.Next, false, w.info())
	if info.err != nil && e.ctx.Err() != nil {
		return false
	}
	if w.remember {
		w.cache.set(pt.hk, int32(len(w.cached)))
		w.cached = append(w.cached, info)
	}
	pt.info = info
	return true
}

// inputMemo remembers an action's last domains (of scalars; none for an
// action without parameters), their values' keys and the ids of the
// inputs interned so far, per combination (-1 until known; interned ids
// never change).
type inputMemo struct {
	dom  []model.Value   // every parameter's values, one after the other: a copy (a model may fill the same slice again)
	lens []int           // each parameter's number of values
	keys [][]string      // each parameter's values' keys
	ids  []int32         // by combination (idx as a mixed-radix number)
	unk  []unknownInputs // by combination, while its id is -1
}

// unknownInputs are inputs not interned yet, as memoInputs keeps them.
type unknownInputs struct {
	args   []model.Value // nil until built; then never written again (interning keeps the slice)
	key    string
	looked int // 1 + the argument table's length at the last lookup that found nothing (0: none yet)
}

// maxMemoInputs bounds the combinations of inputs a memo holds.
const maxMemoInputs = 1 << 12

// memo returns the memo of action ai when doms are its last domains (or it
// has no parameter), made afresh when they changed; nil when a value is
// not a scalar or the combinations are too many.
func (w *expWorker) memo(ai, nactions int, doms [][]model.Value) *inputMemo {
	if w.memos == nil {
		w.memos = make([]inputMemo, nactions)
	}
	m := &w.memos[ai]
	if m.same(doms) {
		return m
	}
	combos := 1
	for _, vals := range doms {
		combos *= len(vals)
		if combos > maxMemoInputs {
			return nil
		}
		for _, v := range vals {
			if !model.Scalar(v) {
				return nil
			}
		}
	}
	m.dom, m.lens = m.dom[:0], m.lens[:0]
	for len(m.keys) < len(doms) {
		m.keys = append(m.keys, nil)
	}
	m.keys = m.keys[:len(doms)]
	for p, vals := range doms {
		m.dom = append(m.dom, vals...)
		m.lens = append(m.lens, len(vals))
		m.keys[p] = m.keys[p][:0]
		for _, v := range vals {
			m.keys[p] = append(m.keys[p], w.key(v))
		}
	}
	m.ids, m.unk = m.ids[:0], m.unk[:0]
	for range combos {
		m.ids = append(m.ids, -1)
		m.unk = append(m.unk, unknownInputs{}) // the last domains' slices are not written again
	}
	return m
}

// same tells whether doms are the memo's domains.
func (m *inputMemo) same(doms [][]model.Value) bool {
	if len(m.ids) == 0 || len(doms) != len(m.lens) {
		return false
	}
	off := 0
	for p, vals := range doms {
		if len(vals) != m.lens[p] {
			return false
		}
		for i, v := range vals {
			if v != m.dom[off+i] {
				return false
			}
		}
		off += len(vals)
	}
	return true
}

// combo is the index in ids of the inputs at idx.
func (m *inputMemo) combo(idx []int) int {
	c := 0
	for p, i := range idx {
		c = c*m.lens[p] + i
	}
	return c
}

// id returns the remembered id of the inputs at idx, or -1.
func (m *inputMemo) id(idx []int) int32 {
	if m == nil {
		return -1
	}
	return m.ids[m.combo(idx)]
}

// memoInputs returns the inputs at idx that m has no id for: their values
// and key, built once per combination (the tries of a combination that is
// never enabled, LamportMutex's p == q, would otherwise build them in every
// state), and their id once they are interned (looked up again only when
// the argument table has grown since the last look).
func (e *explorer) memoInputs(m *inputMemo, idx []int, doms [][]model.Value) (args []model.Value, key string, id int32) {
	c := m.combo(idx)
	u := &m.unk[c]
	if u.args == nil {
		u.args, u.key = inputsAt(doms, idx), inputsKey(m.keys, idx)
	}
	if n := len(e.ex.ArgTable) + 1; u.looked != n {
		if id, ok := e.argIDs[u.key]; ok {
			m.ids[c], m.unk[c] = id, unknownInputs{}
			return e.ex.ArgTable[id], "", id
		}
		u.looked = n
	}
	return u.args, u.key, -1
}

// inputsAt is a new slice of the inputs at idx: the argument table may
// keep it.
func inputsAt(doms [][]model.Value, idx []int) []model.Value {
	args := make([]model.Value, len(doms))
	for p := range doms {
		args[p] = doms[p][idx[p]]
	}
	return args
}

// inputsKey is the key of the inputs at idx, from their values' keys.
func inputsKey(dkeys [][]string, idx []int) string {
	switch len(dkeys) {
	case 0:
		return ""
	case 1:
		return dkeys[0][idx[0]]
	}
	var k string
	for p := range dkeys {
		k += dkeys[p][idx[p]]
	}
	return k
}

// prefixDisabled tells, at the first combination of a block that shares
// its first pk arguments, whether the action's guard is false for those
// alone (model.PrefixGuard); the block's tries are counted.
func (w *expWorker) prefixDisabled(st model.State, ai int, doms [][]model.Value, idx []int, pk int, tried *int64) bool {
	n := 1
	for p := pk; p < len(doms); p++ {
		if idx[p] != 0 {
			return false // within a block already asked about
		}
		n *= len(doms[p])
	}
	w.pargs = w.pargs[:0]
	for p := range pk {
		w.pargs = append(w.pargs, doms[p][idx[p]])
	}
	if !w.prefix.DisabledByPrefix(st, ai, w.pargs) {
		return false
	}
	*tried += int64(n)
	return true
}

// nextCombination advances idx, an odometer of indices into doms, to the
// next combination of inputs; false when all have been visited.
func nextCombination(idx []int, doms [][]model.Value) bool {
	for p := len(idx) - 1; p >= 0; p-- {
		idx[p]++
		if idx[p] < len(doms[p]) {
			return true
		}
		idx[p] = 0
	}
	return false
}

func exprPos(x model.Expr) string {
	if p := x.Pos(); p.File != "" {
		return p.String()
	}
	return "expression"
}

// merge adds the results of a level to the graph in level order, so the
// graph does not depend on how work was split between workers.
func (e *explorer) merge(level []int32, results []srcResult, depth int32) (next []int32, stopped string) {
	// Most pending transitions become transitions: room for them at once.
	pending := 0
	for i := range results {
		pending += len(results[i].trans)
	}
	if e.ex.dropped == nil {
		e.ex.Trans = grow(e.ex.Trans, pending)
	}
	for i, src := range level {
		r := &results[i]
		if !r.done {
			e.markFrontier(level[i:])
			return next, e.stopReason()
		}
		e.expanded(src, r)
		groupStart := e.transLen()
		for j := range r.trans {
			pt := &r.trans[j]
			if pt.first {
				groupStart = e.transLen()
			}
			if s := e.settle(src, pt, depth, groupStart, &next); s != "" {
				stopped = s
			}
		}
	}
	return next, stopped
}

// expanded records that src was expanded, with what it tried and its error.
func (e *explorer) expanded(src int32, r *srcResult) {
	e.ex.Stats.Tried += r.tried
	s := &e.ex.States[src]
	s.Expanded = true
	n := e.ex.note(int(src))
	if r.err != nil {
		n.err = e.ex.intern(r.err.Error())
		e.ex.setNote(int(src), n)
	}
	if r.done && !r.enabled && r.err == nil && !e.cfg.NoDeadlockCheck && !s.Accepting && !s.ModelErr && n.err == 0 {
		s.Deadlock = true
	}
}

// settle adds the pending transition pt from src to the graph (and its
// target, when new, to next); groupStart is where the transitions of pt's
// invocation begin. It returns why the search must stop, if it must.
func (e *explorer) settle(src int32, pt *pendTrans, depth int32, groupStart int, next *[]int32) (stopped string) {
	var to int32
	switch {
	case pt.x != nil && pt.x.err != nil:
		to = e.errorState(pt.x.err.Error(), depth+1)
	default:
		id, known := pt.to, pt.known
		if !known && !pt.absent {
			id, known = e.concrete.get(pt.hk)
		}
		if known {
			if id == filteredID || id == prunedID {
				return ""
			}
			to = id
			break
		}
		info := pt.info
		if info.err != nil {
			to = e.errorState(info.err.Error(), depth+1)
			e.concrete.set(pt.hk, to)
			break
		}
		if info.filtered {
			e.concrete.set(pt.hk, filteredID)
			e.ex.Stats.Filtered++
			return ""
		}
		if !e.newInGroups(info) {
			// Pruned with the transition that reached it (never
			// redirected to the state with the same values).
			e.concrete.set(pt.hk, prunedID)
			e.ex.Stats.Pruned++
			return ""
		}
		if e.cfg.MaxStates > 0 && len(e.ex.States) >= e.cfg.MaxStates {
			e.ex.States[src].Frontier = true
			return "max states"
		}
		to = e.addState(pt.key, pt.hk, depth+1, info)
		if info.invariant == "" || !e.cfg.StopOnError {
			*next = append(*next, to)
		}
	}
	return e.addTrans(MTrans{From: src, To: to, Action: pt.action, Args: e.internArgs(pt), Out: e.internOut(pt)}, groupStart)
}

// addTrans adds t to the graph unless an earlier outcome of its invocation
// (from groupStart on) added the same; it returns why the search must stop,
// if it must.
func (e *explorer) addTrans(t MTrans, groupStart int) (stopped string) {
	// Duplicates (same source, action, inputs, output and target) can only
	// come from one invocation: its choose() branches.
	d := e.ex.dropped
	group := e.ex.Trans[min(groupStart, len(e.ex.Trans)):]
	if d != nil {
		group = d.since(groupStart)
	}
	for j := len(group) - 1; j >= 0; j-- {
		if group[j] == t {
			return ""
		}
	}
	if e.cfg.MaxTransitions > 0 && e.transLen() >= e.cfg.MaxTransitions {
		e.ex.States[t.From].Frontier = true
		return "max transitions"
	}
	if e.twins {
		if k := e.cfg.Actions[t.Action].Kind; k == model.Observable || k == model.Internal {
			e.ex.States[t.From].obs = true // a passive twin in the graph (see hasObservables)
		}
	}
	if d != nil {
		d.count(t, e.ex.States)
		return ""
	}
	// Field by field into the array: t built on the stack and copied would
	// stall the copy's wide loads on the narrow stores (store forwarding).
	n := len(e.ex.Trans)
	e.ex.Trans = grow(e.ex.Trans, 1)[:n+1]
	p := &e.ex.Trans[n]
	p.From, p.To, p.Action, p.Args, p.Out = t.From, t.To, t.Action, t.Args, t.Out
	return ""
}

func (e *explorer) internArgs(pt *pendTrans) int32 {
	if pt.argsID >= 0 {
		return pt.argsID
	}
	if id, ok := e.argIDs[pt.x.argsKey]; ok {
		return id
	}
	id := int32(len(e.ex.ArgTable))
	e.ex.ArgTable = append(e.ex.ArgTable, pt.x.args)
	e.argIDs[pt.x.argsKey] = id
	return id
}

func (e *explorer) internOut(pt *pendTrans) int32 {
	if pt.outID >= 0 {
		return pt.outID
	}
	if id, ok := e.outIDs[pt.x.outKey]; ok {
		return id
	}
	id := int32(len(e.ex.OutTable))
	out := pt.x.out
	if out == nil {
		out = model.None
	}
	e.ex.OutTable = append(e.ex.OutTable, out)
	e.outIDs[pt.x.outKey] = id
	return id
}

// grow makes room for n more elements: it doubles the capacity when it
// must grow, up to growLarge elements, and grows it by a quarter beyond
// (append's growth, which leaves less unused: doubling a table of millions
// of states or transitions leaves up to half of it unused, and holds the old
// and the new table, three times the data, while it copies).
func grow[T any](s []T, n int) []T {
	if cap(s)-len(s) >= n {
		return s
	}
	c := 2 * cap(s)
	if cap(s) >= growLarge {
		c = cap(s) + cap(s)/4
	}
	t := make([]T, len(s), max(c, len(s)+n, 64))
	copy(t, s)
	return t
}

// growLarge is the capacity beyond which grow grows by a quarter.
const growLarge = 1 << 20

// trim returns s with no more than a fifth of its capacity unused (what
// grow leaves of a large table: no copy at the end).
func trim[T any](s []T) []T {
	if cap(s)-len(s) <= len(s)/4 {
		return s
	}
	return append([]T(nil), s...)
}

// newInGroups tells whether a state with these facts is new in some
// grouping (always, without groupings): otherwise the groupings prune it.
func (e *explorer) newInGroups(info *targetInfo) bool {
	if len(e.groups) == 0 {
		return true
	}
	for g, gm := range e.groups {
		if _, seen := gm.get(info.groupKeys[g]); !seen {
			return true
		}
	}
	return false
}
