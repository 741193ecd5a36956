package graph_test

import (
	"bytes"
	"testing"

	"github.com/modex/modex/engine/explore"
	"github.com/modex/modex/graph"
)

// The streaming JSON writer writes what the document's WriteJSON writes,
// byte for byte, on graphs with variables, outputs, errors and none at all.
func TestWriteGraphJSONSameBytes(t *testing.T) {
	for _, c := range []struct{ sample, config string }{{"chat", "figure1"}, {"webshop", "some_items"}, {"stack", "all"}, {"threadpool", "small"}} {
		x := exploreSample(t, c.sample, c.config, 0)
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
		if !bytes.Equal(got.Bytes(), want.Bytes()) {
			i := 0
			for i < min(got.Len(), want.Len()) && got.Bytes()[i] == want.Bytes()[i] {
				i++
			}
			t.Errorf("%s/%s: differs at byte %d: got %q, want %q", c.sample, c.config, i, got.Bytes()[max(0, i-40):min(got.Len(), i+40)], want.Bytes()[max(0, i-40):min(want.Len(), i+40)])
		}
	}
	var empty, want bytes.Buffer
	graph.WriteGraphJSON(&empty, &explore.Graph{}, nil, graph.JSONOptions{})
	(&graph.Doc{States: []graph.State{}, Transitions: []graph.Transition{}}).WriteJSON(&want, graph.JSONOptions{})
	if empty.String() != want.String() {
		t.Errorf("empty graph: %q, want %q", empty.String(), want.String())
	}
}
