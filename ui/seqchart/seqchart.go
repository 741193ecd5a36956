// Package seqchart draws a run as a message sequence chart (graph.Chart),
// the same picture as its SVG: the test dashboard's current run, an offline
// case, a replayed trace.
package seqchart

import (
	"image/color"
	"io"
	"strconv"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"github.com/modex/modex/engine/model"
	"github.com/modex/modex/graph"
	"github.com/modex/modex/ui/widgets"
)

// Chart shows a run as a message sequence chart (graph.Chart): clicking
// a message selects, in the graph beside it, the state the step reached.
type Chart struct {
	widget.BaseWidget
	chart  *graph.Chart
	lay    *graph.ChartLayout
	box    *fyne.Container
	scroll *container.Scroll
	// OnMessage is called with a message (and its row) when it is clicked.
	OnMessage func(row int, m *graph.Message)
}

// New makes an empty chart view.
func New() *Chart {
	c := &Chart{box: container.NewWithoutLayout()}
	c.ExtendBaseWidget(c)
	return c
}

// CreateRenderer draws the chart's canvas objects.
func (c *Chart) CreateRenderer() fyne.WidgetRenderer {
	return widget.NewSimpleRenderer(c.box)
}

// MinSize is the chart's size: a scroll container around it scrolls.
func (c *Chart) MinSize() fyne.Size {
	if c.lay == nil {
		return fyne.NewSize(10, 10)
	}
	return fyne.NewSize(float32(c.lay.Width), float32(c.lay.Height))
}

// Chart is the chart shown (nil for none).
func (c *Chart) Chart() *graph.Chart { return c.chart }

// SetChart shows a chart (nil: none), scrolled to its last row.
func (c *Chart) SetChart(ch *graph.Chart) {
	c.chart = ch
	c.box.Objects = nil
	c.lay = nil
	if ch != nil {
		c.lay = ch.Layout()
		c.box.Objects = c.draw()
	}
	c.box.Refresh()
	c.Refresh()
	if c.scroll != nil {
		c.scroll.Refresh()
		c.scroll.ScrollToBottom()
	}
}

// draw builds the chart's objects from its layout: the same picture as
// graph.Chart.WriteSVG.
func (c *Chart) draw() []fyne.CanvasObject {
	ch, l := c.chart, c.lay
	ink := widgets.RGB("#222222")
	grey := widgets.RGB("#9e9e9e")
	// On white, whatever the theme: the colours are the SVG's.
	bg := canvas.NewRectangle(color.White)
	bg.Resize(fyne.NewSize(float32(l.Width), float32(l.Height)))
	objs := []fyne.CanvasObject{bg, widgets.Text(ch.Title, 16, 22, ink, 12, true, false)}
	bottom := l.Height - 16 - 30
	for i, name := range ch.Lifelines {
		x := l.X[i]
		box := canvas.NewRectangle(widgets.RGB("#eef3fa"))
		box.StrokeColor, box.StrokeWidth, box.CornerRadius = ink, 1, 4
		box.Move(fyne.NewPos(float32(x-l.BoxWidth/2), float32(l.Top-26)))
		box.Resize(fyne.NewSize(float32(l.BoxWidth), 22))
		objs = append(objs, box, widgets.Text(graph.FitLabel(name, l.BoxWidth), x, l.Top-9, ink, 12, false, true),
			widgets.Line(x, l.Top-4, x, bottom, widgets.RGB("#bbbbbb"), 1))
	}
	if ch.Dropped > 0 {
		objs = append(objs, widgets.Text("… the first "+strconv.Itoa(ch.Dropped)+" steps are not drawn", 16, l.Top+14, grey, 12, false, false))
	}
	for i := range ch.Messages {
		objs = append(objs, c.drawMessage(i)...)
	}
	if ch.Verdict != "" {
		col := ink
		if ch.Messages != nil && ch.Messages[len(ch.Messages)-1].Failed {
			col = widgets.RGB("#c62828")
		}
		objs = append(objs, widgets.Text(graph.FitLabel(ch.Verdict, l.Width-32), 16, bottom+21, col, 12, true, false))
	}
	if len(ch.Expected) > 0 {
		objs = append(objs, widgets.Text(graph.FitLabel(graph.ExpectedWords(ch.Expected), l.Width-32), 16, bottom+39, ink, 12, false, false))
	}
	return objs
}

