package explore

import (
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/modex/modex/engine/model"
)

// One walk of a directed search (see walk.go): it reads the graph of the
// walks merged before its round and writes nothing but its record, which
// the merge adds to the graph.

// walkRec is what one walk did, waiting for the merge.
type walkRec struct {
	walk    int
	started bool // it drew its initial state (not cancelled before)
	initKey string
	initHK  hkey
	// initInfo holds the initial state's facts when the graph did not
	// have it; pruned: the groupings pruned it.
	initInfo targetInfo
	pruned   bool
	// exps are the expansions of the walk's first len(exps) states, steps
	// the transitions it took.
	exps  []walkExp
	steps []walkStep
	// err stops the search: an initial state's model error (as in
	// breadth-first search) or a weight's error.
	err error
}

// walkExp is what expanding a state found.
type walkExp struct {
	tried   int64
	enabled bool
	obs     bool  // an observable or internal transition can be taken
	avail   int32 // the transitions that can be taken
	err     error // the state could not be decoded
}

// walkStep is a transition a walk took.
type walkStep struct {
	pt     pendTrans  // its action, inputs, output and target's hash (info nil)
	key    string     // the target's key, when the walk had it new
	info   targetInfo // and its facts
	errMsg string     // the model error it leads to, if it does
}

// walkLocal holds the states a walk reached that the graph does not have
// yet (whether each violates the invariant) and their grouping values.
type walkLocal struct {
	states map[hkey]bool
	groups []map[hkey]struct{}
}

// add adds a state new to the graph.
func (l *walkLocal) add(e *explorer, hk hkey, info *targetInfo) {
	if l.states == nil {
		l.states = map[hkey]bool{}
	}
	l.states[hk] = info.invariant != ""
	if len(e.groups) == 0 {
		return
	}
	if l.groups == nil {
		l.groups = make([]map[hkey]struct{}, len(e.groups))
		for g := range l.groups {
			l.groups[g] = map[hkey]struct{}{}
		}
	}
	for g, k := range info.groupKeys {
		l.groups[g][k] = struct{}{}
	}
}

// newInGroups tells whether a state with these facts is new in some
// grouping: in the graph, in the walk and in more, the targets of the
// expansion before it (see explorer.newInGroups).
func (l *walkLocal) newInGroups(e *explorer, info *targetInfo, more *walkLocal) bool {
	for g, gm := range e.groups {
		k := info.groupKeys[g]
		if _, seen := gm.get(k); seen || l.seen(g, k) || more.seen(g, k) {
			continue
		}
		return true
	}
	return len(e.groups) == 0
}

// seen tells whether l has the value k in grouping g.
func (l *walkLocal) seen(g int, k hkey) bool {
	if l == nil || l.groups == nil {
		return false
	}
	_, ok := l.groups[g][k]
	return ok
}

// stateBad tells whether graph state id is an error state.
func (e *explorer) stateBad(id int32) bool {
	return e.ex.States[id].ModelErr || e.ex.note(int(id)).err != 0
}

// walkOne runs walk i on w into rec.
func (e *explorer) walkOne(w *expWorker, i int, rec *walkRec) {
	*rec = walkRec{walk: i}
	if e.ctx.Err() != nil {
		return
	}
	rec.started = true
	wr := e.walk
	rng := walkRand(wr.seed, i)
	rec.initKey = wr.inits[rng.IntN(len(wr.inits))]
	rec.initHK = e.hash(rec.initKey)
	var local walkLocal
	cur, bad, ok := e.walkFirst(w, rec, &local)
	if !ok {
		return
	}
	counts := make([]int, len(e.info.Actions))
	for range wr.depth {
		if bad && e.cfg.StopOnError || e.ctx.Err() != nil {
			return
		}
		w.newChunk(0) // the last step's pending transitions go
		var r srcResult
		e.expand(w, cur, &r)
		e.tried.Add(r.tried)
		if !r.done {
			return // cancelled: the state stays unexpanded (frontier)
		}
		x := walkExp{tried: r.tried, enabled: r.enabled, err: r.err}
		cands, ok := e.walkCands(w, &r, &local, &x)
		if !ok {
			return
		}
		rec.exps = append(rec.exps, x)
		if len(cands) == 0 {
			return
		}
		pick, err := e.walkPick(w, cur, cands, counts, rng)
		if err != nil {
			if e.ctx.Err() == nil {
				rec.err = err
			}
			return
		}
		if pick < 0 {
			return // every weight is 0
		}
		pt := &r.trans[pick]
		rec.steps = append(rec.steps, walkStepOf(pt))
		step := &rec.steps[len(rec.steps)-1]
		counts[pt.action]++
		switch b, known := local.states[pt.hk]; {
		case step.errMsg != "":
			return // a model error: no state to go on from
		case pt.known:
			cur, bad = e.ex.StateKey(int(pt.to)), e.stateBad(pt.to)
		case known:
			cur, bad = step.key, b
		default:
			local.add(e, pt.hk, &step.info)
			cur, bad = step.key, step.info.invariant != ""
		}
	}
}

