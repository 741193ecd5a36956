package graphview

import (
	"fmt"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"github.com/modex/modex/engine/explore"
	"github.com/modex/modex/engine/model"
	"github.com/modex/modex/graph"
	"github.com/modex/modex/ui/widgets"
)

// Inspector shows the selected state: flags, variables, the shortest path
// from the initial state, its transitions, and why actions are disabled.
type Inspector struct {
	box     *fyne.Container
	actions *fyne.Container
	content fyne.CanvasObject
	// Goto is called with a state id when the user follows a transition.
	Goto func(id string)
	// shown says the panel shows something (a state, a comparison,
	// matches), not just a hint.
	shown bool
	// OnChange is called when what Shown reports changes (the workbench
	// shows the panel only while it shows something).
	OnChange func()
}

// Shown reports whether the panel shows a state, a comparison or matches
// (not just a hint).
func (d *Inspector) Shown() bool { return d.shown }

func (d *Inspector) setShown(on bool) {
	if d.shown != on {
		d.shown = on
		if d.OnChange != nil {
			d.OnChange()
		}
	}
}

// New returns an empty details panel.
func NewInspector() *Inspector {
	d := &Inspector{box: container.NewVBox(widgets.HintLabel(Hint))}
	d.actions = container.NewVBox()
	// Scrolling both ways: a long value scrolls in the panel instead of
	// widening the window (a VScroll is as wide as its widest line).
	d.content = container.NewScroll(d.box)
	return d
}

// Content is the panel's widget tree.
func (d *Inspector) Content() fyne.CanvasObject { return d.content }

// Rows are what the panel shows, top down: headings, values, links.
func (d *Inspector) Rows() []fyne.CanvasObject { return d.box.Objects }

// ActionRows are the rows of the selected state's actions (why each is
// enabled or not), once they are known.
func (d *Inspector) ActionRows() []fyne.CanvasObject { return d.actions.Objects }

// Clear empties the panel, saying what to do instead (another graph is
// shown: the details of a state of the last one would be stale).
func (d *Inspector) Clear(hint string) {
	d.box.Objects = []fyne.CanvasObject{widgets.HintLabel(hint)}
	d.box.Refresh()
	d.setShown(false)
}

// Hint is what the inspector says when no state is selected.
const Hint = "Click a state to see its details."

// Show fills the panel for state i of the full document; path lists the
// transitions (indices into doc.Transitions) from the initial state.
func (d *Inspector) Show(doc *graph.Doc, i int, path []int) {
	s := &doc.States[i]
	objs := []fyne.CanvasObject{widgets.Heading(s.ID + " — " + strings.SplitN(StateTooltip(s), "\n", 2)[0][len(s.ID)+2:])}
	if s.Label != s.ID {
		objs = append(objs, widgets.Mono(graph.Pretty(s.Label, 40)))
	}
	if s.Error != "" {
		e := widget.NewLabel("Error: " + s.Error)
		e.Importance = widget.DangerImportance
		e.Wrapping = fyne.TextWrapWord
		objs = append(objs, e)
	}
	objs = append(objs, widgets.Heading("Variables"))
	if len(s.Vars) == 0 {
		objs = append(objs, widget.NewLabel("(none)"))
	}
	for _, v := range s.Vars {
		objs = append(objs, widgets.Mono(v.Name+" = "+graph.Pretty(v.Value, 40)))
	}
	objs = append(objs, widgets.Heading("Shortest path from the initial state"))
	if len(path) == 0 {
		objs = append(objs, widget.NewLabel("(this is the initial state, or it is not reachable)"))
	}
	step := 0 // a timeout is not a step: it is listed, not numbered
	for _, ti := range path {
		t := doc.Transitions[ti]
		num := "   "
		if t.Kind != "timeout" {
			step++
			num = fmt.Sprintf("%d.", step)
		}
		objs = append(objs, d.link(num+" "+transLabel(t), t.To))
	}
	var out, in []fyne.CanvasObject
	for _, t := range doc.Transitions {
		if t.From == s.ID {
			out = append(out, d.link(transLabel(t)+" → "+t.To, t.To))
		}
		if t.To == s.ID {
			in = append(in, d.link(t.From+" → "+transLabel(t), t.From))
		}
	}
	objs = append(objs, widgets.Heading(fmt.Sprintf("Outgoing (%d)", len(out))))
	objs = append(objs, out...)
	objs = append(objs, widgets.Heading(fmt.Sprintf("Incoming (%d)", len(in))))
	objs = append(objs, in...)
	objs = append(objs, widgets.Heading("Actions in this state"))
	d.actions.Objects = []fyne.CanvasObject{widget.NewLabel("working out which actions are enabled…")}
	objs = append(objs, d.actions)
	d.box.Objects = objs
	d.box.Refresh()
	d.setShown(true)
}

