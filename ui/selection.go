package ui

import (
	"fmt"
	"image/color"
	"strings"

	"github.com/modex/modex/engine/explore"
	"github.com/modex/modex/engine/model"
	"github.com/modex/modex/ui/configeditor"
	"github.com/modex/modex/ui/graphview"
)

// SelectState selects a state by id, moving the view to it when the graph
// is shown in part.
func (wb *Workbench) SelectState(id string) {
	wb.remember(id)
	wb.showState(id)
}

// showState selects a state and brings it into view, without recording it
// in the history (Back and Forward use it).
func (wb *Workbench) showState(id string) {
	// On an overview, the state's class opens with the state selected in
	// it (the overview draws classes, not states).
	if c := wb.classOnScreen(id); c != "" && wb.openClassAt(c, id) {
		wb.selectDocState(id)
		return
	}
	wb.selectDocState(id)
	wb.mu.Lock()
	partial := wb.s.doc != nil && len(wb.s.doc.States) > DrawLimit && wb.s.within == nil
	wb.mu.Unlock()
	if v := wb.graph.Doc(); v != nil && !partial {
		if i := v.StateIndex(id); i >= 0 {
			wb.graph.Select(i)
			return
		}
	}
	// A graph shown in part recentres on the state, even one on screen (a
	// dashed one has more beyond).
	wb.redraw()
}

func (wb *Workbench) selectDocState(id string) {
	wb.mu.Lock()
	doc, full, x := wb.s.doc, wb.s.full, wb.s.last
	wb.s.center = id
	wb.mu.Unlock()
	if doc == nil || full == nil {
		return
	}
	i := doc.StateIndex(id)
	if i < 0 {
		return
	}
	if x != nil && full.States[i].Model >= 0 && int(full.States[i].Model) < len(x.States) {
		wb.mu.Lock()
		wb.s.centerKey, wb.s.centerPassive = x.StateKey(int(full.States[i].Model)), full.States[i].Kind == explore.Passive
		wb.mu.Unlock()
	}
	path := full.PathTo(i)
	wb.s.details.Show(doc, i, path)
	marks := map[int]color.NRGBA{}
	if v := wb.graph.Doc(); v != nil {
		// Find's matches stay marked while ▶ steps through them; the path
		// to the selected state is drawn over them.
		drawn := wb.drawnIndex() // a state, or its overview's class
		for _, m := range wb.s.matches {
			if j := drawn(m); j >= 0 {
				marks[j] = graphview.MarkFound
			}
		}
		for _, ti := range path {
			if j := v.StateIndex(doc.Transitions[ti].From); j >= 0 {
				marks[j] = graphview.MarkPath
			}
		}
	}
	wb.graph.SetMarks(marks)
	if x != nil && int(full.States[i].Model) < len(x.States) {
		key := x.StateKey(int(full.States[i].Model))
		if x.States[full.States[i].Model].ModelErr {
			wb.s.details.ShowActions(nil, nil)
			return
		}
		gen := wb.gen
		go func() {
			st, err := explore.Explain(x.Model, x.Config, key)
			wb.do(func() {
				wb.mu.Lock()
				same := wb.s.center == id
				wb.mu.Unlock()
				if wb.current(gen) && same {
					wb.s.details.ShowActions(st, err)
				}
			})
		}()
	}
}