// walkFirst evaluates the walk's initial state, unless the graph has it,
// and returns its key and whether it violates the invariant; ok is false
// when the walk cannot start (pruned, cancelled, or a model error in rec).
func (e *explorer) walkFirst(w *expWorker, rec *walkRec, local *walkLocal) (key string, bad, ok bool) {
	if id, known := e.concrete.get(rec.initHK); known {
		if id < 0 {
			rec.pruned = true
			return "", false, false
		}
		return e.ex.StateKey(int(id)), e.stateBad(id), true
	}
	st, err := w.Decode(rec.initKey)
	if err == nil {
		e.evalTargetInto(w.Worker, st, true, &rec.initInfo)
		err = rec.initInfo.err
	}
	if err != nil {
		if e.ctx.Err() != nil {
			rec.started = false // cancelled
		} else {
			rec.err = err
		}
		return "", false, false
	}
	if !local.newInGroups(e, &rec.initInfo, nil) {
		rec.pruned = true
		return "", false, false
	}
	local.add(e, rec.initHK, &rec.initInfo)
	return rec.initKey, rec.initInfo.invariant != "", true
}

// walkStepOf copies the pending transition a walk takes out of the
// worker's scratch.
func walkStepOf(pt *pendTrans) walkStep {
	s := walkStep{pt: *pt}
	s.pt.info = nil
	if pt.x != nil {
		x := *pt.x
		s.pt.x = &x
		if x.err != nil {
			s.errMsg = x.err.Error()
			return s
		}
	}
	if pt.known {
		return s
	}
	s.key = strings.Clone(pt.key)
	if pt.info.err != nil {
		s.errMsg = pt.info.err.Error()
		return s
	}
	s.info = *pt.info
	s.info.groupKeys = slices.Clone(pt.info.groupKeys)
	return s
}

// walkCand is a transition a walk can take: its index among the
// expansion's pending transitions, its action and its invocation (the
// action with inputs it is an outcome of).
type walkCand struct{ idx, action, inv int32 }

// walkCands lists the transitions of an expansion a walk can take: those
// breadth-first search would add to the graph (not filtered nor pruned,
// one of each outcome of an invocation); ok is false when cancelled.
func (e *explorer) walkCands(w *expWorker, r *srcResult, local *walkLocal, x *walkExp) (cands []walkCand, ok bool) {
	var fresh *walkLocal // with groupings, the new targets so far: the next are pruned by them, as the merge would
	if len(e.groups) > 0 {
		fresh = &walkLocal{}
	}
	inv, start := int32(-1), 0
	for j := range r.trans {
		pt := &r.trans[j]
		if pt.first {
			inv, start = inv+1, len(cands)
		}
		avail, ok := e.walkAvailable(w, pt, local, fresh)
		if !ok {
			return nil, false
		}
		if !avail || slices.ContainsFunc(cands[start:], func(c walkCand) bool { return sameOutcome(&r.trans[c.idx], pt) }) {
			continue
		}
		cands = append(cands, walkCand{idx: int32(j), action: pt.action, inv: inv})
		if k := e.cfg.Actions[pt.action].Kind; k == model.Observable || k == model.Internal {
			x.obs = true
		}
	}
	x.avail = int32(len(cands))
	return cands, true
}

