package ui

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"

	"github.com/modex/modex/engine/explore"
	"github.com/modex/modex/graph"
)

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
