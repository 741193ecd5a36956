package explore

import (
	"context"
	"errors"
	"fmt"
	"hash/maphash"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modex/modex/engine/model"
	"go.starlark.net/starlark"
)

// MState is a state of the explored model (before the timeout extension).
type MState struct {
	Key       string // canonical encoding; decode it with a Worker
	Depth     int32
	Label     string // the grouping values, when groupings are set
	Error     string // invariant violation or model error
	Initial   bool
	Accepting bool
	Expanded  bool
	Frontier  bool // reached but not (fully) expanded because of a bound
	ModelErr  bool // the state stands for a model error, it has no variables
}

// MTrans is a transition of the explored model. Inputs and outputs are
// interned: Args indexes Exploration.ArgTable, Out indexes OutTable.
type MTrans struct {
	From, To int32
	Action   int32
	Args     int32
	Out      int32
}

// Stats summarise an exploration.
type Stats struct {
	States      int     `json:"states"`
	Transitions int     `json:"transitions"`
	Tried       int64   `json:"tried"`
	Filtered    int64   `json:"filtered"`
	Seconds     float64 `json:"seconds"`
	Complete    bool    `json:"complete"`
	StoppedBy   string  `json:"stopped_by,omitempty"`
}

// Exploration is the result of exploring a model under a configuration.
type Exploration struct {
	Model  model.Model
	Config *Config
	States []MState
	Trans  []MTrans
	Stats  Stats
	// ArgTable and OutTable hold the distinct input tuples and outputs.
	ArgTable [][]model.Value
	OutTable []model.Value
}

// ArgsOf returns the inputs of a transition.
func (x *Exploration) ArgsOf(t *MTrans) []model.Value { return x.ArgTable[t.Args] }

// OutputOf returns the output of a transition (None when there is none).
func (x *Exploration) OutputOf(t *MTrans) model.Value { return x.OutTable[t.Out] }

const filteredID = -1

// hkey is a 128-bit hash of a state key or grouping value.
type hkey struct{ a, b uint64 }

func (e *explorer) hash(key string) hkey {
	return hkey{maphash.String(e.seeds[0], key), maphash.String(e.seeds[1], key)}
}

// expWorker is a model worker with the explorer's scratch space.
type expWorker struct {
	model.Worker
	buf   []byte
	doms  [][]model.Value
	dkeys [][]string
	idx   []int
	// trans is this worker's slab of pending transitions for the level:
	// every srcResult takes a segment of it (no slice per state).
	trans []pendTrans
	// infos is a slab of target infos, handed out one by one.
	infos []targetInfo
	// keys caches the canonical keys of scalar domain values.
	keys map[model.Value]string
}

// info hands out a zeroed targetInfo from the worker's slab.
func (w *expWorker) info() *targetInfo {
	if len(w.infos) == cap(w.infos) {
		w.infos = make([]targetInfo, 0, 256)
	}
	w.infos = w.infos[:len(w.infos)+1]
	return &w.infos[len(w.infos)-1]
}

