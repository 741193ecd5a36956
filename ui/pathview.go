package ui

import (
	"context"
	"fmt"
	"image/color"
	"strings"

	"github.com/modex/modex/graph"
	"github.com/modex/modex/ui/graphview"
)

// The path views the graph's "path:" menu offers for the selected state.
const (
	pathNone      = "—"
	pathToHere    = "to here"
	pathToError   = "to an error"
	pathAccepting = "to accepting"
)

// showPath draws, instead of the graph, the path the menu names for the
// selected state as a straight chain with the other moves at each state
// folded (graph.Doc.PathView): the shortest path from the initial state
// to it, or from it to the nearest error (invariant violation or
// deadlock) or accepting state. pathNone shows the graph again.
func (wb *Workbench) showPath(which string) {
	wb.mu.Lock()
	doc, center := wb.s.doc, wb.s.center
	wb.pathShown = which != pathNone && which != ""
	wb.mu.Unlock()
	if !wb.pathShown {
		wb.redraw()
		return
	}
	if doc == nil || center == "" || doc.StateIndex(center) < 0 {
		wb.status.SetText("Select a state first: the path is drawn to or from the selected state.")
		wb.resetPathMode()
		return
	}
	start, path, note, ok := pathFor(doc, center, which)
	if !ok {
		wb.status.SetText(note)
		wb.resetPathMode()
		return
	}
	view := doc.PathView(start, path)
	gen := wb.gen
	go func() {
		lay, err := layoutWithin(context.Background(), view)
		var scale float64
		if err == nil {
			scale = wb.graph.DrawScale(lay)
		}
		wb.do(func() {
			if !wb.current(gen) || !wb.pathShown {
				return
			}
			if err != nil {
				wb.graph.SetMessage("Layout failed: " + err.Error())
				return
			}
			wb.graph.SetGraph(view, lay, lay.Draw(scale, nil), scale)
			// The chain marked as a path (the marks of the graph shown
			// before name its states by index).
			marks := map[int]color.NRGBA{}
			for i, s := range view.States {
				if !strings.HasPrefix(s.ID, graph.FoldPrefix) && s.ID != center {
					marks[i] = graphview.MarkPath
				}
			}
			wb.graph.SetMarks(marks)
			wb.graph.Fit()
			wb.note.SetText(note)
			wb.note.Show()
			if i := view.StateIndex(center); i >= 0 {
				wb.graph.Select(i)
			}
		})
	}()
}

// pathFor finds the path the menu names: its first state, its
// transitions and a note that says what is drawn.
func pathFor(doc *graph.Doc, center, which string) (string, []int, string, bool) {
	fold := " The dashed nodes fold the moves the path does not take (hover them for the list); path: — shows the graph again."
	switch which {
	case pathToHere:
		// From the initial state nearest to it (a model may have several).
		start, path, ok := "", []int(nil), false
		for _, s := range doc.States {
			if s.Initial {
				if p, found := doc.ShortestPath(s.ID, func(s *graph.State) bool { return s.ID == center }); found && (!ok || len(p) < len(path)) {
					start, path, ok = s.ID, p, true
				}
			}
		}
		if !ok {
			return "", nil, center + " is not reachable from the initial state in this graph.", false
		}
		return start, path, fmt.Sprintf("The shortest path from the initial state %s to %s: %s.", start, center, steps(doc, path)) + fold, true
	case pathToError:
		path, ok := doc.ShortestPath(center, func(s *graph.State) bool { return s.Error != "" || s.Kind == "terminal" && !s.Accepting })
		if !ok {
			return "", nil, "No error state and no deadlock can be reached from " + center + ".", false
		}
		return center, path, fmt.Sprintf("The shortest path from %s to the nearest error state or deadlock: %s.", center, steps(doc, path)) + fold, true
	case pathAccepting:
		path, ok := doc.ShortestPath(center, func(s *graph.State) bool { return s.Accepting })
		if !ok {
			return "", nil, "No accepting state can be reached from " + center + ".", false
		}
		return center, path, fmt.Sprintf("The shortest path from %s to the nearest accepting state: %s.", center, steps(doc, path)) + fold, true
	}
	return "", nil, "", false
}

// steps says how long a path is: "4 steps" (timeouts are not steps).
func steps(doc *graph.Doc, path []int) string {
	n, timeouts := 0, 0
	for _, ti := range path {
		if doc.Transitions[ti].Kind == "timeout" {
			timeouts++
		} else {
			n++
		}
	}
	s := fmt.Sprintf("%d steps", n)
	if n == 1 {
		s = "1 step"
	}
	if timeouts > 0 {
		s += fmt.Sprintf(" and %d timeouts", timeouts)
	}
	return strings.TrimSpace(s)
}

// resetPathMode leaves the path view (the graph has been drawn again),
// without drawing anything.
func (wb *Workbench) resetPathMode() {
	wb.pathShown = false
	if wb.pathMode != nil && wb.pathMode.Selected != pathNone {
		onChanged := wb.pathMode.OnChanged
		wb.pathMode.OnChanged = nil
		wb.pathMode.SetSelected(pathNone)
		wb.pathMode.OnChanged = onChanged
	}
}
