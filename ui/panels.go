package ui

import (
	"context"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/modex/modex/ui/area"
	"github.com/modex/modex/ui/widgets"
)

// buildPanels builds the graph's panel (its controls, the graph, Find) and
// puts it between the side panel and the details panel.
func (wb *Workbench) buildPanels() {
	wb.largeMode = widgets.NewSelect([]string{largeOverview, largeNeighbourhood, largeWhole}, wb.setLargeMode)
	wb.overviewBy = newEntry(wb)
	wb.overviewBy.SetPlaceHolder("by: chosen from the model")
	wb.overviewBy.OnSubmitted = func(string) { wb.setLargeMode(largeOverview) }
	wb.largeMode.SetSelected(largeOverview)
	wb.minimal = widget.NewCheck("minimised", wb.setMinimal)
	wb.byMenu = widgets.NewButton("by…", wb.showOverviewChoices)
	wb.pathMode = widgets.NewSelect([]string{pathNone, pathToHere, pathToError, pathAccepting}, wb.showPath)
	wb.pathMode.SetSelected(pathNone)
	// The graph's controls in groups that wrap onto a second row when the
	// panel is narrow (the window's minimum width does not depend on them).
	zoom := widgets.WrapRow(
		container.NewHBox(widgets.NewButton("−", wb.graph.ZoomOut), widgets.NewButton("Fit", wb.graph.Fit), widgets.NewButton("+", wb.graph.ZoomIn)),
		container.NewHBox(widget.NewLabel("large graphs:"), wb.largeMode),
		container.NewHBox(container.NewGridWrap(fyne.NewSize(170, 36), wb.overviewBy), wb.byMenu),
		container.NewHBox(widget.NewLabel("steps:"), wb.radiusS),
		wb.minimal,
		container.NewHBox(widget.NewLabel("path:"), wb.pathMode))
	findRow := container.NewBorder(nil, wb.findErrHolder, nil, container.NewHBox(widgets.NewButton("Find", wb.Find),
		widgets.NewButtonWithIcon("", theme.NavigateBackIcon(), func() { wb.NextMatch(-1) }), widgets.NewButtonWithIcon("", theme.NavigateNextIcon(), func() { wb.NextMatch(1) })), wb.findHolder)
	center := container.NewBorder(container.NewVBox(zoom, wb.note), findRow, nil, nil, wb.graph.Container())
	// The panels have a width below which they do not go (so that their
	// text does not wrap a character a line): together they make the
	// window's minimum size, which no content changes (see fixedMin).
	widgets.OnWrap(zoom, center.Refresh)
	wb.center = widgets.AtLeast(fyne.NewSize(240, 200), center)
	// The inspector (the selected state's details) beside the graph,
	// taking room only while it has something to show.
	right := container.NewHSplit(wb.center, widgets.AtLeast(fyne.NewSize(180, 0), wb.detailsHolder))
	right.Offset = 0.75 // the graph first
	wb.views = area.New(wb.graphPane(), wb.s.test.RunView(), wb.s.offline.SuiteView(), wb.s.offline.ReplayView())
	split := container.NewHSplit(widgets.AtLeast(fyne.NewSize(260, 0), wb.tabs), wb.views.Content())
	split.Offset = 0.25
	wb.splits = [2]*container.Split{split, right}
	wb.body = container.NewStack(split)
	wb.arrange()
}

// graphPane is the graph's view of the central area: the graph's panel
// (with the inspector beside the graph, see arrange).
func (wb *Workbench) graphPane() area.View {
	return area.Pane{Name: "Graph", Body: wb.graphHolder}
}

// Preference keys of the window's layout.
const (
	prefWidth, prefHeight = "windowWidth", "windowHeight"
	prefSplit, prefRight  = "splitOffset", "detailsOffset"
	prefHidePanel         = "hidePanel"
	prefHideDetails       = "hideDetails"
)

// restoreLayout sets the dividers (and the window's size) as the user
// left them.
func (wb *Workbench) restoreLayout() {
	if wb.app == nil {
		return
	}
	pr := wb.app.Preferences()
	for i, key := range []string{prefSplit, prefRight} {
		if v := pr.FloatWithFallback(key, -1); v > 0.05 && v < 0.95 {
			wb.splits[i].Offset = v
		}
	}
	wb.hidePanel, wb.hideDetails = pr.Bool(prefHidePanel), pr.Bool(prefHideDetails)
	if wb.hidePanel || wb.hideDetails {
		wb.arrange()
	}
	if w, h := pr.FloatWithFallback(prefWidth, 0), pr.FloatWithFallback(prefHeight, 0); w >= 800 && h >= 500 {
		wb.win.Resize(fyne.NewSize(float32(w), float32(h)))
	}
}

// ScreenSize, when set (by the GUI's main), returns the screen's size in
// pixels; it is called on the main thread once the app has started.
var ScreenSize func() (fyne.Size, bool)

// fitScreen shrinks a window larger than the screen (a size remembered
// from a larger screen, or the default size on a small one) to fit it, no
// smaller than the workbench's minimum.
func (wb *Workbench) fitScreen() {
	if ScreenSize == nil {
		return
	}
	px, ok := ScreenSize()
	if !ok {
		return
	}
	scale := wb.win.Canvas().Scale()
	if scale <= 0 {
		scale = 1
	}
	// Room for the window's frame and the desktop's panels.
	room := fyne.NewSize(px.Width/scale-16, px.Height/scale-64)
	if size, fit := wb.win.Canvas().Size(), fitSize(wb.win.Canvas().Size(), room); fit != size {
		wb.win.Resize(fit)
	}
}

