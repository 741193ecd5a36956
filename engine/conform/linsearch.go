package conform

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"sync/atomic"

	"github.com/modex/modex/engine/model"
)

// linEntry is an invocation or a completion in the search's list of the
// history's events (Wing & Gong): placing an operation takes both out.
type linEntry struct {
	op         int // index into linSearch.ops
	call       bool
	pos        int
	match      *linEntry
	prev, next *linEntry
}

// lift takes an invocation and its completion out of the list.
func lift(e *linEntry) {
	e.prev.next = e.next
	if e.next != nil {
		e.next.prev = e.prev
	}
	m := e.match
	m.prev.next = m.next
	if m.next != nil {
		m.next.prev = m.prev
	}
}

// unlift puts them back, in the reverse order.
func unlift(e *linEntry) {
	m := e.match
	m.prev.next = m
	if m.next != nil {
		m.next.prev = m
	}
	e.prev.next = e
	if e.next != nil {
		e.next.prev = e
	}
}

// stopByContext is the reason of a search stopped by its context (the
// time budget, or the user).
const stopByContext = "\x00context"

// errClosureBound: the model's internal actions lead to more states after
// one operation than the search takes (maxHistoryClosure).
var errClosureBound = fmt.Errorf("the model's internal actions lead to more than %d states after one operation", maxHistoryClosure)

// stopByNodes is the reason of a search that used up its round's steps.
const stopByNodes = "\x00nodes"

// linFrame is an operation placed: where it was, the state before it and
// the states it may lead to (a nondeterministic model gives several).
type linFrame struct {
	entry *linEntry
	prev  int32
	alts  []int32
	k     int // the alternative taken
}

// linSearch checks one partition of a history.
type linSearch struct {
	ctx context.Context
	t   *tester
	ops []linOp
	// maxBytes bounds used, the memory of all the searches of a history
	// together (bytes counts this one's share).
	maxBytes int64
	used     *atomic.Int64
	// maxNodes bounds the search's steps in this round (0: none); see
	// CheckHistory.
	maxNodes int
	// keys are the model states met, by number (objs: those kept as
	// states); ids numbers them by key. memo: the states an operation
	// leads to from a state.
	keys []string
	objs []model.State
	ids  map[string]int32
	memo map[memoKey][]int32
	sigs []int32 // ops' signature numbers (same action, inputs and output: same number)
	// raw: what an action with its inputs gives from a state, whatever
	// the output (reads of one key share it); calls numbers them.
	raw       map[memoKey][]rawOut
	calls     []int32
	memoBytes int
	// cache: (operations done, state) pairs already searched (Lowe), the
	// set of operations done as a 128-bit Zobrist hash: dh, the XOR of
	// the done operations' random words (zob).
	cache       map[cacheKey]struct{}
	bytes       int
	unsaid      int // bytes not yet added to used
	nodes       int
	done        []uint64
	zob         [][2]uint64
	dh          [2]uint64
	hasInternal bool
	best        linBest
	// The search's place, kept between runs: the list of events, the
	// operations placed, the next entry, the state, the required
	// operations not yet placed; the initial states and the one searched.
	head     *linEntry
	stack    []linFrame
	entry    *linEntry
	state    int32
	required int
	inits    []int32
	next     int
	running  bool
}

// linBest is the deepest point the search reached: the completion of an
// operation that could not be placed, after the longest prefix.
type linBest struct {
	set     bool
	pos     int
	op      int
	order   []int // linOp indexes, at most MaxOrder
	from    int
	state   int32
	pending []int
}

// run searches the partition from each initial state of the model, up to
// maxNodes steps in all (0: no bound). A search stopped by its steps
// (reason stopByNodes) goes on from where it was when run again with a
// larger bound, in the same goroutine or another (the search keeps its
// tester).
func (s *linSearch) run(maxNodes int) (out linOutcome) {
	out.ops = s.ops
	s.maxNodes = maxNodes
	defer func() {
		out.nodes, out.cached = s.nodes, len(s.cache)
		s.used.Add(int64(s.unsaid))
		s.unsaid = 0
	}()
	if s.head == nil {
		if err := s.start(); err != nil {
			return linOutcome{verdict: ModelError, reason: "init(): " + err.Error(), ops: s.ops}
		}
	}
	for s.next < len(s.inits) {
		if !s.running {
			s.state, s.entry, s.running = s.inits[s.next], s.head.next, true
		}
		found, stop, err := s.search(&out)
		switch {
		case errors.Is(err, errClosureBound):
			out.verdict, out.reason = Inconclusive, err.Error()
			return out
		case err != nil:
			out.verdict, out.reason = ModelError, "the model failed: "+err.Error()
			return out
		case found:
			out.verdict = Pass
			return out
		case stop != "":
			out.verdict, out.reason = Inconclusive, stop
			return out
		}
		s.unwind()
		s.next++
	}
	out.verdict = Fail
	s.fail(&out)
	return out
}

