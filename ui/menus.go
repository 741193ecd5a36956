package ui

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/widget"

	"github.com/modex/modex/graph"
	"github.com/modex/modex/projects"
	"github.com/modex/modex/ui/widgets"
)

func (wb *Workbench) installMenus() {
	recent := wb.recentMenu()
	export := fyne.NewMenuItem("Export Graph", nil)
	export.ChildMenu = fyne.NewMenu("",
		fyne.NewMenuItem("DOT…", func() { wb.Export("dot") }),
		fyne.NewMenuItem("SVG…", func() { wb.Export("svg") }),
		fyne.NewMenuItem("PNG…", func() { wb.Export("png") }),
		fyne.NewMenuItem("JSON…", func() { wb.Export("json") }),
	)
	samples := fyne.NewMenuItem("Open Sample", nil)
	samples.ChildMenu = fyne.NewMenu("")
	for _, s := range projects.SampleNames() {
		s := s
		samples.ChildMenu.Items = append(samples.ChildMenu.Items, fyne.NewMenuItem(s, func() {
			wb.confirmDiscard(func() {
				dir, err := userSampleDir()
				if err == nil {
					var p string
					if p, err = projects.ExtractSample(s, dir); err == nil {
						wb.openPath(p)
						return
					}
				}
				dialog.ShowError(err, wb.win)
			})
		}))
	}
	// Items with a key show it in the menu; the menu's keys work whatever
	// has the focus (a field included).
	ctrl := func(label string, k fyne.KeyName, f func()) *fyne.MenuItem {
		return keyed(label, k, fyne.KeyModifierShortcutDefault, f)
	}
	file := fyne.NewMenu("File",
		fyne.NewMenuItem("New Project from Model…", func() { wb.confirmDiscard(wb.NewFromModel) }),
		ctrl("Open…", fyne.KeyO, func() { wb.confirmDiscard(wb.OpenDialog) }),
		recent, samples,
		fyne.NewMenuItemSeparator(),
		ctrl("Save", fyne.KeyS, func() { wb.Save() }),
		keyed("Save As…", fyne.KeyS, fyne.KeyModifierShortcutDefault|fyne.KeyModifierShift, wb.SaveAs),
		fyne.NewMenuItemSeparator(),
		export,
	)
	view := fyne.NewMenu("View",
		ctrl("Zoom In", fyne.KeyEqual, wb.graph.ZoomIn),
		ctrl("Zoom Out", fyne.KeyMinus, wb.graph.ZoomOut),
		ctrl("Fit to Window", fyne.Key0, wb.graph.Fit),
		fyne.NewMenuItemSeparator(),
		keyed("Back", fyne.KeyLeft, fyne.KeyModifierAlt, wb.Back),
		keyed("Forward", fyne.KeyRight, fyne.KeyModifierAlt, wb.Forward),
		fyne.NewMenuItemSeparator(),
		keyed("Side Panel", fyne.KeyB, fyne.KeyModifierShortcutDefault, wb.togglePanel),
		keyed("Details Panel", fyne.KeyD, fyne.KeyModifierShortcutDefault, wb.toggleDetails),
	)
	run := fyne.NewMenu("Explore",
		ctrl("Explore", fyne.KeyE, wb.Explore),
		fyne.NewMenuItem("Cancel (Esc)", wb.Cancel),
		ctrl("Reload Model", fyne.KeyR, wb.Reload),
		fyne.NewMenuItem("State Bound…", wb.askStateBound),
	)
	wb.win.SetMainMenu(fyne.NewMainMenu(file, view, run))
	c := wb.win.Canvas()
	wb.shortcuts = map[fyne.KeyName]func(){}
	short := func(k fyne.KeyName, f func()) {
		c.AddShortcut(&desktop.CustomShortcut{KeyName: k, Modifier: fyne.KeyModifierShortcutDefault}, func(fyne.Shortcut) { f() })
		wb.shortcuts[k] = f // for text fields with focus (Entry)
	}
	short(fyne.KeyEqual, wb.graph.ZoomIn)
	short(fyne.KeyPlus, wb.graph.ZoomIn)
	short(fyne.KeyMinus, wb.graph.ZoomOut)
	short(fyne.Key0, wb.graph.Fit)
	short(fyne.KeyE, wb.Explore)
	short(fyne.KeyS, func() { wb.Save() })
	short(fyne.KeyO, func() { wb.confirmDiscard(wb.OpenDialog) })
	short(fyne.KeyR, wb.Reload)
	c.AddShortcut(&desktop.CustomShortcut{KeyName: fyne.KeyLeft, Modifier: fyne.KeyModifierAlt}, func(fyne.Shortcut) { wb.Back() })
	c.AddShortcut(&desktop.CustomShortcut{KeyName: fyne.KeyRight, Modifier: fyne.KeyModifierAlt}, func(fyne.Shortcut) { wb.Forward() })
	widgets.OnEscape = func() {
		if !wb.modalKey(&fyne.KeyEvent{Name: fyne.KeyEscape}) {
			wb.Cancel()
		}
	}
	c.SetOnTypedKey(func(e *fyne.KeyEvent) {
		if wb.modalKey(e) {
			return
		}
		switch e.Name {
		case fyne.KeyEscape:
			wb.Cancel()
		case fyne.KeyUp, fyne.KeyDown, fyne.KeyLeft, fyne.KeyRight:
			wb.Follow(e.Name)
		}
	})
}

