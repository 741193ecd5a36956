// Package graphview is the graph's view of the central area: the state
// graph drawn and laid out (zoom, pan, tooltips, selection, marks) and the
// inspector beside it, which shows the selected state.
package graphview

import (
	"fmt"
	"image"
	"image/color"
	"math"
	"strings"
	"sync/atomic"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/modex/modex/graph"
	"github.com/modex/modex/ui/widgets"
)

// MaxImagePixels bounds the image drawn for the view (texture upload on the
// UI goroutine grows with it); MaxImageSide keeps within GL texture limits.
const (
	MaxImagePixels = 4_000_000
	MaxImageSide   = 8000
)

// LiveLimit is the largest graph drawn whole while it grows (a partial
// exploration, a running test's visited states); a test's larger graph
// shows the neighbourhood of its current state.
const LiveLimit = 150

// graphPad is the margin around a drawn graph, in Fyne units.
const graphPad = 12

// Colours of marks drawn over states.
var (
	MarkSelected = color.NRGBA{R: 30, G: 110, B: 230, A: 255}
	MarkPath     = color.NRGBA{R: 250, G: 160, B: 20, A: 255}
	MarkFound    = color.NRGBA{R: 40, G: 170, B: 80, A: 255}
	MarkCurrent  = color.NRGBA{R: 230, G: 40, B: 40, A: 255}
	MarkCompared = color.NRGBA{R: 150, G: 60, B: 200, A: 255}
)

// View shows a laid-out state graph: zoom (buttons, keys, ctrl+wheel),
// pan (drag, scroll), a tooltip with a state's variables or a transition's
// label under the mouse, and click to select a state. It lives inside a
// scroll container: use Container to place it.
type View struct {
	widget.BaseWidget

	doc    *graph.Doc
	lay    *graph.Layout
	img    image.Image
	zoom   float32
	scroll *container.Scroll
	frame  *fyne.Container // the scroll in a layout that fits again on resizing

	hover   string // tooltip text, "" for none
	hoverAt fyne.Position
	// hoverGen counts tooltips shown: one lingers widgets.TooltipLinger, then goes
	// unless the pointer moved meanwhile (Fyne tells no widget that the
	// pointer left the window, and a tooltip stayed on screen).
	hoverGen int
	selected int // Doc state index, -1 for none
	marks    map[int]color.NRGBA
	message  string
	// userZoom is set when the user zoomed by hand: new graphs then keep
	// the zoom instead of being fitted.
	userZoom bool
	// vp is the visible part of the graph drawn at screen resolution once
	// zoom and pan settle (see viewport.go); img, the whole graph at some
	// scale, shows around and under it meanwhile.
	vp viewport
	// imgScale is the scale img was drawn at (pixels per layout point).
	imgScale float64
	// view is the visible size and canvas scale, kept for other goroutines
	// to choose a drawing scale (see DrawScale).
	viewW, viewH, canvasScale atomic.Uint32
	userZoomF                 atomic.Uint32 // float32 bits of the zoom when userZoom

	// OnSelect is called with the Doc index of a state the user clicked.
	OnSelect func(state int)
	// OnCompare is called with the selected state and the state the user
	// Ctrl+clicked (Cmd on macOS), to compare them.
	OnCompare func(a, b int)
	// modifier holds the keys held at the last mouse press.
	modifier fyne.KeyModifier
}

// New returns an empty graph view.
func New() *View {
	g := &View{zoom: 1, selected: -1}
	g.ExtendBaseWidget(g)
	g.scroll = container.NewScroll(g)
	g.scroll.OnScrolled = func(fyne.Position) { g.scheduleViewport() }
	return g
}

// Container returns the view in its scroll container, in a frame that fits
// the graph again when its room changes (unless the user zoomed by hand).
func (g *View) Container() fyne.CanvasObject {
	if g.frame == nil {
		g.frame = container.New(&refitLayout{g: g}, g.scroll)
	}
	return g.frame
}

// refitLayout gives the scroll all the room and fits the graph again when
// that room changes (the window resized, a status line wrapped, a panel
// moved) while the zoom is the fitted one: a fitted graph stays whole.
type refitLayout struct {
	g    *View
	last fyne.Size
}

func (l *refitLayout) MinSize(objs []fyne.CanvasObject) fyne.Size { return objs[0].MinSize() }

