package ui

import (
	"fmt"
	"image/color"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"github.com/modex/modex/engine/conform"
	"github.com/modex/modex/graph"
	"github.com/modex/modex/ui/graphview"
	"github.com/modex/modex/ui/widgets"
)

// MinWindow is the smallest window the workbench fits: every control and
// message readable (scrolled where needed), at the size of a small laptop
// screen less its panel.
var MinWindow = minWindow

// clippedIn lists the visible objects under o (widgets' own parts too)
// that were given less room than their minimum size: cut text, cut
// buttons. A scroll's content is exempt (it scrolls), as are the parts of
// Fyne's own widgets that are made to be cut (a truncated label's text, an
// entry's scrolled text).
func clippedIn(o fyne.CanvasObject, path string, out *[]string) {
	if o == nil || !o.Visible() {
		return
	}
	switch o.(type) {
	case *canvas.Rectangle, *canvas.Line, *canvas.Text, *canvas.Circle, *canvas.Image, *canvas.Raster:
		return // drawn where a widget's renderer puts them, not cut by their size
	}
	size, min := o.Size(), o.MinSize()
	if size.Width+0.5 < min.Width || size.Height+0.5 < min.Height {
		*out = append(*out, fmt.Sprintf("%s: %s is %.0f×%.0f, needs %.0f×%.0f", path, describe(o), size.Width, size.Height, min.Width, min.Height))
	}
	switch x := o.(type) {
	case *container.Scroll:
		return // its content is at least its minimum, scrolled
	case *widget.Entry, *widget.Label, *widget.RichText, *widget.Hyperlink, *widget.List, *widget.Table, *widget.Tree:
		return // their parts are made to scroll or be cut (with an ellipsis)
	case *fyne.Container:
		for i, c := range x.Objects {
			clippedIn(c, fmt.Sprintf("%s/%d", path, i), out)
		}
	case fyne.Widget:
		for i, c := range test.WidgetRenderer(x).Objects() {
			clippedIn(c, fmt.Sprintf("%s/%s.%d", path, typeName(x), i), out)
		}
	}
}

func describe(o fyne.CanvasObject) string {
	switch x := o.(type) {
	case *widget.Label:
		return fmt.Sprintf("label %q", x.Text)
	case *widgets.Button:
		return fmt.Sprintf("button %q", x.Text)
	case *widget.Button:
		return fmt.Sprintf("button %q", x.Text)
	case *widgets.Check:
		return fmt.Sprintf("check %q", x.Text)
	}
	return typeName(o)
}

func typeName(o any) string { return reflect.TypeOf(o).String() }

// checkFits asserts that the window's content fits size without a cut
// control and without asking the window to grow.
func checkFits(t *testing.T, w fyne.Window, size fyne.Size, when string) {
	t.Helper()
	w.Resize(size)
	idle(50 * time.Millisecond) // rows that wrap at the new width ask for their height
	// A second pass, as the desktop driver makes at the next frame for the
	// minimum sizes that changed with the first (wrapped text at its new
	// width).
	relayout(w.Content())
	if min := w.Content().MinSize(); min.Width > size.Width || min.Height > size.Height {
		t.Errorf("%s at %v: the content needs %v: the window would grow", when, size, min)
	}
	if got := w.Canvas().Size(); got.Width > size.Width+0.5 || got.Height > size.Height+0.5 {
		t.Errorf("%s: the window asked for %v became %v", when, size, got)
	}
	var cut []string
	clippedIn(w.Content(), "content", &cut)
	if len(cut) > 0 {
		t.Errorf("%s at %v: %d objects cut:\n%s", when, size, len(cut), strings.Join(cut[:min(len(cut), 15)], "\n"))
	}
}

