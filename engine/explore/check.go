package explore

import (
	"context"
	"errors"
	"fmt"
	"hash/maphash"
	"os"
	"runtime"
	"runtime/metrics"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modex/modex/engine/diskq"
	"github.com/modex/modex/engine/fpset"
	"github.com/modex/modex/engine/model"
)

// The checking mode: an exhaustive breadth-first search that keeps no
// graph, for state spaces larger than memory (TLC's way). The states seen
// are a set of 64-bit fingerprints (engine/fpset: a table bounded in
// memory that spills sorted files to disk), the states to expand a queue
// on disk (engine/diskq), and each state's parent and fingerprint a trace
// file, from which the way to the first violation is rebuilt by stepping
// the model again. A state's successors are computed by the exploration's
// own code (expandLevel, with its facts, filters, error states, deadlocks
// and timeout twins), so the counts are those of Explore.

// CheckOptions are the checking mode's own settings; the model's bounds and
// budgets are in Config.
type CheckOptions struct {
	// Dir is the folder in which the check makes its temporary folder
	// (default os.TempDir()); the folder is removed when Check returns.
	Dir string
	// Progress, when set, is called from another goroutine about every
	// ProgressEvery (default 100 ms), and once at the end.
	Progress      func(CheckProgress)
	ProgressEvery time.Duration
	// MemoryBytes bounds the fingerprint table in memory (default: four
	// fifths of the memory budget less a quarter of it, or less 192 MiB
	// when that is more). PendingBytes bounds the fingerprints
	// waiting for a lookup on disk (default 3 % of the budget), QueueBytes
	// the records each queue keeps in memory (default 1/64 of the budget,
	// at most 16 MiB), MaxFiles the fingerprint files kept before they are
	// merged (default 8). For tests and measurements.
	MemoryBytes, PendingBytes int64
	QueueBytes                int
	MaxFiles                  int
}

// CheckResult is what a check found.
type CheckResult struct {
	// Stats are the counts Explore gives for the same configuration:
	// States (and ModelStates) the distinct model states, error states
	// included; InitialStates, Deadlocks, ErrorStates; Transitions and
	// Tried; Passive and Timeouts the passive twins the graph would have
	// (each with a timeout transition). Filtered counts transitions into
	// filtered states, not distinct states; Pruned is 0 (no groupings).
	Stats Stats
	// Depth is the greatest depth of a state (the initial states are at 0).
	Depth int
	// Generated is TLC's "states generated": the initial states and the
	// successors computed, duplicates included.
	Generated int64
	// Collision is TLC's optimistic estimate of a fingerprint collision
	// (fpset.Collision), CollisionActual its estimate from the
	// fingerprints themselves (fpset.CollisionFromGap; 0 when the check
	// was stopped).
	Collision, CollisionActual float64
	// DiskBytes is the most the check's files took at once; Spills and
	// Merges count the fingerprint table's writes to disk and the merges of
	// its files; PeakHeap is the most the Go heap held, sampled.
	DiskBytes      int64
	Spills, Merges int
	PeakHeap       uint64
	// Violation is the first violation found (nil when none): the search
	// goes on after it, as Explore's does, and counts every one.
	Violation *Violation
}

// Violation is an invariant violation, a model error or a deadlock, with
// the way to it from an initial state.
type Violation struct {
	// Kind is "invariant", "error" or "deadlock".
	Kind string
	// Message is the invariant's message or the model error.
	Message string
	// Path is the steps from an initial state: to the violating state, to
	// the step that failed (a model error: its last step), or to the
	// deadlock. Each step has its action, inputs, output and kind.
	Path []GTrans
	// Vars are the variables of the state the path ends in (the violating
	// state, the deadlock, the state where the step failed).
	Vars []model.Var
	// failed: the path's last step is the one that failed (a model error
	// in a step, not in the state's own facts).
	failed bool
}

// CheckProgress is a snapshot of a running check.
type CheckProgress struct {
	States      int64 // distinct states so far
	Transitions int64
	Tried       int64
	Queue       int64 // states waiting to be expanded
	Depth       int
	DiskBytes   int64
	Seconds     float64
	Rate        float64 // tried transitions per second
	Done        bool
}