// key returns the canonical key of a domain value, cached for scalars.
func (w *expWorker) key(v model.Value) string {
	switch v.(type) {
	case starlark.Int, starlark.String, starlark.Bool, starlark.NoneType, model.Object:
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
	known  bool  // the target was known when the level started
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
	// 128 bits is far less likely than a hardware error.)
	concrete map[hkey]int32
	groups   []map[hkey]int32
	seeds    [2]maphash.Seed
	argIDs   map[string]int32
	outIDs   map[string]int32
	tried    atomic.Int64
	nstates  atomic.Int64
	ntrans   atomic.Int64
	start    time.Time
	lastSnap time.Time
}

// Explore explores the model under the configuration into a state graph.
// It returns an error only when exploration cannot start (the initial state
// fails, a domain is missing); model errors met on the way become error
// states. A cancelled or bounded exploration returns what it found, marked
// incomplete.
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
		concrete: map[hkey]int32{},
		seeds:    [2]maphash.Seed{maphash.MakeSeed(), maphash.MakeSeed()},
		argIDs:   map[string]int32{},
		outIDs:   map[string]int32{},
		ex:       &Exploration{Model: m, Config: cfg},
		start:    time.Now(),
	}
	for i := 0; i < n; i++ {
		w, err := m.NewWorker()
		if err != nil {
			return nil, err
		}
		w.SetBudget(cfg.StepBudget)
		e.workers = append(e.workers, &expWorker{Worker: w})
	}
	if err := cfg.Check(m, e.workers[0].Worker); err != nil {
		return nil, err
	}
	for range cfg.Groupings {
		e.groups = append(e.groups, map[hkey]int32{})
	}
	if cfg.MaxTime > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, cfg.MaxTime)
		defer cancel()
	}
	e.ctx = ctx
	stop := context.AfterFunc(ctx, func() {
		for _, w := range e.workers {
			w.Cancel("exploration cancelled")
		}
	})
	defer stop()
	done := make(chan struct{})
	var progressWG sync.WaitGroup
	if cfg.Progress != nil {
		progressWG.Add(1)
		go e.progressLoop(done, &progressWG)
	}
	err := e.run()
	close(done)
	progressWG.Wait()
	if err != nil {
		return nil, err
	}
	e.ex.Stats.States = len(e.ex.States)
	e.ex.Stats.Transitions = len(e.ex.Trans)
	e.ex.Stats.Seconds = time.Since(e.start).Seconds()
	e.ex.Stats.Complete = e.ex.Stats.StoppedBy == ""
	if cfg.Progress != nil {
		cfg.Progress(e.progress(true))
	}
	return e.ex, nil
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
	if errors.Is(e.ctx.Err(), context.DeadlineExceeded) && e.cfg.MaxTime > 0 {
		return "max time"
	}
	return "cancelled"
}

func (e *explorer) run() error {
	w := e.workers[0].Worker
	st0, err := w.Init()
	if err != nil {
		return err
	}
	info := e.evalTarget(w, st0, true)
	if info.err != nil {
		return info.err
	}
	e.addState(st0.Key(), 0, info)
	e.ex.States[0].Initial = true
	level := []int32{0}
	if info.invariant != "" && e.cfg.StopOnError {
		level = nil
	}
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
		results := e.expandLevel(level)
		next, stopped := e.merge(level, results, depth)
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
	// States change (flags) as the search goes on: copy them. Transitions and
	// the interned tables only grow: share what exists now.
	x.States = append([]MState(nil), e.ex.States...)
	x.Trans = e.ex.Trans[:len(e.ex.Trans):len(e.ex.Trans)]
	x.ArgTable = e.ex.ArgTable[:len(e.ex.ArgTable):len(e.ex.ArgTable)]
	x.OutTable = e.ex.OutTable[:len(e.ex.OutTable):len(e.ex.OutTable)]
	x.Stats.States, x.Stats.Transitions = len(x.States), len(x.Trans)
	x.Stats.Seconds = time.Since(e.start).Seconds()
	e.cfg.Snapshot(&x)
}

func (e *explorer) markFrontier(ids []int32) {
	for _, id := range ids {
		s := &e.ex.States[id]
		if !s.ModelErr {
			s.Frontier = true
		}
	}
}

func (e *explorer) addState(key string, depth int32, info *targetInfo) int32 {
	id := int32(len(e.ex.States))
	e.ex.States = append(e.ex.States, MState{Key: key, Depth: depth, Label: info.label, Error: info.invariant, Accepting: info.accepting})
	e.concrete[e.hash(key)] = id
	for i, g := range e.groups {
		if _, ok := g[info.groupKeys[i]]; !ok {
			g[info.groupKeys[i]] = id
		}
	}
	e.nstates.Add(1)
	return id
}

func (e *explorer) errorState(msg string, depth int32) int32 {
	key := "\xff!" + msg
	hk := e.hash(key)
	if id, ok := e.concrete[hk]; ok {
		return id
	}
	id := int32(len(e.ex.States))
	e.ex.States = append(e.ex.States, MState{Key: key, Depth: depth, Label: "error", Error: msg, ModelErr: true})
	e.concrete[hk] = id
	e.nstates.Add(1)
	return id
}

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