// The workbench fits 1280×720 and its minimum size in every view, through
// exploring, generating, testing and replaying; the window never changes
// its size by itself.
func TestEveryViewFits(t *testing.T) {
	bin := buildChat(t)
	b := newBench(t)
	w := b.win
	sizes := []fyne.Size{fyne.NewSize(1280, 720), MinWindow}
	all := func(when string) {
		t.Helper()
		for _, v := range b.wb.views.Views() {
			for _, beside := range []bool{false, true} {
				b.wb.views.Show(v, beside)
				for _, s := range sizes {
					checkFits(t, w, s, fmt.Sprintf("%s, view %s (beside %v)", when, v.Title(), beside))
				}
			}
		}
		for i := range b.wb.tabs.Items {
			b.wb.tabs.SelectIndex(i)
			for _, s := range sizes {
				checkFits(t, w, s, fmt.Sprintf("%s, side tab %s", when, b.wb.tabs.Items[i].Text))
			}
		}
	}
	all("empty")
	b.open("../projects/chat/chat.toml")
	b.wait()
	b.wb.SelectState(b.wb.Graph().Doc().States[1].ID) // the inspector shows
	if !b.wb.s.details.Shown() {
		t.Fatal("a selected state shows no details")
	}
	all("explored, a state selected")
	b.wb.configs.SetSelected("offline")
	b.wait()
	ov := b.wb.s.offline
	ov.Generate()
	if b.wb.views.Current().Title() != "Suite" || !b.wb.views.GraphShown() {
		t.Errorf("a generated suite is not shown beside the graph: view %s", b.wb.views.Current().Title())
	}
	ov.SelectCase(0)
	all("a suite")
	tv := b.wb.s.test
	b.wb.configs.SetSelected("hi_bye")
	b.wait()
	tv.Fields().Adapter.SetText(bin + " adapter")
	tv.Fields().Runs.SetText("abc")
	tv.Start()
	if !strings.Contains(tv.Verdicts(), "whole numbers") {
		t.Errorf("a wrong runs field says %q", tv.Verdicts())
	}
	checkFits(t, w, MinWindow, "runs abc")
	tv.Fields().Runs.SetText("4")
	tv.Fields().Steps.SetText("20")
	tv.Fields().Seed.SetText("1")
	startAndWait(t, tv)
	if b.wb.views.Current().Title() != "Test run" {
		t.Errorf("a test's run is not shown: view %s", b.wb.views.Current().Title())
	}
	all("after a test")
	if err := ov.LoadTrace(filepath.Join("..", "projects", "register", "histories", "etcd_002.log")); err != nil {
		t.Fatal(err)
	}
	pump(30*time.Second, func() bool { return !strings.HasPrefix(ov.TraceText(), "Reading") })
	all("a history")
}

// A window larger than the screen (a size remembered from a larger one, or
// the default on a laptop) is made to fit it once shown, never below the
// workbench's minimum.
func TestFitScreen(t *testing.T) {
	for _, tc := range []struct {
		size, screen, want fyne.Size
	}{
		{fyne.NewSize(1400, 888), fyne.NewSize(1280, 720), fyne.NewSize(1264, 656)},
		{fyne.NewSize(1400, 860), fyne.NewSize(1920, 1080), fyne.NewSize(1400, 860)},
		{fyne.NewSize(1400, 860), fyne.NewSize(800, 600), minWindow},
		{fyne.NewSize(3000, 2000), fyne.NewSize(2560, 1440), fyne.NewSize(2544, 1376)},
	} {
		b := newBench(t)
		b.win.Resize(tc.size)
		ScreenSize = func() (fyne.Size, bool) { return tc.screen, true }
		b.wb.fitScreen()
		ScreenSize = nil
		if got := b.win.Canvas().Size(); got != tc.want {
			t.Errorf("a %v window on a %v screen became %v, want %v", tc.size, tc.screen, got, tc.want)
		}
	}
}

// A test that cannot start says why where its graph would be, and leaving
// the Test tab puts the exploration's graph back (the placeholder stuck).
func TestNoStuckPlaceholder(t *testing.T) {
	b := newBench(t)
	b.open("../projects/stack/stack.toml")
	b.wait()
	tv := b.wb.s.test
	var err error
	done := false
	tv.OnDone = func(_ *conform.TestResult, e error) { err, done = e, true }
	tv.Fields().Adapter.SetText("")
	tv.Start()
	if !pump(30*time.Second, func() bool { return done }) {
		t.Fatal("the test never ended")
	}
	if err == nil || !strings.Contains(b.wb.graph.Message(), "The test did not run") {
		t.Errorf("a test without an adapter: %v; the graph says %q", err, b.wb.graph.Message())
	}
	b.wb.tabs.SelectIndex(0)
	pump(10*time.Second, func() bool { return b.wb.graph.Doc() != nil })
	if b.wb.graph.Doc() == nil || !strings.HasPrefix(b.wb.graph.Doc().States[0].ID, "S") {
		t.Errorf("back on the Configuration tab the graph says %q", b.wb.graph.Message())
	}
}