// recentMenu is File ▸ Open Recent, refreshed whenever a project is
// opened or saved (wb.recentChanged).
func (wb *Workbench) recentMenu() *fyne.MenuItem {
	recent := fyne.NewMenuItem("Open Recent", nil)
	recent.ChildMenu = fyne.NewMenu("")
	refreshRecent := func() {
		recent.ChildMenu.Items = nil
		for _, p := range recentProjects(wb.app) {
			p := p
			recent.ChildMenu.Items = append(recent.ChildMenu.Items, fyne.NewMenuItem(p, func() { wb.confirmDiscard(func() { wb.openPath(p) }) }))
		}
		if len(recent.ChildMenu.Items) == 0 {
			recent.ChildMenu.Items = []*fyne.MenuItem{fyne.NewMenuItem("(none)", nil)}
		}
	}
	refreshRecent()
	wb.recentChanged = func() {
		refreshRecent()
		if m := wb.win.MainMenu(); m != nil {
			m.Refresh()
		}
	}
	return recent
}

// keyed is a menu item with its keyboard shortcut (shown in the menu).
func keyed(label string, k fyne.KeyName, mod fyne.KeyModifier, f func()) *fyne.MenuItem {
	it := fyne.NewMenuItem(label, f)
	it.Shortcut = &desktop.CustomShortcut{KeyName: k, Modifier: mod}
	return it
}

func userSampleDir() (string, error) {
	dir, err := userCacheDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, "modex", "samples"), nil
}

func (wb *Workbench) openPath(p string) {
	if err := wb.Open(p); err != nil {
		dialog.ShowError(err, wb.win)
	}
}

// OpenDialog asks for a project or model and opens it.
func (wb *Workbench) OpenDialog() {
	wb.dialogs.Open("Open a Modex project or model", wb.projectDir(), []string{"toml", "star"}, func(p string) {
		if p != "" {
			wb.openPath(p)
		}
	})
}

// NewFromModel asks for a .star model and starts an unsaved project on it.
func (wb *Workbench) NewFromModel() {
	wb.dialogs.Open("Choose the model program", wb.projectDir(), []string{"star"}, func(p string) {
		if p == "" {
			return
		}
		wb.setProject(projects.ForModel(p))
		wb.setDirty(true)
	})
}

// Save writes the project to its file (asking for one when it has none).
func (wb *Workbench) Save() error {
	p := wb.s.project
	if p == nil {
		return nil
	}
	// What is saved is what is on screen: a field with an error holds
	// back the save (the configuration still has the field's last valid
	// value, which the user no longer sees).
	if ed := wb.s.editor; ed != nil {
		if bad := ed.Invalid(); len(bad) > 0 {
			err := fmt.Errorf("not saved: fix or undo the field with an error first — %s", strings.Join(bad, "; "))
			wb.status.SetText(err.Error())
			dialog.ShowError(err, wb.win)
			return err
		}
	}
	if p.Path == "" {
		wb.SaveAs()
		return nil
	}
	if err := p.Save(p.Path); err != nil {
		dialog.ShowError(err, wb.win)
		return err
	}
	wb.setDirty(false)
	wb.addRecent(p.Path)
	wb.status.SetText("Saved " + p.Path)
	return nil
}

