package explore_test

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modex/modex/engine/explore"
	"github.com/modex/modex/engine/gcpolicy"
	"github.com/modex/modex/engine/model"
)

// naiveExplore is the reference explorer of issue 15's side-by-side
// measurement: breadth first on one core, every state a deep copy (decoded
// again from its key), a set of canonical key strings, the model's domains.
func naiveExplore(tb testing.TB, m model.Model) (states, trans int) {
	w, err := m.NewWorker()
	if err != nil {
		tb.Fatal(err)
	}
	info := m.Info()
	s0, err := w.Init()
	if err != nil {
		tb.Fatal(err)
	}
	seen := map[string]bool{s0.Key(): true}
	queue := []model.State{s0}
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		for ai, a := range info.Actions {
			doms := make([][]model.Value, len(a.Params))
			for p := range a.Params {
				vals, _, err := w.Domain(s, ai, p)
				if err != nil {
					tb.Fatal(err)
				}
				doms[p] = vals
			}
			explore.ForEachCombination(doms, func(args []model.Value) {
				outs, _, err := w.Step(s, ai, args)
				if err != nil {
					tb.Fatal(err)
				}
				for _, o := range outs {
					trans++
					k := strings.Clone(o.Next.Key())
					if seen[k] {
						continue
					}
					seen[k] = true
					next, err := w.Decode(k) // a deep copy
					if err != nil {
						tb.Fatal(err)
					}
					queue = append(queue, next)
				}
			})
		}
	}
	return len(seen), trans
}

// peakHeap runs f and returns how long it took and the largest heap
// (objects, live or not yet swept) seen while it ran, sampled every 2 ms.
func peakHeap(f func()) (time.Duration, uint64) {
	runtime.GC()
	var peak atomic.Uint64
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}, {Name: "/memory/classes/heap/unused:bytes"}}
		for {
			metrics.Read(s)
			if v := s[0].Value.Uint64() + s[1].Value.Uint64(); v > peak.Load() {
				peak.Store(v)
			}
			select {
			case <-stop:
				return
			case <-time.After(2 * time.Millisecond):
			}
		}
	}()
	start := time.Now()
	f()
	d := time.Since(start)
	close(stop)
	<-done
	return d, peak.Load()
}

// stackSource is the bounded stack of bigstack.star with another capacity.
func stackSource(tb testing.TB, capacity int) string {
	src, err := os.ReadFile("testdata/bigstack.star")
	if err != nil {
		tb.Fatal(err)
	}
	return strings.Replace(string(src), "CAPACITY = 14", fmt.Sprintf("CAPACITY = %d", capacity), 1)
}

// The reference explorers count what Modex counts.
func TestNaiveExplorersAgree(t *testing.T) {
	for _, capacity := range []int{0, 1, 5} {
		src := stackSource(t, capacity)
		m, err := model.LoadStarlarkSource("stack.star", []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		x, err := explore.Explore(context.Background(), m, explore.DefaultConfig(m))
		if err != nil {
			t.Fatal(err)
		}
		want := [2]int{len(x.States), len(x.Trans)}
		if want[0] != 1<<(capacity+1)-1 {
			t.Fatalf("capacity %d: Modex has %d states", capacity, want[0])
		}
		ns, nt := naiveExplore(t, m)
		ss, st := naiveStarExplore(t, src)
		if got := [2]int{ns, nt}; got != want {
			t.Errorf("capacity %d: lean naive explorer %v, Modex %v", capacity, got, want)
		}
		if got := [2]int{ss, st}; got != want {
			t.Errorf("capacity %d: naive explorer %v, Modex %v", capacity, got, want)
		}
	}
}

// BenchmarkSideBySide explores the 131,071-state bounded stack (capacity 16,
// Starlark) in one run with the naive reference explorer as issue 15
// describes it (naiveStarExplore: deep copy and canonical string per state,
// Go's default GC), with a lean variant of it (naiveExplore: Modex's model
// layer, compact keys) and with Modex (two workers, the modex binary's GC
// policy), and reports the times, peak heaps and Modex's ratios to both
// (issue 15's targets: at least 3× faster, at most half the memory).
func BenchmarkSideBySide(b *testing.B) {
	src := stackSource(b, 16)
	m, err := model.LoadStarlarkSource("stack16.star", []byte(src))
	if err != nil {
		b.Fatal(err)
	}
	var naiveT, leanT, modexT time.Duration
	var naiveH, leanH, modexH uint64
	for i := 0; i < b.N; i++ {
		old := debug.SetGCPercent(100)
		var n, nl int
		t, h := peakHeap(func() { n, _ = naiveStarExplore(b, src) })
		naiveT, naiveH = naiveT+t, max(naiveH, h)
		t, h = peakHeap(func() { nl, _ = naiveExplore(b, m) })
		leanT, leanH = leanT+t, max(leanH, h)
		debug.SetGCPercent(old)
		restore := gcpolicy.Tune()
		var x *explore.Exploration
		cfg := explore.DefaultConfig(m)
		cfg.Workers = 2
		t, h = peakHeap(func() { x, _ = explore.Explore(context.Background(), m, cfg) })
		restore()
		modexT, modexH = modexT+t, max(modexH, h)
		if x == nil || len(x.States) != n || n != 131071 || nl != n {
			b.Fatalf("naive %d states, lean %d, Modex %v", n, nl, x)
		}
	}
	sec := func(d time.Duration) float64 { return d.Seconds() / float64(b.N) }
	b.ReportMetric(sec(naiveT), "naive-s")
	b.ReportMetric(sec(leanT), "lean-s")
	b.ReportMetric(sec(modexT), "modex-s")
	b.ReportMetric(float64(naiveH)/(1<<20), "naive-peak-MB")
	b.ReportMetric(float64(leanH)/(1<<20), "lean-peak-MB")
	b.ReportMetric(float64(modexH)/(1<<20), "modex-peak-MB")
	b.ReportMetric(naiveT.Seconds()/modexT.Seconds(), "speedup")
	b.ReportMetric(float64(modexH)/float64(naiveH), "memory-ratio")
	b.ReportMetric(leanT.Seconds()/modexT.Seconds(), "lean-speedup")
	b.ReportMetric(float64(modexH)/float64(leanH), "lean-memory-ratio")
}
