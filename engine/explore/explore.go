package explore

import (
	"context"
	"errors"
	"hash/maphash"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/modex/modex/engine/model"
)

const filteredID = -1

// prunedID marks, in explorer.concrete, a state that the groupings pruned.
const prunedID = -2

// hkey is a 128-bit hash of a state key or grouping value.
type hkey struct{ a, b uint64 }

func (e *explorer) hash(key string) hkey {
	if e.chk != nil {
		return checkHash(key)
	}
	return hkey{maphash.String(e.seeds[0], key), maphash.String(e.seeds[1], key)}
}

// expWorker is a model worker with the explorer's scratch space.
type expWorker struct {
	model.Worker
	scratch model.ScratchStepper // nil when the worker has no StepScratch
	prefix  model.PrefixGuard    // nil when the worker has no prefix guards
	pargs   []model.Value        // a prefix's arguments
	buf     []byte
	doms    [][]model.Value
	dkeys   [][]string
	idx     []int
	// trans is this worker's slab of pending transitions for the level:
	// every srcResult takes a segment of it (no slice per state).
	trans []pendTrans
	// infos are blocks of target infos, handed out one by one and used
	// again for the next chunk once a chunk is merged (infoBlock and
	// infoUsed say how far this chunk got).
	infos               [][]targetInfo
	infoBlock, infoUsed int
	// cache maps the targets met in this chunk to their infos in cached,
	// when remember is set: when there are several workers (one worker
	// settles a target at once: the index knows it next time) and the
	// facts cost more to evaluate again than to look up.
	remember bool
	cache    hindex
	cached   []*targetInfo
	// keys caches the canonical keys of scalar domain values, outs the ids
	// of interned scalar outputs.
	keys map[model.Value]string
	outs map[model.Value]int32
	last []lastOuts // per action
	// memos remember each action's inputs from state to state.
	memos []inputMemo
	// kept holds, in blocks, the keys of the chunk's new targets until the
	// merge has stored them (kblock is the block being filled).
	kept   [][]byte
	kblock int
	// The worker's fields are written at every step: padded so that two
	// workers never share a cache line (see model's cacheLinePad).
	_ [128]byte
}

// keptBlock is the size of a block of kept keys.
const keptBlock = 64 << 10

// keep copies a key out of the model's scratch into the worker's blocks,
// where it stays until the next chunk (no allocation per key).
func (w *expWorker) keep(key string) string {
	if len(key) == 0 || len(key) > keptBlock/4 {
		return strings.Clone(key)
	}
	for w.kblock < len(w.kept) && cap(w.kept[w.kblock])-len(w.kept[w.kblock]) < len(key) {
		w.kblock++
	}
	if w.kblock == len(w.kept) {
		w.kept = append(w.kept, make([]byte, 0, keptBlock))
	}
	b := w.kept[w.kblock]
	off := len(b)
	b = append(b, key...)
	w.kept[w.kblock] = b
	return unsafe.String(&b[off], len(key))
}

// decodeSource decodes a state to expand, in the worker's scratch when it
// has one.
func (w *expWorker) decodeSource(key string) (model.State, error) {
	if w.scratch != nil {
		return w.scratch.DecodeScratch(key)
	}
	return w.Decode(key)
}

// step tries an action, its outcomes' states in the worker's scratch when it
// has one (a key the explorer keeps is copied: see pending).
func (w *expWorker) step(st model.State, ai int, args []model.Value) ([]model.Outcome, error) {
	if w.scratch != nil {
		outs, _, err := w.scratch.StepScratch(st, ai, args)
		return outs, err
	}
	outs, _, err := w.Step(st, ai, args)
	return outs, err
}

// info hands out a zeroed targetInfo from the worker's blocks.
func (w *expWorker) info() *targetInfo {
	for w.infoBlock < len(w.infos) && w.infoUsed == len(w.infos[w.infoBlock]) {
		w.infoBlock, w.infoUsed = w.infoBlock+1, 0
	}
	if w.infoBlock == len(w.infos) {
		w.infos = append(w.infos, make([]targetInfo, 256))
	}
	t := &w.infos[w.infoBlock][w.infoUsed]
	w.infoUsed++
	*t = targetInfo{groupKeys: t.groupKeys[:0]}
	return t
}

