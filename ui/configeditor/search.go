package configeditor

import (
	"strconv"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/widget"

	"github.com/modex/modex/engine/explore"
	"github.com/modex/modex/ui/widgets"
)

// The search choices as the editor shows them, and as the project file
// writes them.
var searchNames = []string{"breadth-first (every state)", "directed search (random walks)"}

func searchValue(shown string) string {
	if shown == searchNames[1] {
		return "walks"
	}
	return "bfs"
}

// search edits how the configuration is explored: breadth-first, or a
// directed search by weighted walks with their number, depth and seed.
func (ce *Editor) search() []fyne.CanvasObject {
	s, r := ce.spec, ce.resolved
	inherited := "bfs" // what an empty search means here
	if s.Search == "" && r.Search != "" {
		inherited = r.Search
	}
	mode := widgets.NewSelect(searchNames, func(v string) {
		cur := s.Search
		if cur == "" {
			cur = inherited
		}
		if want := searchValue(v); want != cur {
			s.Search = want
			ce.changed()
		}
	})
	if r.Search == "walks" {
		mode.SetSelected(searchNames[1])
	} else {
		mode.SetSelected(searchNames[0])
	}
	ce.choices["search"] = mode
	return []fyne.CanvasObject{
		widgets.Heading("Search"),
		widgets.HintLabel("Directed search follows the model by walks, each action drawn by its test weight: for state spaces too large to enumerate."),
		mode,
		container.New(layout.NewFormLayout(),
			widget.NewLabel("walks"), ce.intFieldOr("walks", s.Walks, r.Walks, strconv.Itoa(explore.DefaultWalks), func(v *int) { s.Walks = v }),
			widget.NewLabel("walk depth"), ce.intFieldOr("walk_depth", s.WalkDepth, r.WalkDepth, strconv.Itoa(explore.DefaultWalkDepth), func(v *int) { s.WalkDepth = v }),
			widget.NewLabel("seed"), ce.seedField(s.Seed, r.Seed, func(v *int64) { s.Seed = v }),
		),
	}
}

// seedField edits a walk seed (empty: one from the clock, printed).
func (ce *Editor) seedField(own, inherited *int64, apply func(*int64)) fyne.CanvasObject {
	val, ph := "", "from the clock"
	if own != nil {
		val = strconv.FormatInt(*own, 10)
	} else if inherited != nil {
		ph = strconv.FormatInt(*inherited, 10)
	}
	return ce.field("seed", val, ph, false, func(s string) string {
		if s == "" {
			return ""
		}
		if _, err := strconv.ParseInt(s, 10, 64); err != nil {
			return "a whole number"
		}
		return ""
	}, func(s string) {
		if s == "" {
			apply(nil)
			return
		}
		n, _ := strconv.ParseInt(s, 10, 64)
		apply(&n)
	})
}