// String is the progress in words: "1,234,567 distinct states, 9,876,543
// transitions, 12,345,678 tried (150,000/s), queue 120,000, depth 12,
// heap 1.2 GB, disk 340 MB, 25.0 s" (the heap read now).
func (p CheckProgress) String() string {
	return fmt.Sprintf("%s distinct states, %s transitions, %s tried (%s/s), queue %s, depth %d, heap %s, disk %s, %.1f s",
		Thousands(p.States), Thousands(p.Transitions), Thousands(p.Tried), Thousands(int64(p.Rate)), Thousands(p.Queue),
		p.Depth, heapSize(), Bytes(p.DiskBytes), p.Seconds)
}

// Bytes writes a size in kB, MB or GB (powers of 1,000).
func Bytes(n int64) string {
	switch {
	case n >= 1e9:
		return fmt.Sprintf("%.1f GB", float64(n)/1e9)
	case n >= 1e6:
		return fmt.Sprintf("%.0f MB", float64(n)/1e6)
	case n >= 1e3:
		return fmt.Sprintf("%.0f kB", float64(n)/1e3)
	}
	return fmt.Sprintf("%d bytes", n)
}

// checkHash is the checking mode's hash of a key: its fingerprint.
func checkHash(key string) hkey { return hkey{a: fpset.Fingerprint(key)} }

// lookup finds a target's hash among the states seen: in concrete, or in
// the checking mode in the fingerprint table in memory (an id of 0 for
// every state: the check has no ids; none while a path is rebuilt).
func (e *explorer) lookup(k hkey) (int32, bool) {
	if c := e.chk; c != nil {
		return 0, c.mem != nil && c.mem.Contains(k.a)
	}
	return e.concrete.get(k)
}

// ErrCheckGroupings is Check's refusal of a configuration with groupings.
var ErrCheckGroupings = errors.New("the checking mode takes no groupings (they prune states in the order a search meets them): explore the graph instead")

// Check searches the model's state space under the configuration, keeping
// no graph (see the checking mode above): it counts what Explore counts
// and gives the way to the first violation. It returns an error only when
// it cannot start or its files fail; a cancelled or bounded check returns
// what it found, marked incomplete. Groupings are refused
// (ErrCheckGroupings); Snapshot, DropTransitions and Progress are not used.
func Check(ctx context.Context, m model.Model, cfg *Config, opts CheckOptions) (*CheckResult, error) {
	if cfg == nil {
		cfg = DefaultConfig(m)
	}
	if len(cfg.Groupings) > 0 {
		return nil, ErrCheckGroupings
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
	if err := e.addWorkers(n); err != nil {
		return nil, err
	}
	defer e.stopCrew()
	for _, w := range e.workers {
		// Targets are looked up in a large table: facts found in the
		// chunk already are worth remembering, unless they are Go code.
		_, cheap := w.Worker.(model.CheapFacts)
		w.remember = !cheap
	}
	if cfg.MaxTime > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, cfg.MaxTime)
		defer cancel()
	}
	budget := cfg.MemoryBudget
	if budget == 0 {
		budget = model.DefaultMemoryBudget()
	}
	ctx, stopWatch := model.WatchMemoryFinal(ctx, budget)
	defer stopWatch()
	e.ctx = ctx
	stop := context.AfterFunc(ctx, func() {
		why := "check cancelled"
		if msg, ok := model.MemoryExceeded(ctx); ok {
			why = msg
		} else if errors.Is(ctx.Err(), context.DeadlineExceeded) && cfg.MaxTime > 0 {
			why = "the check's max time ran out"
		}
		for _, w := range e.workers {
			w.Cancel(why)
		}
	})
	defer stop()
	if err := cfg.Check(m, e.workers[0].Worker); err != nil {
		stopWatch()
		if ctx.Err() != nil {
			return nil, model.Stopped(context.Cause(ctx), err)
		}
		return nil, err
	}
	c, err := newChecker(e, opts, budget)
	if err != nil {
		return nil, err
	}
	defer c.close()
	return c.check(stopWatch)
}

