// Package timeline draws a checked concurrent history (graph.Timeline): the
// processes as lanes, the operations as bars, the linearization as marks.
package timeline

import (
	"image/color"
	"io"
	"sort"
	"strconv"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/modex/modex/graph"
	"github.com/modex/modex/ui/widgets"
)

// View shows a checked concurrent history (graph.Timeline): the
// processes as lanes, operations as bars, the linearization as numbered
// marks. Pointing at a bar says what it is (OnHover); clicking one calls
// OnBar.
type View struct {
	widget.BaseWidget
	tl     *graph.Timeline
	box    *fyne.Container
	scroll *container.Scroll
	header *widget.Label   // title, note, failure (set by timelineBox)
	win    fyne.Window     // the timeline shown large (Window…), closed when it changes
	lanes  *fyne.Container // the lane names
	hover  int
	// OnHover is called with the bar under the pointer (nil: none).
	OnHover func(b *graph.TimelineBar)
	// OnBar is called with a clicked bar.
	OnBar func(b *graph.TimelineBar)
}

// New makes an empty timeline view.
func New() *View {
	v := &View{box: container.NewWithoutLayout(), hover: -1}
	v.ExtendBaseWidget(v)
	return v
}

// CreateRenderer draws the timeline's objects.
func (v *View) CreateRenderer() fyne.WidgetRenderer {
	return widget.NewSimpleRenderer(v.box)
}

// MinSize is the timeline's size (the scroll around it scrolls).
func (v *View) MinSize() fyne.Size {
	if v.tl == nil {
		return fyne.NewSize(10, 10)
	}
	g := v.tl.Geometry()
	return fyne.NewSize(float32(g.Width-timelineLeft), float32(g.Height-timelineHead))
}

// At is the point of the view where the timeline's SVG draws (x, y).
func (v *View) At(x, y float64) fyne.Position {
	return fyne.NewPos(float32(x-timelineLeft), float32(y-timelineHead))
}

// Timeline is the timeline shown (nil for none).
func (v *View) Timeline() *graph.Timeline { return v.tl }

// SetTimeline shows a timeline (nil: none), scrolled to the failure.
func (v *View) SetTimeline(tl *graph.Timeline) {
	v.tl, v.hover = tl, -1
	if v.win != nil {
		v.win.Close() // it showed the timeline replaced
		v.win = nil
	}
	v.box.Objects = nil
	if tl != nil {
		v.box.Objects = v.draw()
	}
	v.box.Refresh()
	v.Refresh()
	if v.header != nil {
		v.header.SetText(timelineHeader(tl))
	}
	if v.lanes != nil {
		v.lanes.Objects = nil
		if tl != nil {
			v.lanes.Objects = laneColumn(tl)
		}
		v.lanes.Refresh()
	}
	if v.scroll != nil {
		v.scroll.Refresh()
		if tl != nil && tl.Cut >= 0 {
			x := float32(tl.X(tl.Cut)-timelineLeft) - v.scroll.Size().Width*2/3
			v.scroll.Offset = fyne.NewPos(max(0, x), 0)
			v.scroll.Refresh()
		}
	}
}

// timelineHeader is the text above a timeline: title, verdict, what is
// drawn, the failure.
func timelineHeader(tl *graph.Timeline) string {
	if tl == nil {
		return ""
	}
	s := tl.Title + " — " + tl.Verdict + ". " + tl.Note
	if tl.Failure != "" {
		s += "\n" + tl.Failure
	}
	return s
}

// timelineBox is the view with the lane names beside, which stay while
// the bars scroll, bottom below, and (with header) the title, what is drawn
// and the failure above.
func timelineBox(v *View, bottom fyne.CanvasObject, header bool) fyne.CanvasObject {
	v.scroll = container.NewScroll(v)
	v.scroll.SetMinSize(fyne.NewSize(120, 120))
	var top fyne.CanvasObject
	if header {
		v.header = widget.NewLabel("")
		v.header.Wrapping = fyne.TextWrapWord
		top = v.header
	}
	v.lanes = container.NewWithoutLayout()
	laneBox := container.New(&fixedWidth{w: timelineLeft}, v.lanes)
	laneScroll := container.NewVScroll(laneBox)
	v.scroll.OnScrolled = func(p fyne.Position) {
		laneScroll.Offset = fyne.NewPos(0, p.Y)
		laneScroll.Refresh()
	}
	return container.NewBorder(top, bottom, laneScroll, nil, v.scroll)
}

// fixedWidth lays out its objects as they are, in a column of width w as
// tall as they reach.
type fixedWidth struct{ w float32 }

