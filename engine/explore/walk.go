package explore

// Directed search (Config.Search = SearchWalks): instead of every reachable
// state, the graph of what sampled walks visit, for state spaces too large
// to enumerate (TLC's and FizzBee's "simulation" mode; Spec Explorer's
// directed search, where "states and transitions not visited are pruned
// away").
//
// Each walk starts in an initial state drawn at random and, at every step,
// computes the state's transitions exactly as the breadth-first expansion
// does (included actions, kinds, enabling conditions, domains, filters,
// groupings, model errors) and takes one of them: an action with
// probability proportional to its weight in the state (ActionWeight, the
// weights online testing uses: a Count decrements along the walk), then one
// of its input combinations, then one of its outcomes, each uniformly. A
// walk ends after WalkDepth steps, in a state where nothing can be taken
// (a deadlock, or every transition filtered), where every weight is 0, at
// a model error, or at an invariant violation when StopOnError is set
// (otherwise it goes on, as breadth-first search expands error states).
//
// The exploration holds the states the walks visited and the transitions
// they took, nothing else: a subgraph of the breadth-first graph (with
// groupings, the states kept stand for their groups as breadth-first
// search's do, but which one is kept may differ). A visited state is
// Frontier when its graph lacks some of its transitions (the walks did not
// take them all) or when it was never expanded (a walk ended there at its
// depth); the exploration is Complete only when no state is frontier and
// every initial state was visited, the whole graph then. Each walk draws
// from its own random numbers, derived from the seed and its number, and
// the walks are added to the graph in their order: the same model,
// configuration and seed give the same exploration, whatever the number
// of workers. Error states and deadlocks keep the steps of the walk that
// found them (WalkPath).

import (
	"fmt"
	"math/rand/v2"
	"sync/atomic"
	"time"
)

// SearchMode selects how Explore searches the state space.
type SearchMode int

// Search modes.
const (
	// SearchBFS explores every reachable state, breadth-first.
	SearchBFS SearchMode = iota
	// SearchWalks follows sampled walks (directed search).
	SearchWalks
)

// SearchWalksName is Stats.Search of a directed search, and the value of
// a project's search key that selects it.
const SearchWalksName = "walks"

// ParseSearch reads a search mode as a project writes it: "bfs" (or "")
// or "walks".
func ParseSearch(s string) (SearchMode, bool) {
	switch s {
	case "", "bfs":
		return SearchBFS, true
	case SearchWalksName:
		return SearchWalks, true
	}
	return SearchBFS, false
}

// Defaults of a directed search whose configuration sets no number of
// walks or depth.
const (
	DefaultWalks     = 1000
	DefaultWalkDepth = 100
)

// maxWalkFindings bounds the error states and deadlocks whose walks an
// exploration keeps for WalkPath.
const maxWalkFindings = 1000

// walkRound is how many walks run at once, between two merges, when the
// graph does not steer them (no groupings): a number that does not depend
// on the workers, so that neither does the result.
const walkRound = 64

// walkRun is the state of a directed search.
type walkRun struct {
	seed         uint64
	walks, depth int
	// inits are the initial states' keys (distinct); initIdx maps their
	// hashes to their indexes.
	inits   []string
	initIdx hindex
	// seen holds the transitions taken (walks take a transition again).
	seen map[MTrans]struct{}
	// avail is, per state, the transitions its latest expansion found
	// (the state is frontier while its graph has fewer).
	avail  []int32
	merged int
}

// walkData is what a directed search's exploration keeps of its walks:
// for the first maxWalkFindings error states and deadlocks, the walk that
// found each and the number of its steps to it, and those walks' steps.
type walkData struct {
	found map[int32]walkFind
	steps map[int32][]MTrans
}

// snapshot is what a snapshot of the graph so far keeps of d: nothing
// but the mark of a directed search (its maps change as the search goes
// on).
func (d *walkData) snapshot() *walkData {
	if d == nil {
		return nil
	}
	return &walkData{}
}

