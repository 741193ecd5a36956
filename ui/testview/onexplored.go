package testview

import (
	"fmt"
	"image/color"

	"github.com/modex/modex/engine/conform"
	"github.com/modex/modex/engine/explore"
	"github.com/modex/modex/ui/graphview"
)

// A test can be watched on the explored graph instead of its own graph of
// the states it visited: the configuration's graph, drawn as the user
// knows it (its layout does not change as the test goes), with the states
// the test visited in orange, the one it is in in blue and where a run
// failed in red. The test's own graph is built as it goes and, for a model
// of a few dozen states, is a new tangle at every step.

// visitedKeys are the model states a test visited, off the UI goroutine:
// all of them, the current one and those where runs failed.
type visitedKeys struct {
	all     map[string]bool
	current string
	failed  map[string]bool
}

// keysOf reads v's model states (the failure nodes stand for the state
// the run failed in: the one they hang from).
func keysOf(v *conform.Visited) visitedKeys {
	g, keys := v.Graph(), v.Keys()
	vk := visitedKeys{all: map[string]bool{}, failed: map[string]bool{}}
	from := map[int]int{} // a failure node's source
	for _, t := range g.Trans {
		if keys[t.To] == "" {
			from[t.To] = t.From
		}
	}
	for i, k := range keys {
		if k != "" {
			vk.all[k] = true
		} else if src, ok := from[i]; ok && keys[src] != "" {
			vk.failed[keys[src]] = true
		}
	}
	if c := v.Current(); c >= 0 && c < len(keys) {
		vk.current = keys[c]
		if vk.current == "" {
			if src, ok := from[c]; ok {
				vk.current = keys[src]
			}
		}
	}
	return vk
}

// onExplored reports whether the test is watched on the explored graph:
// asked for, and the exploration on screen is of the test's configuration.
func (tv *View) onExplored() bool {
	host := tv.host
	if tv.explored == nil || !tv.explored.Checked || !host.Active() {
		return false
	}
	x, full, config := host.Explored()
	return x != nil && full != nil && tv.config == config
}

// showOnExplored marks the visited states on the exploration's graph,
// drawing it first when the test's own graph is on screen.
func (tv *View) showOnExplored(vk visitedKeys) {
	tv.marked = &vk
	if !tv.onScreen() {
		return
	}
	if tv.onGraph { // the test's graph or its placeholder: the exploration's comes back
		tv.onGraph = false
		tv.host.Redraw() // marked once drawn (Remark)
		return
	}
	tv.Remark()
}

// Remark puts the test's marks on the exploration's graph just drawn.
func (tv *View) Remark() {
	vk := tv.marked
	if vk == nil || !tv.onExplored() || !tv.onScreen() {
		return
	}
	host := tv.host
	x, full, _ := host.Explored()
	drawn := host.DrawnIndex()
	marks := map[int]color.NRGBA{}
	for _, s := range full.States {
		key := x.StateKey(int(s.Model))
		c, ok := graphview.MarkPath, vk.all[key]
		switch {
		case vk.failed[key]:
			c, ok = graphview.MarkCurrent, true
		case key == vk.current:
			c = graphview.MarkSelected
		}
		if !ok {
			continue
		}
		if i := drawn(s.ID); i >= 0 {
			if old, had := marks[i]; !had || old == graphview.MarkPath {
				marks[i] = c
			}
		}
	}
	host.Graph().SetMarks(marks)
	host.SetStatus(fmt.Sprintf("The test on the explored graph: %s visited (orange), the current one blue, where runs failed red.",
		explore.Count(len(vk.all), "model state")))
}

// setOnExplored switches between the test's own graph and the explored
// graph with the test's marks.
func (tv *View) setOnExplored(on bool) {
	if !tv.onScreen() {
		return
	}
	switch {
	case on && tv.marked != nil && tv.onExplored():
		tv.onGraph = true
		tv.showOnExplored(*tv.marked)
	case !on && tv.shown != nil:
		tv.host.Graph().FitNext()
		tv.show(*tv.shown, tv.shownCur)
	}
}
