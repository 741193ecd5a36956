// Package widgets holds the small widgets and layouts the workbench and its
// views share: buttons, check boxes and drop-downs whose Esc cancels, a text
// field that lets the shortcuts through, rows that wrap, a head above a body,
// a one-line label, a minimum size, the mouse wheel over a form, and Post,
// the way back to the UI goroutine.
package widgets

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/widget"
)

// OnEscape is what Esc does wherever the focus is (the workbench's Cancel):
// a clicked button keeps the keyboard focus, and the canvas's own key
// handler then never hears Esc.
var OnEscape func()

// Button is a button that passes Esc to OnEscape when it has the focus.
type Button struct {
	widget.Button
}

// TypedKey passes Esc to OnEscape, other keys to the button.
func (b *Button) TypedKey(e *fyne.KeyEvent) {
	if !Escape(e) {
		b.Button.TypedKey(e)
	}
}

// NewButton is widget.NewButton whose Esc cancels (see Button).
func NewButton(label string, tapped func()) *Button {
	b := &Button{}
	b.Text, b.OnTapped = label, tapped
	b.ExtendBaseWidget(b)
	return b
}

// NewButtonWithIcon is widget.NewButtonWithIcon whose Esc cancels.
func NewButtonWithIcon(label string, icon fyne.Resource, tapped func()) *Button {
	b := &Button{}
	b.Text, b.Icon, b.OnTapped = label, icon, tapped
	b.ExtendBaseWidget(b)
	return b
}

// escape runs OnEscape for Esc and reports whether it did.
func Escape(e *fyne.KeyEvent) bool {
	if e.Name == fyne.KeyEscape && OnEscape != nil {
		OnEscape()
		return true
	}
	return false
}

// Check is a check box whose Esc cancels when it has the focus (a
// tapped check box takes it).
type Check struct{ widget.Check }

// TypedKey passes Esc to OnEscape, other keys to the check box.
func (c *Check) TypedKey(e *fyne.KeyEvent) {
	if !Escape(e) {
		c.Check.TypedKey(e)
	}
}

// NewCheck is widget.NewCheck whose Esc cancels.
func NewCheck(label string, changed func(bool)) *Check {
	c := &Check{}
	c.Text, c.OnChanged = label, changed
	c.ExtendBaseWidget(c)
	return c
}

// Select is a drop-down whose Esc cancels when it has the focus.
type Select struct{ widget.Select }

// TypedKey passes Esc to OnEscape, other keys to the drop-down.
func (s *Select) TypedKey(e *fyne.KeyEvent) {
	if !Escape(e) && OnCanvas(s) {
		s.Select.TypedKey(e)
	}
}

// NewSelect is widget.NewSelect whose Esc cancels.
func NewSelect(options []string, changed func(string)) *Select {
	s := &Select{}
	s.Options, s.OnChanged = options, changed
	s.ExtendBaseWidget(s)
	return s
}

// Tapped opens the drop-down, unless it is no longer in a window (see
// OnCanvas).
func (s *Select) Tapped(e *fyne.PointEvent) {
	if OnCanvas(s) {
		s.Select.Tapped(e)
	}
}

// CanvasFor is the canvas an object is drawn on, nil when it is in none
// (the driver's; tests replace it, Fyne's test driver answers the last
// window for every object).
var CanvasFor = func(o fyne.CanvasObject) fyne.Canvas {
	if a := fyne.CurrentApp(); a != nil {
		return a.Driver().CanvasForObject(o)
	}
	return nil
}

// OnCanvas reports whether o is drawn in a window. A widget taken out of
// its window (a rebuilt editor, a replaced project) may still have the
// keyboard focus, or be under the pointer between press and release; Fyne
// then gives it the key or the tap, and a drop-down opening its menu on no
// canvas crashed the process (a nil canvas in widget.NewPopUpMenu, issue
// 52): such a key or tap is ignored.
func OnCanvas(o fyne.CanvasObject) bool { return CanvasFor(o) != nil }