// fitSize is size made to fit room, but no smaller than the workbench's
// minimum (a screen smaller than that gets a window that scrolls off it).
func fitSize(size, room fyne.Size) fyne.Size {
	return fyne.NewSize(max(min(size.Width, room.Width), minWindow.Width), max(min(size.Height, room.Height), minWindow.Height))
}

// minWindow is the smallest window the workbench is made to fit whole.
var minWindow = fyne.NewSize(1024, 640)

// saveLayout keeps the window's size and dividers in the preferences.
func (wb *Workbench) saveLayout() {
	if wb.app == nil || wb.splits[0] == nil {
		return
	}
	pr := wb.app.Preferences()
	pr.SetFloat(prefSplit, wb.splits[0].Offset)
	pr.SetFloat(prefRight, wb.splits[1].Offset)
	size := wb.win.Canvas().Size()
	pr.SetFloat(prefWidth, float64(size.Width))
	pr.SetFloat(prefHeight, float64(size.Height))
}

// togglePanel hides or shows the side panel (configuration, model, test,
// offline): hidden, the graph takes its room.
func (wb *Workbench) togglePanel() {
	wb.hidePanel = !wb.hidePanel
	wb.arrange()
	wb.savePanels()
}

// toggleDetails hides or shows the details panel.
func (wb *Workbench) toggleDetails() {
	wb.hideDetails = !wb.hideDetails
	wb.arrange()
	wb.savePanels()
}

// arrange puts the shown panels in the window, each split keeping its
// divider for when its panel comes back: the side panel unless hidden, the
// inspector when it has a state to show and is not hidden.
func (wb *Workbench) arrange() {
	var graph fyne.CanvasObject = wb.center
	if !wb.hideDetails && wb.s != nil && wb.s.details.Shown() {
		wb.splits[1].Leading = wb.center
		wb.splits[1].Refresh()
		graph = wb.splits[1]
	}
	if len(wb.graphHolder.Objects) != 1 || wb.graphHolder.Objects[0] != graph {
		wb.graphHolder.Objects = []fyne.CanvasObject{graph}
		wb.graphHolder.Refresh()
	}
	outer := wb.views.Content()
	if !wb.hidePanel {
		wb.splits[0].Trailing = outer
		wb.splits[0].Refresh()
		outer = wb.splits[0]
	}
	if len(wb.body.Objects) != 1 || wb.body.Objects[0] != outer {
		wb.body.Objects = []fyne.CanvasObject{outer}
		wb.body.Refresh()
	}
}

// savePanels keeps which panels the user hid.
func (wb *Workbench) savePanels() {
	if wb.app != nil {
		pr := wb.app.Preferences()
		pr.SetBool(prefHidePanel, wb.hidePanel)
		pr.SetBool(prefHideDetails, wb.hideDetails)
	}
}

// tabChanged shows the graph that belongs to the tab: the test's graph in
// the Test tab (when a test has one), the exploration's elsewhere; the
// details and status follow the graph, so that nothing describes a graph
// that is not on screen.
func (wb *Workbench) tabChanged(item *container.TabItem) {
	tv := wb.s.test
	if item == wb.testTab {
		if tv != nil && tv.Reshow() {
			wb.status.SetText("The test's graph: the states and steps it visited.")
		}
		return
	}
	if tv == nil || !tv.LeaveGraph() {
		return // the exploration's graph is on screen already
	}
	wb.note.Hide()
	wb.graph.FitNext()
	wb.s.details.Clear("Click a state to see its details.")
	wb.mu.Lock()
	last := wb.s.last
	wb.mu.Unlock()
	if last == nil {
		wb.graph.SetMessage("Explore to see the configuration's graph.")
		return
	}
	wb.s.reselect = true // the selected state's details and path come back with the graph
	wb.redraw()
}

// showOverviewChoices pops up the overviews the model's structure suggests
// (explore.OverviewChoices), best first, each with its classes and arcs;
// choosing one shows it. They are computed off the UI goroutine.
func (wb *Workbench) showOverviewChoices() {
	wb.mu.Lock()
	x, gen := wb.s.last, wb.gen
	wb.mu.Unlock()
	if x == nil {
		return
	}
	pos := fyne.CurrentApp().Driver().AbsolutePositionForObject(wb.byMenu).AddXY(0, wb.byMenu.Size().Height)
	go func() {
		cs, err := x.OverviewChoices(context.Background())
		wb.do(func() {
			if !wb.current(gen) {
				return
			}
			if err != nil {
				wb.status.SetText("Overviews: " + err.Error())
				return
			}
			var items []*fyne.MenuItem
			for _, c := range cs {
				c := c
				item := fyne.NewMenuItem(c.Words(), func() {
					wb.overviewBy.SetText(c.By)
					wb.setLargeMode(largeOverview)
				})
				item.Disabled = c.Err != "" || c.Classes > DrawLimit
				items = append(items, item)
			}
			widget.ShowPopUpMenuAtPosition(fyne.NewMenu("", items...), wb.win.Canvas(), pos)
		})
	}()
}
