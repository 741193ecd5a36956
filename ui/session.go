package ui

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"github.com/modex/modex/engine/explore"
	"github.com/modex/modex/engine/model"
	"github.com/modex/modex/graph"
	"github.com/modex/modex/projects"
	"github.com/modex/modex/ui/configeditor"
	"github.com/modex/modex/ui/graphview"
	"github.com/modex/modex/ui/offline"
	"github.com/modex/modex/ui/testview"
	"github.com/modex/modex/ui/widgets"
)

// session is everything that belongs to one opened project: the project and
// its model, the selected configuration and its edits, the last exploration
// and the selection in it, the configuration editor, the details panel, the
// Test and Offline tabs and Find. Opening a project replaces the session as
// a whole (with new widgets for its panels), so nothing of the previous
// project survives a switch. The fields shared with goroutines are guarded
// by Workbench.mu, like Workbench.s itself.
type session struct {
	project *projects.Project
	model   *model.StarModel
	config  string
	dirty   bool
	last    *explore.Exploration
	doc     *graph.Doc     // the full document of the last exploration shown
	full    *explore.Graph // its engine graph
	center  string         // state around which a large graph is shown
	// centerKey and centerPassive are the selected state's identity (its
	// model state's canonical key, and whether it is the passive twin):
	// a new exploration selects the same state under its new id, or
	// nothing, never another state with the old id.
	centerKey     string
	centerPassive bool
	// overview is how a graph too large to draw whole is shown: the
	// quotient by this expression (overviewAuto: the first grouping, or
	// depth), or "" for the neighbourhood of center.
	overview string
	// whole draws graphs up to DrawLimit states whole (large graphs: whole
	// graph); else graphs past OverviewAbove show as overview or neighbourhood.
	whole bool
	// minimal shows the minimised graph (states with the same future
	// merged, see explore.Minimize) instead of the graph.
	minimal bool
	// classes maps the shown overview's classes to a state of each,
	// members to all their graph states, classLabels to their labels.
	classes     map[string]string
	members     map[string]map[string]bool
	classLabels map[string]string
	// within, when set, shows only the states of an opened class.
	within      map[string]bool
	withinLabel string

	editor  *configeditor.Editor
	details *graphview.Inspector
	test    *testview.View
	offline *offline.View
	find    *widgets.Entry
	matches []string // the states Find matched (graph ids)
	// matchesOf is the exploration matches belong to.
	matchesOf *explore.Exploration
	history   []string // the states selected, for Back and Forward
	histAt    int      // the current one, -1 before any
	matchAt   int      // the one shown last, -1 for none
	walk      []step   // the transitions the arrow keys followed (see Follow)
	// reselect shows the selected state's details and path again when the
	// next drawing of the exploration is on screen (back from the Test tab).
	reselect bool
	findErr  *widget.Label
}

// newSession builds the per-project panels for p (nil: no project yet).
func newSession(wb *Workbench, p *projects.Project) *session {
	s := &session{project: p, overview: overviewAuto, matchAt: -1, histAt: -1}
	s.details = graphview.NewInspector()
	s.details.Goto = wb.SelectState
	s.details.OnChange = func() {
		if wb.s == s && wb.views != nil {
			wb.arrange()
		}
	}
	// The views reach the session through the workbench: wb.s must be s
	// before they are used (setSession).
	s.test = testview.New(viewHost{wb, s})
	s.offline = offline.New(viewHost{wb, s})
	s.find = newEntry(wb)
	s.find.PlaceHolder = "find states: expression over s, e.g. pending(s) == 1"
	s.find.OnSubmitted = func(string) { wb.Find() }
	// One line, always there: an error must not push the graph up. The
	// whole message also goes to the status line.
	s.findErr = widget.NewLabel("")
	s.findErr.Importance = widget.DangerImportance
	s.findErr.Truncation = fyne.TextTruncateEllipsis
	return s
}

// setSession installs s and its panels in the window.
func (wb *Workbench) setSession(s *session) {
	if wb.win != nil {
		wb.dropFocus()
	}
	wb.mu.Lock()
	wb.s = s
	wb.mu.Unlock()
	swap := func(holder *fyne.Container, o fyne.CanvasObject) {
		holder.Objects = []fyne.CanvasObject{o}
		holder.Refresh()
	}
	swap(wb.detailsHolder, s.details.Content())
	swap(wb.testHolder, s.test.Content())
	swap(wb.offlineHolder, s.offline.Content())
	if wb.views != nil {
		wb.views.Set(s.test.RunView())
		wb.views.Set(s.offline.SuiteView())
		wb.views.Set(s.offline.ReplayView())
		wb.arrange() // the new session's inspector is empty
	}
	swap(wb.findHolder, s.find)
	swap(wb.findErrHolder, s.findErr)
	swap(wb.edHolder, widget.NewLabel("Open a project to edit its configurations."))
	if wb.largeMode != nil {
		wb.largeMode.SetSelected(largeOverview)
		wb.overviewBy.SetText("")
		wb.minimal.SetChecked(false)
	}
}

// holders are the containers of the session's panels, whose content
// setSession swaps: the side panel's tabs (test and offline controls), the
// inspector, Find (the central area's result views are swapped by the area,
// see area.Set).
type holders struct {
	detailsHolder, testHolder, offlineHolder, findHolder, findErrHolder *fyne.Container
	// graphHolder holds the graph's panel: the graph alone, or the graph
	// and the inspector (see arrange).
	graphHolder *fyne.Container
}

func newHolders() holders {
	st := container.NewStack
	return holders{detailsHolder: st(), testHolder: st(), offlineHolder: st(), findHolder: st(), findErrHolder: st(),
		graphHolder: st()}
}
