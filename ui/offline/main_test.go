package offline

import (
	"context"
	"io"
	"os"
	"testing"
	"time"

	"github.com/modex/modex/ui/internal/uitest"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/test"

	"github.com/modex/modex/engine/explore"
	"github.com/modex/modex/engine/model"
	"github.com/modex/modex/graph"
	"github.com/modex/modex/projects"
	"github.com/modex/modex/ui/area"
	"github.com/modex/modex/ui/graphview"
	"github.com/modex/modex/ui/widgets"
)

func TestMain(m *testing.M) { uitest.Main(m, "") }

// pump runs queued UI callbacks until cond holds or the timeout passes
// (uitest.Pump).
func pump(timeout time.Duration, cond func() bool) bool { return uitest.Pump(timeout, cond) }

// host is a workbench for an Offline tab alone: a project, its
// configuration explored and drawn whole on a graph view, an inspector, a
// status line; every adapter command may run.
type host struct {
	project *projects.Project
	model   *model.StarModel
	config  string
	x       *explore.Exploration
	full    *explore.Graph
	graph   *graphview.View
	details *graphview.Inspector
	status  string
	adapter string // the Test tab's adapter command
	app     fyne.App
	win     fyne.Window
}

// newView opens the project at path, explores its configuration config
// ("": the default), draws its graph and builds its Offline tab.
func newView(t *testing.T, path, config string) (*View, *host) {
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
	cfg, err := p.Build(m, config)
	if err != nil {
		t.Fatal(err)
	}
	x, err := explore.Explore(context.Background(), m, cfg)
	if err != nil {
		t.Fatal(err)
	}
	h := &host{project: p, model: m, config: config, x: x, full: x.Graph(), graph: graphview.New(), details: graphview.NewInspector(), app: a}
	doc, err := graph.FromExplorationGraph(x, h.full)
	if err != nil {
		t.Fatal(err)
	}
	lay, err := graph.LayoutDoc(context.Background(), doc, "")
	if err != nil {
		t.Fatal(err)
	}
	h.graph.SetGraph(doc, lay, lay.Draw(1, nil), 1)
	ov := New(h)
	h.win = a.NewWindow("test")
	t.Cleanup(h.win.Close)
	h.win.SetContent(container.NewHSplit(ov.Content(), container.NewHSplit(h.graph.Container(), ov.SuiteView().Content())))
	h.win.Resize(fyne.NewSize(1400, 860))
	return ov, h
}

func (h *host) Open(area.View)                 {}
func (h *host) Project() *projects.Project     { return h.project }
func (h *host) Model() *model.StarModel        { return h.model }
func (h *host) Config() string                 { return h.config }
func (h *host) Active() bool                   { return true }
func (h *host) Graph() *graphview.View         { return h.graph }
func (h *host) Details() *graphview.Inspector  { return h.details }
func (h *host) SetStatus(text string)          { h.status = text }
func (h *host) DrawnIndex() func(string) int   { return h.graph.Doc().StateIndex }
func (h *host) AdapterCommand() string         { return h.adapter }
func (h *host) Consented(_ string, run func()) { run() }
func (h *host) Edited()                        {}
func (h *host) Do(f func())                    { widgets.Post(f) }
func (h *host) App() fyne.App                  { return h.app }
func (h *host) Window() fyne.Window            { return h.win }
func (h *host) ProjectDir() string             { return os.TempDir() }

func (h *host) Explored() (*explore.Exploration, *explore.Graph, string) {
	return h.x, h.full, h.config
}

func (h *host) SelectState(id string) {
	if i := h.graph.Doc().StateIndex(id); i >= 0 {
		h.graph.Select(i)
	}
}

func (h *host) ShowKeyed(d dialog.Dialog, _, _ func())              { d.Show() }
func (h *host) OpenFile(_, _ string, _ []string, done func(string)) { done("") }
func (h *host) SaveFile(_, _ string, _ []string, done func(string)) { done("") }
func (h *host) SaveSVG(_, _, _ string, _ func(io.Writer) error)     {}
