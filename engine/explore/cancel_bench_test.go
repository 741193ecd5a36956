package explore_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/modex/modex/engine/explore"
	"github.com/modex/modex/engine/model"
)

// BenchmarkCancelLatency measures (does not assert) how long an exploration
// takes to return after its context is cancelled, at 10^5, 10^6 and 10^7
// states of an unbounded counter, with the default workers: the
// "ms-to-stop" metric. docs/performance.md records it.
func BenchmarkCancelLatency(b *testing.B) {
	m, err := model.LoadStarlarkSource("counter.star", []byte(`
def init():
    return {"n": 0, "m": 0}

def Inc(s):
    s.n += 1

def Other(s, k):
    s.m = (s.m + k) % 1000

actions = [Inc, Other]
domains = {Other: {"k": [1, 7]}}
`))
	if err != nil {
		b.Fatal(err)
	}
	for _, n := range []int{100_000, 1_000_000, 10_000_000} {
		b.Run(fmt.Sprintf("states=%d", n), func(b *testing.B) {
			var worst, total time.Duration
			for i := 0; i < b.N; i++ {
				ctx, cancel := context.WithCancel(context.Background())
				cfg := explore.DefaultConfig(m)
				cfg.ProgressEvery = time.Millisecond
				var at time.Time
				cfg.Progress = func(p explore.Progress) {
					if p.States >= n && at.IsZero() {
						at = time.Now()
						cancel()
					}
				}
				x, err := explore.Explore(ctx, m, cfg)
				d := time.Since(at)
				cancel()
				if err != nil || x.Stats.StoppedBy != "cancelled" {
					b.Fatalf("%v, stopped by %q", err, x.Stats.StoppedBy)
				}
				total += d
				worst = max(worst, d)
			}
			b.ReportMetric(float64(total.Microseconds())/1000/float64(b.N), "ms-to-stop")
			b.ReportMetric(float64(worst.Microseconds())/1000, "worst-ms")
		})
	}
}