// newChunk makes the worker's scratch ready for a chunk: the last chunk's
// results are merged, nothing refers to its pending transitions, infos or
// cache any more.
func (w *expWorker) newChunk(slab int) {
	if cap(w.trans) < slab || cap(w.trans) > 4*max(slab, maxSlab) {
		// Too small, or grown far past what the next chunk needs (a
		// chunk with a state of huge fan-out): the room is given back.
		w.trans = make([]pendTrans, 0, slab)
	} else {
		clear(w.trans) // let the last chunk's keys and infos go (its length is what it used)
		w.trans = w.trans[:0]
	}
	w.infoBlock, w.infoUsed = 0, 0
	for i := range w.kept {
		w.kept[i] = w.kept[i][:0]
	}
	w.kblock = 0
	w.cache.reset()
	clear(w.cached)
	w.cached = w.cached[:0]
}

// outID returns the id of an interned output, or -1 with the output's
// canonical key in w.buf; the ids of scalar outputs are cached (interned ids
// never change during an exploration).
func (e *explorer) outID(w *expWorker, ai int, out model.Value) int32 {
	sc := model.Scalar(out)
	var last *lastOuts
	if sc {
		if w.last == nil {
			w.last = make([]lastOuts, len(e.info.Actions))
		}
		last = &w.last[ai]
		for i := range last.v {
			if last.v[i] == out && last.v[i] != nil {
				return last.id[i]
			}
		}
		if id, ok := w.outs[out]; ok {
			last.put(out, id)
			return id
		}
	}
	w.buf, _ = model.AppendValuePath(w.buf[:0], out, "output")
	id, ok := e.outIDs[string(w.buf)]
	if !ok {
		return -1
	}
	if sc && len(w.outs) < 1<<16 {
		if w.outs == nil {
			w.outs = map[model.Value]int32{}
		}
		w.outs[out] = id
		last.put(out, id)
	}
	return id
}

// lastOuts are the last two interned scalar outputs of an action and their
// ids (an action's outputs repeat: compared first, before the map).
type lastOuts struct {
	v  [2]model.Value
	id [2]int32
}

// put makes out the most recent.
func (l *lastOuts) put(out model.Value, id int32) {
	l.v[1], l.id[1] = l.v[0], l.id[0]
	l.v[0], l.id[0] = out, id
}

// key returns the canonical key of a domain value, cached for scalars.
func (w *expWorker) key(v model.Value) string {
	if model.Scalar(v) {
		if k, ok := w.keys[v]; ok {
			return k
		}
		w.buf, _ = model.AppendValuePath(w.buf[:0], v, "input")
		k := string(w.buf)
		if w.keys == nil {
			w.keys = map[model.Value]string{}
		}
		if len(w.keys) < 1<<16 {
			w.keys[v] = k
		}
		return k
	}
	w.buf, _ = model.AppendValuePath(w.buf[:0], v, "input")
	return string(w.buf)
}

type targetInfo struct {
	filtered  bool
	groupKeys []hkey
	label     string
	accepting bool
	invariant string
	err       error
}

// pendTrans is a transition found by a worker, waiting for the merge.
type pendTrans struct {
	action int32
	argsID int32 // -1 when the inputs are not interned yet (see x)
	outID  int32 // -1 when the output is not interned yet (see x)
	to     int32 // the target's id when known was set
	known  bool  // the target was in the index when the step found it
	absent bool  // it was not, and pt is settled before the index changes (one worker)
	first  bool  // the first outcome of its (action, inputs) invocation
	hk     hkey
	key    string
	info   *targetInfo
	x      *pendExtra // rarely needed: new inputs or output, or a model error
}

type pendExtra struct {
	args    []model.Value
	argsKey string
	out     model.Value
	outKey  string
	err     error
}

