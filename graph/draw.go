package graph

import (
	"image"
	"image/color"
	"image/png"
	"io"
	"math"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/fogleman/gg"
	"github.com/golang/freetype/truetype"
	"golang.org/x/image/font"
	"golang.org/x/image/font/gofont/goregular"
	"golang.org/x/image/math/fixed"
)

var (
	fontOnce sync.Once
	ttFont   *truetype.Font // read-only once parsed: shared
)

// faces caches font faces for one drawing: a face is not safe for
// concurrent use, and drawings run concurrently.
type faces map[float64]font.Face

func (fs faces) get(size float64) font.Face {
	fontOnce.Do(func() { ttFont, _ = truetype.Parse(goregular.TTF) })
	size = math.Round(size*4) / 4
	f, ok := fs[size]
	if !ok {
		f = &advanceCache{Face: truetype.NewFace(ttFont, &truetype.Options{Size: size, Hinting: font.HintingFull}), adv: map[rune]advance{}}
		fs[size] = f
	}
	return f
}

// advanceCache remembers a face's glyph advances: with full hinting the
// truetype face runs the hinter for every advance it is asked (measuring
// the labels was most of the time of drawing a graph at fit).
type advanceCache struct {
	font.Face
	adv map[rune]advance
}

type advance struct {
	width fixed.Int26_6
	ok    bool
}

// GlyphAdvance implements font.Face.
func (f *advanceCache) GlyphAdvance(r rune) (fixed.Int26_6, bool) {
	if a, hit := f.adv[r]; hit {
		return a.width, a.ok
	}
	w, ok := f.Face.GlyphAdvance(r)
	f.adv[r] = advance{w, ok}
	return w, ok
}

// Highlight colours states and transitions when drawing.
type Highlight struct {
	States map[int]color.NRGBA // by Doc state index
	Trans  map[int]color.NRGBA // by Doc transition index
}

// transColor returns the colour of transition i, if h has one.
func (h *Highlight) transColor(i int) (color.NRGBA, bool) {
	if h == nil || i < 0 {
		return color.NRGBA{}, false
	}
	c, ok := h.Trans[i]
	return c, ok
}

// MaxPixels bounds the size of a drawn image; larger drawings are scaled
// down to fit.
const MaxPixels = 40_000_000

// MinTextPx is the smallest text drawn, in pixels: labels that would be
// smaller are left out (states show their short form instead, arcs their
// line only; the viewer's tooltips give the rest).
const MinTextPx = 9

// ShortTextPx is the smallest size of a state's short form.
const ShortTextPx = 11

// Draw renders the whole layout at the given scale (1 = 1 pixel per point),
// scaled down to MaxPixels.
func (l *Layout) Draw(scale float64, hl *Highlight) image.Image {
	if px := l.Width * l.Height * scale * scale; px > MaxPixels {
		scale *= math.Sqrt(MaxPixels / px)
	}
	w, h := int(math.Ceil(l.Width*scale))+1, int(math.Ceil(l.Height*scale))+1
	return l.DrawRegion(Point{}, w, h, scale, hl)
}

// DrawRegion renders the part of the layout whose top-left corner is at
// origin (layout points) into a w×h image at the given scale: what a viewer
// shows of the graph at that zoom and pan, drawn at screen resolution, so
// that the image is never larger than the screen whatever the zoom. Only
// the shapes that cross the region are drawn. Text is drawn only where it
// is at least MinTextPx tall (level of detail).
func (l *Layout) DrawRegion(origin Point, w, h int, scale float64, hl *Highlight) image.Image {
	return l.drawRegion(origin, w, h, scale, hl, nil)
}

// Texts returns the text DrawRegion draws with the same arguments, in
// drawing order: what a reader of the picture can read.
func (l *Layout) Texts(origin Point, w, h int, scale float64) []string {
	var texts []string
	l.drawRegion(origin, w, h, scale, nil, &texts)
	return texts
}

