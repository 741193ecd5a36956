package ui

import (
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"github.com/modex/modex/ui/graphview"
	"github.com/modex/modex/ui/widgets"
)

// detailsText is what the details panel says, its labels joined.
func detailsText(d *graphview.Inspector) string {
	var sb strings.Builder
	for _, o := range d.Rows() {
		if l, ok := o.(*widget.Label); ok {
			sb.WriteString(l.Text + "\n")
		}
	}
	return sb.String()
}

// firstID is the id of the first state of the graph on screen ("" for
// none): S… for an exploration's, V… for a test's.
func firstID(b *bench) string {
	if d := b.wb.Graph().Doc(); d != nil && len(d.States) > 0 {
		return d.States[0].ID
	}
	return ""
}

// Each tab shows its own graph: a test's graph in the Test tab, the
// exploration's elsewhere, with details and selection that belong to the
// graph on screen (issue 28: the test graph stayed drawn in the
// Configuration tab, details described states of another graph).
func TestTabsShowTheirOwnGraph(t *testing.T) {
	bin := buildChat(t)
	b := newBench(t)
	b.open("../projects/chat/chat.toml")
	b.wait()
	b.wb.SelectState("S4")
	if !strings.Contains(detailsText(b.wb.s.details), "S4") {
		t.Fatalf("details of S4: %q", detailsText(b.wb.s.details))
	}
	tv := b.wb.s.test
	tv.Fields().Adapter.SetText(bin + " adapter --fixed")
	tv.Fields().Runs.SetText("2")
	tv.Fields().Steps.SetText("20")
	tv.Fields().Seed.SetText("1")
	if res := startAndWait(t, tv); res == nil || !res.Passed() {
		t.Fatalf("test: %+v", res)
	}
	if b.wb.tabs.Selected() != b.wb.testTab || !strings.HasPrefix(firstID(b), "V") {
		t.Fatalf("the test's graph is not shown in the Test tab: first state %q", firstID(b))
	}
	if b.wb.Graph().Selected() >= 0 || strings.Contains(detailsText(b.wb.s.details), "S4") {
		t.Errorf("the exploration's selection shows on the test's graph: selected %d, details %q", b.wb.Graph().Selected(), detailsText(b.wb.s.details))
	}
	tv.Jump("V3")
	if !strings.Contains(detailsText(b.wb.s.details), "V3") {
		t.Fatalf("details of V3: %q", detailsText(b.wb.s.details))
	}

	b.wb.tabs.SelectIndex(0) // Configuration
	if !pump(30*time.Second, func() bool { return strings.HasPrefix(firstID(b), "S") }) {
		t.Fatalf("the Configuration tab still shows %q", firstID(b))
	}
	if d := detailsText(b.wb.s.details); strings.Contains(d, "V3") {
		t.Errorf("the details still describe the test's V3: %q", d)
	}

	b.wb.tabs.Select(b.wb.testTab)
	if !strings.HasPrefix(firstID(b), "V") {
		t.Fatalf("the Test tab came back without its graph: %q", firstID(b))
	}
	g := b.wb.Graph()
	if i := g.Doc().StateIndex("V3"); i < 0 || g.Selected() != i || !strings.Contains(detailsText(b.wb.s.details), "V3") {
		t.Errorf("V3 is not selected again: selected %d, index %d, details %q", g.Selected(), i, detailsText(b.wb.s.details))
	}

	// A new test starts from nothing: no graph, counters or verdicts of
	// the last one while the implementation starts.
	tv.Fields().Runs.SetText("1")
	tv.OnDone = nil
	tv.Start()
	if firstID(b) != "" || tv.Counters() != "" || strings.Contains(tv.Verdicts(), "2 runs") {
		t.Errorf("a new test shows the last one's graph %q, counters %q, verdicts %q", firstID(b), tv.Counters(), tv.Verdicts())
	}
	tv.Stop()
	pump(30*time.Second, func() bool { return !tv.Running() })
}

// Find's matches stay marked while the arrows step through them, and Back
// says where it went (it said "match 2 of N" before).
func TestFindMarksStayWhileStepping(t *testing.T) {
	b := newBench(t)
	b.open("../projects/chat/chat.toml")
	b.wait()
	b.wb.s.find.SetText("pending(s) == 1")
	b.wb.Find()
	if !pump(20*time.Second, func() bool { return len(b.wb.s.matches) > 0 }) {
		t.Fatal("Find matched nothing")
	}
	n := len(b.wb.s.matches)
	found := func() int {
		k := 0
		for _, c := range b.wb.Graph().Marks() {
			if c == graphview.MarkFound {
				k++
			}
		}
		return k
	}
	if found() != n || n < 2 {
		t.Fatalf("%d states marked of %d matches", found(), n)
	}
	b.wb.NextMatch(1)
	b.wb.NextMatch(1)
	if found() == 0 {
		t.Error("stepping to a match removed Find's marks")
	}
	if !strings.HasPrefix(b.wb.status.Text, "match 2 of") {
		t.Errorf("status %q", b.wb.status.Text)
	}
	b.wb.Back()
	if !strings.HasPrefix(b.wb.status.Text, "Back to "+b.wb.s.matches[0]) {
		t.Errorf("after Back the status says %q", b.wb.status.Text)
	}
	// A new exploration forgets the matches: they named the last one's
	// states.
	b.wb.configs.SetSelected("hi_bye")
	b.wait()
	if len(b.wb.s.matches) != 0 {
		t.Errorf("%d matches of the previous exploration kept", len(b.wb.s.matches))
	}
}