type srcResult struct {
	err   error // the state could not be decoded
	done  bool
	tried int64
	trans []pendTrans
	// enabled is set when some step succeeded or failed with a model
	// error (a state without it is a deadlock, unless accepting).
	enabled bool
}

type explorer struct {
	ctx     context.Context
	m       model.Model
	info    *model.ModelInfo
	cfg     *Config
	workers []*expWorker
	ex      *Exploration
	// concrete maps the hash of every state key reached (including merged
	// and filtered ones) to its state id or filteredID; groups map grouping
	// values (hashed) to representatives. Keys are 128-bit hashes computed
	// once, in the workers: the maps hold no pointers for the GC to scan and
	// the sequential merge hashes nothing. (Two different keys colliding on
	// the 96 bits the index keeps is far less likely than a hardware error:
	// see hslot.)
	concrete hindex
	// longLived is what the exploration counts in model.AddLongLived.
	longLived int64
	groups    []*hindex
	seeds     [2]maphash.Seed
	argIDs    map[string]int32
	outIDs    map[string]int32
	tried     atomic.Int64
	nstates   atomic.Int64
	ntrans    atomic.Int64
	start     time.Time
	lastSnap  time.Time
	// perState is the number of pending transitions per state of the last
	// level, to size the next level's slabs (growing them by doubling
	// copied every pending transition about twice).
	perState float64
	// results is the chunk's results, its array used again by the next.
	results []srcResult
	// one is set when there is one worker: it expands on this goroutine and
	// settles each transition as soon as it is found (see settleAtOnce).
	one *settleAtOnce
	// twins: the graph has passive twins (Config.extended), whose states
	// addTrans marks (MState.obs)
	twins bool
	walk  *walkRun // a directed search's (Config.Search = SearchWalks)
	// chk is set in the checking mode (Check): keys are hashed to
	// fingerprints and looked up in its set, not in concrete.
	chk *checker
	// crew runs the workers but the first (crew.go), from its first use
	// to the end of the run.
	crew *crew
}

// settleAtOnce is the state of an exploration with one worker. Its worker
// settles each transition into the graph as soon as the step finds it, in
// the order the merge would: there is nothing to keep for a merge (no
// pending transitions, no copies of the targets' keys, no second look in
// the index), 10–30 % faster on Go-native models. One difference from
// expanding and merging: a state whose expansion is cancelled half-way
// keeps the transitions found so far (it is frontier, as a state cut off by
// a bound is, and so are the targets it reached).
type settleAtOnce struct {
	src     int32 // the state being expanded
	depth   int32
	group   int     // where the transitions of the current invocation begin
	next    []int32 // the next level
	stopped string  // why the search must stop, when a bound was hit
}

// settle adds pt, an outcome of the invocation being tried in src.
func (o *settleAtOnce) settle(e *explorer, pt *pendTrans) {
	if pt.first {
		o.group = e.transLen()
	}
	o.stop(e.settle(o.src, pt, o.depth, o.group, &o.next))
}

// stop keeps the first reason why the search must stop ("" for none).
func (o *settleAtOnce) stop(why string) {
	if why != "" && o.stopped == "" {
		o.stopped = why
	}
}

// settleOne settles, with one worker, an outcome whose inputs and output
// are interned already (most outcomes once an exploration is under way):
// a known target with no pending transition, a new one as pending and
// settle would. handled is false when the outcome is not such a one;
// cancelled is true when the target's facts were cut off by a cancel.
func (e *explorer) settleOne(w *expWorker, ai int, argsID int32, first bool, o *model.Outcome) (handled, cancelled bool) {
	if argsID < 0 || o.Err != nil {
		return false, false
	}
	outID := e.outID(w, ai, o.Output)
	if outID < 0 {
		return false, false
	}
	one := e.one
	key := o.Next.Key()
	hk := e.hash(key)
	to, known := e.concrete.get(hk)
	if !known {
		var pt pendTrans // field by field (see addTrans)
		pt.action, pt.argsID, pt.outID, pt.first, pt.absent, pt.hk, pt.key = int32(ai), argsID, outID, first, true, hk, key
		pt.info = e.evalTargetInto(w.Worker, o.Next, false, w.info())
		if pt.info.err != nil && e.ctx.Err() != nil {
			return true, true
		}
		one.settle(e, &pt)
		return true, false
	}
	if first {
		one.group = e.transLen()
	}
	if to == filteredID || to == prunedID {
		return true, false
	}
	one.stop(e.addTrans(MTrans{From: one.src, To: to, Action: int32(ai), Args: argsID, Out: outID}, one.group))
	return true, false
}