func (l *Layout) drawRegion(origin Point, w, h int, scale float64, hl *Highlight, rec *[]string) image.Image {
	dc := gg.NewContext(max(w, 1), max(h, 1))
	dc.SetColor(color.White)
	dc.Clear()
	d := drawer{dc: dc, fc: faces{}, s: scale, o: origin, rec: rec, pills: &[]box{}, labels: &[]box{}}
	view := box{origin.X, origin.Y, origin.X + float64(w)/scale, origin.Y + float64(h)/scale}
	for _, e := range l.Edges {
		if !view.meets(opsBox(e.Ops)) {
			continue
		}
		var c *color.NRGBA
		if hc, ok := hl.transColor(e.Trans); ok {
			c = &hc
		}
		d.edge(e, c)
	}
	for _, n := range l.Nodes {
		if !view.meets(box{n.Center.X - n.W/2, n.Center.Y - n.H/2, n.Center.X + n.W/2, n.Center.Y + n.H/2}) {
			continue
		}
		if hl != nil && n.State >= 0 {
			if hc, ok := hl.States[n.State]; ok {
				dc.SetColor(color.NRGBA{hc.R, hc.G, hc.B, 70})
				x, y := d.at(n.Center)
				dc.DrawEllipse(x, y, n.W/2*scale, n.H/2*scale)
				dc.Fill()
			}
		}
		d.node(n)
	}
	d.arcShorts(l.Edges, l.Nodes, view, hl)
	return dc.Image()
}

// arcShorts draws, on a pill, the short form of each arc whose label is too
// small to read (its action names), where it covers neither a state nor
// another short form and is not cut by the picture's edge (in the arc's
// highlight colour, if any): at a scale that shows no label, the arcs still
// say which actions they are.
func (d drawer) arcShorts(edges []EdgeShape, nodes []NodeShape, view box, hl *Highlight) {
	var states []box // the states' shapes, in image pixels
	for _, n := range nodes {
		b := box{n.Center.X - n.W/2, n.Center.Y - n.H/2, n.Center.X + n.W/2, n.Center.Y + n.H/2}
		if view.meets(b) {
			x0, y0 := d.at(Point{b.x0, b.y0})
			x1, y1 := d.at(Point{b.x1, b.y1})
			states = append(states, box{x0, y0, x1, y1})
		}
	}
	size := float64(MinTextPx + 1)
	d.dc.SetFontFace(d.fc.get(size))
	for _, e := range edges {
		if e.Short == "" || !view.meets(opsBox(e.Ops)) || !labelTooSmall(e.Ops, d.s) {
			continue
		}
		tw, _ := d.dc.MeasureString(e.Short)
		x, y := d.at(e.Label)
		if x-tw/2-2 < 0 || y-size*0.55 < 0 || x+tw/2+2 > float64(d.dc.Width()) || y+size*0.55 > float64(d.dc.Height()) {
			continue // cut by the picture's edge
		}
		ink := color.NRGBA{R: 60, G: 70, B: 95, A: 255}
		if hc, ok := hl.transColor(e.Trans); ok {
			ink = hc
		}
		d.pill(e.Short, x, y, tw, size, ink, states)
	}
}

// drawable replaces the marks the drawing font lacks by ones it has: a
// failure's ✗ (in the labels of a test's failure nodes and arcs) by ×.
func drawable(text string) string {
	if !strings.ContainsAny(text, "✗✘") {
		return text
	}
	return strings.NewReplacer("✗", "×", "✘", "×").Replace(text)
}

// keepInside moves the centre x of something half wide so that it lies
// whole within [0, w], when x is within it and the thing fits.
func keepInside(x, half, w float64) float64 {
	if x < 0 || x > w || 2*half > w {
		return x
	}
	return min(max(x, half), w-half)
}

// labelTooSmall says whether ops hold a label and none of its lines is
// drawn at scale s.
func labelTooSmall(ops []Op, s float64) bool {
	has := false
	for _, op := range ops {
		if op.Kind == OpText {
			if op.FontSize*s >= MinTextPx {
				return false
			}
			has = true
		}
	}
	return has
}

// box is an axis-aligned rectangle in layout points.
type box struct{ x0, y0, x1, y1 float64 }