// Layout leaves the objects where they are.
func (f *fixedWidth) Layout([]fyne.CanvasObject, fyne.Size) {}

// MinSize is w wide and as tall as the lowest object.
func (f *fixedWidth) MinSize(objs []fyne.CanvasObject) fyne.Size {
	h := float32(0)
	for _, o := range objs {
		if c, ok := o.(*fyne.Container); ok {
			for _, x := range c.Objects {
				h = max(h, x.Position().Y+x.Size().Height)
			}
		}
	}
	return fyne.NewSize(f.w, h+12)
}

// draw builds the objects: the same picture as graph.Timeline.WriteSVG.
func (v *View) draw() []fyne.CanvasObject {
	tl := v.tl
	g := tl.Geometry()
	ink, grey, red := widgets.RGB("#222222"), widgets.RGB("#9e9e9e"), widgets.RGB("#c62828")
	bg := canvas.NewRectangle(color.White)
	bg.Resize(fyne.NewSize(float32(g.Width), float32(g.Height)))
	objs := []fyne.CanvasObject{bg}
	bh := tl.BarHeight()
	for i := range tl.Lanes {
		y := tl.Y(i) + bh/2
		objs = append(objs, widgets.Line(tl.X(0)-12, y, g.Width-12, y, widgets.RGB("#eeeeee"), 1))
	}
	if tl.Cut >= 0 {
		x := tl.X(tl.Cut)
		objs = append(objs, widgets.Line(x, tl.Y(0)-6, x, g.Height-12, red, 1))
	}
	for _, b := range tl.Bars {
		fill, stroke := graph.BarColors(b.State)
		x1, x2, y := barSpan(tl, &b)
		if b.Unknown && !b.Open {
			objs = append(objs, widgets.Line(x2, y+bh/2, g.Width-12, y+bh/2, grey, 1))
		}
		r := canvas.NewRectangle(widgets.RGB(fill))
		r.StrokeColor, r.StrokeWidth, r.CornerRadius = widgets.RGB(stroke), 1, 4
		r.Move(fyne.NewPos(float32(x1), float32(y)))
		r.Resize(fyne.NewSize(float32(x2-x1), float32(bh)))
		objs = append(objs, r)
		if x2-x1 > 24 {
			objs = append(objs, widgets.Text(graph.FitLabel(b.Label, (x2-x1-6)*7/6), x1+3, y+bh-4, ink, 10, false, false))
		}
	}
	return shift(append(objs, v.marks()...), timelineLeft, timelineHead)
}

// timelineHead and timelineLeft are the height of the SVG's header
// (title, note, failure) and the width of its lane names: the view shows
// them beside its scroll instead, where they stay.
const (
	timelineHead = 64.0
	timelineLeft = 84.0
)

// shift moves objects left by dx and up by dy (a line by its ends), but
// the background.
func shift(objs []fyne.CanvasObject, dx, dy float64) []fyne.CanvasObject {
	for _, o := range objs {
		if l, ok := o.(*canvas.Line); ok {
			l.Position1 = l.Position1.SubtractXY(float32(dx), float32(dy))
			l.Position2 = l.Position2.SubtractXY(float32(dx), float32(dy))
			continue
		}
		if _, bg := o.(*canvas.Rectangle); bg && o.Position().IsZero() {
			continue
		}
		o.Move(o.Position().SubtractXY(float32(dx), float32(dy)))
	}
	return objs
}

// laneColumn draws the processes' names, level with their lanes: the
// column beside the scroll, which stays when the bars scroll sideways.
func laneColumn(tl *graph.Timeline) []fyne.CanvasObject {
	var objs []fyne.CanvasObject
	for i, name := range tl.Lanes {
		y := tl.Y(i) + tl.BarHeight()/2
		objs = append(objs, widgets.Text("process "+graph.FitLabel(name, 40), 8, y+5, theme.Color(theme.ColorNameForeground), 11, false, false))
	}
	return shift(objs, 0, timelineHead)
}

// barSpan is where a bar goes: its left and right x and its top.
func barSpan(tl *graph.Timeline, b *graph.TimelineBar) (x1, x2, y float64) {
	return tl.X(b.Start) - 10, tl.X(b.End) + 10, tl.Y(b.Lane)
}

