// Package chart draws the coverage chart of the test dashboard: the distinct
// states and transitions covered over the steps (or jobs) of a run.
package chart

import (
	"fmt"
	"image/color"
	"strconv"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/widget"
)

// MaxPoints bounds the points a Coverage keeps: past it, every
// second point is dropped and each kept point stands for twice as many
// steps, so that a run of any length takes the same memory.
const MaxPoints = 2048

// Point is what a coverage chart plots after a step: the distinct
// states and transitions covered so far (Trans < 0: not counted), and the
// implementation's code coverage in percent (drawn when the chart's Code
// is set).
type Point struct {
	States, Trans int
	Code          float64
}

// Coverage plots coverage over steps (or jobs): the distinct states
// covered and, when counted, the distinct transitions, with axes that say
// how many of what. It grows with the room it is given.
type Coverage struct {
	widget.BaseWidget
	// points holds the values after every stride-th step; pending counts
	// the steps since the last point kept.
	points          []Point
	stride, pending int
	// total and last are the number of steps and the latest values.
	total int
	last  Point
	// r is the chart's renderer, once drawn.
	r *chartRenderer
	// Unit names the x axis's points: "steps" (a test), "jobs" (a
	// campaign); the default is steps.
	Unit string
	// Code draws the implementation's code coverage too, against its own
	// scale (0 to 100 %, at the right).
	Code bool
}

// NewCoverage returns an empty chart.
func NewCoverage() *Coverage {
	c := &Coverage{}
	c.ExtendBaseWidget(c)
	return c
}

// Reset clears the chart.
func (c *Coverage) Reset() {
	c.points, c.stride, c.pending, c.total, c.last = nil, 1, 0, 0, Point{}
	c.Refresh()
}

// Add appends points (coverage after each next step or job) and redraws
// once.
func (c *Coverage) Add(ps ...Point) {
	c.add(ps...)
	c.Refresh()
}

func (c *Coverage) add(ps ...Point) {
	if c.stride == 0 {
		c.stride = 1
	}
	for _, p := range ps {
		c.total, c.last = c.total+1, p
		if c.pending++; c.pending < c.stride {
			continue
		}
		c.pending = 0
		c.points = append(c.points, p)
		if len(c.points) >= MaxPoints {
			for i := 1; i < len(c.points); i += 2 {
				c.points[i/2] = c.points[i] // the end of each pair
			}
			c.points = c.points[:len(c.points)/2]
			c.stride *= 2
		}
	}
}

// Len is the number of points kept (at most MaxPoints).
func (c *Coverage) Len() int { return len(c.points) }

// Steps is the number of steps (or jobs) plotted so far.
func (c *Coverage) Steps() int { return c.total }

// Last is the latest values plotted.
func (c *Coverage) Last() Point { return c.last }

// Axes are the texts of the axes as last drawn: the top of the y axis, the
// end of the x axis and its unit ("" before the chart was drawn).
func (c *Coverage) Axes() (top, end, unit string) {
	if c.r == nil {
		return "", "", ""
	}
	return c.r.texts[txTop].Text, c.r.texts[txEnd].Text, c.r.texts[txUnit].Text
}

// Caption is the chart's latest figures in words.
func (c *Coverage) Caption() string {
	s := fmt.Sprintf("%d states", c.last.States)
	if c.last.Trans >= 0 {
		s += fmt.Sprintf(", %d transitions", c.last.Trans)
	}
	if c.Code {
		s += fmt.Sprintf(", %.1f %% of the implementation's code", c.last.Code)
	}
	return s + fmt.Sprintf(" covered after %d %s", c.total, c.unit())
}

func (c *Coverage) unit() string {
	if c.Unit == "" {
		return "steps"
	}
	return c.Unit
}

// MinSize is part of fyne.Widget.
func (c *Coverage) MinSize() fyne.Size { return fyne.NewSize(240, 130) }

// CreateRenderer is part of fyne.Widget.
func (c *Coverage) CreateRenderer() fyne.WidgetRenderer {
	r := &chartRenderer{c: c, bg: canvas.NewRectangle(chartBG)}
	for i := range r.texts {
		r.texts[i] = canvas.NewText("", chartInk)
		r.texts[i].TextSize = 11
	}
	for i := range r.axes {
		r.axes[i] = canvas.NewLine(chartAxis)
		r.axes[i].StrokeWidth = 1
	}
	c.r = r
	return r
}

var (
	chartBG     = color.NRGBA{R: 40, G: 44, B: 52, A: 255}
	chartInk    = color.NRGBA{R: 210, G: 210, B: 210, A: 255}
	chartAxis   = color.NRGBA{R: 120, G: 124, B: 132, A: 255}
	chartStates = color.NRGBA{R: 90, G: 200, B: 120, A: 255}
	chartTrans  = color.NRGBA{R: 100, G: 160, B: 240, A: 255}
	chartCode   = color.NRGBA{R: 240, G: 180, B: 70, A: 255}
)

// The chart's texts: y top, y middle, y zero, x end, x unit, legend
// (states), legend (transitions).
const (
	txTop = iota
	txMid
	txZero
	txEnd
	txUnit
	txStates
	txTrans
	txCode
	txCodeTop
	txCount
)