func (b box) meets(o box) bool {
	return o.x0 <= b.x1 && o.x1 >= b.x0 && o.y0 <= b.y1 && o.y1 >= b.y0
}

// opsBox bounds the shapes of ops (text by its anchor and size).
func opsBox(ops []Op) box {
	b := box{math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)}
	add := func(p Point, rx, ry float64) {
		b.x0, b.y0 = min(b.x0, p.X-rx), min(b.y0, p.Y-ry)
		b.x1, b.y1 = max(b.x1, p.X+rx), max(b.y1, p.Y+ry)
	}
	for _, op := range ops {
		switch op.Kind {
		case OpEllipse:
			add(op.Center, op.RX, op.RY)
		case OpText:
			add(op.Center, op.FontSize*float64(len(op.Text)), op.FontSize)
		default:
			for _, p := range op.Points {
				add(p, 0, 0)
			}
		}
	}
	return b
}

// drawer draws ops at scale s with the layout point o at the image's origin.
type drawer struct {
	dc *gg.Context
	fc faces
	s  float64
	o  Point
	// rec, when set, collects the text drawn.
	rec *[]string
	// pills holds the short labels drawn so far (image pixels): one that
	// would overlap them is left out, so that crowded states stay legible.
	pills *[]box
	// labels holds the arcs' labels drawn (image pixels): a state's pill
	// is made smaller rather than cover one.
	labels *[]box
}

func (d drawer) at(p Point) (float64, float64) { return (p.X - d.o.X) * d.s, (p.Y - d.o.Y) * d.s }

// edge draws an arc; its label only when readable, on a badge for a
// self-loop.
func (d drawer) edge(e EdgeShape, c *color.NRGBA) {
	for _, op := range e.Ops {
		if op.Kind != OpText {
			drawOp(d, op, c)
		}
	}
	var texts []Op
	for _, op := range e.Ops {
		if op.Kind == OpText && op.FontSize*d.s >= MinTextPx {
			texts = append(texts, op)
		}
	}
	d.clear(texts)
	if e.Loop && len(texts) > 0 {
		d.badge(texts)
	}
	for _, op := range texts {
		drawOp(d, op, c) // leaves the label's font set
		tw, _ := d.dc.MeasureString(op.Text)
		x, y := d.at(op.Center)
		x -= tw * op.Align
		*d.labels = append(*d.labels, box{x, y - op.FontSize*d.s, x + tw, y + op.FontSize*d.s*0.3})
	}
}

// clear moves an arc's label down, past the labels drawn before it that it
// would cover (two self-loops of one state put theirs side by side, and in
// Go's font, wider than Graphviz counted, they ran into each other:
// "Lookup ×24?Done ×72").
func (d drawer) clear(texts []Op) {
	if len(texts) == 0 {
		return
	}
	for tries := 0; tries < 8; tries++ {
		b := d.textsBox(texts)
		var hit *box
		for i := range *d.labels {
			if (*d.labels)[i].meets(b) {
				hit = &(*d.labels)[i]
				break
			}
		}
		if hit == nil {
			return
		}
		dy := (hit.y1 - b.y0 + 2) / d.s
		for i := range texts {
			texts[i].Center.Y += dy
		}
	}
}

// textsBox bounds texts as drawn (image pixels).
func (d drawer) textsBox(texts []Op) box {
	b := box{math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)}
	for _, op := range texts {
		d.dc.SetFontFace(d.fc.get(op.FontSize * d.s))
		tw, _ := d.dc.MeasureString(op.Text)
		x, y := d.at(op.Center)
		x -= tw * op.Align
		b.x0, b.y0 = min(b.x0, x), min(b.y0, y-op.FontSize*d.s)
		b.x1, b.y1 = max(b.x1, x+tw), max(b.y1, y+op.FontSize*d.s*0.3)
	}
	return b
}

