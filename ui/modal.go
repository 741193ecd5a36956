package ui

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/dialog"
)

// modalKeys is what Esc and Enter do while a dialog is up: its Cancel and
// its default button (Fyne's dialogs take neither key).
type modalKeys struct {
	ok, cancel func()
	prev       *modalKeys // the dialog under it, if any
}

// showKeyed shows d with Esc doing cancel and Enter (Return) doing ok; a
// nil one does nothing for its key. The keyboard focus is taken from the
// window's widgets first, so that the keys reach the dialog, not a field
// behind it (or the workbench's Cancel).
func (wb *Workbench) showKeyed(d dialog.Dialog, ok, cancel func()) {
	wb.dropFocus()
	k := &modalKeys{ok: ok, cancel: cancel, prev: wb.modal}
	wb.modal = k
	d.SetOnClosed(func() {
		if wb.modal == k {
			wb.modal = k.prev
		}
	})
	d.Show()
}

// modalKey runs the open dialog's action for e and reports whether there
// was a dialog (the key is then not the workbench's).
func (wb *Workbench) modalKey(e *fyne.KeyEvent) bool {
	k := wb.modal
	if k == nil {
		return false
	}
	var f func()
	switch e.Name {
	case fyne.KeyEscape:
		f = k.cancel
	case fyne.KeyReturn, fyne.KeyEnter:
		f = k.ok
	}
	if f != nil {
		f()
	}
	return true
}
