package explore_test

import (
	"context"
	"fmt"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/modex/modex/engine/explore"
	"github.com/modex/modex/engine/gcpolicy"
	"github.com/modex/modex/engine/model"
	"github.com/modex/modex/projects"
)

func loadSample(tb testing.TB, sample, config string) (*model.StarModel, *explore.Config) {
	tb.Helper()
	p, err := projects.Load(filepath.Join("..", "..", "projects", sample, sample+".toml"))
	if err != nil {
		tb.Fatal(err)
	}
	m, err := p.LoadModel()
	if err != nil {
		tb.Fatal(err)
	}
	cfg, err := p.Build(m, config)
	if err != nil {
		tb.Fatal(err)
	}
	return m, cfg
}

func benchExplore(b *testing.B, m model.Model, cfg *explore.Config, workers int) {
	cfg.Workers = workers
	var tried int64
	var states int
	for i := 0; i < b.N; i++ {
		x, err := explore.Explore(context.Background(), m, cfg)
		if err != nil {
			b.Fatal(err)
		}
		tried += x.Stats.Tried
		states = len(x.States)
	}
	b.ReportMetric(float64(tried)/b.Elapsed().Seconds(), "tried/s")
	b.ReportMetric(float64(states), "states")
}

func BenchmarkWebshopMoreItems(b *testing.B) {
	m, cfg := loadSample(b, "webshop", "more_items")
	b.Run("workers=1", func(b *testing.B) { benchExplore(b, m, cfg, 1) })
	b.Run("workers=2", func(b *testing.B) { benchExplore(b, m, cfg, 2) })
}

func bigStack(b *testing.B) (model.Model, *explore.Config) {
	m, err := model.LoadStarlark("testdata/bigstack.star")
	if err != nil {
		b.Fatal(err)
	}
	return m, explore.DefaultConfig(m)
}

// BenchmarkExploreStack measures tried transitions per second and bytes per
// stored state on the same 32767-state model written in Starlark and in Go
// (twice: with a string for the state, which allocates at every push, and
// with an array, which does not allocate),
// with Go's default GC (as a program embedding the engine runs) and with the
// modex binary's GC policy (gc=binary).
func BenchmarkExploreStack(b *testing.B) {
	for _, kind := range []string{"starlark", "native", "native-array"} {
		for _, workers := range []int{1, 2} {
			for _, gc := range []string{"default", "binary"} {
				b.Run(fmt.Sprintf("%s/workers=%d/gc=%s", kind, workers, gc), func(b *testing.B) {
					if gc == "binary" {
						defer gcpolicy.Tune()()
					}
					benchStack(b, kind, workers)
				})
			}
		}
	}
}

// benchStack explores the stack of the given kind b.N times.
func benchStack(b *testing.B, kind string, workers int) {
	var m model.Model
	switch kind {
	case "starlark":
		m, _ = bigStack(b)
	case "native":
		m = stackModel(14)
	default:
		m = arrayStackModel(14)
	}
	cfg := explore.DefaultConfig(m)
	cfg.Workers = workers
	var tried int64
	var x *explore.Exploration
	for i := 0; i < b.N; i++ {
		var err error
		x, err = explore.Explore(context.Background(), m, cfg)
		if err != nil {
			b.Fatal(err)
		}
		tried += x.Stats.Tried
	}
	b.ReportMetric(float64(tried)/b.Elapsed().Seconds(), "tried/s")
	b.ReportMetric(float64(len(x.States)), "states")
	b.StopTimer()
	b.ReportMetric(bytesPerState(func() *explore.Exploration {
		y, _ := explore.Explore(context.Background(), m, cfg)
		return y
	}), "B/state")
}

// bytesPerState measures the heap retained by an exploration per state.
func bytesPerState(explore func() *explore.Exploration) float64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	x := explore()
	runtime.GC()
	runtime.ReadMemStats(&after)
	n := len(x.States)
	runtime.KeepAlive(x)
	return float64(after.HeapAlloc-before.HeapAlloc) / float64(n)
}

// BenchmarkTransitionTour generates a transition-coverage tour of a graph
// with about 10,000 transitions (a 50×50 grid walk).
func BenchmarkTransitionTour(b *testing.B) {
	src := `
N = 50
def init():
    return {"x": 0, "y": 0}
def Right(s):
    require(s.x < N - 1)
    s.x += 1
def Left(s):
    require(s.x > 0)
    s.x -= 1
def Up(s):
    require(s.y < N - 1)
    s.y += 1
def Down(s):
    require(s.y > 0)
    s.y -= 1
def Jump(s):
    require(s.x == N - 1 and s.y == N - 1)
    s.x, s.y = 0, 0
actions = [Right, Left, Up, Down, Jump]
def accepting(s):
    return s.x == 0 and s.y == 0
`
	m, err := model.LoadStarlarkSource("grid.star", []byte(src))
	if err != nil {
		b.Fatal(err)
	}
	x, err := explore.Explore(context.Background(), m, nil)
	if err != nil {
		b.Fatal(err)
	}
	g := x.Graph()
	var s *explore.Suite
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if s, err = g.TransitionTour(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(g.Trans)), "transitions")
	b.ReportMetric(float64(s.Length), "tour-steps")
	b.ReportMetric(float64(len(s.Cases)), "cases")
}

