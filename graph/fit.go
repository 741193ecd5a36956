package graph

import "golang.org/x/image/font"

// fitTexts widens the layout where a label, as Draw writes it, passes the
// bounding box Graphviz gave: Graphviz sizes Helvetica by its own tables,
// Draw writes Go's font, which is wider, and a self-loop's label at the
// right edge ("RemoveFromCart ×360") was cut. The layout is shifted right
// when a label passes its left edge.
func (l *Layout) fitTexts() {
	fc := faces{}
	minX, maxX := 0.0, l.Width
	minY, maxY := 0.0, l.Height
	fit := func(ops []Op, pad float64) {
		for _, op := range ops {
			if op.Kind != OpText || op.FontSize <= 0 {
				continue
			}
			tw := float64(font.MeasureString(fc.get(op.FontSize), op.Text)) / 64
			x0 := op.Center.X - tw*op.Align - pad
			minX, maxX = min(minX, x0), max(maxX, x0+tw+2*pad)
			minY, maxY = min(minY, op.Center.Y-op.FontSize-pad), max(maxY, op.Center.Y+op.FontSize*0.3+pad)
		}
	}
	for _, n := range l.Nodes {
		fit(n.Ops, 2)
	}
	for _, e := range l.Edges {
		pad := 2.0
		if e.Loop {
			pad = 6 // the badge drawn behind a self-loop's label
		}
		fit(e.Ops, pad)
	}
	// A margin all round: a selected state's ring is drawn outside its
	// shape, and one at the edge was clipped.
	minX, minY, maxX, maxY = minX-ringMargin, minY-ringMargin, maxX+ringMargin, maxY+ringMargin
	l.translate(Point{-minX, -minY})
	l.Width, l.Height = maxX-minX, maxY-minY
}

// ringMargin is the room kept around a layout for the marks drawn outside
// the states' shapes (selection and path rings).
const ringMargin = 6

// translate moves everything in the layout by d.
func (l *Layout) translate(d Point) {
	move := func(p Point) Point { return Point{p.X + d.X, p.Y + d.Y} }
	moveOps := func(ops []Op) {
		for i := range ops {
			ops[i].Center = move(ops[i].Center)
			for k := range ops[i].Points {
				ops[i].Points[k] = move(ops[i].Points[k])
			}
		}
	}
	for i := range l.Nodes {
		l.Nodes[i].Center = move(l.Nodes[i].Center)
		moveOps(l.Nodes[i].Ops)
	}
	for i := range l.Edges {
		l.Edges[i].Label = move(l.Edges[i].Label)
		moveOps(l.Edges[i].Ops)
	}
}
