// Package gcpolicy sets the garbage collector's policy of the modex
// binary: fast while the heap is small, bounded by the live data as it
// grows.
package gcpolicy

import (
	"os"
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"time"

	"github.com/modex/modex/engine/model"
)

// Base is the heap size below which the collector runs rarely (GOGC 400).
const Base = 64 << 20

// Tune sets GOGC 400, bounded by a soft memory limit of max(Base, twice the
// live heap), which a watcher raises as the live data grows: peak memory
// stays near twice the live data (or Base) instead of five times, and a
// large live heap never makes the collector thrash against a fixed limit.
// The long-lived tables a run is building (model.AddLongLived: an
// exploration's states, transitions, keys; a model's initial keys) are
// left out of the doubling: the limit is then their size plus max(1.5 Base,
// twice the rest of the live heap), since the garbage a run makes is in
// proportion to its work, not to the graph it has stored.
// The limit falls again when the live data falls to under half of what
// it was (nextLimit), and by what long-lived tables let go (afterTick).
// While the collector takes a large share of the CPU (every core running a
// worker), collectorRoom adds headroom to the limit (room.go).
// GOGC or GOMEMLIMIT in the environment turn it off.
// The returned function stops the watcher and restores Go's defaults
// (benchmarks).
func Tune() (restore func()) {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return func() {}
	}
	oldPercent := debug.SetGCPercent(400)
	oldLimit := debug.SetMemoryLimit(Base)
	var mu sync.Mutex
	limit := int64(Base)
	var capped int64       // a watched memory budget's cap (0: none)
	var room collectorRoom // headroom added while the collector costs the workers too much
	apply := func() {
		l := limit + room.extra
		if capped > 0 {
			l = min(l, capped)
		}
		debug.SetMemoryLimit(l)
	}
	// A memory budget being watched (model.WatchMemory) caps the limit:
	// the collector then keeps garbage from counting against the budget.
	model.SetMemoryLimitCap(func(c int64) func() {
		mu.Lock()
		prev := capped
		capped = c
		apply()
		mu.Unlock()
		return func() {
			mu.Lock()
			capped = prev
			apply()
			mu.Unlock()
		}
	})
	stop := make(chan struct{})
	var prevLL int64 // the long-lived bytes at the last tick
	go func() {
		sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
		t := time.NewTicker(100 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
			}
			metrics.Read(sample)
			if sample[0].Value.Kind() != metrics.KindUint64 {
				return
			}
			mu.Lock()
			ll := model.LongLived()
			live := int64(sample[0].Value.Uint64())
			extra := room.tick(live)
			if next := afterTick(limit, prevLL, live, ll); next != limit || extra != room.extra {
				limit, room.extra = next, extra
				apply()
			}
			prevLL = ll
			mu.Unlock()
		}
	}()
	return func() {
		close(stop)
		debug.SetGCPercent(oldPercent)
		debug.SetMemoryLimit(oldLimit)
	}
}

// afterTick is the limit after a tick of the watcher that reads live
// bytes, longLived of them long-lived, where the last read longLived was
// prevLL: long-lived tables let go (a model's initial keys, stored in the
// exploration's own tables by now) take their room with them, so that a
// limit raised while both were alive does not stay for the rest of the run.
func afterTick(limit, prevLL, live, longLived int64) int64 {
	if drop := prevLL - max(longLived, 0); drop > 0 {
		limit = max(Base, limit-drop)
	}
	return nextLimit(limit, limitFor(live, longLived))
}

// nextLimit is the limit after one that wants want: raised at once, and
// lowered only once want is under half of it, when the live data fell
// (a large graph closed in the workbench), so that memory goes back to
// the system without the limit following every collection down.
func nextLimit(limit, want int64) int64 {
	if want > limit || want < limit/2 {
		return want
	}
	return limit
}

// limitFor is the memory limit the watcher wants for a live heap of live
// bytes of which longLived are long-lived tables (see Tune).
func limitFor(live, longLived int64) int64 {
	if longLived <= 0 {
		return max(Base, 2*live)
	}
	longLived = min(longLived, live)
	return longLived + max(otherFloor, 2*(live-longLived))
}

// otherFloor is the least headroom the limit leaves beside the long-lived
// tables while a run builds them: larger floors are faster and take more
// memory (the floors measured on LamportMutex are in docs/performance.md,
// "Recycled copies, long-lived tables, initial()").
const otherFloor = Base + Base/2
