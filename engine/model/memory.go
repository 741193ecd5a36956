package model

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// longLived counts the bytes of the long-lived tables being built now (an
// exploration's states, transitions, keys and index; a model's initial
// keys).
var longLived atomic.Int64

// AddLongLived adds delta to the bytes of long-lived tables being built:
// data that stays until its run ends and that the collector scans little
// or not at all (pointer-free tables; strings, one pointer each), so that
// the binary's GC policy (engine/gcpolicy) need not keep headroom in
// proportion to it. A run takes back what it added when it ends.
func AddLongLived(delta int64) { longLived.Add(delta) }

// LongLived returns the bytes AddLongLived counts now.
func LongLived() int64 { return longLived.Load() }

// lived is the part of LongLived one owner added, so that it can take it
// all back (a model's initial keys; see initSink.count).
type lived struct{ n atomic.Int64 }

func (l *lived) add(delta int64) {
	l.n.Add(delta)
	longLived.Add(delta)
}

// release takes back all that l added.
func (l *lived) release() { longLived.Add(-l.n.Swap(0)) }

// ErrMemoryBudget is the cause of a run stopped because the process's heap
// grew past the memory budget: model code allocating without bound
// ([0]*200000000 in a filter) must end with a message, not exhaust the
// machine. Starlark's step budget bounds time only.
var ErrMemoryBudget = errors.New("model exceeded its memory budget")

// memoryPoll is how often the heap is read while a run watches it.
const memoryPoll = 10 * time.Millisecond

var (
	defaultBudgetOnce sync.Once
	defaultBudget     uint64
)

// DefaultMemoryBudget is the smallest of a quarter of the machine's memory
// (MemTotal on Linux; 4 GiB where it cannot be read), half the memory
// limit of the process's cgroup (v2 memory.max or v1
// memory.limit_in_bytes) and an eighth of its address-space limit
// (RLIMIT_AS: the Go runtime reserves address space beyond what it uses,
// and one interpreted operation the watcher cannot interrupt may allocate
// twice the heap at once — a quarter failed in 2 of 5 runs of a doubling
// list under a 4 GB limit, an eighth in none of 8), so that a run under a
// container's or ulimit's cap stops with a message before the kernel or
// the runtime ends the process.
func DefaultMemoryBudget() uint64 {
	defaultBudgetOnce.Do(func() {
		defaultBudget = 4 << 30
		if ram := memTotal(); ram > 0 {
			defaultBudget = ram / 4
		}
		if cg := cgroupLimit(); cg > 0 {
			defaultBudget = min(defaultBudget, cg/2)
		}
		if as := addressSpaceLimit(); as > 0 {
			defaultBudget = min(defaultBudget, as/8)
		}
		defaultBudget = max(defaultBudget, 64<<20)
	})
	return defaultBudget
}

// memTotal is the machine's memory (0 when unknown).
func memTotal() uint64 {
	data, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return 0
	}
	sc := bufio.NewScanner(strings.NewReader(string(data)))
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		if len(fs) >= 2 && fs[0] == "MemTotal:" {
			if kb, err := strconv.ParseUint(fs[1], 10, 64); err == nil {
				return kb * 1024
			}
		}
	}
	return 0
}

// cgroupLimit is the memory limit of the process's cgroup (0 when none or
// unknown).
func cgroupLimit() uint64 {
	read := func(path string) uint64 {
		data, err := os.ReadFile(path)
		if err != nil {
			return 0
		}
		v, err := strconv.ParseUint(strings.TrimSpace(string(data)), 10, 64)
		if err != nil || v >= 1<<60 { // "max", or v1's "no limit"
			return 0
		}
		return v
	}
	if data, err := os.ReadFile("/proc/self/cgroup"); err == nil {
		for _, line := range strings.Split(string(data), "\n") {
			if rest, ok := strings.CutPrefix(line, "0::"); ok {
				if v := read("/sys/fs/cgroup" + strings.TrimSpace(rest) + "/memory.max"); v > 0 {
					return v
				}
			}
		}
	}
	if v := read("/sys/fs/cgroup/memory.max"); v > 0 {
		return v
	}
	return read("/sys/fs/cgroup/memory/memory.limit_in_bytes")
}

