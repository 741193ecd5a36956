package graph_test

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/modex/modex/graph"
)

// Pictures are bounded in bytes, not only in states: a variable's value is
// cut in the tooltips (saying how much is left out), and a graph whose
// Graphviz text would still pass graph.MaxPictureDOT is refused with a
// message that names the other exports. (450 states of 2 MB values took
// ten minutes and 5 GB to lay out.)
func TestPictureBounds(t *testing.T) {
	big := strings.Repeat("x", 2<<20)
	d := &graph.Doc{States: []graph.State{
		{ID: "S0", Label: "S0", Initial: true, Kind: "active", Vars: graph.Vars{{Name: "blob", Value: big}, {Name: "n", Value: "1"}}},
		{ID: "S1", Label: "S1", Kind: "active", Vars: graph.Vars{{Name: "n", Value: "2"}}},
	}, Transitions: []graph.Transition{{From: "S0", To: "S1", Action: "Go", Kind: "controllable", Label: "Go"}}}
	var svg bytes.Buffer
	if err := d.Render(context.Background(), graph.SVG, "", &svg); err != nil {
		t.Fatal(err)
	}
	if svg.Len() > 64<<10 {
		t.Errorf("the SVG is %d bytes: the 2 MB value was not cut", svg.Len())
	}
	if want := fmt.Sprintf("(%d more bytes)", len(big)-graph.MaxPictureValue); !strings.Contains(svg.String(), want) {
		t.Errorf("the SVG does not say %q", want)
	}
	if len(d.States[0].Vars[0].Value) != len(big) {
		t.Error("drawing the picture cut the document's own value")
	}

	// Values short enough to stay whole, but too many of them.
	var many graph.Vars
	for i := range 40 {
		many = append(many, graph.Var{Name: fmt.Sprintf("v%d", i), Value: strings.Repeat("y", graph.MaxPictureValue)})
	}
	huge := &graph.Doc{}
	for i := range graph.MaxPictureDOT / (40 * graph.MaxPictureValue) * 2 {
		huge.States = append(huge.States, graph.State{ID: fmt.Sprintf("S%d", i), Label: fmt.Sprintf("S%d", i), Kind: "active", Vars: many})
	}
	for _, f := range []graph.Format{graph.SVG, graph.PNG} {
		err := huge.Render(context.Background(), f, "", &bytes.Buffer{})
		if err == nil || !strings.Contains(err.Error(), "write .dot or .json") {
			t.Errorf("%s: got %v, want the picture refused", f, err)
		}
	}
}
