package graph

import (
	"testing"

	"github.com/fogleman/gg"
)

// Two arcs whose labels Graphviz put side by side, which Go's wider font
// makes run into each other, are drawn one below the other.
func TestLabelsDoNotCollide(t *testing.T) {
	d := drawer{dc: gg.NewContext(400, 200), fc: faces{}, s: 1, pills: &[]box{}, labels: &[]box{}}
	label := func(text string, x float64) EdgeShape {
		return EdgeShape{Loop: true, Ops: []Op{{Kind: OpText, Text: text, Center: Point{x, 50}, Align: 0, FontSize: 14}}}
	}
	d.edge(label("Lookup ×24", 100), nil)
	d.edge(label("?Done ×72", 150), nil) // starts inside the first
	d.edge(label("Put ×3", 120), nil)
	ls := *d.labels
	if len(ls) != 3 {
		t.Fatalf("%d labels drawn", len(ls))
	}
	for i := range ls {
		for j := i + 1; j < len(ls); j++ {
			if ls[i].meets(ls[j]) {
				t.Errorf("labels %d and %d overlap: %+v %+v", i, j, ls[i], ls[j])
			}
		}
	}
}