// start prepares a search: the list of events, the operations' numbers,
// the initial states.
func (s *linSearch) start() error {
	s.memo, s.cache, s.ids = map[memoKey][]int32{}, map[cacheKey]struct{}{}, map[string]int32{}
	s.raw = map[memoKey][]rawOut{}
	bySig, byCall := map[string]int32{}, map[string]int32{}
	s.sigs, s.calls = make([]int32, len(s.ops)), make([]int32, len(s.ops))
	number := func(m map[string]int32, k string) int32 {
		n, ok := m[k]
		if !ok {
			n = int32(len(m))
			m[k] = n
		}
		return n
	}
	for i := range s.ops {
		s.sigs[i] = number(bySig, s.ops[i].sig)
		s.calls[i] = number(byCall, s.ops[i].step)
		if !s.ops[i].optional {
			s.required++
		}
	}
	s.done = make([]uint64, (len(s.ops)+63)/64)
	// Fixed words: the same search, step for step, in every run.
	r := rand.New(rand.NewPCG(0x6d6f646578, uint64(len(s.ops))))
	s.zob = make([][2]uint64, len(s.ops))
	for i := range s.zob {
		s.zob[i] = [2]uint64{r.Uint64(), r.Uint64()}
	}
	for ai := range s.t.info.Actions {
		if ac := s.t.cfg.Actions[ai]; !ac.Exclude && ac.Kind == model.Internal {
			s.hasInternal = true
		}
	}
	s.head = s.entries()
	inits, err := model.InitialStates(s.t.w)
	if err == nil {
		inits, err = s.t.closure(inits)
	}
	if err == nil {
		inits, _, err = s.t.keepInvariant(inits)
	}
	if err != nil {
		return err
	}
	for _, st := range inits {
		s.inits = append(s.inits, s.intern(st))
	}
	return nil
}

// unwind takes back every placed operation, for the next initial state.
func (s *linSearch) unwind() {
	for len(s.stack) > 0 {
		top := s.stack[len(s.stack)-1]
		s.stack = s.stack[:len(s.stack)-1]
		s.setDone(top.entry.op, false)
		unlift(top.entry)
		if !s.ops[top.entry.op].optional {
			s.required++
		}
	}
	s.running = false
}

// entries builds the list of invocations and completions by position.
func (s *linSearch) entries() *linEntry {
	n := len(s.ops)
	all := make([]linEntry, 2*n)
	byPos := make([]*linEntry, 0, 2*n)
	for i := range s.ops {
		c, r := &all[2*i], &all[2*i+1]
		*c = linEntry{op: i, call: true, pos: s.ops[i].call, match: r}
		*r = linEntry{op: i, pos: s.ops[i].ret, match: c}
		byPos = append(byPos, c, r)
	}
	sort.SliceStable(byPos, func(i, j int) bool { return byPos[i].pos < byPos[j].pos })
	head := &linEntry{}
	prev := head
	for _, e := range byPos {
		e.prev, prev.next = prev, e
		prev = e
	}
	return head
}

// search is Wing & Gong's depth-first search with Lowe's cache: place the
// first invocation that the model accepts next (and whose (operations
// done, state) is new), and go back when a completion is reached before
// its operation was placed. found: every required operation is placed.
func (s *linSearch) search(out *linOutcome) (found bool, stop string, err error) {
	head, stack, entry, state, required := s.head, s.stack, s.entry, s.state, s.required
	defer func() { s.stack, s.entry, s.state, s.required = stack, entry, state, required }()
	for {
		if required == 0 {
			out.order, out.orderFrom = s.orderOf(stack)
			return true, "", nil
		}
		if s.maxNodes > 0 && s.nodes >= s.maxNodes {
			return false, stopByNodes, nil
		}
		s.nodes++
		if s.nodes&255 == 0 {
			if s.ctx.Err() != nil {
				return false, stopByContext, nil
			}
			total := s.used.Add(int64(s.unsaid))
			s.unsaid = 0
			if total > s.maxBytes {
				return false, fmt.Sprintf("the search's cache reached its memory bound (%d MB)", s.maxBytes>>20), nil
			}
		}
		if entry != nil && entry.call {
			o := &s.ops[entry.op]
			alts, err := s.successors(state, entry.op)
			if err != nil {
				return false, "", err
			}
			s.setDone(entry.op, true)
			if k := s.firstNew(alts, 0); k >= 0 {
				stack = append(stack, linFrame{entry: entry, prev: state, alts: alts, k: k})
				lift(entry)
				state = alts[k]
				if !o.optional {
					required--
				}
				entry = head.next
				continue
			}
			s.setDone(entry.op, false)
			entry = entry.next
			continue
		}
		// A completion before its operation took effect: go back.
		if entry != nil {
			s.note(head, entry, stack, state)
		}
		if len(stack) == 0 {
			return false, "", nil
		}
		top := &stack[len(stack)-1]
		if k := s.firstNew(top.alts, top.k+1); k >= 0 {
			top.k, state, entry = k, top.alts[k], head.next
			continue
		}
		stack = stack[:len(stack)-1]
		s.setDone(top.entry.op, false)
		unlift(top.entry)
		state = top.prev
		if !s.ops[top.entry.op].optional {
			required++
		}
		entry = top.entry.next
	}
}

