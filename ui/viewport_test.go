package ui

import (
	"context"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"github.com/modex/modex/engine/explore"
	"github.com/modex/modex/graph"
)

// Zoomed in past what a whole-graph image can hold, the view draws the
// visible part at screen resolution: an image the size of the view, with
// the full labels of the states in it; panning redraws the new part.
func TestViewportCrispAtZoom(t *testing.T) {
	b := newBench(t)
	b.open("../projects/chat/chat.toml")
	b.wb.configs.SetSelected("hi_bye")
	b.wait()
	g := b.wb.Graph()
	g.SetZoom(4)
	n := g.node(g.Doc().StateIndex("S12"))
	view := g.scroll.Size()
	g.setOffset(g.toScreen(n.Center).Subtract(fyne.NewPos(view.Width/2, view.Height/2)))
	if !pump(10*time.Second, func() bool { return g.vp.img != nil && g.vp.gen > 0 && g.vp.lay == g.lay }) {
		t.Fatal("no viewport drawing after zooming")
	}
	idle(3 * viewportDelay)
	origin, w, h, px := g.visibleRegion()
	bounds := g.vp.img.Bounds()
	if px != 4 || bounds.Dx() != int(math.Ceil(w*px)) || bounds.Dy() != int(math.Ceil(h*px)) ||
		float32(bounds.Dx()) > view.Width+1 || float32(bounds.Dy()) > view.Height+1 {
		t.Fatalf("viewport image %v at %.1f px/pt for a %v view", bounds, px, view)
	}
	if g.vp.origin != origin {
		t.Errorf("viewport drawn at %v, visible from %v", g.vp.origin, origin)
	}
	texts := g.lay.Texts(origin, bounds.Dx(), bounds.Dy(), px)
	labels := 0
	for _, s := range g.Doc().States {
		whole := true // every line of the label, as the layout broke it
		for _, line := range strings.Split(graph.WrapLabel(s.Label, graph.WrapWidth), "\n") {
			whole = whole && slices.Contains(texts, line)
		}
		if whole {
			labels++
		}
	}
	if labels == 0 {
		t.Errorf("no full state label in the zoomed view: %q", texts)
	}
	drawn := g.vp.drawn
	g.setOffset(g.scroll.Offset.Add(fyne.NewPos(-200, 120)))
	if !pump(10*time.Second, func() bool { return g.vp.drawn > drawn }) {
		t.Fatal("panning did not redraw the viewport")
	}
	if o, _, _, _ := g.visibleRegion(); g.vp.origin != o {
		t.Errorf("after panning the viewport is at %v, the view at %v", g.vp.origin, o)
	}
}

// The arrow keys walk the graph from the selection: ↓ the first outgoing
// transition, →/← the state's other transitions, ↑ back the way they came,
// then toward the initial state.
func TestArrowKeysFollowTransitions(t *testing.T) {
	b := newBench(t)
	b.open("../projects/chat/chat.toml")
	b.wb.configs.SetSelected("hi_bye")
	b.wait()
	wb := b.wb
	doc := wb.s.doc
	var out []string
	for _, tr := range doc.Transitions {
		if tr.From == "S4" {
			out = append(out, tr.To)
		}
	}
	if len(out) < 2 {
		t.Fatalf("S4 has %d outgoing transitions, the test needs two", len(out))
	}
	wb.SelectState("S4")
	key := func(k fyne.KeyName, want string) {
		t.Helper()
		wb.win.Canvas().(interface{ OnTypedKey() func(*fyne.KeyEvent) }).OnTypedKey()(&fyne.KeyEvent{Name: k})
		if wb.s.center != want || doc.States[wb.graph.Selected()].ID != want {
			t.Fatalf("after %s: selected %s (view %d), want %s; status %q", k, wb.s.center, wb.graph.Selected(), want, wb.status.Text)
		}
	}
	key(fyne.KeyDown, out[0])
	key(fyne.KeyRight, out[1])
	key(fyne.KeyLeft, out[0])
	key(fyne.KeyLeft, out[len(out)-1])
	key(fyne.KeyUp, "S4")
	key(fyne.KeyUp, "S3")
	key(fyne.KeyUp, "S2")
	wb.Back()
	if wb.s.center != "S3" {
		t.Errorf("Back after the walk: %s, want S3", wb.s.center)
	}
}