// File ▸ Open Recent lists a project as soon as it is opened; the project
// opens on its graph, whatever view the closed one had.
func TestOpenRecentIsLive(t *testing.T) {
	b := newBench(t)
	b.wb.AutoExplore = false
	recent := func() []string {
		var out []string
		for _, m := range b.win.MainMenu().Items {
			for _, it := range m.Items {
				if it.Label == "Open Recent" {
					for _, c := range it.ChildMenu.Items {
						out = append(out, c.Label)
					}
				}
			}
		}
		return out
	}
	b.open("../projects/chat/chat.toml")
	b.wb.views.Show(b.wb.s.test.RunView(), true)
	b.open("../projects/stack/stack.toml")
	if b.wb.views.Current().Title() != "Graph" || b.wb.views.Beside() {
		t.Errorf("a new project opens on the view %s (beside %v), not its graph", b.wb.views.Current().Title(), b.wb.views.Beside())
	}
	got := recent()
	if len(got) < 2 || !strings.HasSuffix(got[0], "stack.toml") || !strings.HasSuffix(got[1], "chat.toml") {
		t.Errorf("Open Recent lists %q", got)
	}
}

// Back from the Test tab, the state selected in the exploration's graph
// has its details and its path again (they were left empty, the ring on).
func TestSelectionBackFromTestTab(t *testing.T) {
	bin := buildFakeAdapter(t, t.TempDir())
	b := newBench(t)
	b.open("../projects/stack/stack.toml")
	b.wait()
	id := b.wb.Graph().Doc().States[2].ID
	b.wb.SelectState(id)
	tv := b.wb.s.test
	tv.Fields().Adapter.SetText(bin + " good")
	tv.Fields().Runs.SetText("2")
	tv.Fields().Steps.SetText("5")
	tv.Fields().Seed.SetText("1")
	startAndWait(t, tv)
	if !tv.OnGraph() {
		t.Fatal("the test's graph is not on screen")
	}
	b.wb.tabs.SelectIndex(0)
	pump(10*time.Second, func() bool { return b.wb.s.details.Shown() })
	if !b.wb.s.details.Shown() || b.wb.s.center != id {
		t.Fatalf("back on the Configuration tab: details shown %v, centre %q (want %s)", b.wb.s.details.Shown(), b.wb.s.center, id)
	}
	if h, ok := b.wb.s.details.Rows()[0].(*widget.Label); !ok || !strings.HasPrefix(h.Text, id+" ") {
		t.Errorf("the details show %v", b.wb.s.details.Rows()[0])
	}
}

// A state of a part of the graph with transitions out of it is not called
// frontier (it was explored); a path view's folded moves have no id to
// show.
func TestTooltipWords(t *testing.T) {
	for _, tc := range []struct {
		s        graph.State
		has, not string
	}{
		{graph.State{ID: "S3", Kind: "active", Rim: true}, "more transitions outside this view", "frontier"},
		{graph.State{ID: "S3", Kind: "active", Frontier: true}, "frontier: not explored further", "outside"},
		{graph.State{ID: graph.FoldPrefix + "S1", Label: "2 other moves", Kind: "active", Rim: true,
			Vars: graph.Vars{{Name: "1", Value: "d → S0"}}}, "2 other moves of S1, folded", graph.FoldPrefix},
	} {
		tip := graphview.StateTooltip(&tc.s)
		if !strings.Contains(tip, tc.has) || strings.Contains(tip, tc.not) {
			t.Errorf("%s: %q", tc.s.ID, tip)
		}
	}
}

// Find on an overview marks the classes that hold the matches, and going
// to a match opens its class with the state selected (it said "0 shown"
// and showed nothing).
func TestFindOnOverview(t *testing.T) {
	b := newBench(t)
	b.open("../projects/webshop/webshop.toml")
	b.wait()
	b.wb.configs.SetSelected("more_items")
	b.wait()
	b.wb.overviewBy.SetText("len(s.clients)")
	b.wb.overviewBy.OnSubmitted("")
	b.wait()
	if !b.wb.overviewShown() {
		t.Fatal("no overview")
	}
	b.wb.s.find.SetText("len(s.clients) == 1")
	b.wb.Find()
	pump(10*time.Second, func() bool { return len(b.wb.s.matches) > 0 })
	g := b.wb.Graph()
	if len(b.wb.s.matches) != 10 || len(g.Marks()) != 1 || g.Marks()[1] != graphview.MarkFound || !strings.Contains(b.wb.Status(), "in 1 class of the overview") {
		t.Fatalf("%d matches, marks %v, status %q", len(b.wb.s.matches), g.Marks(), b.wb.Status())
	}
	b.wb.NextMatch(1)
	b.wait()
	want := b.wb.s.matches[0]
	v := g.Doc()
	if v == nil || v.StateIndex(want) < 0 || g.Selected() < 0 || v.States[g.Selected()].ID != want || !b.wb.s.details.Shown() {
		t.Errorf("going to match %s: selected %d, note %q", want, g.Selected(), b.wb.note.Text)
	}
}

