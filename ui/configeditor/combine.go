package configeditor

import (
	"slices"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"github.com/modex/modex/engine/explore"
	"github.com/modex/modex/engine/model"
	"github.com/modex/modex/projects"
	"github.com/modex/modex/ui/widgets"
)

// Choice returns a drop-down by path ("actions.Post.combine"), or nil.
func (ce *Editor) Choice(path string) *widgets.Select { return ce.choices[path] }

// combine is the choice of how an action's parameters combine: their
// full product, pairwise or n-wise (up to one fewer than the parameters:
// n-wise over n parameters is their product), with, below it, how many
// combinations that gives in the initial state.
func (ce *Editor) combine(p string, a model.ActionInfo, ra *projects.ActionSpec, own func() *projects.ActionSpec) fyne.CanvasObject {
	inherited, _ := projects.ParseCombine(ra.Combine) // ra is resolved: the configuration's own setting or the one it extends
	options := []string{explore.CombineWords(1)}
	for n := 2; n < len(a.Params) && n <= explore.MaxCombine; n++ {
		options = append(options, explore.CombineWords(n))
	}
	if w := explore.CombineWords(inherited); !slices.Contains(options, w) {
		options = append(options, w) // as the file says, though it is the product here
	}
	hint := widgets.HintLabel("")
	show := func() {
		if msg := ce.combinedHint(a.Name); msg != "" {
			hint.SetText(msg)
			hint.Show()
		} else {
			hint.Hide()
		}
	}
	sel := widgets.NewSelect(options, nil)
	sel.SetSelected(explore.CombineWords(inherited))
	sel.OnChanged = func(v string) {
		n, err := projects.ParseCombine(v)
		if err != nil {
			return
		}
		if mine := ce.spec.Actions[a.Name]; n == max(inherited, 1) && (mine == nil || mine.Combine == nil) {
			return // what it inherits: nothing to write
		}
		own().Combine = projects.CombineSetting(n)
		ce.changed()
	}
	show()
	ce.refresh = append(ce.refresh, show)
	ce.choices[p+"combine"] = sel
	return container.NewVBox(container.NewBorder(nil, nil, widget.NewLabel("combine"), nil, sel), hint)
}

// combinedHint says how many combinations of an action's parameters the
// configuration tries in the initial state against the full product ("pairwise,
// 113 of 10,000 parameter combinations in the initial state"); "" when
// they are not combined or the configuration does not build.
func (ce *Editor) combinedHint(action string) string {
	ai := ce.m.Info().Action(action)
	if ai < 0 {
		return ""
	}
	cfg, err := ce.p.Build(ce.m, ce.name)
	if err != nil || cfg.Actions[ai].Combine < 2 {
		return ""
	}
	only := *cfg
	only.Actions = slices.Clone(cfg.Actions)
	for i := range only.Actions {
		only.Actions[i].Exclude = i != ai
	}
	cs, err := explore.CombinedInputs(ce.m, &only)
	if err != nil || len(cs) != 1 {
		return ""
	}
	return cs[0].Words() + " in the initial state"
}
