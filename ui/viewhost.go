package ui

import (
	"io"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/dialog"

	"github.com/modex/modex/engine/explore"
	"github.com/modex/modex/engine/model"
	"github.com/modex/modex/projects"
	"github.com/modex/modex/ui/area"
	"github.com/modex/modex/ui/graphview"
)

// viewHost is the workbench as the views of one session (a project's test
// dashboard and Offline tab: testview.Host, offline.Host) see it: what they need of the workbench, and nothing of a
// later session (Active says whether s is still the open one).
type viewHost struct {
	wb *Workbench
	s  *session
}

func (h viewHost) Open(v area.View) {
	if h.wb.views != nil {
		h.wb.views.Open(v)
	}
}

func (h viewHost) Project() *projects.Project    { return h.s.project }
func (h viewHost) Model() *model.StarModel       { return h.s.model }
func (h viewHost) Config() string                { return h.wb.configs.Selected }
func (h viewHost) Active() bool                  { return h.wb.s == h.s }
func (h viewHost) TabShown() bool                { return h.wb.tabs.Selected() == h.wb.testTab }
func (h viewHost) ShowTab()                      { h.wb.tabs.Select(h.wb.testTab) }
func (h viewHost) Graph() *graphview.View        { return h.wb.graph }
func (h viewHost) Details() *graphview.Inspector { return h.s.details }
func (h viewHost) SetStatus(text string)         { h.wb.status.SetText(text) }
func (h viewHost) StopExploring()                { h.wb.Cancel() }
func (h viewHost) Do(f func())                   { h.wb.do(f) }
func (h viewHost) Shortcut(s fyne.Shortcut) bool { return h.wb.runShortcut(s) }
func (h viewHost) Redraw()                       { h.wb.redraw() }
func (h viewHost) DrawnIndex() func(string) int  { return h.wb.drawnIndex() }

func (h viewHost) SetNote(text string) {
	if text == "" {
		h.wb.note.Hide()
		return
	}
	h.wb.note.SetText(text)
	h.wb.note.Show()
}

func (h viewHost) Consented(command string, start func()) { h.wb.consented(command, start) }

func (h viewHost) SaveSVG(what, picture, name string, write func(io.Writer) error) {
	h.wb.saveSVG(what, picture, name, write)
}

func (h viewHost) Explored() (*explore.Exploration, *explore.Graph, string) {
	h.wb.mu.Lock()
	defer h.wb.mu.Unlock()
	return h.s.last, h.s.full, h.s.config
}

func (h viewHost) SelectState(id string)                        { h.wb.SelectState(id) }
func (h viewHost) AdapterCommand() string                       { return h.s.test.Command() }
func (h viewHost) Edited()                                      { h.wb.setDirty(true) }
func (h viewHost) App() fyne.App                                { return h.wb.app }
func (h viewHost) Window() fyne.Window                          { return h.wb.win }
func (h viewHost) ShowKeyed(d dialog.Dialog, ok, cancel func()) { h.wb.showKeyed(d, ok, cancel) }
func (h viewHost) ProjectDir() string                           { return h.wb.projectDir() }

func (h viewHost) OpenFile(title, dir string, exts []string, done func(string)) {
	h.wb.dialogs.Open(title, dir, exts, done)
}

func (h viewHost) SaveFile(title, suggested string, exts []string, done func(string)) {
	h.wb.dialogs.Save(title, suggested, exts, done)
}
