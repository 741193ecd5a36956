package graph

import (
	"image"
	"image/color"
	"image/png"
	"io"
	"math"
	"sync"

	"github.com/fogleman/gg"
	"github.com/golang/freetype/truetype"
	"golang.org/x/image/font"
	"golang.org/x/image/font/gofont/goregular"
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
		f = truetype.NewFace(ttFont, &truetype.Options{Size: size, Hinting: font.HintingFull})
		fs[size] = f
	}
	return f
}

// Highlight colours states and transitions when drawing.
type Highlight struct {
	States map[int]color.NRGBA // by Doc state index
	Trans  map[int]color.NRGBA // by Doc transition index
}

// MaxPixels bounds the size of a drawn image; larger drawings are scaled
// down to fit.
const MaxPixels = 40_000_000

// Draw renders the layout at the given scale (1 = 1 pixel per point).
func (l *Layout) Draw(scale float64, hl *Highlight) image.Image {
	if px := l.Width * l.Height * scale * scale; px > MaxPixels {
		scale *= math.Sqrt(MaxPixels / px)
	}
	w, h := int(math.Ceil(l.Width*scale))+1, int(math.Ceil(l.Height*scale))+1
	dc := gg.NewContext(w, h)
	dc.SetColor(color.White)
	dc.Clear()
	fc := faces{}
	for _, e := range l.Edges {
		var c *color.NRGBA
		if hl != nil && e.Trans >= 0 {
			if hc, ok := hl.Trans[e.Trans]; ok {
				c = &hc
			}
		}
		for _, op := range e.Ops {
			drawOp(dc, fc, op, scale, c)
		}
	}
	for _, n := range l.Nodes {
		if hl != nil && n.State >= 0 {
			if hc, ok := hl.States[n.State]; ok {
				dc.SetColor(color.NRGBA{hc.R, hc.G, hc.B, 70})
				dc.DrawEllipse(n.Center.X*scale, n.Center.Y*scale, n.W/2*scale, n.H/2*scale)
				dc.Fill()
			}
		}
		for _, op := range n.Ops {
			drawOp(dc, fc, op, scale, nil)
		}
	}
	return dc.Image()
}

func drawOp(dc *gg.Context, fc faces, op Op, s float64, override *color.NRGBA) {
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
		dc.DrawEllipse(op.Center.X*s, op.Center.Y*s, op.RX*s, op.RY*s)
		finish()
	case OpPolygon, OpPolyline:
		for i, p := range op.Points {
			if i == 0 {
				dc.MoveTo(p.X*s, p.Y*s)
			} else {
				dc.LineTo(p.X*s, p.Y*s)
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
		dc.MoveTo(op.Points[0].X*s, op.Points[0].Y*s)
		for i := 1; i+2 < len(op.Points); i += 3 {
			a, b, c := op.Points[i], op.Points[i+1], op.Points[i+2]
			dc.CubicTo(a.X*s, a.Y*s, b.X*s, b.Y*s, c.X*s, c.Y*s)
		}
		finish()
	case OpText:
		dc.SetFontFace(fc.get(op.FontSize * s))
		dc.SetColor(stroke)
		dc.DrawStringAnchored(op.Text, op.Center.X*s, op.Center.Y*s, op.Align, 0)
	}
}

// WritePNG draws the layout and encodes it as PNG.
func (l *Layout) WritePNG(w io.Writer, scale float64) error {
	return png.Encode(w, l.Draw(scale, nil))
}
