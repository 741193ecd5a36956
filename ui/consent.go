package ui

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/widget"

	"github.com/modex/modex/engine/privdir"
)

// Consent remembers the adapter commands the user allowed to run, per
// project file, command line and folder (as SHA-256 hashes, one a line, in a
// file of the user's config folder), the way editors ask before trusting a
// workspace: opening a project must not be enough to run its command.
type Consent struct {
	// File is where the allowed hashes are kept.
	File string
}

// DefaultConsent keeps the answers in modex/allowed-commands in the user's
// config folder. Without one (no HOME) nothing is remembered: the shared
// temporary folder is no place for a list of commands allowed to run.
func DefaultConsent() *Consent {
	dir, err := os.UserConfigDir()
	if err != nil {
		return &Consent{}
	}
	return &Consent{File: filepath.Join(dir, "modex", "allowed-commands")}
}

func consentKey(project, dir string, argv []string) string {
	h := sha256.Sum256([]byte(project + "\x00" + dir + "\x00" + strings.Join(argv, "\x00")))
	return hex.EncodeToString(h[:])
}

// Allowed reports whether the command was allowed for the project before.
// A file that another account could have written or swapped
// (privdir.CheckPath) allows nothing.
func (c *Consent) Allowed(project, dir string, argv []string) bool {
	if c.File == "" || privdir.CheckPath(c.File) != nil {
		return false
	}
	f, err := os.Open(c.File)
	if err != nil {
		return false
	}
	defer f.Close()
	key := consentKey(project, dir, argv)
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if strings.TrimSpace(sc.Text()) == key {
			return true
		}
	}
	return false
}

// Allow remembers that the command may run for the project.
func (c *Consent) Allow(project, dir string, argv []string) error {
	if c.File == "" {
		return errors.New("there is no configuration folder to keep it in (HOME is not set)")
	}
	if err := privdir.Make(filepath.Dir(c.File)); err != nil {
		return err
	}
	if _, err := os.Lstat(c.File); err == nil {
		privdir.Tighten(c.File) // made 0666 by something else: ours to fix
		if err := privdir.Check(c.File); err != nil {
			return err // Allowed would never trust it
		}
	}
	f, err := os.OpenFile(c.File, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = fmt.Fprintln(f, consentKey(project, dir, argv))
	return err
}

// consented runs start when the adapter command that command (the Test
// tab's field; "" for the project's) stands for may run: allowed before,
// or allowed now in a dialog that shows the full command and its folder.
// Dialing a TCP address needs no consent.
func (wb *Workbench) consented(command string, start func()) {
	p, m := wb.s.project, wb.s.model
	argv, dir, _ := p.AdapterLaunch(m.Info(), command, "")
	if len(argv) == 0 || wb.consent == nil {
		start()
		return
	}
	abs, _ := filepath.Abs(p.Path)
	if wb.consent.Allowed(abs, dir, argv) {
		start()
		return
	}
	shown := dir
	if a, err := filepath.Abs(dir); err == nil {
		shown = a
	}
	msg := fmt.Sprintf("%s wants to start its implementation with this command:\n\n%s\n\nin the folder\n\n%s\n\nRun it? Modex will remember the answer for this project and command.",
		p.Name, quoteArgv(argv), shown)
	wb.confirm("Run the project's adapter command?", msg, func() {
		if err := wb.consent.Allow(abs, dir, argv); err != nil {
			wb.status.SetText("Could not remember the answer: " + err.Error())
		}
		start()
	})
}

// confirmDialog asks in a dialog, with the message selectable and wrapped.
func (wb *Workbench) confirmDialog(title, msg string, ok func()) {
	text := widget.NewLabel(msg)
	text.Wrapping = fyne.TextWrapBreak
	text.TextStyle = fyne.TextStyle{Monospace: true}
	d := dialog.NewCustomConfirm(title, "Run", "Cancel", text, func(yes bool) {
		if yes {
			ok()
		} else {
			wb.status.SetText("Not started: the adapter command was not allowed to run.")
		}
	}, wb.win)
	d.Resize(fyne.NewSize(640, 360))
	wb.showKeyed(d, d.Confirm, d.Hide)
}

func quoteArgv(argv []string) string {
	out := make([]string, len(argv))
	for i, a := range argv {
		if a == "" || strings.ContainsAny(a, " \t\"'") {
			a = fmt.Sprintf("%q", a)
		}
		out[i] = a
	}
	return strings.Join(out, " ")
}
