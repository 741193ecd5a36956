package ui

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/widget"
)

// onEscape is what Esc does wherever the focus is (the workbench's Cancel):
// a clicked button keeps the keyboard focus, and the canvas's own key
// handler then never hears Esc.
var onEscape func()

// escButton is a button that passes Esc to onEscape when it has the focus.
type escButton struct {
	widget.Button
}

// TypedKey passes Esc to onEscape, other keys to the button.
func (b *escButton) TypedKey(e *fyne.KeyEvent) {
	if !escape(e) {
		b.Button.TypedKey(e)
	}
}

// newButton is widget.NewButton whose Esc cancels (see escButton).
func newButton(label string, tapped func()) *escButton {
	b := &escButton{}
	b.Text, b.OnTapped = label, tapped
	b.ExtendBaseWidget(b)
	return b
}

// newButtonWithIcon is widget.NewButtonWithIcon whose Esc cancels.
func newButtonWithIcon(label string, icon fyne.Resource, tapped func()) *escButton {
	b := &escButton{}
	b.Text, b.Icon, b.OnTapped = label, icon, tapped
	b.ExtendBaseWidget(b)
	return b
}

// escape runs onEscape for Esc and reports whether it did.
func escape(e *fyne.KeyEvent) bool {
	if e.Name == fyne.KeyEscape && onEscape != nil {
		onEscape()
		return true
	}
	return false
}

// escCheck is a check box whose Esc cancels when it has the focus (a
// tapped check box takes it).
type escCheck struct{ widget.Check }

// TypedKey passes Esc to onEscape, other keys to the check box.
func (c *escCheck) TypedKey(e *fyne.KeyEvent) {
	if !escape(e) {
		c.Check.TypedKey(e)
	}
}

// newCheck is widget.NewCheck whose Esc cancels.
func newCheck(label string, changed func(bool)) *escCheck {
	c := &escCheck{}
	c.Text, c.OnChanged = label, changed
	c.ExtendBaseWidget(c)
	return c
}

// escSelect is a drop-down whose Esc cancels when it has the focus.
type escSelect struct{ widget.Select }

// TypedKey passes Esc to onEscape, other keys to the drop-down.
func (s *escSelect) TypedKey(e *fyne.KeyEvent) {
	if !escape(e) && onCanvas(s) {
		s.Select.TypedKey(e)
	}
}

// newSelect is widget.NewSelect whose Esc cancels.
func newSelect(options []string, changed func(string)) *escSelect {
	s := &escSelect{}
	s.Options, s.OnChanged = options, changed
	s.ExtendBaseWidget(s)
	return s
}

// Tapped opens the drop-down, unless it is no longer in a window (see
// onCanvas).
func (s *escSelect) Tapped(e *fyne.PointEvent) {
	if onCanvas(s) {
		s.Select.Tapped(e)
	}
}

// canvasFor is the canvas an object is drawn on, nil when it is in none
// (the driver's; tests replace it, Fyne's test driver answers the last
// window for every object).
var canvasFor = func(o fyne.CanvasObject) fyne.Canvas {
	if a := fyne.CurrentApp(); a != nil {
		return a.Driver().CanvasForObject(o)
	}
	return nil
}

// onCanvas reports whether o is drawn in a window. A widget taken out of
// its window (a rebuilt editor, a replaced project) may still have the
// keyboard focus, or be under the pointer between press and release; Fyne
// then gives it the key or the tap, and a drop-down opening its menu on no
// canvas crashed the process (a nil canvas in widget.NewPopUpMenu, issue
// 52): such a key or tap is ignored.
func onCanvas(o fyne.CanvasObject) bool { return canvasFor(o) != nil }
