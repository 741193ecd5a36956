//go:build !headless

package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"

	"fyne.io/fyne/v2"
	fyneapp "fyne.io/fyne/v2/app"
	"github.com/sqweek/dialog"

	"github.com/modex/modex/graph"
	"github.com/modex/modex/ui"
)

// errNoDisplay says in one line that the workbench cannot open here.
var errNoDisplay = errors.New("no display found (neither DISPLAY nor WAYLAND_DISPLAY is set): the workbench needs one; " +
	"the commands explore, check, test, gen, run and replay work without (modex help)")

// hasDisplay reports whether a window can be opened: on Linux and the BSDs
// an X11 or Wayland display must be named (macOS and Windows always have
// one).
func hasDisplay() bool {
	switch runtime.GOOS {
	case "darwin", "windows", "android", "ios":
		return true
	}
	return os.Getenv("DISPLAY") != "" || os.Getenv("WAYLAND_DISPLAY") != ""
}

// runGUI opens the workbench on a project, or on the bundled chat project.
func runGUI(path, config, trace string) error {
	if err := displayError(); err != nil {
		return err
	}
	// Without a D-Bus session, GTK's settings backend (dconf) prints a
	// warning for every setting a native dialog touches: keep them in memory.
	if os.Getenv("DBUS_SESSION_BUS_ADDRESS") == "" && os.Getenv("GSETTINGS_BACKEND") == "" {
		os.Setenv("GSETTINGS_BACKEND", "memory")
	}
	// Lay graphs out in child processes (killable, outside our GC).
	if exe, err := os.Executable(); err == nil {
		graph.LayoutCommand = []string{exe, "__layout"}
	}
	// The C locale GTK's dialogs speak, set before Fyne starts C threads
	// (GTK, opened by the first dialog, leaves it as it is).
	dialog.SetLocale()
	a := fyneapp.NewWithID("io.modex.workbench")
	ui.ScreenSize = screenSize
	return ui.Run(a, path, config, trace, func(w fyne.Window) ui.Dialogs { return nativeDialogs{fallback: ui.FyneDialogs{Win: w}} })
}

// nativeDialogs uses the platform's file dialogs (GTK on Linux, through
// sqweek/dialog) and falls back to Fyne's when they are unavailable.
type nativeDialogs struct{ fallback ui.FyneDialogs }

// run shows a native dialog off the UI goroutine (it blocks until closed;
// sqweek/dialog runs GTK on a thread of its own) and reports on the UI
// goroutine; any failure falls back to Fyne.
func (n nativeDialogs) run(show func() (string, error), fallback func(), done func(string)) {
	go func() {
		var path string
		var err error
		func() {
			defer func() {
				if r := recover(); r != nil {
					err = fmt.Errorf("native dialog: %v", r)
				}
			}()
			path, err = show()
		}()
		fyne.Do(func() {
			switch {
			case err == nil:
				done(path)
			case errors.Is(err, dialog.ErrCancelled):
				done("")
			default:
				fallback()
			}
		})
	}()
}

func (n nativeDialogs) Open(title, dir string, exts []string, done func(string)) {
	if dir == "" {
		dir, _ = os.Getwd()
	}
	n.run(func() (string, error) {
		return dialog.File().Title(title).Filter("Modex files", exts...).SetStartDir(dir).Load()
	}, func() { n.fallback.Open(title, dir, exts, done) }, done)
}

func (n nativeDialogs) Save(title, suggested string, exts []string, done func(string)) {
	n.run(func() (string, error) {
		return dialog.File().Title(title).Filter(exts[0], exts...).SetStartDir(filepath.Dir(suggested)).SetStartFile(filepath.Base(suggested)).Save()
	}, func() { n.fallback.Save(title, suggested, exts, done) }, done)
}