// grow counts n more bytes of this search's (told to the others at the
// next check).
func (s *linSearch) grow(n int) {
	s.bytes += n
	s.unsaid += n
}

func (s *linSearch) setDone(i int, on bool) {
	if (s.done[i/64]&(1<<(i%64)) != 0) == on {
		return
	}
	s.done[i/64] ^= 1 << (i % 64)
	s.dh[0] ^= s.zob[i][0]
	s.dh[1] ^= s.zob[i][1]
}

// cacheKey is a set of operations done (its hash) and a state. Two sets
// with the same 128-bit hash would be taken for one: at 10^7 entries, a
// chance of about 10^-25, and it could only prune a branch of the search.
type cacheKey struct {
	done [2]uint64
	st   int32
}

// firstNew returns the first alternative from k on whose (operations done,
// state) the cache does not hold, and adds it; -1 when there is none.
func (s *linSearch) firstNew(alts []int32, k int) int {
	for ; k < len(alts); k++ {
		key := cacheKey{s.dh, alts[k]}
		if _, ok := s.cache[key]; ok {
			continue
		}
		s.cache[key] = struct{}{}
		s.grow(48)
		return k
	}
	return -1
}

// memoKey is an operation's signature number and a state's number.
type memoKey struct{ sig, st int32 }

// intern numbers a state, keeping it (an initial state, or a state of a
// model stepped without scratch).
func (s *linSearch) intern(st model.State) int32 {
	id := s.internKey(st.Key())
	s.objs[id] = st
	return id
}

// internKey numbers a state by its key (a copy of it is kept).
func (s *linSearch) internKey(k string) int32 {
	if id, ok := s.ids[k]; ok {
		return id
	}
	k = strings.Clone(k)
	id := int32(len(s.keys))
	s.ids[k] = id
	s.keys = append(s.keys, k)
	s.objs = append(s.objs, nil)
	s.grow(len(k) + 64)
	return id
}

// stateOf is state id as a model state.
func (s *linSearch) stateOf(id int32) (model.State, error) {
	if st := s.objs[id]; st != nil {
		return st, nil
	}
	return s.t.w.Decode(s.keys[id])
}

// successors are the states operation i leads to from state st with its
// recorded output, closed under internal actions, invariant kept.
func (s *linSearch) successors(st int32, i int) ([]int32, error) {
	key := memoKey{s.sigs[i], st}
	if alts, ok := s.memo[key]; ok {
		return alts, nil
	}
	o := &s.ops[i]
	outs, err := s.step(st, i)
	if err != nil {
		return nil, err
	}
	var ids []int32
	for _, r := range outs {
		if o.out != nil && !sameValue(r.out, o.out) {
			continue
		}
		for _, n := range r.next {
			if !slices.Contains(ids, n) {
				ids = append(ids, n)
			}
		}
	}
	s.memo[key] = ids
	s.grow(64 + 4*len(ids))
	return ids, nil
}

// rawOut is one outcome of a step: its output and the states it leads
// to (closed under internal actions, invariant kept).
type rawOut struct {
	out  model.Value
	next []int32
}