// SaveAs asks where to save the project.
func (wb *Workbench) SaveAs() {
	p := wb.s.project
	if p == nil {
		return
	}
	wb.dialogs.Save("Save the project", p.Path, []string{"toml"}, func(path string) {
		if path == "" {
			return
		}
		if !strings.HasSuffix(path, ".toml") {
			path += ".toml"
		}
		// The model path is relative to the project file: keep it pointing
		// at the same model.
		if !filepath.IsAbs(p.Model) {
			abs, _ := filepath.Abs(p.ModelPath())
			if rel, err := filepath.Rel(filepath.Dir(path), abs); err == nil {
				p.Model = rel
			} else {
				p.Model = abs
			}
		}
		p.Path = path
		wb.Save()
	})
}

// Export writes the last explored graph in a format (dot, svg, png, json).
func (wb *Workbench) Export(format string) {
	wb.mu.Lock()
	doc := wb.s.doc
	wb.mu.Unlock()
	if doc == nil {
		dialog.ShowInformation("Export", "Explore first: there is no graph yet.", wb.win)
		return
	}
	base := "graph." + format
	if wb.s.project != nil && wb.s.project.Path != "" {
		base = filepath.Join(filepath.Dir(wb.s.project.Path), wb.s.project.Name+"-"+wb.configs.Selected+"."+format)
	}
	wb.dialogs.Save("Export the graph as "+strings.ToUpper(format), base, []string{format}, func(path string) {
		if path == "" {
			return
		}
		go func() {
			err := exportDoc(doc, format, path)
			wb.do(func() {
				if err != nil {
					dialog.ShowError(err, wb.win)
					return
				}
				wb.status.SetText("Exported " + path)
			})
		}()
	})
}

func exportDoc(doc *graph.Doc, format, path string) error {
	var buf bytes.Buffer
	var err error
	switch format {
	case "dot":
		err = doc.WriteDOT(&buf)
	case "json":
		err = doc.WriteJSON(&buf, graph.JSONOptions{})
	case "svg", "png":
		err = doc.Render(context.Background(), graph.Format(format), "", &buf)
	default:
		err = fmt.Errorf("unknown format %q", format)
	}
	if err != nil {
		return err
	}
	return projects.WriteFileAtomic(path, buf.Bytes())
}

// confirmDiscard runs f, first asking when there are unsaved changes:
// Save (then go on, unless saving fails), Don't Save, or Cancel.
func (wb *Workbench) confirmDiscard(f func()) {
	if tv := wb.s.test; tv != nil && tv.Running() {
		// A test or campaign running is not dropped without asking.
		d := dialog.NewCustomConfirm("A test is running", "Stop it and go on", "Cancel",
			widget.NewLabel("A test is running in the Test tab: stop it (what it did is kept in its report) and go on?"),
			func(ok bool) {
				if ok {
					tv.Stop()
					wb.confirmDiscardEdits(f)
				}
			}, wb.win)
		wb.showKeyed(d, d.Confirm, d.Hide)
		return
	}
	wb.confirmDiscardEdits(f)
}

// confirmDiscardEdits runs f once unsaved edits are saved or given up.
func (wb *Workbench) confirmDiscardEdits(f func()) {
	if !wb.s.dirty {
		f()
		return
	}
	var d dialog.Dialog
	doSave := func() {
		d.Hide()
		if wb.s.project.Path == "" {
			wb.SaveAs() // a new project: the user picks a file first
			return
		}
		if err := wb.Save(); err == nil {
			f()
		}
	}
	save := widget.NewButton("Save", doSave)
	save.Importance = widget.HighImportance
	discard := widget.NewButton("Don't Save", func() { d.Hide(); f() })
	cancel := widget.NewButton("Cancel", func() { d.Hide() })
	msg := widget.NewLabel("Save the changes to " + wb.s.project.Name + " first?")
	d = dialog.NewCustomWithoutButtons("Unsaved changes", container.NewVBox(msg, container.NewHBox(cancel, discard, save)), wb.win)
	wb.showKeyed(d, doSave, d.Hide) // Enter saves, Esc cancels
}
func (wb *Workbench) closeRequested() {
	wb.confirmDiscard(func() {
		wb.Cancel()
		wb.saveLayout()
		wb.win.Close()
	})
}

// projectDir is the open project's folder ("" without one): file dialogs
// start there rather than in the working directory.
func (wb *Workbench) projectDir() string {
	if wb.s == nil || wb.s.project == nil || wb.s.project.Path == "" {
		return ""
	}
	return filepath.Dir(wb.s.project.Path)
}
