package graph_test

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/modex/modex/graph"
)

func layoutSample(t *testing.T, sample, config string) (*graph.Doc, *graph.Layout) {
	t.Helper()
	d, err := graph.FromExploration(exploreSample(t, sample, config, 0))
	if err != nil {
		t.Fatal(err)
	}
	l, err := graph.LayoutDoc(context.Background(), d, "dot")
	if err != nil {
		t.Fatal(err)
	}
	return d, l
}

// parallelDoc has parallel transitions, a timeout beside them, and two
// self-loops.
func parallelDoc() *graph.Doc {
	d := &graph.Doc{States: []graph.State{
		{ID: "S0", Label: "S0", Initial: true, Kind: "active"},
		{ID: "S1", Label: "S1", Kind: "passive"},
	}}
	for _, t := range []struct{ from, to, kind, label string }{
		{"S0", "S1", "controllable", "Post(1)"},
		{"S0", "S1", "controllable", "Post(2)"},
		{"S1", "S1", "observable", "?Ack(1)"},
		{"S0", "S1", "timeout", ""},
		{"S1", "S0", "observable", "?Deliver(1)"},
		{"S1", "S1", "observable", "?Ack(2)"},
	} {
		d.Transitions = append(d.Transitions, graph.Transition{From: t.from, To: t.to, Kind: t.kind, Label: t.label})
	}
	return d
}

// Parallel transitions are one arc with their labels stacked (timeouts
// apart: they are unlabelled); self-loops are one arc drawn as a badge.
func TestArcsGroupParallelTransitions(t *testing.T) {
	d := parallelDoc()
	arcs := d.Arcs()
	want := [][]int{{0, 1}, {2, 5}, {3}, {4}}
	if !slices.EqualFunc(arcs, want, slices.Equal[[]int]) {
		t.Fatalf("arcs %v, want %v", arcs, want)
	}
	if got := d.ArcLabel(arcs[0]); got != "Post(1)\nPost(2)" {
		t.Errorf("stacked label %q", got)
	}
	l, err := graph.LayoutDoc(context.Background(), d, "dot")
	if err != nil {
		t.Fatal(err)
	}
	var groups [][]int
	loops := 0
	for _, e := range l.Edges {
		if e.Trans >= 0 {
			groups = append(groups, e.Group)
			if e.Loop {
				loops++
			}
		}
	}
	slices.SortFunc(groups, func(a, b []int) int { return a[0] - b[0] })
	if !slices.EqualFunc(groups, want, slices.Equal[[]int]) || loops != 1 {
		t.Errorf("laid-out edges carry %v (%d loops), want %v and 1 loop", groups, loops, want)
	}
	texts := l.Texts(graph.Point{}, int(l.Width*2), int(l.Height*2), 2)
	for _, x := range []string{"Post(1)", "Post(2)", "?Ack(1)", "?Ack(2)", "?Deliver(1)"} {
		if n := slices.Index(texts, x); n < 0 || slices.Index(texts[n+1:], x) >= 0 {
			t.Errorf("%q drawn %d times, want once: %q", x, strings.Count(strings.Join(texts, "|"), x), texts)
		}
	}
}

func TestArcLabelCapped(t *testing.T) {
	d := &graph.Doc{}
	var arc []int
	for i := range 9 {
		d.Transitions = append(d.Transitions, graph.Transition{From: "S0", To: "S1", Label: strings.Repeat("a", i+1)})
		arc = append(arc, i)
	}
	lines := strings.Split(d.ArcLabel(arc), "\n")
	if len(lines) != graph.MaxArcLabels || lines[len(lines)-1] != "+4 more" {
		t.Errorf("capped label: %q", lines)
	}
}

