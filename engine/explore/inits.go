package explore

import (
	"sync/atomic"

	"github.com/modex/modex/engine/model"
)

// initSource holds the initial states: a model that lists their keys
// (model.InitKeyser) has them decoded batch by batch by the workers that
// evaluate them (half a million states, each a decoded state, would be a
// hundred megabytes at once).
type initSource struct {
	n      int
	keys   []string
	states []model.State
	// owned: the keys were taken from the model (model.InitTaker), and
	// each is cleared once stored (done)
	owned bool
}

// initialStates returns the source of the model's initial states.
func (e *explorer) initialStates() (*initSource, error) {
	w := e.workers[0].Worker
	if t, ok := w.(model.InitTaker); ok && e.cfg.ReleaseInits {
		keys, err := t.TakeInitKeys()
		if err != nil {
			return nil, err
		}
		return &initSource{n: len(keys), keys: keys, owned: true}, nil
	}
	if ik, ok := w.(model.InitKeyser); ok {
		keys, err := ik.InitKeys()
		if err != nil {
			return nil, err
		}
		return &initSource{n: len(keys), keys: keys}, nil
	}
	sts, err := model.InitialStates(w)
	if err != nil {
		return nil, err
	}
	return &initSource{n: len(sts), states: sts}, nil
}

// done tells that states lo..hi are stored: their keys, if the source
// owns them, go to the collector (Bakery's 655,200 are 42 MB, which the
// exploration's tables hold again by the end).
func (s *initSource) done(lo, hi int) {
	if s.owned {
		clear(s.keys[max(lo, 0):hi])
	}
}

// key returns initial state i's key.
func (s *initSource) key(i int) string {
	if s.keys != nil {
		return s.keys[i]
	}
	return s.states[i].Key()
}

// state returns initial state i, decoded by w if need be (valid until w
// decodes another).
func (s *initSource) state(w *expWorker, i int) (model.State, error) {
	if s.keys != nil {
		return w.decodeSource(s.keys[i])
	}
	return s.states[i], nil
}

// initBatch is how many initial states are evaluated (filters, groupings,
// invariant) at a time, in parallel, before they are added in order.
const initBatch = 4096

// initEval is a batch of initial states evaluated: their facts and the
// hashes of their keys (buffers reused from batch to batch).
type initEval struct {
	infos  []targetInfo // reused from batch to batch: nothing keeps them
	hashes []hkey
}

// initJob is a batch of initial states being evaluated. Its helpers (the
// crew's: the workers but the first) start on it at once; the explorer's
// goroutine joins them with the first worker (finish) once it has added
// the batch before: the adds, which are serial, overlap the next batch's
// evaluation, and no more goroutines run than there are workers.
type initJob struct {
	src  *initSource
	lo   int
	n    int
	b    *initEval
	next atomic.Int64
	// helpers is how many of the crew's helpers evaluate it (finish waits
	// for them)
	helpers int
	// stop: the run ends (cancelled, or an error): what is left of the
	// batch is not evaluated, and its results are not read
	stop atomic.Bool
}

// startInits starts evaluating initial states lo.. (a batch) into b on
// the helpers.
func (e *explorer) startInits(src *initSource, lo int, b *initEval) *initJob {
	j := &initJob{src: src, lo: lo, n: min(initBatch, src.n-lo), b: b}
	if cap(b.infos) < j.n {
		b.infos = make([]targetInfo, j.n)
	}
	b.infos = b.infos[:j.n]
	b.hashes = append(b.hashes[:0], make([]hkey, j.n)...)
	if j.n >= 64 {
		j.helpers = len(e.workers) - 1
		e.postHelpers(j.helpers, func(i int) { e.evalSome(j, e.workers[i+1]) })
	}
	return j
}

// finish evaluates what is left of j on the first worker and waits for
// the helpers: j.b then holds the whole batch, in its order.
func (e *explorer) finish(j *initJob) {
	e.evalSome(j, e.workers[0])
	e.waitHelpers(j.helpers)
}

// abandon stops j and waits for its helpers, which are then done with the
// workers and the source.
func (e *explorer) abandon(j *initJob) {
	j.stop.Store(true)
	e.waitHelpers(j.helpers)
}

// evalSome evaluates states of j on w, a block at a time, until none is
// left.
func (e *explorer) evalSome(j *initJob, w *expWorker) {
	const block = 32 // states taken at a time: their costs differ
	for !j.stop.Load() {
		from := int(j.next.Add(block)) - block
		if from >= j.n {
			return
		}
		for k := from; k < min(from+block, j.n); k++ {
			st, err := j.src.state(w, j.lo+k)
			if err != nil {
				j.b.infos[k] = targetInfo{err: err}
				continue
			}
			info := &j.b.infos[k]
			*info = targetInfo{groupKeys: info.groupKeys[:0]}
			e.evalTargetInto(w.Worker, st, true, info)
			j.b.hashes[k] = e.hash(j.src.key(j.lo + k))
		}
	}
}
