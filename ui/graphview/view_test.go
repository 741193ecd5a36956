package graphview

import (
	"context"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"github.com/modex/modex/engine/explore"
	"github.com/modex/modex/graph"
	"github.com/modex/modex/projects"
)

// show explores a configuration of the chat sample ("": its first) and
// shows the graph in a view that fills a window about the size of the
// workbench's graph panel, fitted as the workbench shows it.
func show(t *testing.T, config string) (*View, fyne.Window) {
	t.Helper()
	a := test.NewTempApp(t)
	w := a.NewWindow("graph")
	t.Cleanup(w.Close)
	g := New()
	w.SetContent(g.Container())
	w.Resize(fyne.NewSize(900, 700))
	p, err := projects.Load("../../projects/chat/chat.toml")
	if err != nil {
		t.Fatal(err)
	}
	if config == "" {
		config = p.ConfigNames()[0]
	}
	m, err := p.LoadModelFor(config)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := p.Build(m, config)
	if err != nil {
		t.Fatal(err)
	}
	x, err := explore.Explore(context.Background(), m, cfg)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := graph.FromExploration(x)
	if err != nil {
		t.Fatal(err)
	}
	lay, err := graph.LayoutDoc(context.Background(), doc, "")
	if err != nil {
		t.Fatal(err)
	}
	scale := g.DrawScale(lay)
	g.SetGraph(doc, lay, lay.Draw(scale, nil), scale)
	g.Fit()
	idle(100 * time.Millisecond)
	return g, w
}

// Zoomed in past what a whole-graph image can hold, the view draws the
// visible part at screen resolution: an image the size of the view, with
// the full labels of the states in it; panning redraws the new part.
func TestViewportCrispAtZoom(t *testing.T) {
	g, _ := show(t, "hi_bye")
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
	g, win := show(t, "")
	whole := func() bool {
		view := g.scroll.Size()
		return float32(g.lay.Width)*g.zoom+2*graphPad <= view.Width+0.5 &&
			float32(g.lay.Height)*g.zoom+2*graphPad <= view.Height+0.5
	}
	if !whole() {
		t.Fatalf("the graph is not fitted at first: zoom %.3f, view %v", g.Zoom(), g.scroll.Size())
	}
	z0 := g.Zoom()
	win.Resize(fyne.NewSize(900, 400))
	if !pump(5*time.Second, func() bool { return g.Zoom() < z0 && whole() }) {
		t.Fatalf("after a resize the zoom is %.3f (was %.3f) for a view of %v", g.Zoom(), z0, g.scroll.Size())
	}
	g.ZoomIn()
	z1 := g.Zoom()
	win.Resize(fyne.NewSize(900, 700))
	pump(time.Second, func() bool { return false })
	if g.Zoom() != z1 {
		t.Errorf("a zoom set by hand changed on resizing: %.3f, was %.3f", g.Zoom(), z1)
	}
}

// A graph narrower than the view is drawn in its middle, and a click on a
// state there selects that state.
func TestNarrowGraphIsCentred(t *testing.T) {
	g, _ := show(t, "")
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

// A tooltip wider than the view is wrapped to fit it.
func TestTooltipWrapsToView(t *testing.T) {
	long := strings.Repeat("x", 300)
	lines := wrapToWidth([]string{"short", long}, 400, 12)
	if len(lines) < 3 || lines[0] != "short" {
		t.Fatalf("lines %q", lines)
	}
	w := fyne.MeasureText("M", 12, fyne.TextStyle{Monospace: true}).Width
	for _, l := range lines {
		if float32(len([]rune(l)))*w > 400+w*2 {
			t.Errorf("line of %d characters is wider than 400", len(l))
		}
	}
	if strings.Join(lines[1:], "") != strings.Repeat("x", 300)+strings.Repeat("  ", len(lines)-2) && strings.ReplaceAll(strings.Join(lines[1:], ""), " ", "") != long {
		t.Error("wrapping lost characters")
	}
	// Values break between their elements, not inside a name.
	value := "clients = {" + strings.Repeat("Client1, ", 12) + "Client2}"
	lines = wrapToWidth([]string{value}, 200, 12)
	for i, l := range lines {
		if i < len(lines)-1 && !strings.HasSuffix(l, ",") {
			t.Errorf("line %d breaks inside a token: %q", i, l)
		}
	}
	if strings.ReplaceAll(strings.Join(lines, ""), " ", "") != strings.ReplaceAll(value, " ", "") {
		t.Errorf("wrapping changed the text: %q", lines)
	}
}

// Zooming keeps the selected state where it is on screen (buttons and
// keys), and the point under the pointer (Ctrl+wheel).
func TestZoomKeepsAnchor(t *testing.T) {
	g, _ := show(t, "hi_bye")
	screen := func(state int) fyne.Position {
		for _, n := range g.Layout().Nodes {
			if n.State == state {
				return g.ToScreen(n.Center).Subtract(g.scroll.Offset)
			}
		}
		t.Fatal("no node")
		return fyne.Position{}
	}
	g.SetZoom(1.5)
	g.selected = g.Doc().StateIndex("S12")
	// Scroll the selection into the middle of the view.
	view := g.scroll.Size()
	g.setOffset(screen(g.selected).Add(g.scroll.Offset).Subtract(fyne.NewPos(view.Width/2, view.Height/2)))
	before := screen(g.selected)
	if before.X < 0 || before.Y < 0 || before.X > view.Width || before.Y > view.Height {
		t.Fatalf("the selection is not on screen: %v in %v", before, view)
	}
	g.ZoomIn()
	after := screen(g.selected)
	if d := after.Subtract(before); d.X*d.X+d.Y*d.Y > 4 {
		t.Errorf("the selection moved from %v to %v", before, after)
	}
	// The wheel: the layout point under the pointer stays under it.
	at := fyne.NewPos(200, 150)
	l := g.toLayout(g.scroll.Offset.Add(at))
	g.zoomAround(g.Zoom()*1.25, at)
	if m := g.toLayout(g.scroll.Offset.Add(at)); (m.X-l.X)*(m.X-l.X)+(m.Y-l.Y)*(m.Y-l.Y) > 1 {
		dx, dy := m.X-l.X, m.Y-l.Y
		t.Errorf("the point under the pointer moved by (%.1f, %.1f)", dx, dy)
	}
}
