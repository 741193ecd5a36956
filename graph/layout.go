package graph

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image/color"
	"math"
	"os/exec"
	"strconv"
	"strings"
)

// Point is a position in layout coordinates: points (1/72 inch), origin at
// the top left, y growing downwards.
type Point struct{ X, Y float64 }

// OpKind is the kind of a drawing operation.
type OpKind int

// Drawing operations, after Graphviz's xdot.
const (
	OpEllipse OpKind = iota
	OpPolygon
	OpPolyline
	OpBezier
	OpText
)

// Op is one drawing operation of a laid-out graph.
type Op struct {
	Kind     OpKind
	Filled   bool
	Points   []Point // polygon, polyline, bezier control points
	Center   Point   // ellipse centre, text anchor
	RX, RY   float64 // ellipse radii
	Text     string
	Align    float64 // text anchor: 0 left, 0.5 centre, 1 right
	FontSize float64
	Stroke   color.NRGBA
	Fill     color.NRGBA
	Width    float64
	Dashed   bool
	Dotted   bool
}

// NodeShape is a laid-out state.
type NodeShape struct {
	ID    string // state id, e.g. S3
	State int    // index in Doc.States, -1 for the start marker
	// Short is drawn instead of the label when the label would be too small
	// to read: the state id, or a quotient class's value and size.
	Short  string
	Center Point
	W, H   float64
	Ops    []Op
}

// EdgeShape is a laid-out arc: one or more transitions between the same
// two states (see Doc.Arcs).
type EdgeShape struct {
	Trans int // index in Doc.Transitions of the first, -1 for the start arrow
	// Group holds the indices of all the arc's transitions.
	Group []int
	// Loop is set for a self-loop, whose label is drawn as a badge.
	Loop  bool
	Label Point
	// Short is drawn at Label instead of the label when the label would be
	// too small to read: the arc's action names (Doc.ArcShort).
	Short string
	Ops   []Op
}

// Layout is a graph laid out by Graphviz: sizes, positions and the drawing
// operations, ready to draw (Draw, PNG) and to hit-test (NodeAt).
type Layout struct {
	Width, Height float64
	Nodes         []NodeShape
	Edges         []EdgeShape
	Engine        string
}

// LayoutDoc lays out the document with Graphviz (layout "" picks dot,
// dot-fast or sfdp by size, see LayoutFor) and returns the geometry.
func LayoutDoc(ctx context.Context, d *Doc, layout string) (*Layout, error) {
	dot, err := d.pictureDOT()
	if err != nil {
		return nil, err
	}
	if layout == "" {
		layout = LayoutFor(len(d.States), len(d.Arcs()))
	}
	out, err := layoutJSON(ctx, dot, layout)
	if err != nil {
		return nil, err
	}
	l, err := parseLayout(out, d)
	if err != nil {
		return nil, fmt.Errorf("reading the Graphviz layout: %w", err)
	}
	l.Engine = layout
	return l, nil
}

type xdotOp struct {
	Op     string      `json:"op"`
	Color  string      `json:"color"`
	Style  string      `json:"style"`
	Rect   []float64   `json:"rect"`
	Points [][]float64 `json:"points"`
	Pt     []float64   `json:"pt"`
	Align  string      `json:"align"`
	Text   string      `json:"text"`
	Size   float64     `json:"size"`
}

type xdotObj struct {
	Name   string   `json:"name"`
	Pos    string   `json:"pos"`
	Width  string   `json:"width"`
	Height string   `json:"height"`
	Draw   []xdotOp `json:"_draw_"`
	LDraw  []xdotOp `json:"_ldraw_"`
}

type xdotEdge struct {
	ID    string   `json:"id"`
	LP    string   `json:"lp"`
	Draw  []xdotOp `json:"_draw_"`
	HDraw []xdotOp `json:"_hdraw_"`
	TDraw []xdotOp `json:"_tdraw_"`
	LDraw []xdotOp `json:"_ldraw_"`
}

type xdotGraph struct {
	BB      string     `json:"bb"`
	Objects []xdotObj  `json:"objects"`
	Edges   []xdotEdge `json:"edges"`
}