// BenchmarkBareLoop is the floor under BenchmarkExploreStack's Go-native
// figure: the same model definition (its Init, Domains, Steps and Encode)
// explored breadth-first by a loop that does nothing else — a Go map from
// keys to ids and a flat list of (from, action, input, to) — as the binary's
// GC policy runs. What the explorer adds on top (interned inputs and
// outputs, each new state's facts, duplicate and error checks, the worker
// and merge split that keeps the graph the same on any number of cores,
// bounds, cancellation, progress) is the difference.
func BenchmarkBareLoop(b *testing.B) {
	defer gcpolicy.Tune()()
	def := stackDef(14)
	type trans struct{ from, action, input, to int32 }
	var tried int64
	var states int
	for i := 0; i < b.N; i++ {
		ids := map[string]int32{}
		var keys []string
		var ts []trans
		var buf []byte
		id := func(s string) int32 {
			buf = def.Encode(buf[:0], s)
			if n, ok := ids[string(buf)]; ok {
				return n
			}
			n := int32(len(keys))
			k := string(buf)
			ids[k] = n
			keys = append(keys, k)
			return n
		}
		id(def.Init())
		for from := 0; from < len(keys); from++ {
			s, err := def.Decode([]byte(keys[from]))
			if err != nil {
				b.Fatal(err)
			}
			for ai, a := range def.Actions {
				var dom []model.Value
				if len(a.Domains) > 0 {
					dom = a.Domains[0](s)
				}
				for in := 0; in < max(1, len(dom)); in++ {
					var args []model.Value
					if dom != nil {
						args = dom[in : in+1]
					}
					tried++
					next, _, ok, _ := a.Step(s, args)
					if ok {
						ts = append(ts, trans{int32(from), int32(ai), int32(in), id(next)})
					}
				}
			}
		}
		states = len(keys)
		if states != 32767 || len(ts) != 65532 {
			b.Fatalf("%d states, %d transitions; the explorer finds 32767 and 65532", states, len(ts))
		}
	}
	b.ReportMetric(float64(tried)/b.Elapsed().Seconds(), "tried/s")
	b.ReportMetric(float64(states), "states")
}

// The views of a large graph: minimising it and choosing its overview, on
// the web shop's more_items (1,111 states) and CoffeeCan with 1,000 beans
// (501,500 states).
func BenchmarkViews(b *testing.B) {
	wm, wcfg := loadSample(b, "webshop", "more_items")
	p, err := projects.Load("testdata/tla/coffeecan.toml")
	if err != nil {
		b.Fatal(err)
	}
	cm, err := p.LoadModelFor("coffee1000") // MaxBeanCount = 1000
	if err != nil {
		b.Fatal(err)
	}
	ccfg, err := p.Build(cm, "coffee1000")
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name string
		m    model.Model
		cfg  *explore.Config
	}{{"more_items", wm, wcfg}, {"coffee1000", cm, ccfg}} {
		x, err := explore.Explore(context.Background(), c.m, c.cfg)
		if err != nil {
			b.Fatal(err)
		}
		b.Run("minimize/"+c.name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				y, _ := x.Minimize()
				b.ReportMetric(float64(len(y.States)), "classes")
			}
			b.ReportMetric(float64(len(x.States))*float64(b.N)/b.Elapsed().Seconds(), "states/s")
		})
		b.Run("overview/"+c.name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if _, err := x.OverviewChoices(context.Background()); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(x.States))*float64(b.N)/b.Elapsed().Seconds(), "states/s")
		})
	}
}

// BenchmarkTLASpecs explores LamportMutex and Bakery (testdata/tla) as
// `modex explore` does, the model loaded each time and the binary's GC
// policy on: counting the transitions (summary, the command without
// --format) with one and two workers, and keeping the graph (graph, with
// --format). It reports states per second and the heap the result retains
// per state (keys included); docs/performance.md has the whole commands.
func BenchmarkTLASpecs(b *testing.B) {
	restore := gcpolicy.Tune()
	defer restore()
	for _, spec := range []string{"lamport", "bakery"} {
		for _, c := range []struct {
			mode    string
			workers int
		}{{"summary", 2}, {"summary", 1}, {"graph", 2}} {
			b.Run(fmt.Sprintf("%s/%s/workers=%d", spec, c.mode, c.workers), func(b *testing.B) {
				p, err := projects.Load(filepath.Join("testdata", "tla", spec+".toml"))
				if err != nil {
					b.Fatal(err)
				}
				var x *explore.Exploration
				var before, after runtime.MemStats
				for i := 0; i < b.N; i++ {
					x = nil
					if i == b.N-1 {
						b.StopTimer()
						runtime.GC()
						runtime.ReadMemStats(&before)
						b.StartTimer()
					}
					m, err := p.LoadModelWorkers(p.Default, c.workers)
					if err != nil {
						b.Fatal(err)
					}
					cfg, err := p.Build(m, p.Default)
					if err != nil {
						b.Fatal(err)
					}
					cfg.Workers, cfg.ReleaseInits, cfg.DropTransitions = c.workers, true, c.mode == "summary"
					if x, err = explore.Explore(context.Background(), m, cfg); err != nil || !x.Stats.Complete {
						b.Fatalf("%v, %s", err, x.Stats.Ending())
					}
				}
				b.ReportMetric(float64(len(x.States))*float64(b.N)/b.Elapsed().Seconds(), "states/s")
				b.StopTimer()
				runtime.GC()
				runtime.ReadMemStats(&after)
				b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/float64(len(x.States)), "B/state")
				runtime.KeepAlive(x)
			})
		}
	}
}