// An arc's short form names its actions, observable ones with ?, at most
// two; a timeout has none.
func TestArcShort(t *testing.T) {
	tr := func(action, kind string) graph.Transition {
		return graph.Transition{From: "S0", To: "S1", Action: action, Kind: kind}
	}
	for _, c := range []struct {
		trans []graph.Transition
		want  string
	}{
		{[]graph.Transition{tr("Post", "controllable")}, "Post"},
		{[]graph.Transition{tr("Deliver", "observable"), tr("Deliver", "observable")}, "?Deliver"},
		{[]graph.Transition{tr("Post", "controllable"), tr("Deliver", "observable")}, "Post ?Deliver"},
		{[]graph.Transition{tr("A", "controllable"), tr("B", "internal"), tr("C", "observable"), tr("D", "controllable")}, "A B +2"},
		{[]graph.Transition{tr("", "timeout")}, ""},
		{[]graph.Transition{{From: "C1", To: "C2", Kind: "controllable", Label: "AddToCart ×2, ?Ack ×1"}}, "AddToCart ?Ack"},
		{[]graph.Transition{{From: "V3", To: "F1", Kind: "observable", Label: "✗ unexpected-observable"}}, ""},
		// A campaign failure's run carries labels only.
		{[]graph.Transition{{From: "V1", To: "V2", Kind: "observable", Label: "?Deliver(Client1, Client2, \"hi\")"}}, "?Deliver"},
		{[]graph.Transition{{From: "V0", To: "V1", Kind: "controllable", Label: "Create()/Client1"}}, "Create"},
	} {
		d := &graph.Doc{Transitions: c.trans}
		arc := make([]int, len(c.trans))
		for i := range arc {
			arc[i] = i
		}
		if got := d.ArcShort(arc); got != c.want {
			t.Errorf("%v: %q, want %q", c.trans, got, c.want)
		}
	}
}

// Level of detail: at the scale that fits hi_bye into a 1400×900 window's
// graph pane, full labels would be under MinTextPx, so states show their ids
// and arcs their action names (where they cover no state and no other short
// form); zoomed in, the full labels are drawn, and a region draws only what
// crosses it.
func TestDrawLevelOfDetail(t *testing.T) {
	d, l := layoutSample(t, "chat", "hi_bye")
	fit := min(680/l.Width, 600/l.Height)
	w, h := int(math.Ceil(l.Width*fit)), int(math.Ceil(l.Height*fit))
	if 11*fit >= graph.MinTextPx {
		t.Fatalf("fit scale %.2f draws labels %.1f px tall: the test needs a smaller scale", fit, 11*fit)
	}
	small := l.Texts(graph.Point{}, w, h, fit)
	shorts := map[string]bool{}
	for _, arc := range d.Arcs() {
		shorts[d.ArcShort(arc)] = true
	}
	ids, arcs := 0, map[string]int{}
	for _, x := range small {
		switch {
		case d.StateIndex(x) >= 0:
			ids++
		case shorts[x]:
			arcs[x]++
		default:
			t.Errorf("at fit %q is drawn: neither a state id nor an arc's action names", x)
		}
	}
	if ids != len(d.States) {
		t.Errorf("at fit %d state ids drawn, want %d: %q", ids, len(d.States), small)
	}
	for _, name := range []string{"Create", "Enter", "Post", "?Deliver"} {
		if arcs[name] == 0 {
			t.Errorf("at fit no arc says %s: %q", name, small)
		}
	}
	if shorts[""] && arcs[""] > 0 {
		t.Errorf("an empty short form drawn (a timeout's)")
	}

	big := l.Texts(graph.Point{}, int(l.Width*1.5), int(l.Height*1.5), 1.5)
	for _, s := range d.States {
		if !slices.Contains(big, s.Label) && !slices.ContainsFunc(big, func(x string) bool { return strings.Contains(s.Label, x) && len(x) > 3 }) {
			t.Errorf("at 1.5 the label of %s (%q) is not drawn", s.ID, s.Label)
		}
	}
	if !slices.ContainsFunc(big, func(x string) bool { return strings.HasPrefix(x, "?Deliver(") }) {
		t.Errorf("at 1.5 no arc label is drawn: %q", big)
	}
	// Ids stay at every zoom: the labels do not replace them (issue 28).
	for _, scale := range []float64{1.5, 3} {
		texts := l.Texts(graph.Point{}, int(l.Width*scale), int(l.Height*scale), scale)
		for _, s := range d.States {
			if !slices.Contains(texts, s.ID) {
				t.Errorf("at %.1f the id %s is not drawn", scale, s.ID)
			}
		}
	}

	// The top-left quarter of the picture at 1.5: fewer texts, all of them
	// among the whole picture's.
	part := l.Texts(graph.Point{}, int(l.Width*0.75), int(l.Height*0.75), 1.5)
	if len(part) == 0 || len(part) >= len(big) {
		t.Errorf("a quarter draws %d texts, the whole %d", len(part), len(big))
	}
	for _, x := range part {
		if !slices.Contains(big, x) {
			t.Errorf("the quarter draws %q, which the whole does not", x)
		}
	}
	img := l.DrawRegion(graph.Point{X: l.Width / 2, Y: l.Height / 2}, 300, 200, 2, nil)
	if b := img.Bounds(); b.Dx() != 300 || b.Dy() != 200 {
		t.Errorf("region image %v, want 300×200", b)
	}
}