func parseLayout(data []byte, d *Doc) (*Layout, error) {
	var g xdotGraph
	if err := json.Unmarshal(data, &g); err != nil {
		return nil, err
	}
	bb := floats(g.BB)
	if len(bb) != 4 {
		return nil, fmt.Errorf("bad bounding box %q", g.BB)
	}
	l := &Layout{Width: bb[2] - bb[0], Height: bb[3] - bb[1]}
	flip := func(x, y float64) Point { return Point{x - bb[0], bb[3] - y} }
	index := map[string]int{}
	for i, s := range d.States {
		index[s.ID] = i
	}
	groups := map[int][]int{}
	for _, arc := range d.Arcs() {
		groups[arc[0]] = arc
	}
	for _, o := range g.Objects {
		st, ok := index[o.Name]
		if !ok {
			st = -1
		}
		p := floats(o.Pos)
		w, _ := strconv.ParseFloat(o.Width, 64)
		h, _ := strconv.ParseFloat(o.Height, 64)
		n := NodeShape{ID: o.Name, State: st, W: w * 72, H: h * 72, Short: o.Name}
		if st >= 0 && d.States[st].Count > 0 {
			// A class of an overview: its value and how many states it has
			// (the count is the point of an overview).
			// A label "expr = value" shows its value: the expression is
			// the same for every class (the note above the graph names it).
			label := d.States[st].Label
			// (explore's Quotient names short values only: "len(s.clients) = 2").
			if i := strings.LastIndex(label, " = "); i >= 0 && len(label)-i-3 <= 6 && strings.HasPrefix(o.Name, "C") {
				label = label[i+3:] // an overview's class (C0, C1, …), not a minimised graph's
			}
			n.Short = fmt.Sprintf("%s (%d)", label, d.States[st].Count)
		}
		if st >= 0 && strings.HasPrefix(o.Name, FoldPrefix) {
			n.Short = d.States[st].Label // "3 other moves"
		}
		if len(p) == 2 {
			n.Center = flip(p[0], p[1])
		}
		n.Ops = convertOps(flip, o.Draw, o.LDraw)
		l.Nodes = append(l.Nodes, n)
	}
	for _, e := range g.Edges {
		es := EdgeShape{Trans: -1}
		if strings.HasPrefix(e.ID, "t") {
			if i, err := strconv.Atoi(e.ID[1:]); err == nil && i >= 0 && i < len(d.Transitions) {
				es.Trans, es.Group = i, groups[i]
				es.Loop = d.Transitions[i].From == d.Transitions[i].To
				es.Short = d.ArcShort(es.Group)
			}
		}
		if p := floats(e.LP); len(p) == 2 {
			es.Label = flip(p[0], p[1])
		}
		es.Ops = convertOps(flip, e.Draw, e.HDraw, e.TDraw, e.LDraw)
		if es.Label == (Point{}) {
			for _, op := range es.Ops {
				if op.Kind == OpBezier && len(op.Points) > 0 {
					es.Label = op.Points[len(op.Points)/2]
				}
			}
		}
		l.Edges = append(l.Edges, es)
	}
	l.fitTexts()
	return l, nil
}

func floats(s string) []float64 {
	var out []float64
	for _, f := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' }) {
		v, err := strconv.ParseFloat(f, 64)
		if err != nil {
			return nil
		}
		out = append(out, v)
	}
	return out
}

// convertOps turns xdot operations into Ops, carrying the drawing state.
func convertOps(flip func(x, y float64) Point, lists ...[]xdotOp) []Op {
	var out []Op
	for _, ops := range lists {
		stroke := color.NRGBA{A: 255}
		fill := color.NRGBA{A: 255}
		width := 1.0
		dashed, dotted := false, false
		fontSize := 14.0
		pts := func(ps [][]float64) []Point {
			r := make([]Point, 0, len(ps))
			for _, p := range ps {
				if len(p) >= 2 {
					r = append(r, flip(p[0], p[1]))
				}
			}
			return r
		}
		for _, x := range ops {
			base := Op{Stroke: stroke, Fill: fill, Width: width, Dashed: dashed, Dotted: dotted}
			switch x.Op {
			case "c":
				stroke = parseColor(x.Color)
			case "C":
				fill = parseColor(x.Color)
			case "S":
				switch {
				case strings.HasPrefix(x.Style, "setlinewidth("):
					width, _ = strconv.ParseFloat(strings.TrimSuffix(strings.TrimPrefix(x.Style, "setlinewidth("), ")"), 64)
				case x.Style == "dashed":
					dashed, dotted = true, false
				case x.Style == "dotted":
					dashed, dotted = false, true
				case x.Style == "solid":
					dashed, dotted = false, false
				case x.Style == "bold":
					width = 2
				}
			case "F":
				if x.Size > 0 {
					fontSize = x.Size
				}
			case "e", "E":
				if len(x.Rect) == 4 {
					base.Kind, base.Filled = OpEllipse, x.Op == "E"
					base.Center, base.RX, base.RY = flip(x.Rect[0], x.Rect[1]), x.Rect[2], x.Rect[3]
					out = append(out, base)
				}
			case "p", "P":
				base.Kind, base.Filled, base.Points = OpPolygon, x.Op == "P", pts(x.Points)
				out = append(out, base)
			case "L":
				base.Kind, base.Points = OpPolyline, pts(x.Points)
				out = append(out, base)
			case "b", "B":
				base.Kind, base.Filled, base.Points = OpBezier, x.Op == "B", pts(x.Points)
				out = append(out, base)
			case "T":
				if len(x.Pt) == 2 {
					base.Kind, base.Text, base.FontSize = OpText, x.Text, fontSize
					base.Center = flip(x.Pt[0], x.Pt[1])
					base.Align = map[string]float64{"l": 0, "c": 0.5, "r": 1}[x.Align]
					if x.Align == "" {
						base.Align = 0.5
					}
					out = append(out, base)
				}
			}
		}
	}
	return out
}

