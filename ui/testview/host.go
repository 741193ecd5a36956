package testview

import (
	"image"
	"io"

	"fyne.io/fyne/v2"

	"github.com/modex/modex/engine/explore"
	"github.com/modex/modex/engine/model"
	"github.com/modex/modex/graph"
	"github.com/modex/modex/projects"
	"github.com/modex/modex/ui/area"
	"github.com/modex/modex/ui/graphview"
	"github.com/modex/modex/ui/widgets"
)

// Host is what the test dashboard needs of the workbench that holds it:
// the open project, the graph view and the inspector it shares with the
// exploration, the status line, and the workbench's ways of running
// things. Each project's dashboard has a Host of its own; its methods are
// called on the UI goroutine.
type Host interface {
	// Open shows the dashboard's run view in the central area.
	area.Opener
	// Project is the open project.
	Project() *projects.Project
	// Model is the project's model as loaded for the selected
	// configuration (nil when it does not load).
	Model() *model.StarModel
	// Config is the selected configuration's name.
	Config() string
	// Active reports whether the dashboard belongs to the open project: a
	// closed project's must not touch the shared graph, inspector or
	// status line.
	Active() bool
	// TabShown reports whether the dashboard's tab (the side panel's
	// Test tab) is selected.
	TabShown() bool
	// ShowTab selects the dashboard's tab.
	ShowTab()
	// Graph is the graph view the dashboard shares with the exploration.
	Graph() *graphview.View
	// Details is the inspector beside the graph.
	Details() *graphview.Inspector
	// SetStatus says text on the status line.
	SetStatus(text string)
	// SetNote says text above the graph ("" hides the note).
	SetNote(text string)
	// StopExploring cancels a running exploration (it would fight over
	// the graph view).
	StopExploring()
	// Consented runs start once the user allowed the adapter command to
	// run (command "" stands for the project's own).
	Consented(command string, start func())
	// Do runs f on the UI goroutine.
	Do(f func())
	// Shortcut runs the workbench's shortcut s stands for, typed in one
	// of the dashboard's fields; false when there is none.
	Shortcut(s fyne.Shortcut) bool
	// SaveSVG saves a picture (the sequence chart) where the user says.
	SaveSVG(what, picture, name string, write func(io.Writer) error)
	// Explored is the exploration shown last, its graph and its
	// configuration (nil when there is none).
	Explored() (*explore.Exploration, *explore.Graph, string)
	// Redraw draws the exploration's graph again (the dashboard's Remark
	// marks a test on it once drawn).
	Redraw()
	// DrawnIndex gives the index, in the graph on screen, of what stands
	// for an exploration's state (itself, or its overview's class); -1
	// when neither is drawn.
	DrawnIndex() func(id string) int
}

// newEntry is a single-line field whose Ctrl (Cmd) shortcuts are the
// workbench's.
func (tv *View) newEntry() *widgets.Entry { return widgets.NewEntry(tv.host.Shortcut) }

// drawing is a laid-out graph of the test, ready for the UI goroutine.
type drawing struct {
	doc, view *graph.Doc // the whole graph and the part drawn
	lay       *graph.Layout
	img       image.Image
	scale     float64 // the scale img was drawn at
	note      string  // what the drawing leaves out
	err       error
}

// docPath is the shortest path (transition indices) from the initial state
// of a document to state i.
func docPath(d *graph.Doc, i int) []int {
	index := make(map[string]int, len(d.States))
	start := -1
	for j, s := range d.States {
		index[s.ID] = j
		if s.Initial {
			start = j
		}
	}
	if start < 0 || start == i {
		return nil
	}
	out := make([][]int, len(d.States)) // transitions leaving each state
	for ti, t := range d.Transitions {
		out[index[t.From]] = append(out[index[t.From]], ti)
	}
	via := map[int]int{start: -1} // state -> transition that reached it
	for queue := []int{start}; len(queue) > 0; queue = queue[1:] {
		for _, ti := range out[queue[0]] {
			to := index[d.Transitions[ti].To]
			if _, seen := via[to]; !seen {
				via[to] = ti
				queue = append(queue, to)
			}
		}
	}
	if _, ok := via[i]; !ok {
		return nil
	}
	var path []int
	for s := i; s != start; s = index[d.Transitions[via[s]].From] {
		path = append([]int{via[s]}, path...)
	}
	return path
}