// walkFind is where a walk found a state: its number and its steps to it.
type walkFind struct{ walk, n int32 }

// DirectedSearch tells whether the exploration is a directed search's
// (Config.Search = SearchWalks): the graph of what its walks visited.
func (x *Exploration) DirectedSearch() bool { return x.walks != nil }

// WalkPath returns, for an error state or a deadlock a directed search
// found (one of the first thousand), the walk that found it first (its
// number, from 1) and the transitions that walk took to reach it from its
// initial state; ok is false otherwise (and in a breadth-first
// exploration, where Graph's PathTo or PredecessorPath give ways).
func (x *Exploration) WalkPath(m int) (walk int, path []MTrans, ok bool) {
	if x.walks == nil {
		return 0, nil, false
	}
	f, ok := x.walks.found[int32(m)]
	if !ok {
		return 0, nil, false
	}
	steps := x.walks.steps[f.walk]
	return int(f.walk) + 1, append([]MTrans(nil), steps[:f.n]...), true
}

// SearchWords says what a directed search did, for people: "directed
// search: 1000 walks, depth 100, seed 42: 3318 states visited, 3100 on the
// frontier" ("" for a breadth-first exploration).
func (s *Stats) SearchWords() string {
	if s.Search == "" {
		return ""
	}
	return fmt.Sprintf("directed search: %s, depth %d, seed %d: %d states visited, %d on the frontier",
		Count(s.Walks, "walk"), s.WalkDepth, s.Seed, s.ModelStates, s.Frontier)
}

// search runs the configuration's search.
func (e *explorer) search() error {
	if e.cfg.Search == SearchWalks {
		return e.runWalks()
	}
	return e.run()
}

// covered tells whether the graph is the whole reachable graph as far as
// the search goes: always for breadth-first search (its bounds say
// otherwise); for a directed search, when no state is frontier and every
// initial state was visited.
func (e *explorer) covered() bool {
	if e.walk == nil {
		return true
	}
	initial := 0
	for i := range e.ex.States {
		if e.ex.States[i].Initial {
			initial++
		}
	}
	return e.ex.Stats.Frontier == 0 && initial == len(e.walk.inits)
}

// walkSeed is the configuration's seed, or one from the clock.
func walkSeed(cfg *Config) int64 {
	if cfg.Seed >= 0 {
		return cfg.Seed
	}
	return DrawSeed()
}

// DrawSeed draws a seed from the clock (below 10^9, as online testing's:
// short to type again), for a directed search whose configuration sets
// none (Config.Seed below 0).
func DrawSeed() int64 { return time.Now().UnixNano() % 1_000_000_000 }

// walkRand is walk i's source of random numbers.
func walkRand(seed uint64, i int) *rand.Rand {
	return rand.New(rand.NewPCG(mix64(seed^mix64(uint64(i))), mix64(uint64(i)+0x9e3779b97f4a7c15)^seed))
}

