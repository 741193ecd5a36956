package ui

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"github.com/modex/modex/engine/explore"
	"github.com/modex/modex/engine/model"
	"github.com/modex/modex/graph"
)

// gridModel is a w×h grid walk: w*h states, up to 4 transitions each.
func gridModel(tb testing.TB, w, h int) (*model.StarModel, *explore.Config) {
	src := fmt.Sprintf(`
W, H = %d, %d
def init():
    return {"x": 0, "y": 0}
def Right(s):
    require(s.x < W - 1)
    s.x += 1
def Left(s):
    require(s.x > 0)
    s.x -= 1
def Up(s):
    require(s.y < H - 1)
    s.y += 1
def Down(s):
    require(s.y > 0)
    s.y -= 1
actions = [Right, Left, Up, Down]
`, w, h)
	m, err := model.LoadStarlarkSource("grid.star", []byte(src))
	if err != nil {
		tb.Fatal(err)
	}
	return m, explore.DefaultConfig(m)
}

// BenchmarkShowGraph measures what happens between an exploration's end and
// its graph being ready for the screen: building the document, Graphviz
// layout (dot up to 60 states, sfdp above) and drawing. 2000 states are
// above DrawLimit: the neighbourhood of the initial state is shown.
func BenchmarkShowGraph(b *testing.B) {
	for _, size := range [][2]int{{10, 5}, {20, 15}, {50, 40}} {
		m, cfg := gridModel(b, size[0], size[1])
		x, err := explore.Explore(context.Background(), m, cfg)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("states=%d", len(x.States)), func(b *testing.B) {
			var d drawing
			for i := 0; i < b.N; i++ {
				d = prepare(context.Background(), x, viewSpec{radius: 2}, func(*graph.Layout) float64 { return 1.5 }, nil)
				if d.err != nil {
					b.Fatal(d.err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/show")
			b.ReportMetric(float64(len(d.view.States)), "drawn-states")
		})
	}
}

// benchWorkbench opens a project in a workbench in a 1400×860 test window
// and counts the explorations shown.
func benchWorkbench(b *testing.B, path string) (*Workbench, *int) {
	a := test.NewTempApp(b)
	w := a.NewWindow("bench")
	w.Resize(fyne.NewSize(1400, 860))
	b.Cleanup(w.Close)
	wb := NewWorkbench(w, a, nil)
	shown := new(int)
	wb.OnShown(func() { *shown++ })
	if err := wb.Open(path); err != nil {
		b.Fatal(err)
	}
	return wb, shown
}

// BenchmarkUIWorkMoreItems explores the web shop MoreItemsInCart
// configuration in the workbench and reports the longest time the
// workbench kept the UI goroutine busy (its own callbacks) and the worst
// heartbeat delay of the UI goroutine.
func BenchmarkUIWorkMoreItems(b *testing.B) {
	wb, shown := benchWorkbench(b, "../projects/webshop/webshop.toml")
	mon := StartStallMonitor(5 * time.Millisecond)
	defer mon.Stop()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		wb.configs.SetSelected("more_items")
		wb.Explore()
		want := *shown + 1
		pump(60*time.Second, func() bool { return *shown >= want })
		wb.configs.SetSelected("some_items")
	}
	b.ReportMetric(float64(wb.MaxUIWork().Microseconds())/1000, "max-ui-work-ms")
	b.ReportMetric(float64(mon.Worst().Microseconds())/1000, "max-heartbeat-delay-ms")
}

// BenchmarkOverviewBigStack explores the 131,071-state bounded stack
// (capacity 16) in the workbench with the overview by len(s.stack) and
// reports how long after exploration's end the overview (17 classes) was on
// screen, and the longest the workbench kept the UI goroutine busy.
func BenchmarkOverviewBigStack(b *testing.B) {
	dir := b.TempDir()
	src, err := os.ReadFile("../engine/explore/testdata/bigstack.star")
	if err != nil {
		b.Fatal(err)
	}
	src = []byte(strings.Replace(string(src), "CAPACITY = 14", "CAPACITY = 16", 1))
	path := filepath.Join(dir, "stack16.star")
	if err := os.WriteFile(path, src, 0o644); err != nil {
		b.Fatal(err)
	}
	wb, shown := benchWorkbench(b, path)
	pump(60*time.Second, func() bool { return *shown >= 1 })
	wb.overviewBy.SetText("len(s.stack)")
	mon := StartStallMonitor(5 * time.Millisecond)
	defer mon.Stop()
	var after time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		want := *shown + 1
		start := time.Now()
		wb.Explore()
		pump(120*time.Second, func() bool { return *shown >= want })
		x := wb.Last()
		if x == nil || len(x.States) != 131071 {
			b.Fatalf("explored %v", x)
		}
		if v := wb.Graph().Doc(); v == nil || len(v.States) != 17 {
			b.Fatalf("the view is not the 17-class overview")
		}
		after += time.Since(start) - time.Duration(x.Stats.Seconds*float64(time.Second))
	}
	b.ReportMetric(float64(after.Milliseconds())/float64(b.N), "ms-after-exploration")
	b.ReportMetric(float64(wb.MaxUIWork().Microseconds())/1000, "max-ui-work-ms")
	b.ReportMetric(float64(mon.Worst().Microseconds())/1000, "max-heartbeat-delay-ms")
}