// expandAtOnce expands a level with one worker, settling as it goes.
func (e *explorer) expandAtOnce(level []int32, depth int32) (next []int32, stopped string) {
	o := e.one
	o.depth, o.next, o.stopped = depth, nil, ""
	w := e.workers[0]
	for i, src := range level {
		if i%levelChunk == 0 {
			w.newChunk(0) // the chunk's target facts and cache go
			e.counted()
		}
		var r srcResult
		if e.ctx.Err() == nil {
			o.src = src
			e.expand(w, e.ex.StateKey(int(src)), &r)
		}
		if !r.done {
			e.markFrontier(level[i:])
			return o.next, e.stopReason()
		}
		e.expanded(src, &r)
		e.tried.Add(r.tried)
	}
	e.counted()
	return o.next, o.stopped
}

// Explore explores the model under the configuration into a state graph.
// It returns an error only when exploration cannot start (the initial state
// fails, a domain is missing); model errors met on the way become error
// states. A cancelled or bounded exploration returns what it found, marked
// incomplete. Config.Search = SearchWalks makes it a directed search: the
// graph of what sampled walks visit (see walk.go).
func Explore(ctx context.Context, m model.Model, cfg *Config) (*Exploration, error) {
	if cfg == nil {
		cfg = DefaultConfig(m)
	}
	n := cfg.Workers
	if n <= 0 {
		n = runtime.NumCPU()
	}
	e := &explorer{
		m: m, info: m.Info(), cfg: cfg,
		seeds:  [2]maphash.Seed{maphash.MakeSeed(), maphash.MakeSeed()},
		argIDs: map[string]int32{},
		outIDs: map[string]int32{},
		ex:     &Exploration{Model: m, Config: cfg},
		start:  time.Now(),
		twins:  cfg.extended(),
	}
	if cfg.DropTransitions && cfg.Snapshot == nil && cfg.Search != SearchWalks {
		e.ex.dropped = &dropped{}
	}
	if err := e.addWorkers(n); err != nil {
		return nil, err
	}
	defer e.stopCrew()
	if n == 1 && cfg.Search != SearchWalks { // walks settle nothing as they go (see walk.go)
		e.one = &settleAtOnce{}
	}
	for range cfg.Groupings {
		e.groups = append(e.groups, &hindex{})
	}
	if cfg.MaxTime > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, cfg.MaxTime)
		defer cancel()
	}
	ctx, stopWatch := model.WatchMemoryFinal(ctx, cfg.MemoryBudget)
	defer stopWatch()
	e.ctx = ctx
	stop := context.AfterFunc(ctx, func() {
		why := "exploration cancelled"
		if msg, ok := model.MemoryExceeded(ctx); ok {
			why = msg
		} else if errors.Is(ctx.Err(), context.DeadlineExceeded) && cfg.MaxTime > 0 {
			why = "the exploration's max time ran out"
		}
		for _, w := range e.workers {
			w.Cancel(why)
		}
	})
	defer stop()
	// The check evaluates the domains: model code, under the same budgets.
	if err := cfg.Check(m, e.workers[0].Worker); err != nil {
		stopWatch()
		if ctx.Err() != nil {
			return nil, model.Stopped(context.Cause(ctx), err)
		}
		return nil, err
	}
	done := make(chan struct{})
	var progressWG sync.WaitGroup
	if cfg.Progress != nil {
		progressWG.Add(1)
		go e.progressLoop(done, &progressWG)
	}
	defer func() { model.AddLongLived(-e.longLived) }()
	err := e.search()
	close(done)
	progressWG.Wait()
	if err != nil {
		return nil, err
	}
	// A budget exceeded after the last poll (one huge allocation just
	// before the end) still makes the exploration incomplete.
	if msg := stopWatch(); msg != "" && e.ex.Stats.StoppedBy == "" {
		e.ex.Stats.StoppedBy = msg
	}
	// Growth by doubling may leave up to half the arrays unused: what the
	// exploration keeps is trimmed to size.
	if st := e.ex.Stats.StoppedBy; st != "cancelled" && !strings.Contains(st, "memory budget") {
		// Not when cancelled (the user waits for the partial result:
		// copying 10^7 states takes half a second) nor past the memory
		// budget (the copy would need more).
		e.ex.States, e.ex.Trans, e.ex.notes = trim(e.ex.States), trim(e.ex.Trans), trim(e.ex.notes)
	}
	e.ex.Stats.States = len(e.ex.States)
	e.ex.Stats.Transitions = e.transLen()
	e.ex.countStates()
	e.ex.Stats.Seconds = time.Since(e.start).Seconds()
	e.ex.Stats.Complete = e.ex.Stats.StoppedBy == "" && e.covered()
	if cfg.Progress != nil {
		cfg.Progress(e.progress(true))
	}
	return e.ex, nil
}