// BenchmarkDrawViewport draws what the workbench redraws after a zoom or
// pan settles: a 680×600 view of a graph, at fit and zoomed in (the time
// is spent off the UI goroutine; the image is then shown as is).
func BenchmarkDrawViewport(b *testing.B) {
	for _, c := range []struct{ sample, config string }{{"chat", "hi_bye"}, {"threadpool", "small"}} {
		d, err := graph.FromExploration(exploreSample(b, c.sample, c.config, 0))
		if err != nil {
			b.Fatal(err)
		}
		l, err := graph.LayoutDoc(context.Background(), d, "")
		if err != nil {
			b.Fatal(err)
		}
		fit := min(680/l.Width, 600/l.Height)
		for _, z := range []struct {
			name  string
			scale float64
		}{{"fit", fit}, {"zoom2", 2}} {
			b.Run(c.sample+"/"+z.name, func(b *testing.B) {
				w, h := min(680, int(l.Width*z.scale)), min(600, int(l.Height*z.scale))
				origin := graph.Point{X: max(0, l.Width/2-float64(w)/2/z.scale), Y: max(0, l.Height/2-float64(h)/2/z.scale)}
				for range b.N {
					l.DrawRegion(origin, w, h, z.scale, nil)
				}
			})
		}
	}
}

// Too small to read, the classes of an overview show their value and how
// many states they hold.
func TestOverviewShortFormsCount(t *testing.T) {
	x := exploreSample(t, "webshop", "more_items", 0)
	q, _, err := x.QuotientBy("depth", "overview")
	if err != nil {
		t.Fatal(err)
	}
	d := graph.FromGraph(q, nil)
	l, err := graph.LayoutDoc(context.Background(), d, "dot")
	if err != nil {
		t.Fatal(err)
	}
	fit := min(680/l.Width, 560/l.Height)
	if 11*fit >= graph.MinTextPx {
		t.Fatalf("fit scale %.2f draws labels: the test needs a smaller scale", fit)
	}
	texts := l.Texts(graph.Point{}, int(math.Ceil(l.Width*fit)), int(math.Ceil(l.Height*fit)), fit)
	total, shown := 0, 0
	for _, s := range d.States {
		total += s.Count
		if slices.Contains(texts, fmt.Sprintf("%s (%d)", s.Label, s.Count)) {
			shown++
		}
	}
	if total != 1111 || shown < len(d.States)*3/4 {
		t.Errorf("%d of %d classes (%d states) show their value and size: %q", shown, len(d.States), total, texts)
	}
}

// States with no transitions between them (one class of an overview by
// depth often has none) are laid out in a grid, not in one row too wide to
// read at any zoom that fits it; a connected chain is still one column.
func TestUnconnectedStatesInAGrid(t *testing.T) {
	isolated := &graph.Doc{}
	for i := 0; i < 60; i++ {
		isolated.States = append(isolated.States, graph.State{ID: fmt.Sprintf("S%d", i), Label: fmt.Sprintf("S%d", i), Kind: "active"})
	}
	chain := &graph.Doc{States: append([]graph.State(nil), isolated.States[:10]...)}
	for i := 0; i+1 < len(chain.States); i++ {
		chain.Transitions = append(chain.Transitions, graph.Transition{From: chain.States[i].ID, To: chain.States[i+1].ID, Kind: "controllable", Label: "Next"})
	}
	for _, tc := range []struct {
		name     string
		d        *graph.Doc
		min, max float64 // width / height
	}{
		{"60 unconnected states", isolated, 0.3, 4},
		{"a chain of 10", chain, 0, 0.5},
	} {
		for _, engine := range []string{"dot", graph.DotFast} {
			l, err := graph.LayoutDoc(context.Background(), tc.d, engine)
			if err != nil {
				t.Fatal(err)
			}
			if r := l.Width / l.Height; r < tc.min || r > tc.max || len(l.Nodes) != len(tc.d.States) {
				t.Errorf("%s, %s: %d nodes in %.0f × %.0f (width/height %.2f, want %.1f–%.1f)", tc.name, engine, len(l.Nodes), l.Width, l.Height, r, tc.min, tc.max)
			}
		}
	}
}

// An overview's class says how many model states it stands for, in the
// singular for one.
func TestClassCountLabel(t *testing.T) {
	d := &graph.Doc{States: []graph.State{
		{ID: "C0", Label: "0", Kind: "active", Count: 1},
		{ID: "C1", Label: "1", Kind: "active", Count: 10},
	}}
	var b strings.Builder
	if err := d.WriteDOT(&b); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`label="0\n1 state"`, `label="1\n10 states"`} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("no %s in\n%s", want, b.String())
		}
	}
}
