package graph_test

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modex/modex/engine/explore"
	"github.com/modex/modex/graph"
	"github.com/modex/modex/projects"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

func exploreSample(t testing.TB, sample, config string, workers int) *explore.Exploration {
	t.Helper()
	p, err := projects.Load(filepath.Join("..", "projects", sample, sample+".toml"))
	if err != nil {
		t.Fatal(err)
	}
	m, err := p.LoadModel()
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := p.Build(m, config)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Workers = workers
	x, err := explore.Explore(context.Background(), m, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return x
}

func exportJSON(t testing.TB, x *explore.Exploration) []byte {
	t.Helper()
	d, err := graph.FromExploration(x)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := d.WriteJSON(&b, graph.JSONOptions{NoTiming: true}); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./graph -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file; run go test ./graph -update and review the diff", name)
	}
}

// The chat model under the Figure 1 configuration of seed 000 (two clients,
// message "hi", filter pending < 2, grouping IgnoreEnteringOrder) gives the
// graph the paper describes. Labels are the grouping values.
func TestChatFigure1(t *testing.T) {
	x := exploreSample(t, "chat", "figure1", 0)
	d, err := graph.FromExploration(x)
	if err != nil {
		t.Fatal(err)
	}
	type st struct{ label, kind string }
	want := []st{
		// S0: nothing created yet; (clients, members) = (0, 0). Initial.
		{"(0, 0)", "active"},
		// S1: Create()/Client1 made the first client.
		{"(1, 0)", "active"},
		// S2: Create()/Client2: two clients, the creating phase is over.
		{"(2, 0)", "active"},
		// S3: one member, reached by Enter(Client1). Enter(Client2) from S2
		// reaches the state where Client2 entered first, whose grouping
		// value is not new: the grouping prunes it together with that
		// transition ("we would also get the two transitions and the
		// intermediate state where client c1 has entered the session before
		// client c0"), and never redirects Enter(Client2) to S3.
		{"(2, 1)", "active"},
		// S4: both members, no message pending; labelled by Members.
		{"{Client1: {Client2: []}, Client2: {Client1: []}}", "active"},
		// S5: after Post(Client1, "hi"): a passive state (diamond) where
		// ?Deliver(Client1, Client2, "hi") or a timeout may happen.
		{`{Client1: {Client2: []}, Client2: {Client1: ["hi"]}}`, "passive"},
		// S6: S5 after the timeout: the active twin. Another post would make
		// two pending deliveries, which the filter drops: nothing is left to
		// do, and the state is not accepting.
		{`{Client1: {Client2: []}, Client2: {Client1: ["hi"]}}`, "terminal"},
		// S7, S8: the same for Post(Client2, "hi").
		{`{Client1: {Client2: ["hi"]}, Client2: {Client1: []}}`, "passive"},
		{`{Client1: {Client2: ["hi"]}, Client2: {Client1: []}}`, "terminal"},
	}
	if len(d.States) != len(want) {
		t.Fatalf("%d states, want %d", len(d.States), len(want))
	}
	for i, w := range want {
		if d.States[i].Label != w.label || d.States[i].Kind != w.kind {
			t.Errorf("%s: %s %q, want %s %q", d.States[i].ID, d.States[i].Kind, d.States[i].Label, w.kind, w.label)
		}
	}
	if !d.States[0].Initial || d.States[6].Accepting || !d.States[4].Accepting {
		t.Error("initial/accepting marks wrong")
	}
	// Ten transitions: Create twice, Enter twice (one per member count),
	// two posts, two deliveries, two timeouts.
	if len(d.Transitions) != 10 {
		t.Errorf("%d transitions, want 10", len(d.Transitions))
	}
	for _, tr := range d.Transitions {
		if tr.From == "S2" && tr.Label != "Enter(Client1)" {
			t.Errorf("S2 %s → %s: the grouping must prune, not redirect", tr.Label, tr.To)
		}
	}
	// Two passive states, each with exactly two ways out: ?Deliver and the
	// timeout (seed 000 section 6: "each passive state has two enabled
	// actions, one of which is a timeout").
	for _, i := range []int{5, 7} {
		var labels []string
		for _, tr := range d.Transitions {
			if tr.From == d.States[i].ID {
				labels = append(labels, tr.Kind+":"+tr.Label)
			}
		}
		if len(labels) != 2 || !strings.HasPrefix(labels[0], "timeout:") || !strings.HasPrefix(labels[1], "observable:?Deliver(") {
			t.Errorf("%s leaves by %v", d.States[i].ID, labels)
		}
	}
	golden(t, "chat_figure1.json", exportJSON(t, x))
	var dot bytes.Buffer
	d.WriteDOT(&dot)
	golden(t, "chat_figure1.dot", dot.Bytes())
}