// addWorkers makes the exploration's n workers.
func (e *explorer) addWorkers(n int) error {
	for range n {
		w, err := e.m.NewWorker()
		if err != nil {
			return err
		}
		w.SetBudget(e.cfg.StepBudget)
		ew := &expWorker{Worker: w}
		ew.scratch, _ = w.(model.ScratchStepper)
		ew.prefix, _ = w.(model.PrefixGuard)
		// Groupings format and hash their values: worth remembering.
		_, cheap := w.(model.CheapFacts)
		ew.remember = n > 1 && (!cheap || len(e.cfg.Groupings) > 0)
		e.workers = append(e.workers, ew)
	}
	return nil
}

func (e *explorer) progress(done bool) Progress {
	secs := time.Since(e.start).Seconds()
	p := Progress{States: int(e.nstates.Load()), Transitions: int(e.ntrans.Load()), Tried: e.tried.Load(), Seconds: secs, Done: done}
	if secs > 0 {
		p.Rate = float64(p.Tried) / secs
	}
	return p
}

func (e *explorer) progressLoop(done chan struct{}, wg *sync.WaitGroup) {
	defer wg.Done()
	every := e.cfg.ProgressEvery
	if every <= 0 {
		every = 100 * time.Millisecond
	}
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-done:
			return
		case <-t.C:
			e.cfg.Progress(e.progress(false))
		}
	}
}

func (e *explorer) stopReason() string {
	if msg, ok := model.MemoryExceeded(e.ctx); ok {
		return msg
	}
	if errors.Is(e.ctx.Err(), context.DeadlineExceeded) && e.cfg.MaxTime > 0 {
		return "max time"
	}
	return "cancelled"
}

func (e *explorer) run() error {
	inits, err := e.initialStates()
	if err != nil {
		return err
	}
	e.reserve(inits.n)
	var level []int32
	// Every initial state is a state of depth 0, as TLC counts them
	// (filters do not apply to initial states); one whose grouping values
	// an earlier one has already is pruned, as a state reached by a step
	// would be.
	var bufs [2]initEval
	var job *initJob // the batch being evaluated
	if inits.n > 0 {
		job = e.startInits(inits, 0, &bufs[0])
	}
	defer func() {
		if job != nil {
			e.abandon(job) // an error: the helpers are done with the workers
		}
	}()
	for lo := 0; lo < inits.n; lo += initBatch {
		e.finish(job)
		cur := job
		job = nil
		if hi := lo + initBatch; hi < inits.n {
			job = e.startInits(inits, hi, &bufs[(lo/initBatch+1)%2])
		}
		inits.done(lo-initBatch, lo)
		e.counted() // the tables grow: counted as long-lived
		cancelled, err := e.addInits(inits, cur, &level)
		if err != nil {
			return err
		}
		if cancelled {
			if job != nil {
				e.abandon(job) // before the keys are let go
				job = nil
			}
			break
		}
	}
	if r, ok := e.workers[0].Worker.(model.InitReleaser); ok && e.cfg.ReleaseInits && inits.keys != nil {
		inits.keys = nil
		r.ReleaseInitKeys()
	}
	e.counted()
	for depth := int32(0); len(level) > 0; depth++ {
		if e.ctx.Err() != nil {
			e.markFrontier(level)
			e.ex.Stats.StoppedBy = e.stopReason()
			return nil
		}
		if e.cfg.MaxDepth > 0 && int(depth) >= e.cfg.MaxDepth {
			e.markFrontier(level)
			e.ex.Stats.StoppedBy = "max depth"
			return nil
		}
		next, stopped := e.expandAndMerge(level, depth)
		if stopped != "" {
			e.ex.Stats.StoppedBy = stopped
			e.markFrontier(next)
			return nil
		}
		level = next
		e.snapshot(false)
	}
	return nil
}

