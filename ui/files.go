package ui

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/storage"

	"github.com/modex/modex/engine/privdir"
	"github.com/modex/modex/projects"
)

// Dialogs opens and saves files. The app supplies native dialogs; FyneDialogs
// is the fallback. Callbacks run on the UI goroutine; path "" means
// cancelled.
type Dialogs interface {
	// Open asks for a file to open, starting in dir.
	Open(title, dir string, exts []string, done func(path string))
	// Save asks for a file to write, starting at the suggested path.
	Save(title, suggested string, exts []string, done func(path string))
}

// FyneDialogs implements Dialogs with Fyne's own file dialogs.
type FyneDialogs struct{ Win fyne.Window }

// Open shows Fyne's open dialog.
func (f FyneDialogs) Open(title, dir string, exts []string, done func(string)) {
	d := dialog.NewFileOpen(func(r fyne.URIReadCloser, err error) {
		if err != nil || r == nil {
			done("")
			return
		}
		r.Close()
		done(r.URI().Path())
	}, f.Win)
	d.SetFilter(storage.NewExtensionFileFilter(dotted(exts)))
	d.SetTitleText(title)
	if dir == "" {
		dir, _ = os.Getwd()
	}
	if abs, err := filepath.Abs(dir); err == nil {
		if l, err := storage.ListerForURI(storage.NewFileURI(abs)); err == nil {
			d.SetLocation(l)
		}
	}
	d.Show()
}

// Save shows Fyne's save dialog.
func (f FyneDialogs) Save(title, suggested string, exts []string, done func(string)) {
	d := dialog.NewFileSave(func(w fyne.URIWriteCloser, err error) {
		if err != nil || w == nil {
			done("")
			return
		}
		w.Close()
		done(w.URI().Path())
	}, f.Win)
	d.SetFileName(filepath.Base(suggested))
	d.SetFilter(storage.NewExtensionFileFilter(dotted(exts)))
	d.SetTitleText(title)
	dir, _ := filepath.Abs(filepath.Dir(suggested))
	if l, err := storage.ListerForURI(storage.NewFileURI(dir)); err == nil {
		d.SetLocation(l)
	}
	d.Show()
}

func dotted(exts []string) []string {
	out := make([]string, len(exts))
	for i, e := range exts {
		out[i] = "." + strings.TrimPrefix(e, ".")
	}
	return out
}

const recentKey = "recentProjects"

// recentProjects returns the recently opened projects, newest first.
func recentProjects(a fyne.App) []string {
	if a == nil {
		return nil
	}
	return a.Preferences().StringList(recentKey)
}

// addRecent records a project as the most recently opened and shows it in
// File ▸ Open Recent.
func (wb *Workbench) addRecent(path string) {
	addRecent(wb.app, path)
	if wb.recentChanged != nil {
		wb.recentChanged()
	}
}

// addRecent records a project as the most recently opened.
func addRecent(a fyne.App, path string) {
	if a == nil || path == "" {
		return
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return
	}
	list := []string{abs}
	for _, p := range recentProjects(a) {
		if p != abs && len(list) < 8 {
			list = append(list, p)
		}
	}
	a.Preferences().SetStringList(recentKey, list)
}

func userCacheDir() (string, error) { return privdir.CacheDir() }

// saveSVG saves a picture as SVG under a name the user picks, in the
// project's folder (see widgets.SaveSVG); the status line says where.
func (wb *Workbench) saveSVG(what, Picture, name string, write func(io.Writer) error) {
	wb.dialogs.Save("Export "+what, filepath.Join(wb.projectDir(), name), []string{"svg"}, func(path string) {
		if path == "" {
			return
		}
		var b bytes.Buffer
		err := write(&b)
		if err == nil {
			err = projects.WriteFileAtomic(path, b.Bytes())
		}
		if err != nil {
			wb.status.SetText("Export: " + err.Error())
			return
		}
		wb.status.SetText(Picture + " written to " + path)
	})
}
