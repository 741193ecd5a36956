package gcpolicy

import (
	"runtime/metrics"
)

// The collector's marking is nearly free while a core is idle (its idle
// workers run there) and dear when every core runs a worker: its assists
// and its dedicated worker take the workers' time, and the write barriers
// it turns on slow every pointer write for as long as it marks. A limit of
// a few tens of megabytes above a large live heap (the long-lived tables
// plus their floor, nearly all of it taken by the runtime's own overhead)
// then makes it collect many times a second: PaxosCommit, 1.3 million
// states and 744 MB live, collected 2,239 times in 79 s with two workers.
// collectorRoom watches the collector's share of the CPU it takes from the
// program (assists, dedicated workers and pauses; idle marking left out)
// and, while that share is high, adds headroom to the limit: collections
// are then fewer, each as dear as before. The headroom never passes half
// of the live heap (memory grows by at most that much, and only in runs
// whose collector costs them time), falls back when the share is low, and
// a watched memory budget still caps the limit (apply). The share counts
// only the collector's own CPU: the write barriers it turns on cost the
// workers at least as much again (PaxosCommit's profiles), hence a low
// threshold. A cap of a quarter and a threshold of 5 % made PaxosCommit's
// two-worker run 8 % slower than half and 3 % (docs/performance.md); once
// its actions ran compiled, its collector took 2.2–2.8 % of the CPU, under
// 3 %, while the barriers cost about as much again, and a threshold of
// 1.5 % made the run 3.6 % faster for 35–60 MB more at its peak.
type collectorRoom struct {
	extra int64             // bytes added to the limit
	last  [2]float64        // gc and total CPU seconds at the last decision
	ticks int               // ticks since the last decision (0 before the first reading)
	dear  bool              // the last second's share was above roomHigh
	read  func() [4]float64 // readCPU (tests replace it)
}

// The collector's costs, as runtime/metrics names them.
var roomMetrics = []string{
	"/cpu/classes/gc/mark/assist:cpu-seconds",
	"/cpu/classes/gc/mark/dedicated:cpu-seconds",
	"/cpu/classes/gc/pause:cpu-seconds",
	"/cpu/classes/user:cpu-seconds",
}

const (
	roomTicks = 10    // decide once a second (ticks of 100 ms)
	roomHigh  = 0.015 // the collector's share above which the room grows
	roomLow   = 0.005 // ... and below which it shrinks
	roomStep  = 16 << 20
)

// tick reads the CPU the collector took since the last decision, every
// roomTicks ticks, and returns the extra headroom for a live heap of live
// bytes: it grows after the second of two dear seconds in a row.
func (r *collectorRoom) tick(live int64) int64 {
	if r.read == nil {
		r.read = readCPU()
	}
	if r.ticks == 0 { // the first reading
		r.last = r.cpu()
		r.ticks = 1
		return r.extra
	}
	if r.ticks++; r.ticks <= roomTicks {
		return r.extra
	}
	r.ticks = 1
	now := r.cpu()
	gc, total := now[0]-r.last[0], now[1]-r.last[1]
	r.last = now
	if total <= 0 {
		return r.extra
	}
	// One dear second is not enough: a model's load and first states
	// (Bakery's) allocate much in a small heap for a second or so.
	share := gc / total
	wasDear := r.dear
	r.dear = share > roomHigh
	if r.dear && !wasDear {
		share = roomHigh
	}
	return nextRoom(r.extra, live, share)
}

// cpu is the collector's CPU seconds and the program's (its own work and
// the collector's).
func (r *collectorRoom) cpu() [2]float64 {
	v := r.read()
	gc := v[0] + v[1] + v[2]
	return [2]float64{gc, gc + v[3]}
}

// readCPU returns a reader of roomMetrics' values.
func readCPU() func() [4]float64 {
	samples := make([]metrics.Sample, len(roomMetrics))
	for i, n := range roomMetrics {
		samples[i].Name = n
	}
	return func() (v [4]float64) {
		metrics.Read(samples)
		for i := range samples {
			if samples[i].Value.Kind() == metrics.KindFloat64 {
				v[i] = samples[i].Value.Float64()
			}
		}
		return v
	}
}

// nextRoom is the headroom after a second in which the collector took
// share of the program's CPU: doubled (at least roomStep) while the share
// is above roomHigh, up to half of the live heap; three quarters of it
// while the share is below roomLow; otherwise unchanged (but never above
// half of a live heap that fell).
func nextRoom(extra, live int64, share float64) int64 {
	most := max(live/2, 0)
	switch {
	case share > roomHigh:
		extra = max(2*extra, roomStep)
	case share < roomLow:
		extra = extra * 3 / 4
		if extra < roomStep/2 {
			extra = 0
		}
	}
	return min(extra, most)
}