// checker is the state of a check.
type checker struct {
	e    *explorer
	opts CheckOptions
	dir  string
	set  *fpset.Set
	// mem is set while searching: the workers look targets up in it (nil
	// while a path is rebuilt: every target is then new, with its key).
	mem   *fpset.Set
	queue *diskq.Queue // the states to expand: frontier records
	pend  *diskq.Queue // states waiting for the set's verdict: pending records
	trace *diskq.Trace
	res   CheckResult
	// next counts the states pushed for the next level; depth is the level
	// being expanded.
	next  int64
	depth int
	// stopped is why the search stops at the end of the level (a bound);
	// err a failure of the check's own files.
	stopped  string
	err      error
	first    *firstViolation
	srcs     []checkSrc // the chunk's states
	ids      []int32
	keyBytes int // the bytes of keys the last chunk loaded
	rec      []byte
	group    []groupTrans
	// lived is what the check counts in model.AddLongLived.
	lived atomic.Int64
	// prog is the progress published after each chunk; peakHeap the most
	// the heap held at a sample.
	mu       sync.Mutex
	prog     CheckProgress
	peakHeap atomic.Uint64
}

// checkSrc is a state of the chunk being expanded: its trace record and
// flags.
type checkSrc struct {
	idx   int64
	flags byte
}

// groupTrans is a transition counted from the invocation being settled:
// its target's fingerprint and its output (a duplicate repeats both).
type groupTrans struct {
	to  uint64
	out int32
}

// firstViolation is where the first violation was found: a trace record
// (the violating state, the error state, the deadlock) and its message.
type firstViolation struct {
	kind    string
	idx     int64
	message string
}

// newChecker makes the check's temporary folder and files, sized from the
// memory budget.
func newChecker(e *explorer, opts CheckOptions, budget uint64) (*checker, error) {
	b := int64(min(budget, 1<<50))
	if opts.MemoryBytes <= 0 {
		// Four fifths of what the budget leaves past a headroom for the
		// rest of the heap (the model's values, the chunk being merged,
		// the collector's garbage): the process's memory stays well under
		// the budget.
		opts.MemoryBytes = max((b-max(b/4, 192<<20))*4/5, 1<<20)
	}
	if opts.PendingBytes <= 0 {
		opts.PendingBytes = max(b*3/100, 1<<20)
	}
	if opts.QueueBytes <= 0 {
		opts.QueueBytes = int(min(b/64, 16<<20))
	}
	parent := opts.Dir
	if parent == "" {
		parent = os.TempDir()
	}
	dir, err := os.MkdirTemp(parent, "modex-check-")
	if err != nil {
		return nil, fmt.Errorf("the check's temporary folder: %w", err)
	}
	c := &checker{e: e, opts: opts, dir: dir}
	c.set, err = fpset.New(fpset.Options{Dir: dir, MemoryBytes: opts.MemoryBytes, PendingBytes: opts.PendingBytes,
		MaxFiles: opts.MaxFiles, OnMemory: c.addLived})
	if err == nil {
		c.queue, err = diskq.New(dir, "queue", diskq.Options{MemoryBytes: opts.QueueBytes})
	}
	if err == nil {
		c.pend, err = diskq.New(dir, "pending", diskq.Options{MemoryBytes: opts.QueueBytes})
	}
	if err == nil {
		c.trace, err = diskq.NewTrace(dir + "/trace.bin")
	}
	if err != nil {
		c.close()
		return nil, err
	}
	c.mem = c.set
	e.chk = c
	return c, nil
}

// addLived counts the fingerprint table as long-lived (the GC policy
// leaves it out of its headroom).
func (c *checker) addLived(delta int64) {
	c.lived.Add(delta)
	model.AddLongLived(delta)
}

// close removes the check's files and folder.
func (c *checker) close() {
	if c.set != nil {
		c.set.Close()
	}
	if c.trace != nil {
		c.trace.Remove()
	}
	model.AddLongLived(-c.lived.Swap(0))
	os.RemoveAll(c.dir)
}