// Ctrl+click compares two states: both marked on the graph, each value on
// its own unwrapped line; the shortest path numbers steps, not timeouts.
func TestCompareAndPathReadable(t *testing.T) {
	b := newBench(t)
	b.open("../projects/chat/chat.toml")
	b.wait()
	g := b.wb.Graph()
	v := g.Doc()
	a, c := v.StateIndex("S4"), v.StateIndex("S6")
	if a < 0 || c < 0 {
		t.Fatalf("no S4 or S6 in %d states", len(v.States))
	}
	b.wb.SelectState("S4")
	g.OnCompare(a, c)
	if g.Marks()[c] != graphview.MarkCompared {
		t.Errorf("the compared state is not marked: %v", g.Marks())
	}
	text := detailsText(b.wb.s.details)
	if !strings.Contains(text, "S4: ") || !strings.Contains(text, "S6: ") {
		t.Errorf("comparison %q", text)
	}
	for _, o := range b.wb.s.details.Rows() {
		if l, ok := o.(*widget.Label); ok && l.TextStyle.Monospace && l.Wrapping != fyne.TextWrapOff {
			t.Errorf("the value %q wraps", l.Text)
		}
	}
	// S6 is reached through a timeout: the path lists it without a number.
	b.wb.SelectState("S6")
	var path []string
	for _, o := range b.wb.s.details.Rows() {
		if bt, ok := o.(*widgets.Button); ok && strings.HasSuffix(bt.Text, "(timeout)") && !strings.Contains(bt.Text, "→") {
			path = append(path, bt.Text)
		}
	}
	if len(path) == 0 {
		t.Fatal("S6's path lists no timeout")
	}
	for _, p := range path {
		if !strings.HasPrefix(p, "    (timeout)") {
			t.Errorf("a timeout numbered as a step: %q", p)
		}
	}
}

// Layout minimums: every panel keeps a readable width in a small window,
// the window's minimum width stays within MinWindow, the inspector takes
// room only while a state is selected, and the panels collapse and come
// back with their dividers.
func TestLayoutMinimums(t *testing.T) {
	b := newBench(t)
	b.open("../projects/chat/chat.toml")
	b.wait()
	b.win.Resize(fyne.NewSize(1100, 750))
	pump(time.Second, func() bool { return false }) // let the layout settle
	if min := b.win.Content().MinSize(); min.Width > MinWindow.Width || min.Width < 600 {
		t.Errorf("the window's minimum width is %.0f", min.Width)
	}
	if len(b.wb.graphHolder.Objects) != 1 || b.wb.graphHolder.Objects[0] != b.wb.center {
		t.Error("the inspector takes room with nothing selected")
	}
	// A wide state's details do not widen the window.
	before := b.win.Canvas().Size()
	b.wb.SelectState("S8")
	pump(200*time.Millisecond, func() bool { return false })
	if after := b.win.Canvas().Size(); after.Width > before.Width {
		t.Errorf("selecting a state widened the window from %.0f to %.0f", before.Width, after.Width)
	}
	left, center, details := b.wb.splits[0].Leading, b.wb.center, b.wb.splits[1].Trailing
	for name, c := range map[string]struct {
		o   fyne.CanvasObject
		min float32
	}{"side panel": {left, 260}, "graph": {center, 240}, "inspector": {details, 180}} {
		if w := c.o.Size().Width; w < c.min {
			t.Errorf("the %s is %.0f wide in a 1100 wide window, want at least %.0f", name, w, c.min)
		}
	}
	offset := b.wb.splits[0].Offset
	b.wb.togglePanel()
	b.wb.toggleDetails()
	if b.wb.body.Objects[0] != b.wb.views.Content() || b.wb.graphHolder.Objects[0] != b.wb.center {
		t.Fatalf("with both panels hidden the window shows %T", b.wb.body.Objects[0])
	}
	b.wb.togglePanel()
	b.wb.toggleDetails()
	if b.wb.body.Objects[0] != b.wb.splits[0] || b.wb.splits[0].Offset != offset || b.wb.graphHolder.Objects[0] != b.wb.splits[1] {
		t.Error("the panels did not come back as they were")
	}
}

// The mouse wheel over a field of the configuration editor scrolls the
// editor (a Fyne field took the wheel events and the form stalled).
func TestWheelOverFieldsScrollsTheEditor(t *testing.T) {
	b := newBench(t)
	b.open("../projects/chat/chat.toml")
	b.wait()
	ed := b.wb.s.editor
	sc := ed.Content().(*fyne.Container).Objects[0].(*container.Scroll)
	f := ed.Field("filters.0")
	if f == nil {
		t.Fatal("no filters.0 field")
	}
	pos := fyne.CurrentApp().Driver().AbsolutePositionForObject(f.Entry).Add(fyne.NewPos(20, 10))
	before := sc.Offset.Y
	test.Scroll(b.win.Canvas(), pos, 0, -120)
	if sc.Offset.Y <= before {
		t.Errorf("the wheel over a field left the editor at %.0f (was %.0f)", sc.Offset.Y, before)
	}
	// It takes no other event: clicks, hovering, dragging and the keyboard
	// reach the fields under it.
	var pass any = ed.Content().(*fyne.Container).Objects[1]
	for name, takes := range map[string]bool{
		"taps":     is[fyne.Tappable](pass),
		"hovering": is[desktop.Hoverable](pass),
		"drags":    is[fyne.Draggable](pass),
		"focus":    is[fyne.Focusable](pass),
		"clicks":   is[desktop.Mouseable](pass),
	} {
		if takes {
			t.Errorf("the wheel's layer takes %s", name)
		}
	}
}

func is[T any](x any) bool {
	_, ok := x.(T)
	return ok
}