// badge draws a rounded box behind a self-loop's stacked label.
func (d drawer) badge(texts []Op) {
	b := box{math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)}
	for _, op := range texts {
		d.dc.SetFontFace(d.fc.get(op.FontSize * d.s))
		tw, _ := d.dc.MeasureString(op.Text)
		x, y := d.at(op.Center)
		x -= tw * op.Align
		b.x0, b.x1 = min(b.x0, x), max(b.x1, x+tw)
		b.y0, b.y1 = min(b.y0, y-op.FontSize*d.s), max(b.y1, y+op.FontSize*d.s*0.3)
	}
	pad := 3.0
	d.dc.DrawRoundedRectangle(b.x0-pad, b.y0-pad, b.x1-b.x0+2*pad, b.y1-b.y0+2*pad, 4)
	d.dc.SetColor(color.NRGBA{R: 240, G: 244, B: 250, A: 255})
	d.dc.FillPreserve()
	d.dc.SetColor(color.NRGBA{R: 150, G: 160, B: 180, A: 255})
	d.dc.SetLineWidth(1)
	d.dc.SetDash()
	d.dc.Stroke()
}

// node draws a state: its shape, and its label when every line of it is
// readable, else its short form when that fits at MinTextPx.
func (d drawer) node(n NodeShape) {
	readable := true
	for _, op := range n.Ops {
		if op.Kind == OpText && op.FontSize*d.s < MinTextPx {
			readable = false
		}
	}
	for _, op := range n.Ops {
		if op.Kind != OpText || readable {
			drawOp(d, op, nil)
		}
	}
	if readable {
		d.nodeID(n)
		return
	}
	if n.Short == "" {
		return
	}
	// The same size for every state (a diamond is taller than an oval with
	// the same label), growing with the zoom toward the size at which the
	// labels themselves become readable.
	size := min(max(ShortTextPx, n.H*d.s*0.6), 14)
	for _, op := range n.Ops {
		if op.Kind == OpText {
			size = min(max(ShortTextPx, op.FontSize*d.s*1.4), 14)
			break
		}
	}
	d.dc.SetFontFace(d.fc.get(size))
	short, room := n.Short, max(n.W*d.s*0.9, size*8) // room for "depth 12 (132)"
	if n.State < 0 {
		return
	}
	for tw, _ := d.dc.MeasureString(short); tw > room && utf8.RuneCountInString(short) > 1; tw, _ = d.dc.MeasureString(short) {
		r := []rune(strings.TrimSuffix(short, "…"))
		short = string(r[:len(r)-1]) + "…"
	}
	ink := color.NRGBA{A: 255}
	for _, op := range n.Ops {
		if op.Kind == OpText {
			ink = op.Stroke
			break
		}
	}
	// On a white pill, readable over the lines it may cross; none where it
	// would cover another. A state whose centre is in the picture keeps its
	// pill whole inside it (a state at the graph's edge may be narrower than
	// its pill).
	x, y := d.at(n.Center)
	tw, _ := d.dc.MeasureString(short)
	// A pill wider than its state that would cover an arc's label is
	// drawn at the smallest readable size instead (its id stays).
	if wide := (box{x - tw/2 - 2, y - size*0.55, x + tw/2 + 2, y + size*0.55}); size > MinTextPx && tw > n.W*d.s &&
		slices.ContainsFunc(*d.labels, wide.meets) {
		size = MinTextPx
		d.dc.SetFontFace(d.fc.get(size))
		tw, _ = d.dc.MeasureString(short)
	}
	x = keepInside(x, tw/2+2, float64(d.dc.Width()))
	// Where another state's pill is in the way, the id goes just above
	// or below its state rather than be left out.
	half := n.H * d.s / 2
	for _, dy := range []float64{0, -half - size*0.6, half + size*0.6} {
		if d.pill(short, x, y+dy, tw, size, ink, nil) {
			return
		}
	}
}