// Fit shows the whole graph, however small its labels get (a graph a fifth
// too wide was once drawn readable and cut: issue 28).
func TestFitZoomShowsTheWholeGraph(t *testing.T) {
	read := float64(graph.MinTextPx) / graph.ArcFontSize // at canvas scale 1
	view := 500.0 + 2*graphPad
	for _, c := range []struct {
		name string
		w, h float64 // the layout's size, in points
		want float64
	}{
		{"small: at most twice its size", 100, 50, 2},
		{"fits at a readable zoom", 400, 250, 1.25},
		{"a fifth too wide: the whole graph", 500 / read * 1.2, 100, read / 1.2},
		{"twice too wide: the whole graph", 500 / read * 2, 100, 500 / (500 / read * 2)},
		{"a fifth too tall (the canvas scale does not matter)", 100, 500 / (read / 2) * 1.2, read / 2 / 1.2},
	} {
		got := fitZoom(view, view, &graph.Layout{Width: c.w, Height: c.h})
		if math.Abs(got-c.want) > 1e-9 {
			t.Errorf("%s: zoom %.4f, want %.4f", c.name, got, c.want)
		}
	}
}

// A fitted graph is fitted again when its room changes (here the window
// gets shorter), so that it stays whole; a zoom set by hand stays.
func TestFittedGraphRefitsOnResize(t *testing.T) {
	b := newBench(t)
	b.open("../projects/chat/chat.toml")
	b.wait()
	g := b.wb.Graph()
	whole := func() bool {
		view := g.scroll.Size()
		return float32(g.lay.Width)*g.zoom+2*graphPad <= view.Width+0.5 &&
			float32(g.lay.Height)*g.zoom+2*graphPad <= view.Height+0.5
	}
	if !whole() {
		t.Fatalf("the graph is not fitted at first: zoom %.3f, view %v", g.Zoom(), g.scroll.Size())
	}
	z0 := g.Zoom()
	b.win.Resize(fyne.NewSize(1400, 560))
	if !pump(5*time.Second, func() bool { return g.Zoom() < z0 && whole() }) {
		t.Fatalf("after a resize the zoom is %.3f (was %.3f) for a view of %v", g.Zoom(), z0, g.scroll.Size())
	}
	g.ZoomIn()
	z1 := g.Zoom()
	b.win.Resize(fyne.NewSize(1400, 860))
	pump(time.Second, func() bool { return false })
	if g.Zoom() != z1 {
		t.Errorf("a zoom set by hand changed on resizing: %.3f, was %.3f", g.Zoom(), z1)
	}
}

// A graph narrower than the view is drawn in its middle, and a click on a
// state there selects that state.
func TestNarrowGraphIsCentred(t *testing.T) {
	b := newBench(t)
	b.open("../projects/chat/chat.toml")
	b.wait()
	g := b.wb.Graph()
	view := g.scroll.Size()
	drawn := float32(g.lay.Width) * g.Zoom()
	if drawn+2*graphPad >= view.Width-1 {
		t.Skipf("the graph is not narrower than the view: %.0f of %.0f", drawn, view.Width)
	}
	if left, right := g.left(), view.Width-g.left()-drawn; math.Abs(float64(left-right)) > 1 {
		t.Errorf("the graph is drawn %.1f from the left and %.1f from the right", left, right)
	}
	// Where S4 is drawn, worked out from the view: the graph's margin is
	// half of what the view has to spare.
	n := g.node(g.Doc().StateIndex("S4"))
	at := fyne.NewPos((view.Width-drawn)/2+float32(n.Center.X)*g.Zoom(), graphPad+float32(n.Center.Y)*g.Zoom())
	test.TapAt(g, at)
	if g.Selected() != n.State {
		t.Errorf("a click at S4's centre selected %d, not %d", g.Selected(), n.State)
	}
}