// memoryLimitCap, when set, caps the Go runtime's soft memory limit while a
// budget is watched (see gcpolicy): the collector then works to keep the
// heap under the budget instead of letting garbage reach it.
var memoryLimitCap = func(limit int64) (restore func()) {
	old := debug.SetMemoryLimit(-1)
	if limit < old {
		debug.SetMemoryLimit(limit)
	}
	return func() { debug.SetMemoryLimit(old) }
}

// SetMemoryLimitCap replaces how a watched budget caps the runtime's soft
// memory limit (gcpolicy, which raises the limit as live data grows,
// installs one that it respects).
func SetMemoryLimitCap(f func(limit int64) (restore func())) { memoryLimitCap = f }

// burstFloor is the least allocation between two polls that counts as a
// burst (see WatchMemory).
const burstFloor = 256 << 20

// WatchMemory returns a context that is cancelled, with cause
// ErrMemoryBudget (wrapped with the budget), when the Go heap exceeds
// budget bytes (0: DefaultMemoryBudget) while ctx lives; stop releases it.
// While it watches, the runtime's soft memory limit is capped at the
// budget, so that garbage is collected before it counts against it; and a
// burst — more than the budget (and 256 MiB) allocated between two polls
// 10 ms apart, as one huge allocation does even when it is garbage by the
// next poll — exceeds it too.
func WatchMemory(ctx context.Context, budget uint64) (watched context.Context, stop func()) {
	ctx, finish := WatchMemoryFinal(ctx, budget)
	return ctx, func() { finish() }
}

// WatchMemoryFinal is WatchMemory whose stop first reads the heap once more
// and returns the message when the budget was exceeded at any poll or at
// that last reading ("" when it was not): a run that exceeded its budget
// and ended before the next poll is not reported complete.
func WatchMemoryFinal(ctx context.Context, budget uint64) (watched context.Context, stop func() string) {
	if budget == 0 {
		budget = DefaultMemoryBudget()
	}
	ctx, cancel := context.WithCancelCause(ctx)
	restoreLimit := memoryLimitCap(int64(budget))
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}, {Name: "/gc/heap/allocs:bytes"}}
	var mu sync.Mutex
	var lastAllocs uint64
	var restoreOnce sync.Once
	restore := func() { restoreOnce.Do(restoreLimit) }
	exceed := func() {
		cancel(fmt.Errorf("%w (%d MiB)", ErrMemoryBudget, budget>>20))
		// Past the budget, a cap below the live heap would have the
		// collector run without end while the interpreter finishes the
		// operation it is in (one huge allocation is not interruptible).
		restore()
	}
	// What compiled code asks for before it allocates (alloc.go) is
	// weighed against what this budget leaves at each reading.
	bw := &budgetWatch{left: int64(min(budget, math.MaxInt64)), budget: budget, exceed: exceed}
	setLeft, unwatch := watchBudget(bw)
	over := func() bool {
		mu.Lock()
		defer mu.Unlock()
		metrics.Read(sample)
		if sample[0].Value.Kind() != metrics.KindUint64 || sample[1].Value.Kind() != metrics.KindUint64 {
			return false
		}
		heap, allocs := sample[0].Value.Uint64(), sample[1].Value.Uint64()
		burst := lastAllocs > 0 && allocs-lastAllocs > max(budget, burstFloor)
		lastAllocs = allocs
		setLeft(int64(min(budget, math.MaxInt64)) - int64(min(heap, math.MaxInt64)))
		return heap > budget || burst
	}
	over() // the allocation count to compare the first poll with
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		t := time.NewTicker(memoryPoll)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-ctx.Done():
				return
			case <-t.C:
				if over() {
					exceed()
					return
				}
			}
		}
	}()
	var once sync.Once
	var msg string
	return ctx, func() string {
		once.Do(func() {
			close(done)
			<-finished
			if ctx.Err() == nil && over() {
				exceed()
			}
			msg, _ = MemoryExceeded(ctx)
			unwatch()
			cancel(nil)
			restore()
		})
		return msg
	}
}

// MemoryExceeded reports whether ctx was cancelled by WatchMemory, and the
// message to report.
func MemoryExceeded(ctx context.Context) (string, bool) {
	if err := context.Cause(ctx); err != nil && errors.Is(err, ErrMemoryBudget) {
		return err.Error(), true
	}
	return "", false
}
