package ui

import (
	"bytes"
	"image/color"
	"io"
	"path/filepath"
	"strconv"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"github.com/modex/modex/engine/conform"
	"github.com/modex/modex/engine/model"
	"github.com/modex/modex/graph"
	"github.com/modex/modex/projects"
	"github.com/modex/modex/ui/widgets"
)

// SeqChart shows a run as a message sequence chart (graph.Chart): clicking
// a message selects, in the graph beside it, the state the step reached.
type SeqChart struct {
	widget.BaseWidget
	chart  *graph.Chart
	lay    *graph.ChartLayout
	box    *fyne.Container
	scroll *container.Scroll
	// OnMessage is called with a message (and its row) when it is clicked.
	OnMessage func(row int, m *graph.Message)
}

// NewSeqChart makes an empty chart view.
func NewSeqChart() *SeqChart {
	c := &SeqChart{box: container.NewWithoutLayout()}
	c.ExtendBaseWidget(c)
	return c
}

// CreateRenderer draws the chart's canvas objects.
func (c *SeqChart) CreateRenderer() fyne.WidgetRenderer {
	return widget.NewSimpleRenderer(c.box)
}

// MinSize is the chart's size: a scroll container around it scrolls.
func (c *SeqChart) MinSize() fyne.Size {
	if c.lay == nil {
		return fyne.NewSize(10, 10)
	}
	return fyne.NewSize(float32(c.lay.Width), float32(c.lay.Height))
}

// Chart is the chart shown (nil for none).
func (c *SeqChart) Chart() *graph.Chart { return c.chart }