// walkAvailable tells whether a walk can take pt (fresh, when not nil,
// holds the new targets available before it in the expansion, and gets
// pt's when it is one); ok is false when cancelled.
func (e *explorer) walkAvailable(w *expWorker, pt *pendTrans, local, fresh *walkLocal) (avail, ok bool) {
	switch {
	case pt.x != nil && pt.x.err != nil:
		return true, true
	case pt.known:
		return pt.to >= 0, true
	}
	if _, ok := local.states[pt.hk]; ok {
		return true, true
	}
	if fresh != nil {
		if _, ok := fresh.states[pt.hk]; ok {
			return true, true
		}
	}
	if pt.info.filtered {
		if _, initial := e.walk.initIdx.get(pt.hk); !initial {
			return false, true
		}
		// An initial state: breadth-first search has it before any step,
		// and filters no transition into it.
		st, err := w.Decode(pt.key)
		info := &targetInfo{err: err}
		if err == nil {
			info = e.evalTarget(w.Worker, st, true)
		}
		if info.err != nil && e.ctx.Err() != nil {
			return false, false
		}
		pt.info = info
	}
	if pt.info.err != nil {
		return true, true
	}
	if !local.newInGroups(e, pt.info, fresh) {
		return false, true
	}
	if fresh != nil {
		fresh.add(e, pt.hk, pt.info)
	}
	return true, true
}

// sameOutcome tells whether two outcomes of an invocation are the same
// transition (as addTrans finds duplicates).
func sameOutcome(a, b *pendTrans) bool {
	aerr, berr := a.x != nil && a.x.err != nil, b.x != nil && b.x.err != nil
	if aerr || berr {
		return aerr && berr && a.x.err.Error() == b.x.err.Error()
	}
	if a.hk != b.hk || a.outID != b.outID {
		return false
	}
	return a.outID >= 0 || a.x.outKey == b.x.outKey
}

// walkPick draws the transition a walk takes in the state with key cur: an
// action by weight, then one of its invocations, then one of its
// outcomes, uniformly. It returns the transition's index among the
// expansion's pending transitions, or -1 when every weight is 0.
func (e *explorer) walkPick(w *expWorker, cur string, cands []walkCand, counts []int, rng *rand.Rand) (int, error) {
	var acts []int32
	var weights []float64
	var st model.State
	total := 0.0
	for i, c := range cands {
		if i > 0 && c.action == cands[i-1].action {
			continue // an action's transitions are together
		}
		ac := &e.cfg.Actions[c.action]
		if ac.Weight != nil && ac.Count <= 0 && st == nil {
			var err error
			if st, err = w.Decode(cur); err != nil {
				return -1, err
			}
		}
		wt, err := ActionWeight(w.Worker, e.info, ac, int(c.action), st, counts[c.action])
		if err != nil {
			return -1, err
		}
		if wt > 0 {
			acts, weights = append(acts, c.action), append(weights, wt)
			total += wt
		}
	}
	if total <= 0 {
		return -1, nil
	}
	r := rng.Float64() * total
	pick := acts[len(acts)-1]
	for i, a := range acts {
		if r < weights[i] {
			pick = a
			break
		}
		r -= weights[i]
	}
	lo := slices.IndexFunc(cands, func(c walkCand) bool { return c.action == pick })
	hi := lo
	for hi < len(cands) && cands[hi].action == pick {
		hi++
	}
	mine := cands[lo:hi]
	var invs []int32 // the action's invocations with an outcome to take
	for _, c := range mine {
		if len(invs) == 0 || invs[len(invs)-1] != c.inv {
			invs = append(invs, c.inv)
		}
	}
	inv := invs[rng.IntN(len(invs))]
	lo = slices.IndexFunc(mine, func(c walkCand) bool { return c.inv == inv })
	hi = lo
	for hi < len(mine) && mine[hi].inv == inv {
		hi++
	}
	return int(mine[lo+rng.IntN(hi-lo)].idx), nil
}
