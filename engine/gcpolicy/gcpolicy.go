// Package gcpolicy sets the garbage collector's policy of the modex
// binary: fast while the heap is small, bounded by the live data as it
// grows.
package gcpolicy

import (
	"os"
	"runtime/debug"
	"runtime/metrics"
	"time"
)

// Base is the heap size below which the collector runs rarely (GOGC 400).
const Base = 64 << 20

// Tune sets GOGC 400, bounded by a soft memory limit of max(Base, twice the
// live heap), which a watcher raises as the live data grows: peak memory
// stays near twice the live data (or Base) instead of five times, and a
// large live heap never makes the collector thrash against a fixed limit.
// GOGC or GOMEMLIMIT in the environment turn it off. The returned function
// stops the watcher and restores Go's defaults (benchmarks).
func Tune() (restore func()) {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return func() {}
	}
	oldPercent := debug.SetGCPercent(400)
	oldLimit := debug.SetMemoryLimit(Base)
	stop := make(chan struct{})
	go func() {
		sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
		limit := int64(Base)
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
			if want := 2 * int64(sample[0].Value.Uint64()); want > limit {
				limit = want
				debug.SetMemoryLimit(limit)
			}
		}
	}()
	return func() {
		close(stop)
		debug.SetGCPercent(oldPercent)
		debug.SetMemoryLimit(oldLimit)
	}
}
