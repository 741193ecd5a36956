package explore

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// crew runs work on the workers but the first (the helpers), on goroutines
// that live as long as the exploration, while the explorer's own goroutine
// works with the first. Between two jobs — a chunk's merge, a batch of
// initial states added — a helper and the explorer wait a little while
// spinning before they sleep. A goroutine started for every chunk, or one
// that sleeps at every gap, leaves its core idle, and a virtual machine
// halts an idle core: waking it again took 0.55 ms on average on the
// development machine (perf sched), 1,034 times in a two-worker run of
// Bakery, where a chunk's merge takes 0.25 ms (docs/performance.md, "Two
// workers against one").
type crew struct {
	helpers []*helper
	// gen is bumped for each job posted: the job's number times genStep
	// plus the helpers it uses (the first ones), read with it at once.
	gen  atomic.Uint64
	job  func(i int) // the job posted last, run by helpers 0 .. its use-1
	left atomic.Int32
	// sleeping is 1 while the poster sleeps in wait; done wakes it.
	sleeping atomic.Int32
	done     chan struct{}
	quit     atomic.Bool
	wg       sync.WaitGroup
	// spins: helpers and explorer spin before they sleep (not when there
	// are more of them than processors: a spinning goroutine would take
	// the time of one that works, the merge's among them).
	spins bool
}

// helper is one of the crew's goroutines: asleep is 1 while it sleeps
// (wake wakes it). Padded: each is written by its own goroutine.
type helper struct {
	asleep atomic.Int32
	wake   chan struct{}
	_      [64]byte
}

// genStep leaves the low bits of crew.gen for the helpers a job uses.
const genStep = 1 << 16

// spinFor is how long a helper waiting for a job, or the explorer waiting
// for the helpers, spins before it sleeps: longer than the gaps between
// jobs (a merge, a batch added: up to a millisecond or two), and short
// enough that a crew with nothing to do is soon asleep.
const spinFor = 2 * time.Millisecond

// newCrew starts n helpers (the last job's helper i runs on
// workers[i+1]), which spin between jobs when spins is set.
func newCrew(n int, spins bool) *crew {
	c := &crew{done: make(chan struct{}, 1), spins: spins}
	for i := range n {
		h := &helper{wake: make(chan struct{}, 1)}
		c.helpers = append(c.helpers, h)
		c.wg.Add(1)
		go c.serve(i, h)
	}
	return c
}

// serve runs helper i's jobs until the crew stops.
func (c *crew) serve(i int, h *helper) {
	defer c.wg.Done()
	var last uint64
	for {
		g := c.await(h, last)
		last = g
		if c.quit.Load() {
			return
		}
		if i < int(g%genStep) {
			c.job(i)
			if c.left.Add(-1) == 0 && c.sleeping.CompareAndSwap(1, 0) {
				c.done <- struct{}{}
			}
		}
	}
}

// await returns the crew's generation once it is not last: at once while
// spinning, after a sleep once spinFor has passed.
func (c *crew) await(h *helper, last uint64) uint64 {
	if c.spin(func() bool { return c.gen.Load() != last }) {
		return c.gen.Load()
	}
	h.asleep.Store(1)
	if c.gen.Load() != last && h.asleep.CompareAndSwap(1, 0) {
		return c.gen.Load() // posted meanwhile, and nobody woke it
	}
	<-h.wake // the poster took asleep back, and wakes it
	return c.gen.Load()
}

// spin tells whether done became true within spinFor, yielding the
// processor now and then to goroutines that have work; whether it is true
// now when the crew does not spin.
func (c *crew) spin(done func() bool) bool {
	if !c.spins {
		return done()
	}
	start := time.Now()
	for i := 1; ; i++ {
		if done() {
			return true
		}
		if i%256 == 0 {
			if time.Since(start) > spinFor {
				return false
			}
			runtime.Gosched()
		}
	}
}

// post starts job on the first use helpers (use ≤ len(c.helpers)); wait
// waits for them. A job is posted only once the last one was waited for.
func (c *crew) post(use int, job func(i int)) {
	c.job = job
	c.left.Store(int32(use))
	g := c.gen.Load()
	c.gen.Store(g - g%genStep + genStep + uint64(use))
	for _, h := range c.helpers[:use] {
		if h.asleep.CompareAndSwap(1, 0) {
			h.wake <- struct{}{}
		}
	}
}

// wait waits until the helpers of the last job posted are done with it.
func (c *crew) wait() {
	if c.spin(func() bool { return c.left.Load() == 0 }) {
		return
	}
	c.sleeping.Store(1)
	if c.left.Load() == 0 && c.sleeping.CompareAndSwap(1, 0) {
		return
	}
	<-c.done // the last helper took sleeping back, and wakes it
}

// stop ends the helpers (no job is running) and waits for them.
func (c *crew) stop() {
	c.quit.Store(true)
	c.gen.Add(genStep)
	for _, h := range c.helpers {
		if h.asleep.CompareAndSwap(1, 0) {
			h.wake <- struct{}{}
		}
	}
	c.wg.Wait()
}

// onHelpers runs job(i) on helpers 0 .. use-1 and work on this goroutine
// at once, and waits for all of them; the crew is started at its first
// use.
func (e *explorer) onHelpers(use int, job func(i int), work func()) {
	e.postHelpers(use, job)
	work()
	e.waitHelpers(use)
}

// postHelpers starts job on helpers 0 .. use-1 (none when use is 0).
func (e *explorer) postHelpers(use int, job func(i int)) {
	if use <= 0 {
		return
	}
	if e.crew == nil {
		e.crew = newCrew(len(e.workers)-1, len(e.workers) <= runtime.GOMAXPROCS(0))
	}
	e.crew.post(use, job)
}

// waitHelpers waits for the job postHelpers started on use helpers.
func (e *explorer) waitHelpers(use int) {
	if use > 0 {
		e.crew.wait()
	}
}

// stopCrew ends the crew's helpers, if it was started.
func (e *explorer) stopCrew() {
	if e.crew != nil {
		e.crew.stop()
		e.crew = nil
	}
}