// step is the model's step for operation i's action and inputs from state
// st, remembered. A model that can step in scratch does (nothing of the
// states is kept but their keys).
func (s *linSearch) step(st int32, i int) ([]rawOut, error) {
	key := memoKey{s.calls[i], st}
	if outs, ok := s.raw[key]; ok {
		return outs, nil
	}
	o := &s.ops[i]
	var outs []rawOut
	if ss, ok := s.t.w.(model.ScratchStepper); ok && !s.hasInternal {
		src, err := ss.DecodeScratch(s.keys[st])
		if err != nil {
			return nil, err
		}
		res, _, err := ss.StepScratch(src, o.action, o.args)
		if err != nil {
			return nil, err
		}
		for _, r := range res {
			if r.Err != nil {
				return nil, r.Err
			}
			ro := rawOut{out: r.Output}
			msg, err := s.t.w.Invariant(r.Next) // before the next scratch step
			if err != nil {
				return nil, &modelError{err}
			}
			if msg == "" {
				ro.next = []int32{s.internKey(r.Next.Key())}
			}
			outs = append(outs, ro)
		}
	} else {
		from, err := s.stateOf(st)
		if err != nil {
			return nil, err
		}
		res, _, err := s.t.w.Step(from, o.action, o.args)
		if err != nil {
			return nil, err
		}
		// The worker reuses its outcomes' slice: the closure below steps
		// it again.
		res = append([]model.Outcome(nil), res...)
		for _, r := range res {
			if r.Err != nil {
				return nil, r.Err
			}
			next, err := s.t.closure([]model.State{r.Next})
			if err == nil && len(next) > s.t.tc.MaxStates {
				err = errClosureBound
			}
			if err == nil {
				next, _, err = s.t.keepInvariant(next)
			}
			if err != nil {
				return nil, err
			}
			ro := rawOut{out: r.Output}
			for _, n := range next {
				ro.next = append(ro.next, s.intern(n))
			}
			outs = append(outs, ro)
		}
	}
	s.raw[key] = outs
	s.grow(64 + 32*len(outs))
	return outs, nil
}

// note remembers the deepest completion reached unplaced: the history
// before it linearizes.
func (s *linSearch) note(head, e *linEntry, stack []linFrame, state int32) {
	if s.best.set && e.pos <= s.best.pos {
		return
	}
	s.best = linBest{set: true, pos: e.pos, op: e.op, state: state}
	s.best.order, s.best.from = s.orderOf(stack)
	for x := head.next; x != nil && x != e && len(s.best.pending) < 50; x = x.next {
		if x.call && x.op != e.op {
			s.best.pending = append(s.best.pending, s.ops[x.op].id)
		}
	}
}

// orderOf lists the placed operations (History.Ops indexes), the last
// MaxOrder of them, and how many come before.
func (s *linSearch) orderOf(stack []linFrame) ([]int, int) {
	from := max(0, len(stack)-MaxOrder)
	order := make([]int, 0, len(stack)-from)
	for _, f := range stack[from:] {
		order = append(order, s.ops[f.entry.op].id)
	}
	return order, from
}

// fail reports the deepest point: the operation that cannot be placed and
// why the model refuses it there.
func (s *linSearch) fail(out *linOutcome) {
	b := &s.best
	if !b.set {
		out.failure = &HistoryFailure{Message: "no linearization"}
		return
	}
	o := &s.ops[b.op]
	out.order, out.orderFrom = b.order, b.from
	st, err := s.stateOf(b.state)
	if err != nil {
		out.failure = &HistoryFailure{Op: o.id, Pending: b.pending, Message: err.Error()}
		return
	}
	f := &HistoryFailure{Op: o.id, Pending: b.pending, State: ModelState{Key: st.Key(), Vars: s.t.w.Vars(st)}}
	f.Message = s.explain(st, o, len(b.pending))
	out.failure = f
}

// explain says why an operation cannot take effect in a state; pending
// is how many other operations were pending then.
func (s *linSearch) explain(st model.State, o *linOp, pending int) string {
	name := s.t.info.Actions[o.action].Name
	args := make([]string, len(o.args))
	for i, a := range o.args {
		args[i] = shortValue(a)
	}
	call := name + "(" + strings.Join(args, ", ") + ")"
	outs, why, err := s.t.w.Step(st, o.action, o.args)
	if err != nil {
		return fmt.Sprintf("%s fails in the model: %v", call, err)
	}
	if len(outs) == 0 {
		if why != "" {
			return fmt.Sprintf("%s is not enabled after the prefix: %s", call, why)
		}
		return fmt.Sprintf("%s is not enabled after the prefix", call)
	}
	var gives []string
	for _, r := range outs {
		if r.Err == nil {
			gives = append(gives, shortValue(r.Output))
		}
	}
	if o.out != nil {
		match := false
		for _, r := range outs {
			match = match || r.Err == nil && sameValue(r.Output, o.out)
		}
		if !match {
			msg := fmt.Sprintf("%s returned %s, but after the prefix the model's %s gives %s", call, shortValue(o.out), call, strings.Join(gives, " or "))
			if pending > 0 {
				msg += fmt.Sprintf(" — and no order of the %s still pending lets it give %s", countText(pending, "operation"), shortValue(o.out))
			} else {
				msg += " — and no other operation was pending"
			}
			return msg
		}
	}
	return fmt.Sprintf("%s can take effect after the prefix, but then what completes later cannot be placed (every order was searched)", call)
}

// countText is "1 operation", "3 operations".
func countText(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return fmt.Sprintf("%d %ss", n, thing)
}
