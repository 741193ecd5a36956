package widgets

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/widget"
)

// Entry is a text field that lets the workbench's shortcuts through: a
// focused Fyne entry takes every shortcut, so Ctrl+S would do nothing while
// the user types in a field.
type Entry struct {
	widget.Entry
	// shortcut runs the workbench's shortcut for s and reports whether
	// there was one (nil: none).
	shortcut func(s fyne.Shortcut) bool
}

// NewEntry returns a single-line entry whose shortcuts go to shortcut first
// (it runs the workbench's shortcut and reports whether there was one; nil:
// the entry's own shortcuts only).
func NewEntry(shortcut func(s fyne.Shortcut) bool) *Entry {
	e := &Entry{shortcut: shortcut}
	e.ExtendBaseWidget(e)
	return e
}

// TypedKey passes Esc to OnEscape (it cancels the exploration), other keys
// to the entry.
func (e *Entry) TypedKey(k *fyne.KeyEvent) {
	if !Escape(k) {
		e.Entry.TypedKey(k)
	}
}

// TypedShortcut runs the workbench's shortcut for the keys, else the
// entry's own (copy, paste, …).
func (e *Entry) TypedShortcut(s fyne.Shortcut) {
	if e.shortcut != nil && e.shortcut(s) {
		return
	}
	e.Entry.TypedShortcut(s)
}
