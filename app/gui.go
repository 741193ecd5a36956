package main

import (
	fyneapp "fyne.io/fyne/v2/app"
	"github.com/modex/modex/ui"
)

// runGUI opens the workbench on a project, or on the bundled chat project.
func runGUI(path string) error {
	a := fyneapp.NewWithID("io.modex.workbench")
	return ui.Run(a, path)
}