func (l *refitLayout) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	objs[0].Move(fyne.NewPos(0, 0))
	objs[0].Resize(size)
	if size == l.last {
		return
	}
	resized := l.last.Width > 0
	l.last = size
	if g := l.g; resized && g.lay != nil {
		if !g.userZoom {
			g.Fit()
		} else {
			g.scheduleViewport() // the newly visible part drawn crisp
		}
	}
}

// SetGraph shows a laid-out graph; img is the layout drawn at some scale.
func (g *View) SetGraph(doc *graph.Doc, lay *graph.Layout, img image.Image, scale float64) {
	if doc != g.doc || g.selected >= len(doc.States) {
		// Another graph: its state of the same index is another state.
		// The caller selects by identity (Select) what it carries over.
		g.selected = -1
	}
	g.doc, g.lay, g.img, g.message = doc, lay, img, ""
	g.imgScale = scale
	g.hover = ""
	g.Refresh()
	g.scroll.Refresh()
	g.scheduleViewport()
}

// DrawScale returns the scale to draw a new layout at so that it needs no
// rescaling once shown: the fit zoom (or the user's zoom) times the canvas
// scale, within the image caps. Safe from any goroutine.
func (g *View) DrawScale(l *graph.Layout) float64 {
	w, h := float64(g.viewW.Load()), float64(g.viewH.Load())
	cs := float64(math.Float32frombits(g.canvasScale.Load()))
	if cs == 0 {
		cs = 1
	}
	zoom := 2.0
	if z := g.userZoomF.Load(); z != 0 {
		zoom = float64(math.Float32frombits(z))
	} else if w > 10 && h > 10 && l.Width > 0 && l.Height > 0 {
		zoom = fitZoom(w, h, l)
	}
	s := zoom * cs
	if px := l.Width * l.Height * s * s; px > MaxImagePixels {
		s *= math.Sqrt(MaxImagePixels / px)
	}
	if side := max(l.Width, l.Height) * s; side > MaxImageSide {
		s *= MaxImageSide / side
	}
	return s
}

// SetMessage shows a message instead of a graph.
func (g *View) SetMessage(msg string) {
	g.doc, g.lay, g.img, g.message, g.hover = nil, nil, nil, msg, ""
	g.vp = viewport{gen: g.vp.gen + 1}
	g.Refresh()
	g.scroll.Refresh()
}

// FitNext forgets a zoom set by hand: the next graph shown is fitted (a
// graph of another kind, or another configuration's, starts fitted).
func (g *View) FitNext() {
	g.userZoom = false
	g.userZoomF.Store(0)
}

// Reset forgets the graph, the selection, the marks and a zoom set by hand:
// the next graph shown is fitted (a new project starts here).
func (g *View) Reset(msg string) {
	g.userZoom = false
	g.userZoomF.Store(0)
	g.selected, g.marks = -1, nil
	g.SetMessage(msg)
}

// Doc returns the document shown, or nil.
func (g *View) Doc() *graph.Doc { return g.doc }

// Tooltip returns the tooltip text shown now ("" when none).
func (g *View) Tooltip() string { return g.hover }

// Zoom returns the zoom factor (1 = one Fyne unit per layout point).
func (g *View) Zoom() float32 { return g.zoom }

// SetZoom sets the zoom factor, keeping it within 0.05 and 8.
func (g *View) SetZoom(z float32) {
	g.zoom = max(0.05, min(8, z))
	if g.userZoom {
		g.userZoomF.Store(math.Float32bits(g.zoom))
	} else {
		g.userZoomF.Store(0)
	}
	g.hover = ""
	g.Refresh()
	g.scroll.Refresh()
	g.scheduleViewport()
}

// ZoomIn and ZoomOut change the zoom by a step; Fit fits the graph into the
// visible area.
func (g *View) ZoomIn() { g.zoomAround(g.zoom*1.25, g.anchor()) }

// ZoomOut zooms out by a step.
func (g *View) ZoomOut() { g.zoomAround(g.zoom/1.25, g.anchor()) }