var namedColors = map[string]color.NRGBA{
	"black": {0, 0, 0, 255}, "white": {255, 255, 255, 255}, "red": {220, 30, 30, 255},
	"blue": {30, 60, 220, 255}, "gray": {128, 128, 128, 255}, "grey": {128, 128, 128, 255},
	"none": {}, "transparent": {},
}

func parseColor(s string) color.NRGBA {
	if c, ok := namedColors[strings.ToLower(s)]; ok {
		return c
	}
	if strings.HasPrefix(s, "#") && (len(s) == 7 || len(s) == 9) {
		v, err := strconv.ParseUint(s[1:], 16, 32)
		if err == nil {
			if len(s) == 7 {
				return color.NRGBA{uint8(v >> 16), uint8(v >> 8), uint8(v), 255}
			}
			return color.NRGBA{uint8(v >> 24), uint8(v >> 16), uint8(v >> 8), uint8(v)}
		}
	}
	return color.NRGBA{A: 255}
}

// NodeAt returns the index (in Nodes) of the state drawn at p, or -1.
func (l *Layout) NodeAt(p Point) int {
	best, bestD := -1, math.Inf(1)
	for i, n := range l.Nodes {
		if n.State < 0 || n.W == 0 || n.H == 0 {
			continue
		}
		dx, dy := (p.X-n.Center.X)/(n.W/2), (p.Y-n.Center.Y)/(n.H/2)
		d := dx*dx + dy*dy
		if d <= 1 && d < bestD {
			best, bestD = i, d
		}
	}
	return best
}

// EdgeAt returns the index (in Edges) of the transition whose label or line
// passes within tol of p, or -1.
func (l *Layout) EdgeAt(p Point, tol float64) int {
	best, bestD := -1, tol*tol
	for i, e := range l.Edges {
		if e.Trans < 0 {
			continue
		}
		consider := func(q Point) {
			d := (q.X-p.X)*(q.X-p.X) + (q.Y-p.Y)*(q.Y-p.Y)
			if d <= bestD {
				best, bestD = i, d
			}
		}
		consider(e.Label)
		for _, op := range e.Ops {
			if op.Kind == OpBezier {
				for _, q := range sampleBezier(op.Points, 8) {
					consider(q)
				}
			}
		}
	}
	return best
}

// sampleBezier returns points along a piecewise cubic Bézier curve.
func sampleBezier(ps []Point, per int) []Point {
	var out []Point
	for i := 0; i+3 < len(ps); i += 3 {
		p0, p1, p2, p3 := ps[i], ps[i+1], ps[i+2], ps[i+3]
		for k := 0; k <= per; k++ {
			t := float64(k) / float64(per)
			a, b, c, d := (1-t)*(1-t)*(1-t), 3*(1-t)*(1-t)*t, 3*(1-t)*t*t, t*t*t
			out = append(out, Point{a*p0.X + b*p1.X + c*p2.X + d*p3.X, a*p0.Y + b*p1.Y + c*p2.Y + d*p3.Y})
		}
	}
	return out
}

// LayoutCommand, when set, runs Graphviz in a child process: the command
// (with its arguments) reads DOT on standard input, takes the layout engine
// as its last argument and writes Graphviz's JSON on standard output (the
// modex binary's hidden "__layout" command). A child process can be killed
// when its layout is superseded — go-graphviz cannot be interrupted in
// process — and its WebAssembly runs outside this process's garbage
// collector, whose stop-the-world pauses would otherwise wait for a whole
// layout (JIT-compiled code is not preemptible). Empty: lay out in process.
var LayoutCommand []string

// layoutJSON returns Graphviz's JSON layout of DOT text.
func layoutJSON(ctx context.Context, dot []byte, engine string) ([]byte, error) {
	if len(LayoutCommand) == 0 {
		// In process go-graphviz cannot be interrupted: the context is
		// checked before and after.
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		var out bytes.Buffer
		if err := RenderDOT(ctx, dot, Format("json"), engine, &out); err != nil {
			return nil, err
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		return out.Bytes(), nil
	}
	args := append(append([]string{}, LayoutCommand[1:]...), engine)
	cmd := exec.CommandContext(ctx, LayoutCommand[0], args...)
	cmd.Stdin = bytes.NewReader(dot)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("layout process: %v: %s", err, strings.TrimSpace(stderr.String()))
	}
	return stdout.Bytes(), nil
}