// relayout lays out every container again, top down, with the sizes
// they have: the desktop driver's pass after minimum sizes changed.
func relayout(o fyne.CanvasObject) {
	switch x := o.(type) {
	case *fyne.Container:
		if x.Layout != nil {
			x.Layout.Layout(x.Objects, x.Size())
		}
		for _, c := range x.Objects {
			relayout(c)
		}
	case fyne.Widget:
		r := test.WidgetRenderer(x)
		r.Layout(x.Size())
		for _, c := range r.Objects() {
			relayout(c)
		}
	}
}

// A test watched on the explored graph: the configuration's graph, the
// states the test visited marked on it (orange, the current one blue, where
// a run failed red); unticked, the test's own graph again.
func TestTestOnExploredGraph(t *testing.T) {
	bin := buildChat(t)
	b := newBench(t)
	b.open("../projects/chat/chat.toml")
	b.wait()
	b.wb.configs.SetSelected("hi_bye")
	b.wait()
	explored := len(b.wb.Graph().Doc().States)
	tv := b.wb.s.test
	tv.Fields().OnExplored.SetChecked(true)
	tv.Fields().Adapter.SetText(bin + " adapter")
	tv.Fields().Runs.SetText("6")
	tv.Fields().Steps.SetText("20")
	tv.Fields().Seed.SetText("2")
	res := startAndWait(t, tv)
	pump(10*time.Second, func() bool { return len(b.wb.Graph().Marks()) > 0 })
	g := b.wb.Graph()
	v := g.Doc()
	if v == nil || len(v.States) != explored || !strings.HasPrefix(v.States[1].ID, "S") {
		t.Fatalf("not the explored graph: %v", v)
	}
	colours := map[color.NRGBA]int{}
	for _, c := range g.Marks() {
		colours[c]++
	}
	failed := !res.Passed()
	if colours[graphview.MarkPath] < 5 || colours[graphview.MarkSelected]+colours[graphview.MarkCurrent] == 0 || failed != (colours[graphview.MarkCurrent] > 0) {
		t.Errorf("marks %v (the test failed: %v)", colours, failed)
	}
	if !strings.Contains(b.wb.Status(), "on the explored graph") {
		t.Errorf("status %q", b.wb.Status())
	}
	tv.Fields().OnExplored.SetChecked(false)
	if v := g.Doc(); v == nil || !strings.HasPrefix(v.States[0].ID, "V") {
		t.Errorf("unticked: the graph shows %v", v)
	}
}

// A tooltip goes away by itself when the pointer rests (Fyne does not say
// when the pointer leaves the window, and one stayed on screen), and comes
// back when the pointer moves over a state again.
func TestTooltipGoesAway(t *testing.T) {
	old := widgets.TooltipLinger
	widgets.TooltipLinger = 100 * time.Millisecond
	defer func() { widgets.TooltipLinger = old }()
	b := newBench(t)
	b.open("../projects/chat/chat.toml")
	b.wait()
	g := b.wb.Graph()
	n := g.Layout().Nodes[len(g.Layout().Nodes)-1]
	abs := fyne.CurrentApp().Driver().AbsolutePositionForObject(g)
	test.MoveMouse(b.win.Canvas(), abs.Add(g.ToScreen(n.Center)))
	if g.Tooltip() == "" {
		t.Fatal("no tooltip over a state")
	}
	if !pump(5*time.Second, func() bool { return g.Tooltip() == "" }) {
		t.Error("the tooltip stayed")
	}
	test.MoveMouse(b.win.Canvas(), abs.Add(g.ToScreen(n.Center)).AddXY(1, 0))
	if g.Tooltip() == "" {
		t.Error("no tooltip when the pointer moves again")
	}
}
