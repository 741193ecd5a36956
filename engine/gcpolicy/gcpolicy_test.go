package gcpolicy

import (
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

// Tune bounds the heap at Base while the live data is small, raises the
// bound to twice the live data when it grows past half of it, and restore
// puts Go's settings back.
func TestTune(t *testing.T) {
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	before := debug.SetMemoryLimit(-1)
	restore := Tune()
	if got := debug.SetMemoryLimit(-1); got != Base {
		t.Fatalf("limit %d, want %d", got, Base)
	}
	// 100 MiB of live data: the limit must rise to about 200 MiB.
	live := make([][]byte, 100)
	for i := range live {
		live[i] = make([]byte, 1<<20)
		live[i][0] = 1
	}
	runtime.GC()
	deadline := time.Now().Add(5 * time.Second)
	for debug.SetMemoryLimit(-1) < 190<<20 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if got := debug.SetMemoryLimit(-1); got < 190<<20 {
		t.Errorf("limit %d MiB with 100 MiB live", got>>20)
	}
	runtime.KeepAlive(live)
	// The data dropped: the limit comes down again.
	live = nil
	runtime.GC()
	deadline = time.Now().Add(5 * time.Second)
	for debug.SetMemoryLimit(-1) > 100<<20 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if got := debug.SetMemoryLimit(-1); got > 100<<20 {
		t.Errorf("limit %d MiB once the 100 MiB were dropped", got>>20)
	}
	restore()
	if got := debug.SetMemoryLimit(-1); got != before {
		t.Errorf("restored limit %d, want %d", got, before)
	}
}

// The limit doubles the live heap but for the long-lived tables a run is
// building, which it counts once.
func TestNextLimit(t *testing.T) {
	const mib = 1 << 20
	for _, tc := range []struct{ limit, want, next int64 }{
		{Base, 200 * mib, 200 * mib},         // raised at once
		{2000 * mib, 1500 * mib, 2000 * mib}, // some garbage freed: kept
		{2000 * mib, 1001 * mib, 2000 * mib},
		{2000 * mib, 999 * mib, 999 * mib}, // the live data halved: lowered
		{2000 * mib, Base, Base},
	} {
		if got := nextLimit(tc.limit, tc.want); got != tc.next {
			t.Errorf("nextLimit(%d MiB, %d MiB) = %d MiB, want %d MiB", tc.limit/mib, tc.want/mib, got/mib, tc.next/mib)
		}
	}
}

func TestLimitFor(t *testing.T) {
	const mib = 1 << 20
	for _, tc := range []struct{ live, longLived, want int64 }{
		{10 * mib, 0, Base},
		{100 * mib, 0, 200 * mib},
		{100 * mib, -5, 200 * mib},                   // a count gone below zero: none
		{300 * mib, 270 * mib, 270*mib + otherFloor}, // LamportMutex's end
		{300 * mib, 100 * mib, 500 * mib},
		{300 * mib, 400 * mib, 300*mib + otherFloor}, // tables grown since the last collection
	} {
		if got := limitFor(tc.live, tc.longLived); got != tc.want {
			t.Errorf("limitFor(%d MiB, %d MiB) = %d MiB, want %d MiB", tc.live/mib, tc.longLived/mib, got/mib, tc.want/mib)
		}
	}
}

// Long-lived bytes let go lower the limit by as much, down to what the
// live data wants; otherwise a tick is nextLimit's.
func TestAfterTick(t *testing.T) {
	const mib = 1 << 20
	for _, tc := range []struct{ limit, prevLL, live, longLived, next int64 }{
		// Bakery: the initial keys (42 MiB) let go once stored in the tables
		{207 * mib, 111 * mib, 97 * mib, 85 * mib, 85*mib + otherFloor},
		{207 * mib, 128 * mib, 97 * mib, 85 * mib, 85*mib + otherFloor},   // the live data wants more than the drop leaves
		{207 * mib, 86 * mib, 97 * mib, 85 * mib, 206 * mib},              // a little let go
		{207 * mib, 85 * mib, 97 * mib, 85 * mib, 207 * mib},              // nothing let go: kept
		{207 * mib, 50 * mib, 150 * mib, 120 * mib, 120*mib + otherFloor}, // grown: raised
		{300 * mib, 290 * mib, 20 * mib, 0, Base},                         // a run ended
		{300 * mib, 100 * mib, 20 * mib, -5, Base},                        // a count gone below zero
	} {
		if got := afterTick(tc.limit, tc.prevLL, tc.live, tc.longLived); got != tc.next {
			t.Errorf("afterTick(%d, %d, %d, %d MiB) = %d MiB, want %d MiB", tc.limit/mib, tc.prevLL/mib, tc.live/mib, tc.longLived/mib, got/mib, tc.next/mib)
		}
	}
}

// The headroom grows while the collector takes more than roomHigh of the
// CPU, never past half of the live heap, shrinks while it takes less
// than roomLow, and is let go when small.
func TestNextRoom(t *testing.T) {
	const mb = 1 << 20
	for _, c := range []struct {
		name        string
		extra, live int64
		share       float64
		want        int64
	}{
		{"dear, none yet: one step", 0, 1000 * mb, 0.09, roomStep},
		{"dear: doubled", 32 * mb, 1000 * mb, 0.04, 64 * mb},
		{"dear: half of the live heap at most", 400 * mb, 1000 * mb, 0.20, 500 * mb},
		{"dear, small heap: half of it", 0, 20 * mb, 0.5, 10 * mb},
		{"between the two: unchanged", 64 * mb, 1000 * mb, 0.01, 64 * mb},
		{"between, the heap fell: its half", 64 * mb, 100 * mb, 0.01, 50 * mb},
		{"cheap: three quarters", 64 * mb, 1000 * mb, 0.002, 48 * mb},
		{"cheap and small: none", 8 * mb, 1000 * mb, 0.002, 0},
		{"exactly roomHigh: unchanged", 64 * mb, 1000 * mb, roomHigh, 64 * mb},
	} {
		if got := nextRoom(c.extra, c.live, c.share); got != c.want {
			t.Errorf("%s: nextRoom(%d MiB, %d MiB, %v) = %d MiB, want %d MiB", c.name, c.extra/mb, c.live/mb, c.share, got/mb, c.want/mb)
		}
	}
}

// tick decides once every roomTicks ticks from the CPU the collector took
// since the last decision (assists, dedicated marking and pauses, against
// those and the program's own), not from the totals since the start.
func TestRoomTick(t *testing.T) {
	const mb = 1 << 20
	var cpu [4]float64 // assist, dedicated, pause, user
	r := collectorRoom{read: func() [4]float64 { return cpu }}
	live := int64(1000 * mb)
	if got := r.tick(live); got != 0 {
		t.Fatalf("first tick: %d", got)
	}
	// Two seconds in which the collector took 10 % of the CPU: the room
	// grows after the second, not the first.
	for sec, want := range []int64{0, roomStep} {
		cpu[0], cpu[1], cpu[2], cpu[3] = cpu[0]+0.05, cpu[1]+0.04, cpu[2]+0.01, cpu[3]+0.9
		for i := 1; i < roomTicks; i++ {
			if got := r.tick(live); got != r.extra {
				t.Fatalf("second %d, tick %d decided early: %d", sec, i, got)
			}
		}
		if got := r.tick(live); got != want {
			t.Fatalf("after dear second %d: %d MiB, want %d", sec+1, got/mb, want/mb)
		}
	}
	r.extra = roomStep // as Tune stores it
	// The next second costs nothing more: the share is 0, the room shrinks.
	cpu[3] += 2
	for range roomTicks - 1 {
		r.tick(live)
	}
	if got := r.tick(live); got != roomStep*3/4 {
		t.Errorf("after a cheap second: %d MiB, want %d", got/mb, roomStep*3/4/mb)
	}
}