// mix64 is SplitMix64's finaliser.
func mix64(z uint64) uint64 {
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// runWalks is a directed search: rounds of walks, each merged into the
// graph in walk order.
func (e *explorer) runWalks() error {
	cfg := e.cfg
	seed := walkSeed(cfg)
	wr := &walkRun{seed: uint64(seed), walks: cfg.Walks, depth: cfg.WalkDepth, seen: map[MTrans]struct{}{}}
	if wr.walks <= 0 {
		wr.walks = DefaultWalks
	}
	if wr.depth <= 0 {
		wr.depth = DefaultWalkDepth
	}
	if cfg.MaxDepth > 0 {
		wr.depth = min(wr.depth, cfg.MaxDepth)
	}
	e.walk = wr
	e.ex.walks = &walkData{found: map[int32]walkFind{}, steps: map[int32][]MTrans{}}
	st := &e.ex.Stats
	st.Search, st.WalkDepth, st.Seed = SearchWalksName, wr.depth, seed
	if err := e.walkInits(); err != nil || len(wr.inits) == 0 {
		return err // no initial state: an empty graph, as breadth-first
	}
	round := walkRound
	if len(cfg.Groupings) > 0 {
		// The groupings prune what earlier walks' states stand for: each
		// walk sees the graph of all before it.
		round = 1
	}
	recs := make([]walkRec, round)
	for lo := 0; lo < wr.walks && st.StoppedBy == ""; lo += round {
		n := min(round, wr.walks-lo)
		e.walkRound(lo, recs[:n])
		for i := range recs[:n] {
			stopped, err := e.mergeWalk(&recs[i])
			if err != nil {
				return err
			}
			if stopped != "" {
				st.StoppedBy = stopped
				break
			}
		}
		clear(recs)
		e.counted()
		if st.StoppedBy == "" && e.ctx.Err() != nil {
			st.StoppedBy = e.stopReason()
		}
		st.Walks = wr.merged
		e.snapshot(false)
	}
	st.Walks = wr.merged
	e.markWalkFrontier()
	return nil
}

// walkInits lists the initial states (distinct) for the walks to start
// from.
func (e *explorer) walkInits() error {
	src, err := e.initialStates()
	if err != nil {
		return err
	}
	wr := e.walk
	wr.initIdx.reserve(src.n)
	for i := range src.n {
		k := src.key(i)
		hk := e.hash(k)
		if _, ok := wr.initIdx.get(hk); ok {
			continue
		}
		wr.initIdx.set(hk, int32(len(wr.inits)))
		wr.inits = append(wr.inits, k)
	}
	return nil
}

// walkRound runs walks lo.. into recs, on the workers at once.
func (e *explorer) walkRound(lo int, recs []walkRec) {
	var next atomic.Int64
	nw := min(len(e.workers), len(recs))
	e.onWorkers(nw, func(w *expWorker) {
		for {
			i := int(next.Add(1)) - 1
			if i >= len(recs) {
				return
			}
			e.walkOne(w, lo+i, &recs[i])
		}
	})
}

// mergeWalk adds a walk's states and transitions to the graph; it returns
// why the search must stop, if it must.
func (e *explorer) mergeWalk(rec *walkRec) (stopped string, err error) {
	if rec.err != nil {
		return "", rec.err
	}
	wr := e.walk
	if !rec.started {
		return "", nil // cancelled before it began
	}
	wr.merged++
	src, stopped := e.walkStart(rec)
	if src < 0 {
		return stopped, nil
	}
	var path []MTrans
	for p := 0; p <= len(rec.steps); p++ {
		if p < len(rec.exps) {
			e.walkExpanded(src, &rec.exps[p], rec.walk, path)
		}
		if p == len(rec.steps) {
			break
		}
		to, added, t, stopped := e.walkSettle(src, &rec.steps[p], int32(p))
		if stopped != "" {
			return stopped, nil
		}
		path = append(path, t)
		if added {
			if s := &e.ex.States[to]; s.ModelErr || e.ex.note(int(to)).err != 0 {
				e.walkFound(to, rec.walk, path)
			}
		}
		src = to
	}
	return "", nil
}

// walkStart adds a walk's initial state, when new, and returns its id
// (-1 when the groupings pruned it or a bound stopped the search).
func (e *explorer) walkStart(rec *walkRec) (id int32, stopped string) {
	id, known := e.concrete.get(rec.initHK)
	switch {
	case known && id >= 0:
		s := &e.ex.States[id]
		s.Initial, s.Depth = true, 0
		return id, ""
	case known:
		return -1, ""
	case rec.pruned:
		e.concrete.set(rec.initHK, prunedID)
		e.ex.Stats.Pruned++
		return -1, ""
	case e.cfg.MaxStates > 0 && len(e.ex.States) >= e.cfg.MaxStates:
		return -1, "max states"
	}
	id = e.addState(rec.initKey, rec.initHK, 0, &rec.initInfo)
	e.ex.States[id].Initial = true
	if rec.initInfo.invariant != "" {
		e.walkFound(id, rec.walk, nil)
	}
	return id, ""
}

// walkExpanded records an expansion of src by a walk (path: the walk's
// steps to src).
func (e *explorer) walkExpanded(src int32, x *walkExp, walk int, path []MTrans) {
	s := &e.ex.States[src]
	was := s.Deadlock
	e.expanded(src, &srcResult{err: x.err, done: true, tried: x.tried, enabled: x.enabled})
	if s.Deadlock && !was {
		e.walkFound(src, walk, path)
	}
	if e.twins && x.obs {
		s.obs = true // its passive twin, even when the walks took none of its observable transitions
	}
	wr := e.walk
	if n := len(e.ex.States); len(wr.avail) < n {
		wr.avail = append(wr.avail, make([]int32, n-len(wr.avail))...)
	}
	wr.avail[src] = x.avail // the latest: with groupings, what can be taken shrinks as the groups fill
}

// walkSettle adds a walk's step from src to the graph: its target, when
// new, and its transition, unless an earlier walk took it. It returns the
// target, whether it is new, the transition, and why the search must stop,
// if it must.
func (e *explorer) walkSettle(src int32, st *walkStep, depth int32) (to int32, added bool, t MTrans, stopped string) {
	pt := &st.pt
	switch id, known := e.concrete.get(pt.hk); {
	case st.errMsg != "":
		n := len(e.ex.States)
		to = e.errorState(st.errMsg, depth+1)
		added = int(to) == n
	case known && id >= 0:
		to = id
	default:
		if e.cfg.MaxStates > 0 && len(e.ex.States) >= e.cfg.MaxStates {
			e.ex.States[src].Frontier = true
			return 0, false, t, "max states"
		}
		to, added = e.addState(st.key, pt.hk, depth+1, &st.info), true
		if i, ok := e.walk.initIdx.get(pt.hk); ok && i >= 0 {
			e.ex.States[to].Initial, e.ex.States[to].Depth = true, 0
		}
	}
	t = MTrans{From: src, To: to, Action: pt.action, Args: e.internArgs(pt), Out: e.internOut(pt)}
	if _, ok := e.walk.seen[t]; ok {
		return to, added, t, ""
	}
	e.walk.seen[t] = struct{}{}
	return to, added, t, e.addTrans(t, e.transLen())
}

// walkFound keeps the way a walk found an error state or a deadlock.
func (e *explorer) walkFound(id int32, walk int, path []MTrans) {
	d := e.ex.walks
	if _, ok := d.found[id]; ok || len(d.found) >= maxWalkFindings {
		return
	}
	w := int32(walk)
	if len(d.steps[w]) < len(path) {
		d.steps[w] = append([]MTrans(nil), path...)
	}
	d.found[id] = walkFind{walk: w, n: int32(len(path))}
}

// markWalkFrontier marks the visited states whose graph lacks some of
// their transitions, or that no walk expanded (but those an invariant
// violation stopped, with StopOnError, as breadth-first search does), and
// counts them.
func (e *explorer) markWalkFrontier() {
	out := make([]int32, len(e.ex.States))
	for i := range e.ex.Trans {
		out[e.ex.Trans[i].From]++
	}
	wr := e.walk
	n := 0
	for i := range e.ex.States {
		s := &e.ex.States[i]
		switch {
		case s.ModelErr:
		case s.Expanded:
			if i < len(wr.avail) && out[i] < wr.avail[i] {
				s.Frontier = true
			}
		case !(e.cfg.StopOnError && e.ex.note(i).err != 0):
			s.Frontier = true
		}
		if s.Frontier {
			n++
		}
	}
	e.ex.Stats.Frontier = n
}
