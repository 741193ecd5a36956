package ui

import (
	"fmt"
	"image/color"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/widget"
)

// MaxChartPoints bounds the points a CoverageChart keeps: past it, every
// second point is dropped and each kept point stands for twice as many
// steps, so that a run of any length takes the same memory.
const MaxChartPoints = 2048

// CoverageChart draws covered states over steps as a small line chart.
type CoverageChart struct {
	widget.BaseWidget
	// points holds the value after every stride-th step; pending counts the
	// steps since the last point kept.
	points          []int
	stride, pending int
	// total and last are the number of steps and the latest value.
	total, last int
	// Unit names the x axis's points: "steps" (a test), "jobs" (a
	// campaign); the default is steps.
	Unit string
}

// NewCoverageChart returns an empty chart.
func NewCoverageChart() *CoverageChart {
	c := &CoverageChart{}
	c.ExtendBaseWidget(c)
	return c
}

// Reset clears the chart.
func (c *CoverageChart) Reset() {
	c.points, c.stride, c.pending, c.total, c.last = nil, 1, 0, 0, 0
	c.Refresh()
}

// Add appends points (states covered after each next step or job) and
// redraws once.
func (c *CoverageChart) Add(vs ...int) {
	c.add(vs...)
	c.Refresh()
}

func (c *CoverageChart) add(vs ...int) {
	if c.stride == 0 {
		c.stride = 1
	}
	for _, v := range vs {
		c.total, c.last = c.total+1, v
		if c.pending++; c.pending < c.stride {
			continue
		}
		c.pending = 0
		c.points = append(c.points, v)
		if len(c.points) >= MaxChartPoints {
			for i := 1; i < len(c.points); i += 2 {
				c.points[i/2] = c.points[i] // the end of each pair
			}
			c.points = c.points[:len(c.points)/2]
			c.stride *= 2
		}
	}
}

// MinSize is part of fyne.Widget.
func (c *CoverageChart) MinSize() fyne.Size { return fyne.NewSize(200, 70) }

// CreateRenderer is part of fyne.Widget.
func (c *CoverageChart) CreateRenderer() fyne.WidgetRenderer {
	bg := canvas.NewRectangle(color.NRGBA{R: 40, G: 44, B: 52, A: 255})
	label := canvas.NewText("", color.NRGBA{R: 200, G: 200, B: 200, A: 255})
	label.TextSize = 11
	return &chartRenderer{c: c, bg: bg, label: label}
}

type chartRenderer struct {
	c     *CoverageChart
	bg    *canvas.Rectangle
	label *canvas.Text
	lines []*canvas.Line
	objs  []fyne.CanvasObject
}

func (r *chartRenderer) Destroy()                     {}
func (r *chartRenderer) MinSize() fyne.Size           { return r.c.MinSize() }
func (r *chartRenderer) Objects() []fyne.CanvasObject { return r.objs }
func (r *chartRenderer) Refresh()                     { r.Layout(r.c.Size()); canvas.Refresh(r.c) }

func (r *chartRenderer) Layout(size fyne.Size) {
	r.bg.Resize(size)
	r.objs = append(r.objs[:0], r.bg)
	pts := r.c.points
	if len(pts) == 0 {
		return
	}
	const n = 80 // segments drawn at most
	top := 1
	for _, p := range pts {
		top = max(top, p)
	}
	at := func(i int) fyne.Position {
		x := float32(i) / float32(max(len(pts)-1, 1)) * (size.Width - 8)
		y := size.Height - 4 - float32(pts[i])/float32(top)*(size.Height-18)
		return fyne.NewPos(4+x, y)
	}
	step := max(1, len(pts)/n)
	k := 0
	for i := step; i < len(pts); i += step {
		for len(r.lines) <= k {
			l := canvas.NewLine(color.NRGBA{R: 90, G: 200, B: 120, A: 255})
			l.StrokeWidth = 2
			r.lines = append(r.lines, l)
		}
		l := r.lines[k]
		l.Position1, l.Position2 = at(i-step), at(i)
		r.objs = append(r.objs, l)
		k++
	}
	unit := r.c.Unit
	if unit == "" {
		unit = "steps"
	}
	r.label.Text = fmt.Sprintf("%d states after %d %s", r.c.last, r.c.total, unit)
	r.label.Move(fyne.NewPos(6, 2))
	r.objs = append(r.objs, r.label)
}