// The web shop under SomeItemsInCart has the cart states S3-S6 of seed 001
// section 4: empty, perfume, flowers, both.
func TestWebshopSomeItems(t *testing.T) {
	x := exploreSample(t, "webshop", "some_items", 0)
	d, _ := graph.FromExploration(x)
	labels := map[string]bool{}
	for _, s := range d.States {
		labels[s.Label] = true
	}
	for paper, label := range map[string]string{
		"S1 (initial)":         "set([]) | False",
		"S2 (client, no cart)": "set([]) | True",
		"S3 (empty cart)":      "set([()]) | True",
		"S4 (perfume)":         `set([("Perfume",)]) | True`,
		"S5 (flowers)":         `set([("Flowers",)]) | True`,
		"S6 (both)":            `set([("Flowers", "Perfume")]) | True`,
	} {
		if !labels[label] {
			t.Errorf("missing %s: no state labelled %s", paper, label)
		}
	}
	if len(d.States) != 6 {
		t.Errorf("%d states, want the 6 of the paper", len(d.States))
	}
	golden(t, "webshop_some_items.json", exportJSON(t, x))
}

// Same input, same export, byte for byte: across runs and worker counts.
func TestDeterminism(t *testing.T) {
	for _, c := range []struct{ sample, config string }{{"chat", "hi_bye"}, {"webshop", "more_items"}} {
		first := exportJSON(t, exploreSample(t, c.sample, c.config, 1))
		for _, workers := range []int{2, 4, 2} {
			if got := exportJSON(t, exploreSample(t, c.sample, c.config, workers)); !bytes.Equal(first, got) {
				t.Errorf("%s/%s: export with %d workers differs from 1 worker", c.sample, c.config, workers)
			}
		}
	}
}

// Graphviz lays the graph out; every state gets a shape, every transition a
// line, and hit-testing finds states at their centres.
func TestLayoutAndPNG(t *testing.T) {
	x := exploreSample(t, "chat", "figure1", 0)
	d, _ := graph.FromExploration(x)
	l, err := graph.LayoutDoc(context.Background(), d, "")
	if err != nil {
		t.Fatal(err)
	}
	states, edges := 0, 0
	for i, n := range l.Nodes {
		if n.State < 0 {
			continue
		}
		states++
		if got := l.NodeAt(n.Center); got != i {
			t.Errorf("NodeAt(centre of %s) = %d", n.ID, got)
		}
		shape := graph.OpEllipse
		if d.States[n.State].Kind == "passive" {
			shape = graph.OpPolygon
		}
		found := false
		for _, op := range n.Ops {
			found = found || op.Kind == shape
		}
		if !found {
			t.Errorf("%s (%s) not drawn as %v", n.ID, d.States[n.State].Kind, shape)
		}
	}
	for _, e := range l.Edges {
		if e.Trans >= 0 {
			edges++
		}
	}
	if states != len(d.States) || edges != len(d.Transitions) {
		t.Errorf("layout has %d states and %d transitions, want %d and %d", states, edges, len(d.States), len(d.Transitions))
	}
	if l.NodeAt(graph.Point{X: -100, Y: -100}) != -1 {
		t.Error("NodeAt outside the graph found a state")
	}
	var png bytes.Buffer
	if err := d.Render(context.Background(), graph.PNG, "", &png); err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(png.Bytes(), []byte("\x89PNG")) || png.Len() < 10000 {
		t.Errorf("PNG of %d bytes", png.Len())
	}
	var svg bytes.Buffer
	if err := d.Render(context.Background(), graph.SVG, "", &svg); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"<svg", "?Deliver(Client1, Client2, &quot;hi&quot;)", "<polygon"} {
		if !strings.Contains(svg.String(), want) {
			t.Errorf("SVG lacks %q", want)
		}
	}
}

func TestJSONRoundTrip(t *testing.T) {
	b := exportJSON(t, exploreSample(t, "stack", "all", 0))
	d, err := graph.ReadJSON(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	if len(d.States) != 15 || len(d.Transitions) != 28 || d.States[0].Vars[0].Name != "stack" {
		t.Errorf("read back %d states %d transitions", len(d.States), len(d.Transitions))
	}
}

// Drawings may run concurrently (the GUI redraws at a new zoom while a new
// layout is drawn).
func TestConcurrentDraw(t *testing.T) {
	d, _ := graph.FromExploration(exploreSample(t, "chat", "figure1", 0))
	l, err := graph.LayoutDoc(context.Background(), d, "")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	for i := 0; i < 4; i++ {
		go func(s float64) {
			defer func() { done <- struct{}{} }()
			if img := l.Draw(s, nil); img.Bounds().Dx() < 100 {
				t.Error("empty drawing")
			}
		}(0.5 + float64(i)/2)
	}
	for i := 0; i < 4; i++ {
		<-done
	}
}