// expandLevel computes the successors of every state of a level, in
// parallel; results are in level order.
func (e *explorer) expandLevel(level []int32) []srcResult {
	results := make([]srcResult, len(level))
	var next atomic.Int64
	const chunk = 8
	var wg sync.WaitGroup
	nw := len(e.workers)
	if len(level) < 2*chunk {
		nw = 1
	}
	for wi := 0; wi < nw; wi++ {
		wg.Add(1)
		go func(w *expWorker) {
			defer wg.Done()
			w.trans = w.trans[:0:0] // a fresh slab per level: results live until the merge
			cache := make(map[hkey]*targetInfo, 2*len(level)/nw+8)
			for {
				start := int(next.Add(chunk)) - chunk
				if start >= len(level) {
					return
				}
				for i := start; i < min(start+chunk, len(level)); i++ {
					if e.ctx.Err() != nil {
						return
					}
					results[i] = e.expand(w, level[i], cache)
				}
			}
		}(e.workers[wi])
	}
	wg.Wait()
	return results
}

// expand tries every included action with every input combination in one
// state.
func (e *explorer) expand(w *expWorker, id int32, cache map[hkey]*targetInfo) (res srcResult) {
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
		e.tried.Add(tried)
	}()
	st, err := w.Decode(e.ex.States[id].Key)
	if err != nil {
		res.err = err
		res.done = true
		return res
	}
	for ai, a := range e.info.Actions {
		ac := &e.cfg.Actions[ai]
		if ac.Exclude {
			continue
		}
		errTrans := func(err error) {
			res.trans = append(res.trans, pendTrans{action: int32(ai), argsID: -1, outID: -1, first: true, x: &pendExtra{err: err}})
		}
		if ac.Enabled != nil && ac.Kind == model.Controllable {
			v, err := w.Eval(ac.Enabled, st)
			if err != nil {
				if e.ctx.Err() != nil {
					return res
				}
				errTrans(err)
				continue
			}
			if !v.Truth() {
				tried++
				continue
			}
		}
		doms := w.doms[:0]
		for range a.Params {
			doms = append(doms, nil)
		}
		w.doms = doms
		empty := false
		var derr error
		for p := range a.Params {
			var vals []model.Value
			vals, derr = ParamDomain(w.Worker, e.info, ac, st, ai, p)
			if derr != nil {
				break
			}
			if len(vals) == 0 {
				empty = true
			}
			doms[p] = vals
		}
		if derr != nil {
			if e.ctx.Err() != nil {
				return res
			}
			errTrans(derr)
			continue
		}
		if empty {
			continue
		}
		idx := w.idx[:0]
		for range doms {
			idx = append(idx, 0)
		}
		w.idx = idx
		// Canonical keys of the domain values, computed once per state.
		for len(w.dkeys) < len(doms) {
			w.dkeys = append(w.dkeys, nil)
		}
		dkeys := w.dkeys[:len(doms)]
		for p, vals := range doms {
			dkeys[p] = dkeys[p][:0]
			for _, v := range vals {
				dkeys[p] = append(dkeys[p], w.key(v))
			}
		}
		for {
			var argsKey string
			switch len(doms) {
			case 0:
			case 1:
				argsKey = dkeys[0][idx[0]]
			default:
				for p := range doms {
					argsKey += dkeys[p][idx[p]]
				}
			}
			argsID, known := e.argIDs[argsKey]
			var args []model.Value
			if !known {
				argsID = -1
			}
			if known {
				args = e.ex.ArgTable[argsID]
			} else {
				args = make([]model.Value, len(doms))
				for p := range doms {
					args[p] = doms[p][idx[p]]
				}
			}
			tried++
			outs, _, err := w.Step(st, ai, args)
			if err != nil {
				return res // cancelled
			}
			for k, o := range outs {
				pt := pendTrans{action: int32(ai), argsID: argsID, outID: -1, first: k == 0}
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
				} else {
					w.buf, _ = model.AppendValuePath(w.buf[:0], o.Output, "output")
					if id, ok := e.outIDs[string(w.buf)]; ok {
						pt.outID = id
					} else {
						x := extra()
						x.out, x.outKey = o.Output, string(w.buf)
					}
					pt.key = o.Next.Key()
					pt.hk = e.hash(pt.key)
					if id, known := e.concrete[pt.hk]; known {
						pt.known, pt.to = true, id
					} else {
						info, ok := cache[pt.hk]
						if !ok {
							info = e.evalTargetInto(w.Worker, o.Next, false, w.info())
							if info.err != nil && e.ctx.Err() != nil {
								return res
							}
							cache[pt.hk] = info
						}
						pt.info = info
					}
				}
				res.trans = append(res.trans, pt)
			}
			if !nextCombination(idx, doms) {
				break
			}
		}
	}
	res.done = true
	return res
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
	for i, src := range level {
		r := &results[i]
		if !r.done {
			e.markFrontier(level[i:])
			return next, e.stopReason()
		}
		e.ex.Stats.Tried += r.tried
		e.ex.States[src].Expanded = true
		if r.err != nil {
			e.ex.States[src].Error = r.err.Error()
		}
		groupStart := len(e.ex.Trans)
		for _, pt := range r.trans {
			if pt.first {
				groupStart = len(e.ex.Trans)
			}
			var to int32
			switch {
			case pt.x != nil && pt.x.err != nil:
				to = e.errorState(pt.x.err.Error(), depth+1)
			default:
				id, known := pt.to, pt.known
				if !known {
					id, known = e.concrete[pt.hk]
				}
				if known {
					if id == filteredID {
						continue
					}
					to = id
					break
				}
				info := pt.info
				if info.err != nil {
					to = e.errorState(info.err.Error(), depth+1)
					e.concrete[pt.hk] = to
					break
				}
				if info.filtered {
					e.concrete[pt.hk] = filteredID
					e.ex.Stats.Filtered++
					continue
				}
				isNew := len(e.groups) == 0
				for g, gm := range e.groups {
					if _, seen := gm[info.groupKeys[g]]; !seen {
						isNew = true
					}
				}
				if !isNew {
					to = e.groups[0][info.groupKeys[0]]
					e.concrete[pt.hk] = to
					break
				}
				if e.cfg.MaxStates > 0 && len(e.ex.States) >= e.cfg.MaxStates {
					e.ex.States[src].Frontier = true
					stopped = "max states"
					continue
				}
				to = e.addState(pt.key, depth+1, info)
				if info.invariant == "" || !e.cfg.StopOnError {
					next = append(next, to)
				}
			}
			t := MTrans{From: src, To: to, Action: pt.action, Args: e.internArgs(pt), Out: e.internOut(pt)}
			// Duplicates (same source, action, inputs, output and target)
			// can only come from one invocation: its choose() branches.
			dup := false
			for j := len(e.ex.Trans) - 1; j >= groupStart; j-- {
				if e.ex.Trans[j] == t {
					dup = true
					break
				}
			}
			if dup {
				continue
			}
			if e.cfg.MaxTransitions > 0 && len(e.ex.Trans) >= e.cfg.MaxTransitions {
				e.ex.States[src].Frontier = true
				stopped = "max transitions"
				continue
			}
			e.ex.Trans = append(e.ex.Trans, t)
			e.ntrans.Add(1)
		}
	}
	return next, stopped
}

// StateVars decodes the variables of model state i (nil for error states
// that stand for a model error).
func (x *Exploration) StateVars(w model.Worker, i int) ([]model.Var, error) {
	s := &x.States[i]
	if s.ModelErr {
		return nil, nil
	}
	st, err := w.Decode(s.Key)
	if err != nil {
		return nil, err
	}
	return w.Vars(st), nil
}

func (e *explorer) internArgs(pt pendTrans) int32 {
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

func (e *explorer) internOut(pt pendTrans) int32 {
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
