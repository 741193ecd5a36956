package testview

import (
	"io"
	"testing"
	"time"

	"github.com/modex/modex/ui/internal/uitest"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/test"

	"github.com/modex/modex/engine/explore"
	"github.com/modex/modex/engine/model"
	"github.com/modex/modex/projects"
	"github.com/modex/modex/ui/area"
	"github.com/modex/modex/ui/graphview"
	"github.com/modex/modex/ui/widgets"
)

func TestMain(m *testing.M) { uitest.Main(m, "modex-testview-test-cache") }

// pump runs queued UI callbacks until cond holds or the timeout passes
// (uitest.Pump).
func pump(timeout time.Duration, cond func() bool) bool { return uitest.Pump(timeout, cond) }

// host is a workbench for a dashboard alone: a project and its model, a
// graph view and an inspector, a status line and a note; every adapter
// command may run, nothing is explored.
type host struct {
	project *projects.Project
	model   *model.StarModel
	config  string
	graph   *graphview.View
	details *graphview.Inspector
	status  string
	note    string
	tab     bool // the Test tab is selected
	opened  []area.View
}

// dash is a dashboard in a host, in a window of the workbench's size: the
// side panel's settings, the graph and the run view side by side.
type dash struct {
	*host
	tv  *View
	win fyne.Window
}

// newDash opens the project at path on its configuration config ("": the
// default) and builds its dashboard, the Test tab selected.
func newDash(t *testing.T, path, config string) *dash {
	t.Helper()
	a := test.NewTempApp(t)
	p, err := projects.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if config == "" {
		config = p.Default
	}
	m, err := p.LoadModelFor(config)
	if err != nil {
		t.Fatal(err)
	}
	h := &host{project: p, model: m, config: config, graph: graphview.New(), details: graphview.NewInspector(), tab: true}
	tv := New(h)
	tv.ProjectChanged()
	h.graph.OnSelect = func(i int) { // as the workbench's graph does
		if v := h.graph.Doc(); v != nil && tv.Showing(v) {
			tv.Jump(v.States[i].ID)
		}
	}
	w := a.NewWindow("test")
	t.Cleanup(w.Close)
	w.SetContent(container.NewHSplit(tv.Content(), container.NewHSplit(h.graph.Container(), tv.RunView().Content())))
	w.Resize(fyne.NewSize(1400, 860))
	return &dash{host: h, tv: tv, win: w}
}

func (h *host) Open(v area.View)                                         { h.opened = append(h.opened, v) }
func (h *host) Project() *projects.Project                               { return h.project }
func (h *host) Model() *model.StarModel                                  { return h.model }
func (h *host) Config() string                                           { return h.config }
func (h *host) Active() bool                                             { return true }
func (h *host) TabShown() bool                                           { return h.tab }
func (h *host) ShowTab()                                                 { h.tab = true }
func (h *host) Graph() *graphview.View                                   { return h.graph }
func (h *host) Details() *graphview.Inspector                            { return h.details }
func (h *host) SetStatus(text string)                                    { h.status = text }
func (h *host) SetNote(text string)                                      { h.note = text }
func (h *host) StopExploring()                                           {}
func (h *host) Consented(_ string, start func())                         { start() }
func (h *host) Do(f func())                                              { widgets.Post(f) }
func (h *host) Shortcut(fyne.Shortcut) bool                              { return false }
func (h *host) SaveSVG(_, _, _ string, _ func(io.Writer) error)          {}
func (h *host) Explored() (*explore.Exploration, *explore.Graph, string) { return nil, nil, "" }
func (h *host) Redraw()                                                  {}
func (h *host) DrawnIndex() func(string) int                             { return func(string) int { return -1 } }