// addInits adds an evaluated batch of initial states, in order, the
// unpruned ones to level; cancelled when the run was cancelled before the
// end of the batch (the states so far, at least one, are frontier).
func (e *explorer) addInits(inits *initSource, j *initJob, level *[]int32) (cancelled bool, err error) {
	for k := range j.n {
		if e.ctx.Err() != nil && len(e.ex.States) > 0 {
			return true, nil
		}
		info, hk := &j.b.infos[k], j.b.hashes[k]
		if info.err != nil {
			if e.ctx.Err() != nil { // stopped, not the model's error
				return false, model.Stopped(context.Cause(e.ctx), info.err)
			}
			return false, info.err
		}
		if _, known := e.concrete.get(hk); known {
			continue
		}
		if !e.newInGroups(info) {
			e.concrete.set(hk, prunedID)
			e.ex.Stats.Pruned++
			continue
		}
		id := e.addState(inits.key(j.lo+k), hk, 0, info)
		e.ex.States[id].Initial = true
		if info.invariant == "" || !e.cfg.StopOnError {
			*level = append(*level, id)
		}
	}
	return false, nil
}

// levelChunk is how many states of a level are expanded before their
// results are merged: what waits for the merge (pending transitions, the
// targets' keys and facts) is bounded by a chunk, not by a level, which in
// a breadth-first search can hold half of all states.
var levelChunk = 4096 // a variable for tests

// expandAndMerge expands a level chunk by chunk, merging each chunk's
// results in level order before the next is expanded: the graph is the one
// a whole-level merge gives (a target a chunk added is known to the next,
// as it would be found in the map by the whole-level merge).
func (e *explorer) expandAndMerge(level []int32, depth int32) (next []int32, stopped string) {
	if e.one != nil {
		return e.expandAtOnce(level, depth)
	}
	for off := 0; off < len(level); off += levelChunk {
		part := level[off:min(off+levelChunk, len(level))]
		n, s := e.merge(part, e.expandLevel(part), depth)
		e.counted()
		next = append(next, n...)
		if stopped == "" {
			stopped = s
		}
	}
	return next, stopped
}

// snapshot hands a copy of the graph so far to cfg.Snapshot, rate-limited.
func (e *explorer) snapshot(force bool) {
	if e.cfg.Snapshot == nil {
		return
	}
	every := e.cfg.SnapshotEvery
	if every <= 0 {
		every = 200 * time.Millisecond
	}
	if !force && time.Since(e.lastSnap) < every {
		return
	}
	e.lastSnap = time.Now()
	x := *e.ex
	x.walks = e.ex.walks.snapshot()
	// States change (flags) as the search goes on: copy them. Transitions and
	// the interned tables only grow: share what exists now.
	x.States = append([]MState(nil), e.ex.States...)
	x.notes = append([]stateNote(nil), e.ex.notes...) // an expansion's error changes them too
	x.Trans = e.ex.Trans[:len(e.ex.Trans):len(e.ex.Trans)]
	x.ArgTable = e.ex.ArgTable[:len(e.ex.ArgTable):len(e.ex.ArgTable)]
	x.OutTable = e.ex.OutTable[:len(e.ex.OutTable):len(e.ex.OutTable)]
	// The key arena's chunks only grow past what the copied states use.
	x.keys = append([][]byte(nil), e.ex.keys...)
	// The string table only grows: share what exists now.
	x.strs = e.ex.strs[:len(e.ex.strs):len(e.ex.strs)]
	x.Stats.States, x.Stats.Transitions = len(x.States), len(x.Trans)
	x.Stats.Seconds = time.Since(e.start).Seconds()
	e.cfg.Snapshot(&x)
}