// anchor is the point keys and buttons zoom around: the selected state when
// it is on screen, else the middle of the view (in view coordinates).
func (g *View) anchor() fyne.Position {
	view := g.scroll.Size()
	mid := fyne.NewPos(view.Width/2, view.Height/2)
	if g.lay == nil || g.selected < 0 {
		return mid
	}
	for _, n := range g.lay.Nodes {
		if n.State == g.selected {
			p := g.toScreen(n.Center).Subtract(g.scroll.Offset)
			if p.X >= 0 && p.Y >= 0 && p.X <= view.Width && p.Y <= view.Height {
				return p
			}
		}
	}
	return mid
}

// zoomAround zooms to z keeping the layout point under the view position at
// (view coordinates) where it is.
func (g *View) zoomAround(z float32, at fyne.Position) {
	g.userZoom = true
	l := g.toLayout(g.scroll.Offset.Add(at))
	g.SetZoom(z)
	g.setOffset(g.toScreen(l).Subtract(at))
}

// UserZoomed reports whether the user set the zoom by hand since the last Fit.
func (g *View) UserZoomed() bool { return g.userZoom }

// Fit fits the graph into the visible area.
func (g *View) Fit() {
	g.userZoom = false
	if g.lay == nil || g.lay.Width == 0 || g.lay.Height == 0 {
		return
	}
	s := g.scroll.Size()
	if s.Width < 10 || s.Height < 10 {
		return
	}
	g.SetZoom(float32(fitZoom(float64(s.Width), float64(s.Height), g.lay)))
}

// fitZoom is the zoom that fits a layout in a w × h view: the whole graph,
// at most twice its size (Fit always shows all of it; labels too small to
// read at that zoom are the overview's and Zoom In's business).
func fitZoom(w, h float64, l *graph.Layout) float64 {
	vw, vh := w-2*graphPad, h-2*graphPad
	return max(0.05, min(vw/l.Width, vh/l.Height, 2))
}

// Select marks a state as selected and scrolls it into view.
func (g *View) Select(state int) {
	g.selected = state
	g.Refresh()
	if n := g.node(state); n != nil {
		c := g.toScreen(n.Center)
		s := g.scroll.Size()
		off := g.scroll.Offset
		if c.X < off.X || c.X > off.X+s.Width || c.Y < off.Y || c.Y > off.Y+s.Height {
			g.scroll.Offset = fyne.NewPos(max(0, c.X-s.Width/2), max(0, c.Y-s.Height/2))
			g.scroll.Refresh()
		}
	}
}

// SetSelected marks a state as selected without moving the view (-1:
// none).
func (g *View) SetSelected(state int) {
	if g.selected != state {
		g.selected = state
		g.Refresh()
	}
}

// Selected returns the selected state's Doc index, or -1.
func (g *View) Selected() int { return g.selected }

// Marks are the colours of the marked states, by Doc index.
func (g *View) Marks() map[int]color.NRGBA { return g.marks }

// Message is the message shown instead of a graph ("" while a graph is
// shown).
func (g *View) Message() string { return g.message }

// Layout is the layout of the graph shown (nil for none).
func (g *View) Layout() *graph.Layout { return g.lay }

// ToScreen is where the layout's point p is drawn in the view (in the
// coordinates of the view, which scrolls).
func (g *View) ToScreen(p graph.Point) fyne.Position { return g.toScreen(p) }

// SetMarks colours states (by Doc index); nil clears the marks.
func (g *View) SetMarks(m map[int]color.NRGBA) {
	g.marks = m
	g.Refresh()
}

func (g *View) node(state int) *graph.NodeShape {
	if g.lay == nil {
		return nil
	}
	for i := range g.lay.Nodes {
		if g.lay.Nodes[i].State == state {
			return &g.lay.Nodes[i]
		}
	}
	return nil
}

func (g *View) toScreen(p graph.Point) fyne.Position {
	return fyne.NewPos(g.left()+float32(p.X)*g.zoom, graphPad+float32(p.Y)*g.zoom)
}

func (g *View) toLayout(p fyne.Position) graph.Point {
	return graph.Point{X: float64((p.X - g.left()) / g.zoom), Y: float64((p.Y - graphPad) / g.zoom)}
}

// left is where the drawn graph starts across the view: centred when it is
// narrower than the view, else after the margin.
func (g *View) left() float32 {
	if g.lay == nil {
		return graphPad
	}
	return graphPad + max(0, (g.scroll.Size().Width-(float32(g.lay.Width)*g.zoom+2*graphPad))/2)
}