// check runs the search, then rebuilds the way to the first violation.
func (c *checker) check(stopWatch func() string) (*CheckResult, error) {
	e := c.e
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go c.sample(done, &wg)
	err := c.run()
	close(done)
	wg.Wait()
	if err == nil {
		err = c.err
	}
	if err != nil {
		return nil, err
	}
	st := &c.res.Stats
	st.ModelStates = st.States
	st.Timeouts = st.Passive
	c.res.Collision = fpset.Collision(int64(st.States), c.res.Generated)
	fs := c.set.Stats()
	c.res.Spills, c.res.Merges = fs.Spills, fs.Merges
	c.diskNow()
	if st.StoppedBy == "" && e.ctx.Err() == nil {
		sum, err := c.set.Finish()
		if err != nil {
			return nil, err
		}
		if sum.Distinct != int64(st.States) {
			return nil, fmt.Errorf("the check counted %d states, its fingerprint set holds %d", st.States, sum.Distinct)
		}
		c.res.CollisionActual = fpset.CollisionFromGap(sum.MinGap)
	}
	if f := c.first; f != nil {
		// Rebuilt by stepping the model: before the budget's watch ends
		// (its end cancels the workers), and only when they still run.
		c.res.Violation = &Violation{Kind: f.kind, Message: f.message}
		if e.ctx.Err() == nil {
			v, err := c.rebuild(f)
			if err != nil {
				return nil, err
			}
			c.res.Violation = v
		}
	}
	if msg := stopWatch(); msg != "" && st.StoppedBy == "" {
		st.StoppedBy = msg
	}
	st.Complete = st.StoppedBy == ""
	st.Seconds = time.Since(e.start).Seconds()
	c.res.PeakHeap = max(c.peakHeap.Load(), heapObjects())
	if c.opts.Progress != nil {
		c.opts.Progress(c.progress(true))
	}
	return &c.res, nil
}

// diskNow updates the most the check's files took.
func (c *checker) diskNow() int64 {
	fs := c.set.Stats()
	now := fs.DiskBytes + c.queue.DiskBytes() + c.pend.DiskBytes() + c.trace.DiskBytes()
	c.res.DiskBytes = max(c.res.DiskBytes, now, fs.PeakDiskBytes+c.queue.DiskBytes()+c.pend.DiskBytes()+c.trace.DiskBytes())
	return now
}

// heapObjects is the Go heap's objects now.
func heapObjects() uint64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return s[0].Value.Uint64()
}

// sample samples the heap (for PeakHeap) and reports progress until done.
func (c *checker) sample(done chan struct{}, wg *sync.WaitGroup) {
	defer wg.Done()
	every := c.opts.ProgressEvery
	if every <= 0 {
		every = 100 * time.Millisecond
	}
	heapT := time.NewTicker(20 * time.Millisecond)
	defer heapT.Stop()
	progT := time.NewTicker(every)
	defer progT.Stop()
	for {
		select {
		case <-done:
			return
		case <-heapT.C:
			if h := heapObjects(); h > c.peakHeap.Load() {
				c.peakHeap.Store(h)
			}
		case <-progT.C:
			if c.opts.Progress != nil {
				c.opts.Progress(c.progress(false))
			}
		}
	}
}

// progress is the progress now: what the last chunk published, with the
// tries counted since.
func (c *checker) progress(done bool) CheckProgress {
	c.mu.Lock()
	p := c.prog
	c.mu.Unlock()
	if done {
		st := &c.res.Stats
		p = CheckProgress{States: int64(st.States), Transitions: int64(st.Transitions), Tried: st.Tried, Depth: c.res.Depth, DiskBytes: c.res.DiskBytes}
	} else {
		p.Tried = c.e.tried.Load()
	}
	p.Done = done
	p.Seconds = time.Since(c.e.start).Seconds()
	if p.Seconds > 0 {
		p.Rate = float64(p.Tried) / p.Seconds
	}
	return p
}

// publish makes the counts so far the progress.
func (c *checker) publish() {
	st := &c.res.Stats
	p := CheckProgress{States: int64(st.States), Transitions: int64(st.Transitions), Queue: c.queue.Len(), Depth: c.res.Depth, DiskBytes: c.diskNow()}
	c.mu.Lock()
	c.prog = p
	c.mu.Unlock()
}