// counted sets the states and transitions counted for progress reports
// (they are counted once per merge, not one by one).
func (e *explorer) counted() {
	e.nstates.Store(int64(len(e.ex.States)))
	e.ntrans.Store(int64(e.transLen()))
	n := e.tableBytes()
	model.AddLongLived(n - e.longLived)
	e.longLived = n
}

// reserve makes room in the tables for n states, the initial ones: the
// tables do not grow while they are added (Bakery's 655,200; a table
// grown near the end has its old and new arrays alive at the run's peak).
func (e *explorer) reserve(n int) {
	e.ex.States = slices.Grow(e.ex.States, n)
	if len(e.groups) > 0 { // every state has a label
		e.ex.notes = slices.Grow(e.ex.notes, len(e.ex.States)+n-len(e.ex.notes))
	}
	e.concrete.reserve(n)
}

// tableBytes is the size of the exploration's long-lived, pointer-free
// tables: states, transitions, keys and the index of keys.
func (e *explorer) tableBytes() int64 {
	n := int64(cap(e.ex.States))*int64(unsafe.Sizeof(MState{})) +
		int64(cap(e.ex.Trans))*int64(unsafe.Sizeof(MTrans{})) +
		int64(len(e.concrete.slots))*int64(unsafe.Sizeof(hslot{})) +
		int64(cap(e.ex.notes))*int64(unsafe.Sizeof(stateNote{}))
	if d := e.ex.dropped; d != nil {
		n += int64(cap(d.preds))*int64(unsafe.Sizeof(pred{})) + int64(cap(d.steps))*int64(unsafe.Sizeof(predStep{})) +
			int64(len(d.stepIDs))*stepIDBytes
	}
	for _, k := range e.ex.keys {
		n += int64(cap(k))
	}
	return n
}

func (e *explorer) markFrontier(ids []int32) {
	for _, id := range ids {
		s := &e.ex.States[id]
		if !s.ModelErr {
			s.Frontier = true
		}
	}
}

// addState adds a state: its key, the key's hash, its depth and facts.
func (e *explorer) addState(key string, hk hkey, depth int32, info *targetInfo) int32 {
	id := int32(len(e.ex.States))
	c, off := e.ex.storeKey(key)
	// Field by field into the array (see addTrans).
	e.ex.States = grow(e.ex.States, 1)[:id+1]
	s := &e.ex.States[id]
	s.setKeyLoc(c, off)
	s.Depth = depth
	e.ex.setNote(int(id), stateNote{label: e.ex.intern(info.label), err: e.ex.intern(info.invariant)})
	s.Initial, s.Accepting, s.Expanded, s.Frontier, s.ModelErr = false, info.accepting, false, false, false
	e.concrete.set(hk, id)
	for i, g := range e.groups {
		g.setIfAbsent(info.groupKeys[i], id)
	}
	return id
}

func (e *explorer) errorState(msg string, depth int32) int32 {
	key := "\xff!" + msg
	hk := e.hash(key)
	if id, ok := e.concrete.get(hk); ok {
		return id
	}
	id := int32(len(e.ex.States))
	s := MState{Depth: depth, ModelErr: true}
	s.setKeyLoc(e.ex.storeKey(key))
	e.ex.States = append(e.ex.States, s)
	e.ex.setNote(int(id), stateNote{label: e.ex.intern("error"), err: e.ex.intern(msg)})
	e.concrete.set(hk, id)
	return id
}
