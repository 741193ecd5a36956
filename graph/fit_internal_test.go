package graph

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/image/font"
)

// Every label, measured in the font Draw writes, lies inside the layout:
// self-loops with long labels at the right edge included (an overview's
// "RemoveFromCart ×360" was cut).
func TestLabelsInsideLayout(t *testing.T) {
	d := &Doc{States: []State{{ID: "S0", Label: "S0", Kind: "active", Initial: true}, {ID: "S1", Label: "S1", Kind: "active"}}}
	for _, tr := range []Transition{
		{From: "S0", To: "S1", Label: "AddToCart(Client1, Item2) ×360"},
		{From: "S1", To: "S1", Label: "RemoveFromCart(Client1, Item2) ×360"},
		{From: "S1", To: "S1", Label: "?Deliver(Client2, Client1, \"hi\") ×68"},
		{From: "S0", To: "S0", Label: strings.Repeat("Lookup ×24 ", 3)},
	} {
		tr.Kind = "controllable"
		d.Transitions = append(d.Transitions, tr)
	}
	l, err := LayoutDoc(context.Background(), d, "dot")
	if err != nil {
		t.Fatal(err)
	}
	fc := faces{}
	texts := 0
	check := func(ops []Op) {
		for _, op := range ops {
			if op.Kind != OpText {
				continue
			}
			texts++
			tw := float64(font.MeasureString(fc.get(op.FontSize), op.Text)) / 64
			x0 := op.Center.X - tw*op.Align
			if x0 < 0 || x0+tw > l.Width || op.Center.Y-op.FontSize < 0 || op.Center.Y > l.Height {
				t.Errorf("%q spans x %.0f–%.0f, y %.0f in a %.0f×%.0f layout", op.Text, x0, x0+tw, op.Center.Y, l.Width, l.Height)
			}
		}
	}
	for _, n := range l.Nodes {
		check(n.Ops)
	}
	for _, e := range l.Edges {
		check(e.Ops)
	}
	if texts < 5 {
		t.Fatalf("only %d texts laid out", texts)
	}
}

// BenchmarkFitTexts measures the label check every layout now makes
// (fitTexts) on a layout of 300 states and 600 labelled arcs, beside the
// Graphviz layout it follows.
func BenchmarkFitTexts(b *testing.B) {
	d := &Doc{}
	for i := range 300 {
		id := "S" + strconv.Itoa(i)
		d.States = append(d.States, State{ID: id, Label: id, Kind: "active", Initial: i == 0})
		if i > 0 {
			prev := "S" + strconv.Itoa(i-1)
			d.Transitions = append(d.Transitions, Transition{From: prev, To: id, Kind: "controllable", Label: "AddToCart(Client1, \"Flowers\")"},
				Transition{From: id, To: id, Kind: "observable", Label: "?Deliver(Client2, Client1, \"hi\")"})
		}
	}
	l, err := LayoutDoc(context.Background(), d, "dot")
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for range b.N {
		l.fitTexts()
	}
}