// drawMessage draws row i as WriteSVG does.
func (c *Chart) drawMessage(i int) []fyne.CanvasObject {
	ch, l := c.chart, c.lay
	m := &ch.Messages[i]
	y, col := l.Y[i], widgets.RGB(graph.MessageColor(m))
	var objs []fyne.CanvasObject
	if m.Step > 0 {
		t := widgets.Text(strconv.Itoa(m.Step), 16, y+5, widgets.RGB("#9e9e9e"), 10, false, false)
		objs = append(objs, t)
	}
	x1, x2 := l.X[m.From], l.X[m.To]
	width := float32(1.4)
	if m.Failed {
		width = 2.4
	}
	switch {
	case m.Kind == model.Timeout:
		objs = append(objs, widgets.Line(x1, y-5, x1, y+5, col, 3), widgets.Text("timeout", x1+6, y+4, col, 10, false, false))
	case m.From == m.To:
		objs = append(objs, widgets.Line(x1, y-6, x1+28, y-6, col, width), widgets.Line(x1+28, y-6, x1+28, y+6, col, width),
			widgets.Line(x1+28, y+6, x1+6, y+6, col, width), widgets.Line(x1, y+6, x1+7, y+2, col, width), widgets.Line(x1, y+6, x1+7, y+10, col, width),
			widgets.Text(graph.FitLabel(m.Label, l.Width-x1-40), x1+34, y+5, col, 12, false, false))
	default:
		d := 9.0
		if x2 < x1 {
			d = -9
		}
		span := max(x1, x2) - min(x1, x2)
		objs = append(objs, widgets.Line(x1, y, x2, y, col, width), widgets.Line(x2, y, x2-d, y-4.5, col, width), widgets.Line(x2, y, x2-d, y+4.5, col, width),
			widgets.Text(graph.FitLabel(m.Label, span-8), (x1+x2)/2, y-4, col, 12, m.Failed, true))
	}
	return objs
}

// Tapped selects the state of the message nearest the click.
func (c *Chart) Tapped(e *fyne.PointEvent) {
	if i := c.MessageAt(float64(e.Position.Y)); i >= 0 && c.OnMessage != nil {
		c.OnMessage(i, &c.chart.Messages[i])
	}
}

// MessageY is the height of row i in the chart (0 before a chart is
// shown).
func (c *Chart) MessageY(i int) float64 {
	if c.lay == nil {
		return 0
	}
	return c.lay.Y[i]
}

// MessageAt is the row at height y (within half a row), -1 for none.
func (c *Chart) MessageAt(y float64) int {
	if c.lay == nil {
		return -1
	}
	best, dist := -1, 16.0
	for i, ry := range c.lay.Y {
		if d := max(ry-y, y-ry); d < dist {
			best, dist = i, d
		}
	}
	return best
}

// NewPanel is a chart in a scroll container with a hint and an Export SVG
// button that saves with save.
func NewPanel(save widgets.SaveSVG, hint string) (*Chart, fyne.CanvasObject) {
	c := New()
	scroll := container.NewScroll(c)
	c.scroll = scroll
	export := widgets.ExportSVGButton(save, "the sequence chart", "Sequence chart", "run.svg", func() func(io.Writer) error {
		if ch := c.Chart(); ch != nil {
			return ch.WriteSVG
		}
		return nil
	})
	h := widget.NewLabel(hint)
	h.Wrapping = fyne.TextWrapWord
	return c, container.NewBorder(nil, container.NewBorder(nil, nil, nil, export, h), nil, nil, scroll)
}
