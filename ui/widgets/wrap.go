package widgets

import (
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// WrapRow lays objects out in a row that wraps onto further rows when its
// width runs out. Unlike Fyne's row-wrap layout, its minimum width is its
// widest object's, whatever width it was last given, so that a panel
// holding it can be made narrower (its height grows instead).
func WrapRow(objs ...fyne.CanvasObject) *fyne.Container {
	return container.New(&wrapLayout{}, objs...)
}

// OnWrap makes a WrapRow call f (on the UI goroutine) when a new width
// makes its rows taller than the room it was given: f refreshes the
// container holding it, which then gives the rows their room.
func OnWrap(row *fyne.Container, f func()) {
	row.Layout.(*wrapLayout).onHeight = f
}

type wrapLayout struct {
	width float32 // the width last laid out, 0 before
	// height is the height the rows took when last laid out; when a new
	// width changes it, onHeight (when set) lets the parent lay out again
	// (it asked for the MinSize of the old width).
	height   float32
	onHeight func()
}

// rows places the objects in width w and returns their positions and the
// height they take.
func (l *wrapLayout) rows(objs []fyne.CanvasObject, w float32) ([]fyne.Position, float32) {
	pad := theme.Padding()
	pos := make([]fyne.Position, len(objs))
	x, y, rowH := float32(0), float32(0), float32(0)
	for i, o := range objs {
		if !o.Visible() {
			continue
		}
		s := o.MinSize()
		if x > 0 && x+s.Width > w {
			x, y, rowH = 0, y+rowH+pad, 0
		}
		pos[i] = fyne.NewPos(x, y)
		x += s.Width + pad
		rowH = max(rowH, s.Height)
	}
	return pos, y + rowH
}

func (l *wrapLayout) MinSize(objs []fyne.CanvasObject) fyne.Size {
	var w float32
	for _, o := range objs {
		if o.Visible() {
			w = max(w, o.MinSize().Width)
		}
	}
	width := l.width
	if width < w {
		width = 1 << 20 // not laid out yet: one row
	}
	_, h := l.rows(objs, width)
	return fyne.NewSize(w, h)
}

func (l *wrapLayout) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	l.width = size.Width
	pos, h := l.rows(objs, size.Width)
	for i, o := range objs {
		o.Move(pos[i])
		o.Resize(o.MinSize())
	}
	if h != l.height {
		l.height = h
		if l.onHeight != nil && h > size.Height {
			Post(l.onHeight)
		}
	}
}

// HeadAbove puts head (text that wraps: a verdict, a summary) above body,
// head as tall as its text needs at the width it is given, body the rest.
// A Border would size head by its minimum at its previous width: narrower,
// the wrapped text's last lines were cut.
func HeadAbove(head, body fyne.CanvasObject) *fyne.Container {
	return container.New(headLayout{}, head, body)
}

type headLayout struct{}

func (headLayout) MinSize(objs []fyne.CanvasObject) fyne.Size {
	h, b := objs[0].MinSize(), objs[1].MinSize()
	if w := objs[0].Size().Width; w > 0 { // at the width it was last given
		h.Height = max(h.Height, textHeight(objs[0], w))
	}
	return fyne.NewSize(max(h.Width, b.Width), h.Height+theme.Padding()+b.Height)
}

func (headLayout) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	head, body := objs[0], objs[1]
	head.Resize(fyne.NewSize(size.Width, head.MinSize().Height)) // its minimum height at this width
	h := max(head.MinSize().Height, textHeight(head, size.Width))
	if !head.Visible() {
		h = -theme.Padding()
	}
	head.Move(fyne.NewPos(0, 0))
	head.Resize(fyne.NewSize(size.Width, max(h, 0)))
	body.Move(fyne.NewPos(0, h+theme.Padding()))
	body.Resize(fyne.NewSize(size.Width, max(0, size.Height-h-theme.Padding())))
}

// OneLine is a label kept to one line, cut with an ellipsis: the status
// line, whose height must not change with what it says (a verdict of two
// lines took the room of the views above it).
type OneLine struct{ widget.Label }

// NewOneLine returns a one-line label showing text.
func NewOneLine(text string) *OneLine {
	l := &OneLine{}
	l.Truncation = fyne.TextTruncateEllipsis
	l.ExtendBaseWidget(l)
	l.SetText(text)
	return l
}

// SetText shows text's lines joined on one line.
func (l *OneLine) SetText(text string) {
	l.Label.SetText(strings.Join(strings.Fields(strings.ReplaceAll(text, "\n", " \u00b7 ")), " "))
}

// textHeight is the height a wrapping label needs at width w, measured
// here: the label's own minimum can lag behind its text or its width (it
// is worked out when the label is next drawn), and a head sized by it
// showed one line of two. 0 for anything else.
func textHeight(o fyne.CanvasObject, w float32) float32 {
	l, ok := o.(*widget.Label)
	if !ok || l.Wrapping == fyne.TextWrapOff || l.Text == "" {
		return 0
	}
	pad, size := theme.InnerPadding(), theme.TextSize()
	room := w - 2*pad
	lineH := fyne.MeasureText("Mg", size, l.TextStyle).Height
	lines := 0
	for _, para := range strings.Split(l.Text, "\n") {
		line := ""
		lines++
		for _, word := range strings.Fields(para) {
			try := word
			if line != "" {
				try = line + " " + word
			}
			if line != "" && fyne.MeasureText(try, size, l.TextStyle).Width > room {
				lines++
				try = word
			}
			line = try
		}
	}
	return float32(lines)*lineH + float32(lines-1)*theme.LineSpacing() + 2*pad
}