type chartRenderer struct {
	c     *Coverage
	bg    *canvas.Rectangle
	texts [txCount]*canvas.Text
	axes  [3]*canvas.Line // y axis, x axis, the middle grid line
	lines []*canvas.Line
	objs  []fyne.CanvasObject
}

func (r *chartRenderer) Destroy()                     {}
func (r *chartRenderer) MinSize() fyne.Size           { return r.c.MinSize() }
func (r *chartRenderer) Objects() []fyne.CanvasObject { return r.objs }
func (r *chartRenderer) Refresh()                     { r.Layout(r.c.Size()); canvas.Refresh(r.c) }

// niceTop is the axis's top: the smallest 1, 2 or 5 × 10^k at least v.
func niceTop(v int) int {
	for p := 1; ; p *= 10 {
		for _, m := range []int{1, 2, 5} {
			if m*p >= v {
				return m * p
			}
		}
	}
}

func (r *chartRenderer) Layout(size fyne.Size) {
	c := r.c
	r.bg.Resize(size)
	r.objs = append(r.objs[:0], r.bg)
	top := 1
	for _, p := range c.points {
		top = max(top, p.States, p.Trans)
	}
	top = niceTop(top)
	// The plot's box: room for the y labels at the left, the legend at
	// the top and the x labels at the bottom.
	yLabel := float32(len(strconv.Itoa(top)))*7 + 10
	left, right, up, down := yLabel, size.Width-10, float32(22), size.Height-18
	r.axes[0].Position1, r.axes[0].Position2 = fyne.NewPos(left, up), fyne.NewPos(left, down)
	r.axes[1].Position1, r.axes[1].Position2 = fyne.NewPos(left, down), fyne.NewPos(right, down)
	mid := (up + down) / 2
	r.axes[2].Position1, r.axes[2].Position2 = fyne.NewPos(left, mid), fyne.NewPos(right, mid)
	r.axes[2].StrokeColor = color.NRGBA{R: 70, G: 74, B: 82, A: 255}
	for _, a := range r.axes {
		r.objs = append(r.objs, a)
	}
	put := func(i int, text string, x, y float32, align fyne.TextAlign, col color.Color) {
		t := r.texts[i]
		t.Text, t.Color = text, col
		w := fyne.MeasureText(text, t.TextSize, t.TextStyle).Width
		switch align {
		case fyne.TextAlignTrailing:
			x -= w
		case fyne.TextAlignCenter:
			x -= w / 2
		}
		t.Move(fyne.NewPos(x, y))
		r.objs = append(r.objs, t)
	}
	put(txTop, strconv.Itoa(top), left-4, up-7, fyne.TextAlignTrailing, chartInk)
	if top%2 == 0 {
		put(txMid, strconv.Itoa(top/2), left-4, mid-7, fyne.TextAlignTrailing, chartInk)
	}
	put(txZero, "0", left-4, down-7, fyne.TextAlignTrailing, chartInk)
	put(txEnd, strconv.Itoa(c.total), right, down+2, fyne.TextAlignTrailing, chartInk)
	put(txUnit, c.unit(), (left+right)/2, down+2, fyne.TextAlignCenter, chartInk)
	put(txStates, fmt.Sprintf("■ states %d", c.last.States), left+6, 3, fyne.TextAlignLeading, chartStates)
	if c.last.Trans >= 0 && c.total > 0 {
		put(txTrans, fmt.Sprintf("■ transitions %d", c.last.Trans), left+120, 3, fyne.TextAlignLeading, chartTrans)
	}
	if c.Code && c.total > 0 {
		put(txCode, fmt.Sprintf("■ code %.1f %%", c.last.Code), left+260, 3, fyne.TextAlignLeading, chartCode)
		put(txCodeTop, "100 %", right, up+2, fyne.TextAlignTrailing, chartCode)
	}
	if len(c.points) == 0 {
		return
	}
	// At most n segments a series; x runs from step 0 to the last step.
	const n = 120
	pts := c.points
	at := func(i int, v float64) fyne.Position {
		x := float32((i+1)*c.stride) / float32(max(c.total, 1)) * (right - left)
		y := down - float32(v)/float32(top)*(down-up)
		return fyne.NewPos(left+x, y)
	}
	step := max(1, len(pts)/n)
	k := 0
	series := func(col color.Color, val func(Point) float64) {
		prev := fyne.NewPos(left, down)
		for i := 0; i < len(pts); i += step {
			if i+step >= len(pts) {
				i = len(pts) - 1 // end on the last point
			}
			for len(r.lines) <= k {
				l := canvas.NewLine(col)
				l.StrokeWidth = 2
				r.lines = append(r.lines, l)
			}
			l := r.lines[k]
			l.StrokeColor = col
			p := at(i, val(pts[i]))
			l.Position1, l.Position2 = prev, p
			prev = p
			r.objs = append(r.objs, l)
			k++
		}
	}
	if c.last.Trans >= 0 {
		series(chartTrans, func(p Point) float64 { return float64(p.Trans) })
	}
	if c.Code {
		series(chartCode, func(p Point) float64 { return p.Code / 100 * float64(top) })
	}
	series(chartStates, func(p Point) float64 { return float64(p.States) })
}