// ShowActions fills the "actions in this state" part.
func (d *Inspector) ShowActions(st []explore.ActionStatus, err error) {
	var objs []fyne.CanvasObject
	if err != nil {
		objs = append(objs, widget.NewLabel(err.Error()))
	}
	for _, a := range st {
		line := fmt.Sprintf("%s (%s): %d of %d enabled", a.Action, a.Kind, a.Enabled, a.Tried)
		if a.Tried == 0 {
			line = fmt.Sprintf("%s (%s): not enabled", a.Action, a.Kind)
		}
		l := widget.NewLabelWithStyle(line, fyne.TextAlignLeading, fyne.TextStyle{Bold: a.Enabled > 0})
		l.Wrapping = fyne.TextWrapWord // the panel keeps its width
		objs = append(objs, l)
		for i, r := range a.Reasons {
			if i == 4 {
				objs = append(objs, widget.NewLabel(fmt.Sprintf("   … and %d more", len(a.Reasons)-4)))
				break
			}
			l := widget.NewLabel("   " + r)
			l.Wrapping = fyne.TextWrapWord
			objs = append(objs, l)
		}
	}
	d.actions.Objects = objs
	d.actions.Refresh()
}

func transLabel(t graph.Transition) string {
	if t.Kind == "timeout" {
		return "(timeout)"
	}
	return t.Label
}

// ShowDiff compares two states side by side: the variables that differ,
// then the names of those that are equal.
func (d *Inspector) ShowDiff(a, b *graph.State) {
	objs := []fyne.CanvasObject{widgets.Heading(fmt.Sprintf("%s and %s: the variables that differ", a.ID, b.ID))}
	bv := map[string]string{}
	for _, v := range b.Vars {
		bv[v.Name] = v.Value
	}
	var same []string
	for _, v := range a.Vars {
		w, ok := bv[v.Name]
		if ok && w == v.Value {
			same = append(same, v.Name)
			continue
		}
		// One above the other, each as wide as it needs (side by side, two
		// columns of a narrow panel broke values mid-word).
		if !ok {
			w = "(no such variable)"
		}
		objs = append(objs, widgets.Heading(v.Name), widgets.Mono(a.ID+": "+graph.Pretty(v.Value, 40)), widgets.Mono(b.ID+": "+graph.Pretty(w, 40)))
	}
	if len(same) > 0 {
		l := widget.NewLabel("Equal: " + strings.Join(same, ", "))
		l.Wrapping = fyne.TextWrapWord
		objs = append(objs, l)
	}
	if len(objs) == 1+boolInt(len(same) > 0) {
		objs = append(objs, widget.NewLabel("No variable differs."))
	}
	d.box.Objects = objs
	d.box.Refresh()
	d.actions.Objects = nil
	d.actions.Refresh()
	d.setShown(true)
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// MaxMatchesListed bounds the matches Find lists.
const MaxMatchesListed = 1000

// ShowModelStates shows states of the model that are not in the graph on
// screen (where a replay left the model): a title, each state's variables,
// then what they would have accepted.
func (d *Inspector) ShowModelStates(title string, states [][]model.Var, expected []string) {
	objs := []fyne.CanvasObject{widgets.Heading(title)}
	for i, vars := range states {
		if i == 20 {
			objs = append(objs, widget.NewLabel(fmt.Sprintf("… and %d more states", len(states)-20)))
			break
		}
		if len(states) > 1 {
			objs = append(objs, widgets.Heading(fmt.Sprintf("state %d of %d", i+1, len(states))))
		}
		for _, v := range vars {
			objs = append(objs, widgets.Mono(v.Name+" = "+graph.Pretty(model.Format(v.Value), 40)))
		}
	}
	if len(expected) > 0 {
		objs = append(objs, widgets.Heading("It would have accepted"))
		for _, e := range expected {
			objs = append(objs, widgets.Mono(e))
		}
	}
	d.box.Objects = objs
	d.box.Refresh()
	d.actions.Objects = nil
	d.actions.Refresh()
	d.setShown(true)
}

// ShowMatches lists the states Find matched (the first 1,000), each a link
// that goes there.
func (d *Inspector) ShowMatches(expr string, ids []string, label func(string) string) {
	objs := []fyne.CanvasObject{widgets.Heading(fmt.Sprintf("%d states match %s", len(ids), expr))}
	for i, id := range ids {
		if i == MaxMatchesListed {
			objs = append(objs, widget.NewLabel(fmt.Sprintf("… and %d more (the Find row's next button goes through all)", len(ids)-MaxMatchesListed)))
			break
		}
		text := id
		if l := label(id); l != "" && l != id {
			text += "  " + graph.Pretty(l, 50)
		}
		objs = append(objs, d.link(text, id))
	}
	d.box.Objects = objs
	d.box.Refresh()
	d.actions.Objects = nil
	d.actions.Refresh()
	d.setShown(true)
}

func (d *Inspector) link(text, target string) fyne.CanvasObject {
	b := widgets.NewButton(text, func() {
		if d.Goto != nil {
			d.Goto(target)
		}
	})
	b.Alignment = widget.ButtonAlignLeading
	b.Importance = widget.LowImportance
	return b
}
