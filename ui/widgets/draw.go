package widgets

import (
	"image/color"
	"io"
	"strconv"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
)

// RGB is the colour of a "#rrggbb" string.
func RGB(hex string) color.NRGBA {
	v, _ := strconv.ParseUint(hex[1:], 16, 32)
	return color.NRGBA{R: uint8(v >> 16), G: uint8(v >> 8), B: uint8(v), A: 255}
}

// Text is a label placed with its baseline near y, anchored at x (left,
// or centred when centre), as the SVG pictures place their text.
func Text(s string, x, y float64, col color.Color, size float32, bold, centre bool) fyne.CanvasObject {
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

// Line is a line from (x1, y1) to (x2, y2).
func Line(x1, y1, x2, y2 float64, col color.Color, width float32) *canvas.Line {
	l := canvas.NewLine(col)
	l.StrokeWidth = width
	l.Position1, l.Position2 = fyne.NewPos(float32(x1), float32(y1)), fyne.NewPos(float32(x2), float32(y2))
	return l
}

// SaveSVG saves a picture as SVG under a name the user picks: what names
// the picture in the dialog ("the timeline"), Picture in the status line
// ("Timeline written to PATH"), name is the file name proposed and write
// writes the picture. The workbench provides it.
type SaveSVG func(what, Picture, name string, write func(w io.Writer) error)

// ExportSVGButton is an Export SVG… button: it saves with save what
// picture gives (nil: nothing shown, nothing to save).
func ExportSVGButton(save SaveSVG, what, Picture, name string, picture func() func(io.Writer) error) *Button {
	return NewButton("Export SVG…", func() {
		if write := picture(); write != nil {
			save(what, Picture, name, write)
		}
	})
}