// MinSize is the drawn graph at the current zoom.
func (g *View) MinSize() fyne.Size {
	if g.lay == nil {
		return fyne.NewSize(100, 100)
	}
	return fyne.NewSize(float32(g.lay.Width)*g.zoom+2*graphPad, float32(g.lay.Height)*g.zoom+2*graphPad)
}

// MouseIn is part of desktop.Hoverable.
func (g *View) MouseIn(e *desktop.MouseEvent) { g.MouseMoved(e) }

// MouseMoved shows the tooltip of the state or transition under the mouse.
func (g *View) MouseMoved(e *desktop.MouseEvent) {
	text := g.tooltipAt(e.Position)
	if text == g.hover && (text == "" || e.Position == g.hoverAt) {
		return
	}
	g.hover, g.hoverAt = text, e.Position
	g.hoverGen++
	if text != "" {
		gen := g.hoverGen
		time.AfterFunc(widgets.TooltipLinger, func() {
			widgets.Post(func() {
				if g.hoverGen == gen && g.hover != "" {
					g.hover = ""
					g.Refresh()
				}
			})
		})
	}
	g.Refresh()
}

// MouseOut hides the tooltip.
func (g *View) MouseOut() {
	if g.hover != "" {
		g.hover = ""
		g.Refresh()
	}
}

func (g *View) tooltipAt(p fyne.Position) string {
	if g.lay == nil || g.doc == nil {
		return ""
	}
	lp := g.toLayout(p)
	if i := g.lay.NodeAt(lp); i >= 0 {
		return StateTooltip(&g.doc.States[g.lay.Nodes[i].State])
	}
	if i := g.lay.EdgeAt(lp, 6/float64(g.zoom)); i >= 0 {
		return arcTooltip(g.doc, &g.lay.Edges[i])
	}
	return ""
}

// arcTooltip lists an arc's transitions: its end states, then each label
// with its kind (at most 30 lines).
func arcTooltip(d *graph.Doc, e *graph.EdgeShape) string {
	group := e.Group
	if len(group) == 0 {
		group = []int{e.Trans}
	}
	t := d.Transitions[group[0]]
	var b strings.Builder
	fmt.Fprintf(&b, "%s → %s", t.From, t.To)
	if len(group) > 1 {
		fmt.Fprintf(&b, "  (%d transitions)", len(group))
	}
	for n, ti := range group {
		if n == 30 {
			fmt.Fprintf(&b, "\n… %d more", len(group)-n)
			break
		}
		t := d.Transitions[ti]
		label := t.Label
		if t.Kind == "timeout" {
			label = "timeout"
		}
		fmt.Fprintf(&b, "\n%s  (%s)", label, t.Kind)
	}
	return b.String()
}

// Tapped selects the state under the mouse.
func (g *View) Tapped(e *fyne.PointEvent) {
	if g.lay == nil {
		return
	}
	i := g.lay.NodeAt(g.toLayout(e.Position))
	if i < 0 {
		return
	}
	if g.modifier&fyne.KeyModifierShortcutDefault != 0 && g.selected >= 0 && g.OnCompare != nil {
		g.OnCompare(g.selected, g.lay.Nodes[i].State) // the selection stays
		return
	}
	g.selected = g.lay.Nodes[i].State
	g.Refresh()
	if g.OnSelect != nil {
		g.OnSelect(g.selected)
	}
}

// Dragged pans the view.
func (g *View) Dragged(e *fyne.DragEvent) {
	off := g.scroll.Offset.Subtract(fyne.NewPos(e.Dragged.DX, e.Dragged.DY))
	g.setOffset(off)
}

// DragEnd is part of fyne.Draggable.
func (g *View) DragEnd() {}

// Scrolled zooms with ctrl held, scrolls otherwise.
func (g *View) Scrolled(e *fyne.ScrollEvent) {
	if ctrlHeld() {
		// Around the pointer: the point under it stays under it.
		at := e.Position.Subtract(g.scroll.Offset)
		if e.Scrolled.DY > 0 {
			g.zoomAround(g.zoom*1.25, at)
		} else if e.Scrolled.DY < 0 {
			g.zoomAround(g.zoom/1.25, at)
		}
		return
	}
	g.setOffset(g.scroll.Offset.Subtract(fyne.NewPos(e.Scrolled.DX, e.Scrolled.DY)))
}