// A graph of a few hundred states opens as its overview (whole, it is a knot
// at Fit); large graphs: whole graph draws it whole, and the neighbourhood
// says how to get the whole graph.
func TestMidSizeGraphOpensAsOverview(t *testing.T) {
	b := newBench(t)
	b.open("../projects/threadpool/threadpool.toml") // small: 223 states
	b.wait()
	d, err := graph.FromExploration(b.wb.Last())
	if err != nil {
		t.Fatal(err)
	}
	if n := len(d.States); n <= OverviewAbove || n > DrawLimit {
		t.Fatalf("the test needs a graph of %d to %d states, not %d", OverviewAbove+1, DrawLimit, n)
	}
	v := b.wb.Graph().Doc()
	if v == nil || v.States[0].Count == 0 || !strings.Contains(b.wb.note.Text, "overview by") {
		t.Fatalf("no overview: note %q", b.wb.note.Text)
	}
	// The classes count model states, and the note says so when the graph
	// drawn has more (its waiting states drawn twice).
	inClasses := 0
	for _, c := range v.States {
		inClasses += c.Count
	}
	if want := fmt.Sprintf("of its %d model states", inClasses); inClasses == len(d.States) || !strings.Contains(b.wb.note.Text, want) {
		t.Errorf("classes hold %d of %d states; note %q", inClasses, len(d.States), b.wb.note.Text)
	}
	b.wb.largeMode.SetSelected(largeWhole)
	if !pump(10*time.Second, func() bool { v := b.wb.Graph().Doc(); return v != nil && len(v.States) == len(d.States) }) {
		t.Fatalf("whole graph: note %q", b.wb.note.Text)
	}
	b.wb.largeMode.SetSelected(largeNeighbourhood)
	if !pump(10*time.Second, func() bool { return strings.Contains(b.wb.note.Text, "whole graph draws up to 300") }) {
		t.Errorf("neighbourhood note %q", b.wb.note.Text)
	}
}

// A change of view prepares from the graph and document built for the
// exploration shown; another exploration gets its own, equal to a fresh
// build.
func TestBuiltGraphsKept(t *testing.T) {
	m, cfg := gridModel(t, 30, 30)
	x, err := explore.Explore(context.Background(), m, cfg)
	if err != nil {
		t.Fatal(err)
	}
	var built builtGraphs
	scale := func(*graph.Layout) float64 { return 1 }
	d1 := prepare(context.Background(), x, viewSpec{radius: 1}, scale, &built)
	d2 := prepare(context.Background(), x, viewSpec{radius: 2, center: "S40"}, scale, &built)
	if d1.err != nil || d2.err != nil || d1.doc != d2.doc || d1.full != d2.full {
		t.Fatalf("built again for the same exploration (%v, %v)", d1.err, d2.err)
	}
	y, err := explore.Explore(context.Background(), m, cfg)
	if err != nil {
		t.Fatal(err)
	}
	d3 := prepare(context.Background(), y, viewSpec{radius: 1}, scale, &built)
	fresh := prepare(context.Background(), y, viewSpec{radius: 1}, scale, nil)
	if d3.err != nil || d3.doc == d1.doc || d3.full == d1.full {
		t.Fatalf("another exploration's graph kept (%v)", d3.err)
	}
	if !reflect.DeepEqual(d3.doc, fresh.doc) || !reflect.DeepEqual(d3.view.States, fresh.view.States) {
		t.Error("the kept document differs from a fresh one")
	}
	built.drop(x) // another exploration's: kept
	if built.doc != d3.doc {
		t.Error("dropping another exploration's graph let this one's go")
	}
	built.drop(nil) // a project closed
	if built.x != nil || built.doc != nil || built.full != nil {
		t.Error("a closed project's graph is kept")
	}
}