// Find marks the states where the expression in the find box is true.
func (wb *Workbench) Find() {
	wb.mu.Lock()
	x, m, full := wb.s.last, wb.s.model, wb.s.full
	wb.mu.Unlock()
	src := strings.TrimSpace(wb.s.find.Text)
	if x == nil || m == nil || src == "" {
		wb.s.matches, wb.s.matchAt = nil, -1
		wb.graph.SetMarks(nil)
		wb.s.findErr.SetText("")
		return
	}
	expr, err := m.Compile(src, model.Pos{File: "find", Line: 1, Col: 1})
	if err != nil {
		wb.s.findErr.SetText(configeditor.ExprError(err))
		wb.status.SetText("Find: " + configeditor.ExprError(err))
		return
	}
	wb.s.findErr.SetText("")
	gen := wb.gen
	go func() {
		found, err := x.Find(expr)
		wb.do(func() {
			if !wb.current(gen) {
				return
			}
			if err != nil {
				wb.s.findErr.SetText(err.Error())
				wb.status.SetText("Find: " + err.Error())
			}
			models := map[int32]bool{}
			for _, i := range found {
				models[int32(i)] = true
			}
			marks := map[int]color.NRGBA{}
			var matches []string     // graph state ids, in graph order
			drawn := wb.drawnIndex() // a state, or the overview's class that holds it
			shown := 0
			for gi, s := range full.States {
				if !models[s.Model] {
					continue
				}
				matches = append(matches, full.States[gi].ID)
				if j := drawn(full.States[gi].ID); j >= 0 {
					marks[j] = graphview.MarkFound
					shown++
				}
			}
			wb.graph.SetMarks(marks)
			wb.s.matches, wb.s.matchAt, wb.s.matchesOf = matches, -1, x
			wb.s.details.ShowMatches(src, matches, wb.docLabel)
			wb.status.SetText(findSummary(len(matches), src, shown, len(marks), wb.overviewShown()))
		})
	}()
}

// findSummary says what Find found and where it is on screen: states, or
// the overview's classes that hold them.
func findSummary(matches int, src string, shown, nodes int, overview bool) string {
	where := fmt.Sprintf("%d shown", shown)
	if overview {
		where = fmt.Sprintf("in %s of the overview, marked", explore.Count(nodes, "class"))
	}
	if shown < matches {
		where += fmt.Sprintf("; %d not in this view", matches-shown)
	}
	return fmt.Sprintf("%s %s (%s); the Find row's arrows step through them",
		explore.Count(matches, "state"), map[bool]string{true: "matches", false: "match"}[matches == 1]+" "+src, where)
}

// NextMatch goes to the next (step 1) or previous (-1) state Find matched.
func (wb *Workbench) NextMatch(step int) {
	n := len(wb.s.matches)
	if n == 0 {
		return
	}
	wb.s.matchAt = ((wb.s.matchAt+step)%n + n) % n
	id := wb.s.matches[wb.s.matchAt]
	wb.SelectState(id)
	wb.status.SetText(fmt.Sprintf("match %d of %d: %s", wb.s.matchAt+1, n, id))
}

// docLabel is the label of a state of the last exploration's document.
func (wb *Workbench) docLabel(id string) string {
	wb.mu.Lock()
	doc := wb.s.doc
	wb.mu.Unlock()
	if doc == nil {
		return ""
	}
	if i := doc.StateIndex(id); i >= 0 {
		return doc.States[i].Label
	}
	return ""
}

// remember records a selection in the history (dropping what was ahead).
func (wb *Workbench) remember(id string) {
	h := wb.s.history[:wb.s.histAt+1]
	if len(h) > 0 && h[len(h)-1] == id {
		return
	}
	wb.s.history = append(h, id)
	wb.s.histAt = len(wb.s.history) - 1
}

// Back and Forward go through the selections (Alt+Left, Alt+Right).
func (wb *Workbench) Back() { wb.moveInHistory(-1) }

// Forward goes to the next selection in the history.
func (wb *Workbench) Forward() { wb.moveInHistory(1) }

func (wb *Workbench) moveInHistory(step int) {
	at := wb.s.histAt + step
	if at < 0 || at >= len(wb.s.history) {
		return
	}
	wb.s.histAt = at
	id := wb.s.history[at]
	wb.showState(id)
	word := "Back"
	if step > 0 {
		word = "Forward"
	}
	wb.status.SetText(fmt.Sprintf("%s to %s (%d of %d selections)", word, id, at+1, len(wb.s.history)))
}
