package ui

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/widget"
)

// Entry is a text field that lets the workbench's shortcuts through: a
// focused Fyne entry takes every shortcut, so Ctrl+S would do nothing while
// the user types in a field.
type Entry struct {
	widget.Entry
	wb func() *Workbench // the workbench, when the shortcut comes
}

// newEntry returns a single-line entry of the workbench.
func newEntry(wb *Workbench) *Entry {
	return newEntryOf(func() *Workbench { return wb })
}

// newEntryOf returns an entry whose workbench is known later.
func newEntryOf(wb func() *Workbench) *Entry {
	e := &Entry{wb: wb}
	e.ExtendBaseWidget(e)
	return e
}

// TypedKey passes Esc to the workbench (it cancels the exploration), other
// keys to the entry.
func (e *Entry) TypedKey(k *fyne.KeyEvent) {
	if !escape(k) {
		e.Entry.TypedKey(k)
	}
}

// TypedShortcut runs the workbench's shortcut for the keys, else the
// entry's own (copy, paste, …).
func (e *Entry) TypedShortcut(s fyne.Shortcut) {
	if wb := e.wb(); wb != nil && wb.runShortcut(s) {
		return
	}
	e.Entry.TypedShortcut(s)
}

// runShortcut runs the workbench shortcut s stands for; false when none.
func (wb *Workbench) runShortcut(s fyne.Shortcut) bool {
	cs, ok := s.(*desktop.CustomShortcut)
	if !ok || cs.Modifier != fyne.KeyModifierShortcutDefault {
		return false
	}
	f, ok := wb.shortcuts[cs.KeyName]
	if ok {
		f()
	}
	return ok
}