func (g *View) setOffset(off fyne.Position) {
	content, view := g.MinSize(), g.scroll.Size()
	off.X = max(0, min(off.X, content.Width-view.Width))
	off.Y = max(0, min(off.Y, content.Height-view.Height))
	g.scroll.Offset = off
	g.scroll.Refresh()
	g.scheduleViewport()
}

func ctrlHeld() bool {
	app := fyne.CurrentApp()
	if app == nil {
		return false
	}
	if d, ok := app.Driver().(desktop.Driver); ok {
		m := d.CurrentKeyModifiers()
		return m&fyne.KeyModifierControl != 0 || m&fyne.KeyModifierSuper != 0
	}
	return false
}

// CreateRenderer is part of fyne.Widget.
func (g *View) CreateRenderer() fyne.WidgetRenderer {
	r := &graphRenderer{g: g, image: canvas.NewImageFromImage(nil)}
	r.image.FillMode = canvas.ImageFillStretch
	// Fastest: GL scales the texture. Smooth would rescale the whole image
	// on the CPU, on the UI goroutine, at every zoom (hundreds of ms).
	r.image.ScaleMode = canvas.ImageScaleFastest
	r.msg = widget.NewLabel("")
	r.msg.Wrapping = fyne.TextWrapWord
	r.tipBG = canvas.NewRectangle(color.NRGBA{R: 255, G: 252, B: 220, A: 245})
	r.tipBG.StrokeColor = color.NRGBA{R: 120, G: 110, B: 60, A: 255}
	r.tipBG.StrokeWidth = 1
	r.tipBG.CornerRadius = 4
	r.bg = canvas.NewRectangle(color.White)
	r.vp = canvas.NewImageFromImage(nil)
	r.vp.FillMode = canvas.ImageFillStretch
	r.vp.ScaleMode = canvas.ImageScaleFastest
	return r
}

type graphRenderer struct {
	g     *View
	bg    *canvas.Rectangle
	image *canvas.Image
	vp    *canvas.Image
	msg   *widget.Label
	marks []*canvas.Rectangle
	tipBG *canvas.Rectangle
	tip   []*canvas.Text
	objs  []fyne.CanvasObject
}

func (r *graphRenderer) Destroy() {}

func (r *graphRenderer) MinSize() fyne.Size { return r.g.MinSize() }

func (r *graphRenderer) Objects() []fyne.CanvasObject { return r.objs }

func (r *graphRenderer) markRect(n *graph.NodeShape, c color.NRGBA, i int) *canvas.Rectangle {
	for len(r.marks) <= i {
		r.marks = append(r.marks, canvas.NewRectangle(color.Transparent))
	}
	m := r.marks[i]
	z := r.g.zoom
	w, h := float32(n.W)*z+8, float32(n.H)*z+8
	p := r.g.toScreen(n.Center)
	m.FillColor = color.NRGBA{R: c.R, G: c.G, B: c.B, A: 50}
	m.StrokeColor = c
	m.StrokeWidth = 2.5
	m.CornerRadius = min(w, h) / 2
	m.Resize(fyne.NewSize(w, h))
	m.Move(fyne.NewPos(p.X-w/2, p.Y-h/2))
	return m
}

