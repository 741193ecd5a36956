package ui

import (
	"fmt"

	"github.com/modex/modex/engine/explore"
)

// explored shows how exploration gen ended: its error, or x, whose view
// is prepared (the status says so meanwhile) and then presented.
func (wb *Workbench) explored(gen int, x *explore.Exploration, err error) {
	if err != nil {
		wb.do(func() {
			if wb.current(gen) {
				wb.finishRun()
				wb.status.SetText("Error: " + err.Error())
				wb.shown()
			}
		})
		return
	}
	// Building a large graph's view (its document, an overview chosen from
	// the model's variables) takes seconds, a million states half a minute:
	// the status says the exploration ended and what runs now.
	wb.do(func() {
		if wb.current(gen) {
			wb.say(preparingText(x))
		}
	})
	wb.present(gen, wb.nextSeq(), x, true)
}

// preparingText is the status while the view of x, explored, is prepared.
func preparingText(x *explore.Exploration) string {
	return fmt.Sprintf("Explored: %s, %s in %.1f s; preparing the view of the graph…",
		explore.Count(len(x.States), "model state"), explore.Count(x.Stats.Transitions, "transition"), x.Stats.Seconds)
}

// say sets the status line (and tells onStatus, when set).
func (wb *Workbench) say(text string) {
	wb.status.SetText(text)
	if wb.onStatus != nil {
		wb.onStatus(text)
	}
}
