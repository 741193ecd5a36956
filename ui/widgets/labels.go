package widgets

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"
)

// Heading is a bold heading that wraps (a long heading must not widen its
// panel).
func Heading(s string) fyne.CanvasObject {
	l := widget.NewLabelWithStyle(s, fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	l.Wrapping = fyne.TextWrapWord // a long heading must not widen its panel
	return l
}

// HintLabel is a sentence that wraps to the panel's width (the panel may be
// narrow).
func HintLabel(s string) *widget.Label {
	l := widget.NewLabel(s)
	l.Wrapping = fyne.TextWrapWord
	return l
}

// Mono is a value in monospace, never wrapped by the label (a break in
// the middle of a token misreads: ["hi", "by / e"]): graph.Pretty breaks it
// between elements, and the panel scrolls sideways for a long line.
func Mono(s string) *widget.Label {
	return widget.NewLabelWithStyle(s, fyne.TextAlignLeading, fyne.TextStyle{Monospace: true})
}

// AtLeast gives o a minimum size (the larger of its own and min).
func AtLeast(min fyne.Size, o fyne.CanvasObject) fyne.CanvasObject {
	return container.New(minLayout{min}, o)
}

type minLayout struct{ min fyne.Size }

func (l minLayout) MinSize(objs []fyne.CanvasObject) fyne.Size {
	return l.min.Max(objs[0].MinSize())
}

func (l minLayout) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	objs[0].Move(fyne.NewPos(0, 0))
	objs[0].Resize(size)
}
