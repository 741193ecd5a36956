package graph_test

import (
	"bytes"
	"testing"

	"github.com/modex/modex/engine/explore"
	"github.com/modex/modex/graph"
)

// The streaming JSON writers, from a graph and from an exploration, write
// what the document's WriteJSON writes, byte for byte, on graphs with
// variables, outputs, errors, passive twins and none at all.
func TestWriteGraphJSONSameBytes(t *testing.T) {
	for _, c := range []struct {
		sample, config string
		minimize       bool
	}{{"chat", "figure1", false}, {"webshop", "some_items", false}, {"stack", "all", false}, {"threadpool", "small", false},
		{"kv", "short", false}, {"conference", "agents-1", false}, {"chat", "hi_bye", true}} {
		x := exploreSample(t, c.sample, c.config, 0)
		if c.minimize {
			x, _ = x.Minimize() // each state a count of those merged
		}
		d, err := graph.FromExploration(x)
		if err != nil {
			t.Fatal(err)
		}
		var want, got bytes.Buffer
		if err := d.WriteJSON(&want, graph.JSONOptions{NoTiming: true}); err != nil {
			t.Fatal(err)
		}
		w, err := x.Model.NewWorker()
		if err != nil {
			t.Fatal(err)
		}
		g := x.Graph()
		if err := graph.WriteGraphJSON(&got, g, graph.ExplorationVars(x, g, w), graph.JSONOptions{NoTiming: true}); err != nil {
			t.Fatal(err)
		}
		var streamed bytes.Buffer
		if err := graph.WriteExplorationJSON(&streamed, x, w, graph.JSONOptions{NoTiming: true}); err != nil {
			t.Fatal(err)
		}
		for _, out := range []struct {
			name string
			b    *bytes.Buffer
		}{{"WriteGraphJSON", &got}, {"WriteExplorationJSON", &streamed}} {
			if !bytes.Equal(out.b.Bytes(), want.Bytes()) {
				i := 0
				for i < min(out.b.Len(), want.Len()) && out.b.Bytes()[i] == want.Bytes()[i] {
					i++
				}
				t.Errorf("%s/%s, %s: differs at byte %d: got %q, want %q", c.sample, c.config, out.name, i, out.b.Bytes()[max(0, i-40):min(out.b.Len(), i+40)], want.Bytes()[max(0, i-40):min(want.Len(), i+40)])
			}
		}
	}
	var empty, want bytes.Buffer
	graph.WriteGraphJSON(&empty, &explore.Graph{}, nil, graph.JSONOptions{})
	(&graph.Doc{States: []graph.State{}, Transitions: []graph.Transition{}}).WriteJSON(&want, graph.JSONOptions{})
	if empty.String() != want.String() {
		t.Errorf("empty graph: %q, want %q", empty.String(), want.String())
	}
}
