package main

import (
	"os"
	"runtime/debug"
	"runtime/metrics"
	"time"
)

// gcBase is the heap size below which the garbage collector runs rarely
// (GOGC 400): small explorations run at full speed.
const gcBase = 128 << 20

// tuneGC sets the garbage collector's policy: a high GOGC (400) for speed,
// bounded by a soft memory limit of max(gcBase, twice the live heap), which
// a watcher raises as the live data grows. Peak memory then stays near
// twice the live data (or gcBase) instead of five times, and a large live
// heap never makes the collector thrash against a fixed limit. GOGC or
// GOMEMLIMIT in the environment turn this off.
func tuneGC() {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	debug.SetGCPercent(400)
	debug.SetMemoryLimit(gcBase)
	go func() {
		sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
		limit := int64(gcBase)
		for range time.Tick(100 * time.Millisecond) {
			metrics.Read(sample)
			if sample[0].Value.Kind() != metrics.KindUint64 {
				return
			}
			live := int64(sample[0].Value.Uint64())
			if want := 2 * live; want > limit {
				limit = want
				debug.SetMemoryLimit(limit)
			}
		}
	}()
}