// nodeID draws a readable state's id above its top-left edge, small and
// grey, when its label does not say it (a state's label is its variables;
// its id is what the details, Find and the command line name it by).
func (d drawer) nodeID(n NodeShape) {
	if n.State < 0 || n.ID == "" || strings.HasPrefix(n.ID, "__") {
		return
	}
	for _, op := range n.Ops {
		if op.Kind == OpText && (op.Text == n.ID || strings.HasPrefix(op.Text, n.ID+" ")) {
			return // the label says it
		}
	}
	size := float64(MinTextPx + 1)
	d.dc.SetFontFace(d.fc.get(size))
	x, y := d.at(Point{n.Center.X - n.W/2, n.Center.Y - n.H/2})
	tw, _ := d.dc.MeasureString(n.ID)
	d.dc.DrawRoundedRectangle(x-1, y-size, tw+2, size+1, 2)
	d.dc.SetColor(color.NRGBA{R: 255, G: 255, B: 255, A: 200})
	d.dc.Fill()
	d.dc.SetColor(color.NRGBA{R: 90, G: 95, B: 110, A: 255})
	d.dc.DrawStringAnchored(n.ID, x, y, 0, -0.1)
	if d.rec != nil {
		*d.rec = append(*d.rec, n.ID)
	}
}

// pill draws text (tw wide, at size) centred at x, y on a white pill, unless
// the pill would cover another pill or one of the boxes in avoid (image
// pixels); false when it left it out.
func (d drawer) pill(text string, x, y, tw, size float64, ink color.NRGBA, avoid []box) bool {
	pill := box{x - tw/2 - 2, y - size*0.55, x + tw/2 + 2, y + size*0.55}
	if slices.ContainsFunc(avoid, pill.meets) || slices.ContainsFunc(*d.pills, pill.meets) {
		return false
	}
	*d.pills = append(*d.pills, pill)
	d.dc.DrawRoundedRectangle(pill.x0, pill.y0, pill.x1-pill.x0, pill.y1-pill.y0, 3)
	d.dc.SetColor(color.NRGBA{R: 255, G: 255, B: 255, A: 220})
	d.dc.Fill()
	d.dc.SetColor(ink)
	d.dc.DrawStringAnchored(text, x, y, 0.5, 0.35)
	if d.rec != nil {
		*d.rec = append(*d.rec, text)
	}
	return true
}

func drawOp(d drawer, op Op, override *color.NRGBA) {
	dc, fc, s := d.dc, d.fc, d.s
	pt := d.at
	stroke, fill := op.Stroke, op.Fill
	if override != nil {
		stroke, fill = *override, *override
	}
	dc.SetLineWidth(math.Max(op.Width*s, 1))
	switch {
	case op.Dashed:
		dc.SetDash(5*s, 3*s)
	case op.Dotted:
		dc.SetDash(1*s, 3*s)
	default:
		dc.SetDash()
	}
	finish := func() {
		if op.Filled {
			dc.SetColor(fill)
			dc.FillPreserve()
		}
		dc.SetColor(stroke)
		dc.Stroke()
	}
	switch op.Kind {
	case OpEllipse:
		cx, cy := pt(op.Center)
		dc.DrawEllipse(cx, cy, op.RX*s, op.RY*s)
		finish()
	case OpPolygon, OpPolyline:
		for i, p := range op.Points {
			if i == 0 {
				dc.MoveTo(pt(p))
			} else {
				dc.LineTo(pt(p))
			}
		}
		if op.Kind == OpPolygon {
			dc.ClosePath()
		}
		finish()
	case OpBezier:
		if len(op.Points) == 0 {
			return
		}
		dc.MoveTo(pt(op.Points[0]))
		for i := 1; i+2 < len(op.Points); i += 3 {
			ax, ay := pt(op.Points[i])
			bx, by := pt(op.Points[i+1])
			cx, cy := pt(op.Points[i+2])
			dc.CubicTo(ax, ay, bx, by, cx, cy)
		}
		finish()
	case OpText:
		dc.SetFontFace(fc.get(op.FontSize * s))
		dc.SetColor(stroke)
		x, y := pt(op.Center)
		text := drawable(op.Text)
		dc.DrawStringAnchored(text, x, y, op.Align, 0)
		if d.rec != nil {
			*d.rec = append(*d.rec, text)
		}
	}
}

// WritePNG draws the layout and encodes it as PNG.
func (l *Layout) WritePNG(w io.Writer, scale float64) error {
	return png.Encode(w, l.Draw(scale, nil))
}