// marks draws the linearization: dots joined in order, numbered.
func (v *View) marks() []fyne.CanvasObject {
	tl := v.tl
	var pts []graph.TimelineBar
	for _, b := range tl.Bars {
		if b.Order > 0 {
			pts = append(pts, b)
		}
	}
	sort.Slice(pts, func(i, j int) bool { return pts[i].Order < pts[j].Order })
	blue := widgets.RGB("#1f5fa8")
	var objs []fyne.CanvasObject
	bh := tl.BarHeight()
	for k, b := range pts {
		x, y := tl.X(b.Mark), tl.Y(b.Lane)+bh
		if k > 0 && pts[k-1].Group == b.Group { // joined within a key
			p := pts[k-1]
			objs = append(objs, widgets.Line(tl.X(p.Mark), tl.Y(p.Lane)+bh, x, y, color.NRGBA{R: 0x1f, G: 0x5f, B: 0xa8, A: 0x80}, 1))
		}
		dot := canvas.NewCircle(blue)
		dot.Move(fyne.NewPos(float32(x-3), float32(y-3)))
		dot.Resize(fyne.NewSize(6, 6))
		objs = append(objs, dot, widgets.Text(strconv.Itoa(b.Order), x+4, y+10, blue, 9, false, false))
	}
	return objs
}

// BarAt is the bar at a point, -1 for none.
func (v *View) BarAt(p fyne.Position) int {
	if v.tl == nil {
		return -1
	}
	p = p.AddXY(float32(timelineLeft), float32(timelineHead))
	for i := range v.tl.Bars {
		b := &v.tl.Bars[i]
		x1, x2, y := barSpan(v.tl, b)
		if float64(p.X) >= x1 && float64(p.X) <= x2 && float64(p.Y) >= y && float64(p.Y) <= y+v.tl.BarHeight() {
			return i
		}
	}
	return -1
}

// Tapped calls OnBar with the bar clicked.
func (v *View) Tapped(e *fyne.PointEvent) {
	if i := v.BarAt(e.Position); i >= 0 && v.OnBar != nil {
		v.OnBar(&v.tl.Bars[i])
	}
}

// MouseIn is part of desktop.Hoverable.
func (v *View) MouseIn(e *desktop.MouseEvent) { v.MouseMoved(e) }

// MouseMoved tells OnHover the bar under the pointer.
func (v *View) MouseMoved(e *desktop.MouseEvent) {
	i := v.BarAt(e.Position)
	if i == v.hover {
		return
	}
	v.hover = i
	if v.OnHover != nil {
		if i < 0 {
			v.OnHover(nil)
		} else {
			v.OnHover(&v.tl.Bars[i])
		}
	}
}

// MouseOut is part of desktop.Hoverable.
func (v *View) MouseOut() {
	v.hover = -1
	if v.OnHover != nil {
		v.OnHover(nil)
	}
}

// NewPanel is a timeline in a scroll container with a line that says what
// the pointer is on, a Window… button that shows it large in a new window
// of app (none when app is nil) and an Export SVG button that saves it
// with save.
func NewPanel(app fyne.App, save widgets.SaveSVG, hint string) (*View, fyne.CanvasObject) {
	v := New()
	h := widget.NewLabel(hint)
	h.Wrapping = fyne.TextWrapWord
	v.OnHover = func(b *graph.TimelineBar) {
		if b == nil {
			h.SetText(hint)
		} else {
			h.SetText(b.Tip)
		}
	}
	export := widgets.ExportSVGButton(save, "the timeline", "Timeline", "timeline.svg", func() func(io.Writer) error {
		if tl := v.Timeline(); tl != nil {
			return tl.WriteSVG
		}
		return nil
	})
	window := widgets.NewButton("Window…", func() {
		if tl := v.Timeline(); tl != nil && app != nil {
			if v.win != nil {
				v.win.Close()
			}
			v.win = OpenWindow(app, tl)
		}
	})
	return v, timelineBox(v, container.NewBorder(nil, nil, nil, container.NewHBox(window, export), h), false)
}

// OpenWindow shows a timeline in a window of its own, as large as
// a long history needs.
func OpenWindow(a fyne.App, tl *graph.Timeline) fyne.Window {
	w := a.NewWindow("Timeline — " + tl.Title)
	v := New()
	const hint = "Point at a bar: what it is."
	tip := widget.NewLabel(hint)
	tip.Wrapping = fyne.TextWrapWord
	v.OnHover = func(b *graph.TimelineBar) {
		if b != nil {
			tip.SetText(b.Tip)
		} else {
			tip.SetText(hint)
		}
	}
	w.SetContent(timelineBox(v, tip, true))
	w.Resize(fyne.NewSize(1200, 640))
	w.Show()
	v.SetTimeline(tl)
	return w
}