func (r *graphRenderer) Layout(size fyne.Size) {
	g := r.g
	vs := g.scroll.Size()
	g.viewW.Store(uint32(vs.Width))
	g.viewH.Store(uint32(vs.Height))
	if c := fyne.CurrentApp(); c != nil {
		if cv := c.Driver().CanvasForObject(g); cv != nil {
			g.canvasScale.Store(math.Float32bits(cv.Scale()))
		}
	}
	r.objs = r.objs[:0]
	if g.lay == nil {
		r.msg.SetText(g.message)
		r.msg.Resize(fyne.NewSize(max(size.Width, 300)-20, r.msg.MinSize().Height))
		r.msg.Move(fyne.NewPos(10, 10))
		r.objs = append(r.objs, r.msg)
		return
	}
	r.bg.Resize(size)
	r.objs = append(r.objs, r.bg)
	if r.image.Image != g.img {
		r.image.Image = g.img
		r.image.Refresh()
	}
	r.image.Resize(fyne.NewSize(float32(g.lay.Width)*g.zoom, float32(g.lay.Height)*g.zoom))
	r.image.Move(fyne.NewPos(g.left(), graphPad))
	r.objs = append(r.objs, r.image)
	if vp := &g.vp; vp.img != nil && vp.lay == g.lay {
		if r.vp.Image != vp.img {
			r.vp.Image = vp.img
			r.vp.Refresh()
		}
		r.vp.Resize(fyne.NewSize(float32(vp.w)*g.zoom, float32(vp.h)*g.zoom))
		r.vp.Move(g.toScreen(vp.origin))
		r.objs = append(r.objs, r.vp)
	}
	if vs.Width != g.vp.viewW || vs.Height != g.vp.viewH {
		g.vp.viewW, g.vp.viewH = vs.Width, vs.Height
		g.scheduleViewport()
	}
	k := 0
	for i := range g.lay.Nodes {
		n := &g.lay.Nodes[i]
		if n.State < 0 {
			continue
		}
		c, ok := g.marks[n.State]
		if n.State == g.selected {
			c, ok = MarkSelected, true
		}
		if ok {
			r.objs = append(r.objs, r.markRect(n, c, k))
			k++
		}
	}
	if g.hover != "" {
		// Lines wider than the view are wrapped, so that the tooltip fits
		// (flipped left or up below when it would cross the edge).
		lines := wrapToWidth(strings.Split(g.hover, "\n"), g.scroll.Size().Width-40, theme.TextSize()*0.9)
		for len(r.tip) < len(lines) {
			t := canvas.NewText("", color.Black)
			t.TextStyle = fyne.TextStyle{Monospace: true}
			t.TextSize = theme.TextSize() * 0.9
			r.tip = append(r.tip, t)
		}
		var w, h float32
		for i, l := range lines {
			t := r.tip[i]
			t.Text = l
			t.Color = color.Black
			t.Refresh()
			ms := t.MinSize()
			w, h = max(w, ms.Width), h+ms.Height
		}
		at := g.hoverAt.Add(fyne.NewPos(16, 16))
		// Keep the tooltip inside the visible part of the view.
		view := g.scroll.Size()
		off := g.scroll.Offset
		if at.X+w+12 > off.X+view.Width {
			at.X = max(off.X, g.hoverAt.X-w-16)
		}
		if at.Y+h+12 > off.Y+view.Height {
			at.Y = max(off.Y, g.hoverAt.Y-h-16)
		}
		r.tipBG.Resize(fyne.NewSize(w+12, h+8))
		r.tipBG.Move(at)
		r.objs = append(r.objs, r.tipBG)
		y := at.Y + 4
		for i := range lines {
			t := r.tip[i]
			t.Move(fyne.NewPos(at.X+6, y))
			y += t.MinSize().Height
			r.objs = append(r.objs, t)
		}
	}
}

func (r *graphRenderer) Refresh() {
	r.Layout(r.g.Size())
	canvas.Refresh(r.g)
}

// wrapToWidth breaks lines longer than width allows in monospace text of
// the given size.
func wrapToWidth(lines []string, width, size float32) []string {
	char := fyne.MeasureText("M", size, fyne.TextStyle{Monospace: true}).Width
	if char <= 0 || width <= 0 {
		return lines
	}
	n := max(int(width/char), 20)
	var out []string
	for _, l := range lines {
		r := []rune(l)
		for len(r) > n {
			// Between tokens: after the last space or comma that leaves
			// the line at least half full ({Client1, Client2} breaks
			// after the comma, not inside a name); else where it must.
			cut := n
			for i := n; i > n/2; i-- {
				if c := r[i-1]; c == ' ' || c == ',' || c == ';' {
					cut = i
					break
				}
			}
			out = append(out, strings.TrimRight(string(r[:cut]), " "))
			rest := r[cut:]
			for len(rest) > 0 && rest[0] == ' ' {
				rest = rest[1:]
			}
			r = append([]rune("  "), rest...)
		}
		out = append(out, string(r))
	}
	return out
}

// MouseDown notes the keys held, for Tapped (Ctrl+click compares).
func (g *View) MouseDown(e *desktop.MouseEvent) { g.modifier = e.Modifier }

// MouseUp does nothing (see MouseDown).
func (g *View) MouseUp(*desktop.MouseEvent) {}
