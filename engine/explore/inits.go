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
	infos  []*targetInfo
	hashes []hkey
}

// evalInits decodes and evaluates initial states lo.. (a batch) on the
// workers, into b in the batch's order.
func (e *explorer) evalInits(src *initSource, lo int, b *initEval) {
	n := min(initBatch, src.n-lo)
	b.infos = append(b.infos[:0], make([]*targetInfo, n)...)
	b.hashes = append(b.hashes[:0], make([]hkey, n)...)
	nw := len(e.workers)
	if n < 64 {
		nw = 1
	}
	const block = 32 // states taken at a time: their costs differ
	var next atomic.Int64
	work := func(w *expWorker) {
		for {
			from := int(next.Add(block)) - block
			if from >= n {
				return
			}
			for j := from; j < min(from+block, n); j++ {
				st, err := src.state(w, lo+j)
				if err != nil {
					b.infos[j] = &targetInfo{err: err}
					continue
				}
				b.infos[j] = e.evalTarget(w.Worker, st, true)
				b.hashes[j] = e.hash(src.key(lo + j))
			}
		}
	}
	e.onWorkers(nw, work)
}