// SetChart shows a chart (nil: none), scrolled to its last row.
func (c *SeqChart) SetChart(ch *graph.Chart) {
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

func rgb(hex string) color.NRGBA {
	v, _ := strconv.ParseUint(hex[1:], 16, 32)
	return color.NRGBA{R: uint8(v >> 16), G: uint8(v >> 8), B: uint8(v), A: 255}
}

// text is a label placed with its baseline near y, anchored at x (left,
// or centred when centre).
func chartText(s string, x, y float64, col color.Color, size float32, bold, centre bool) fyne.CanvasObject {
	t := canvas.NewText(s, col)
	t.TextSize = size
	t.TextStyle.Bold = bold
	w := t.MinSize()
	px := float32(x)
	if centre {
		px -= w.Width / 2
	}
	t.Move(fyne.NewPos(px, float32(y)-w.Height+3))
	t.Resize(w)
	return t
}

func chartLine(x1, y1, x2, y2 float64, col color.Color, width float32) *canvas.Line {
	l := canvas.NewLine(col)
	l.StrokeWidth = width
	l.Position1, l.Position2 = fyne.NewPos(float32(x1), float32(y1)), fyne.NewPos(float32(x2), float32(y2))
	return l
}

// draw builds the chart's objects from its layout: the same picture as
// graph.Chart.WriteSVG.
func (c *SeqChart) draw() []fyne.CanvasObject {
	ch, l := c.chart, c.lay
	ink := rgb("#222222")
	grey := rgb("#9e9e9e")
	// On white, whatever the theme: the colours are the SVG's.
	bg := canvas.NewRectangle(color.White)
	bg.Resize(fyne.NewSize(float32(l.Width), float32(l.Height)))
	objs := []fyne.CanvasObject{bg, chartText(ch.Title, 16, 22, ink, 12, true, false)}
	bottom := l.Height - 16 - 30
	for i, name := range ch.Lifelines {
		x := l.X[i]
		box := canvas.NewRectangle(rgb("#eef3fa"))
		box.StrokeColor, box.StrokeWidth, box.CornerRadius = ink, 1, 4
		box.Move(fyne.NewPos(float32(x-l.BoxWidth/2), float32(l.Top-26)))
		box.Resize(fyne.NewSize(float32(l.BoxWidth), 22))
		objs = append(objs, box, chartText(graph.FitLabel(name, l.BoxWidth), x, l.Top-9, ink, 12, false, true),
			chartLine(x, l.Top-4, x, bottom, rgb("#bbbbbb"), 1))
	}
	if ch.Dropped > 0 {
		objs = append(objs, chartText("… the first "+strconv.Itoa(ch.Dropped)+" steps are not drawn", 16, l.Top+14, grey, 12, false, false))
	}
	for i := range ch.Messages {
		objs = append(objs, c.drawMessage(i)...)
	}
	if ch.Verdict != "" {
		col := ink
		if ch.Messages != nil && ch.Messages[len(ch.Messages)-1].Failed {
			col = rgb("#c62828")
		}
		objs = append(objs, chartText(graph.FitLabel(ch.Verdict, l.Width-32), 16, bottom+21, col, 12, true, false))
	}
	if len(ch.Expected) > 0 {
		objs = append(objs, chartText(graph.FitLabel(graph.ExpectedWords(ch.Expected), l.Width-32), 16, bottom+39, ink, 12, false, false))
	}
	return objs
}

// drawMessage draws row i as WriteSVG does.
func (c *SeqChart) drawMessage(i int) []fyne.CanvasObject {
	ch, l := c.chart, c.lay
	m := &ch.Messages[i]
	y, col := l.Y[i], rgb(graph.MessageColor(m))
	var objs []fyne.CanvasObject
	if m.Step > 0 {
		t := chartText(strconv.Itoa(m.Step), 16, y+5, rgb("#9e9e9e"), 10, false, false)
		objs = append(objs, t)
	}
	x1, x2 := l.X[m.From], l.X[m.To]
	width := float32(1.4)
	if m.Failed {
		width = 2.4
	}
	switch {
	case m.Kind == model.Timeout:
		objs = append(objs, chartLine(x1, y-5, x1, y+5, col, 3), chartText("timeout", x1+6, y+4, col, 10, false, false))
	case m.From == m.To:
		objs = append(objs, chartLine(x1, y-6, x1+28, y-6, col, width), chartLine(x1+28, y-6, x1+28, y+6, col, width),
			chartLine(x1+28, y+6, x1+6, y+6, col, width), chartLine(x1, y+6, x1+7, y+2, col, width), chartLine(x1, y+6, x1+7, y+10, col, width),
			chartText(graph.FitLabel(m.Label, l.Width-x1-40), x1+34, y+5, col, 12, false, false))
	default:
		d := 9.0
		if x2 < x1 {
			d = -9
		}
		span := max(x1, x2) - min(x1, x2)
		objs = append(objs, chartLine(x1, y, x2, y, col, width), chartLine(x2, y, x2-d, y-4.5, col, width), chartLine(x2, y, x2-d, y+4.5, col, width),
			chartText(graph.FitLabel(m.Label, span-8), (x1+x2)/2, y-4, col, 12, m.Failed, true))
	}
	return objs
}

// Tapped selects the state of the message nearest the click.
func (c *SeqChart) Tapped(e *fyne.PointEvent) {
	if i := c.MessageAt(float64(e.Position.Y)); i >= 0 && c.OnMessage != nil {
		c.OnMessage(i, &c.chart.Messages[i])
	}
}

// MessageAt is the row at height y (within half a row), -1 for none.
func (c *SeqChart) MessageAt(y float64) int {
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

// seqChartPanel is the Test tab's chart: clicking a message selects its
// state in the test's graph.
func (tv *TestView) seqChartPanel() fyne.CanvasObject {
	var panel fyne.CanvasObject
	tv.seq, panel = newSeqPanel(tv.wb, "The current run, or the first that failed. Click a message: its state in the graph.")
	tv.seq.OnMessage = func(_ int, m *graph.Message) {
		if m.State != "" {
			tv.jump(m.State)
		}
	}
	return panel
}

// newSeqPanel is a chart in a scroll container with a hint and an Export
// SVG button.
func newSeqPanel(wb *Workbench, hint string) (*SeqChart, fyne.CanvasObject) {
	c := NewSeqChart()
	scroll := container.NewScroll(c)
	c.scroll = scroll
	export := exportSVGButton(wb, "the sequence chart", "Sequence chart", "run.svg", func() func(io.Writer) error {
		if ch := c.Chart(); ch != nil {
			return ch.WriteSVG
		}
		return nil
	})
	h := widget.NewLabel(hint)
	h.Wrapping = fyne.TextWrapWord
	return c, container.NewBorder(nil, container.NewBorder(nil, nil, nil, export, h), nil, nil, scroll)
}

// exportSVGButton is an Export SVG… button: it saves what picture gives
// (nil: nothing shown, nothing to save) under a name the user picks, name
// proposed; the status line then says "<Picture> written to PATH".
func exportSVGButton(wb *Workbench, what, Picture, name string, picture func() func(io.Writer) error) *widgets.Button {
	return widgets.NewButton("Export SVG…", func() {
		write := picture()
		if write == nil {
			return
		}
		wb.dialogs.Save("Export "+what, filepath.Join(wb.projectDir(), name), []string{"svg"}, func(path string) {
			if path == "" {
				return
			}
			var b bytes.Buffer
			err := write(&b)
			if err == nil {
				err = projects.WriteFileAtomic(path, b.Bytes())
			}
			if err != nil {
				wb.status.SetText("Export: " + err.Error())
				return
			}
			wb.status.SetText(Picture + " written to " + path)
		})
	})
}

// seqItem is a logged step with its graph node, or a run's end (run set).
type seqItem struct {
	step conform.StepRecord
	run  *conform.RunResult
	node string
}

// addSeq follows the current run on the sequence chart until a run fails,
// then keeps showing that run (UI goroutine).
func (tv *TestView) addSeq(items []seqItem) {
	if tv.seqPinned || len(items) == 0 {
		return
	}
	var end *conform.RunResult
	failNode := ""
	for _, it := range items {
		if it.run != nil {
			if it.run.Failure == nil {
				continue
			}
			if it.run.Run != tv.seqRun {
				// It failed before logging a step.
				tv.seqRun, tv.seqSteps, tv.seqNodes, tv.seqDropped = it.run.Run, nil, nil, 0
			}
			end, failNode = it.run, it.node
			tv.seqPinned = true
			break
		}
		if it.step.Run != tv.seqRun {
			tv.seqRun, tv.seqSteps, tv.seqNodes, tv.seqDropped = it.step.Run, nil, nil, 0
		}
		tv.seqSteps = append(tv.seqSteps, it.step)
		tv.seqNodes = append(tv.seqNodes, it.node)
		if n := len(tv.seqSteps) - 2*graph.MaxChartMessages; n > 0 {
			tv.seqSteps, tv.seqNodes = tv.seqSteps[n:], tv.seqNodes[n:]
			tv.seqDropped += n
		}
	}
	r := conform.RunResult{Run: tv.seqRun, Steps: tv.seqSteps, StepsDropped: tv.seqDropped, Verdict: "running…"}
	if end != nil {
		r.Verdict, r.Failure, r.Seed = end.Verdict, end.Failure, end.Seed
	}
	ch := graph.RunChart("run "+strconv.Itoa(tv.seqRun), r)
	// The rows are the last steps, then the failing event: each links to
	// its node of the test's graph.
	rows := len(ch.Messages)
	if end != nil && end.Failure.Event != nil {
		rows--
		ch.Messages[rows].State = failNode
	}
	off := len(tv.seqNodes) - rows
	for i := 0; i < rows; i++ {
		ch.Messages[i].State = tv.seqNodes[off+i]
	}
	tv.seq.SetChart(ch)
}
