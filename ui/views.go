package ui

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"github.com/modex/modex/ui/widgets"
)

// The views of the central area, in the order of its bar.
const (
	viewGraph  = iota // the state graph (with the inspector beside it)
	viewRun           // a test's dashboard: chart, step log, failure, sequence chart
	viewSuite         // an offline suite: its cases, a case's plan and run
	viewReplay        // a replayed trace or a checked history: events, sequence chart, timeline
	viewCount
)

// viewNames are the bar's buttons.
var viewNames = [viewCount]string{"Graph", "Test run", "Suite", "Replay"}

// viewArea is the workbench's central area, where results are read: one
// view at a time gets the whole of it, or a result view shares it with the
// graph, side by side (a result opens that way: a test's run beside the
// graph it walks, clicking either selects in both). The side panel holds
// the controls; the views hold what they produce. Every view claims the
// area the same way: show.
type viewArea struct {
	buttons [viewCount]*widgets.Button
	views   [viewCount]fyne.CanvasObject
	beside  *widget.Check
	split   *container.Split
	body    *fyne.Container
	content fyne.CanvasObject
	cur     int
	// onShow is called after a view was shown (i, and whether the graph
	// is on screen too).
	onShow func(i int, graphShown bool)
}

// newViewArea builds the area around its views (holders whose content the
// session swaps), the graph's first.
func newViewArea(views [viewCount]fyne.CanvasObject) *viewArea {
	va := &viewArea{views: views, cur: -1}
	var bar []fyne.CanvasObject
	for i := range viewCount {
		va.buttons[i] = widgets.NewButton(viewNames[i], func() { va.show(i, va.beside.Checked) })
		bar = append(bar, va.buttons[i])
	}
	va.beside = widget.NewCheck("beside the graph", func(on bool) {
		if va.cur >= 0 {
			va.show(va.cur, on)
		}
	})
	va.split = container.NewHSplit(views[viewGraph], views[viewRun])
	va.split.Offset = 0.5
	va.body = container.NewStack()
	head := container.NewBorder(nil, nil, container.NewHBox(bar...), va.beside)
	va.content = container.NewBorder(head, nil, nil, nil, va.body)
	va.show(viewGraph, false)
	return va
}

// show gives view i the area, or the area beside the graph.
func (va *viewArea) show(i int, beside bool) {
	beside = beside && i != viewGraph
	if va.beside.Checked != beside {
		va.beside.Checked = beside // no OnChanged: this is it
		va.beside.Refresh()
	}
	if i == viewGraph {
		va.beside.Disable()
	} else {
		va.beside.Enable()
	}
	var o fyne.CanvasObject = va.views[i]
	if beside {
		va.split.Leading, va.split.Trailing = va.views[viewGraph], va.views[i]
		va.split.Refresh()
		o = va.split
	}
	if va.cur != i || len(va.body.Objects) != 1 || va.body.Objects[0] != o {
		va.body.Objects = []fyne.CanvasObject{o}
		va.body.Refresh()
	}
	va.cur = i
	for k, b := range va.buttons {
		imp := widget.LowImportance
		if k == i {
			imp = widget.HighImportance
		}
		if b.Importance != imp {
			b.Importance = imp
			b.Refresh()
		}
	}
	if va.onShow != nil {
		va.onShow(i, i == viewGraph || beside)
	}
}

// open shows a result view as it arrives: beside the graph when the graph
// was on screen (alone or beside another result), else alone, as the view
// the user was reading.
func (va *viewArea) open(i int) {
	if va.cur == i {
		return
	}
	va.show(i, va.cur == viewGraph || va.beside.Checked)
}

// graphShown reports whether the graph is on screen.
func (va *viewArea) graphShown() bool { return va.cur == viewGraph || va.beside.Checked }
