package ui

import (
	"fmt"

	"fyne.io/fyne/v2"
)

// step is a transition the arrow keys followed: from a state, the index of
// the transition among the state's outgoing ones.
type step struct {
	from, to string
	index    int
}

// Follow walks the graph from the selected state with the arrow keys, as in
// a tree: Down follows the first outgoing transition, Right and Left switch
// to the next or previous transition of the same state, Up goes back the
// way the keys came (or, at the start of a walk, to the state before on a
// shortest path from the initial state). Each move selects the state
// reached and says which transition led there.
func (wb *Workbench) Follow(key fyne.KeyName) {
	wb.mu.Lock()
	doc, full, cur := wb.s.doc, wb.s.full, wb.s.center
	wb.mu.Unlock()
	if doc == nil || full == nil || doc.StateIndex(cur) < 0 {
		return
	}
	walk := wb.s.walk
	if n := len(walk); n > 0 && walk[n-1].to != cur {
		walk = nil // the selection moved by other means: a new walk
	}
	outgoing := func(id string) []int {
		var out []int
		for i, t := range doc.Transitions {
			if t.From == id {
				out = append(out, i)
			}
		}
		return out
	}
	move := func(from string, index int) {
		out := outgoing(from)
		if len(out) == 0 {
			wb.status.SetText(fmt.Sprintf("no transition leaves %s", from))
			return
		}
		index = (index%len(out) + len(out)) % len(out)
		t := doc.Transitions[out[index]]
		walk = append(walk, step{from: from, to: t.To, index: index})
		wb.s.walk = walk
		wb.SelectState(t.To)
		label := t.Label
		if t.Kind == "timeout" {
			label = "timeout"
		}
		wb.status.SetText(fmt.Sprintf("%s —%s→ %s  (transition %d of %d; ←/→ the others, ↑ back, ↓ on)", from, label, t.To, index+1, len(out)))
	}
	switch key {
	case fyne.KeyDown:
		move(cur, 0)
	case fyne.KeyRight, fyne.KeyLeft:
		d := 1
		if key == fyne.KeyLeft {
			d = -1
		}
		if n := len(walk); n > 0 {
			last := walk[n-1]
			walk = walk[:n-1]
			move(last.from, last.index+d)
		} else {
			move(cur, 0)
		}
	case fyne.KeyUp:
		if n := len(walk); n > 0 {
			wb.s.walk = walk[:n-1]
			wb.SelectState(walk[n-1].from)
			wb.status.SetText(fmt.Sprintf("back to %s", walk[n-1].from))
			return
		}
		path := full.PathTo(doc.StateIndex(cur))
		if len(path) == 0 {
			wb.status.SetText(fmt.Sprintf("%s is the initial state", cur))
			return
		}
		prev := doc.Transitions[path[len(path)-1]].From
		wb.s.walk = nil
		wb.SelectState(prev)
		wb.status.SetText(fmt.Sprintf("%s, the state before %s on a shortest path from the initial state", prev, cur))
	}
}
