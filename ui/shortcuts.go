package ui

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"

	"github.com/modex/modex/ui/widgets"
)

// newEntry returns a single-line entry of the workbench: its Ctrl (Cmd)
// shortcuts are the workbench's.
func newEntry(wb *Workbench) *widgets.Entry {
	return widgets.NewEntry(wb.runShortcut)
}

// newEntryOf returns an entry whose workbench is known later.
func newEntryOf(wb func() *Workbench) *widgets.Entry {
	return widgets.NewEntry(func(s fyne.Shortcut) bool {
		w := wb()
		return w != nil && w.runShortcut(s)
	})
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
