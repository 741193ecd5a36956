package ui

import (
	"context"
	"errors"
	"fmt"
	"image"
	"strings"
	"sync"
	"time"

	"github.com/modex/modex/engine/explore"
	"github.com/modex/modex/graph"
	"github.com/modex/modex/ui/configeditor"
	"github.com/modex/modex/ui/graphview"
)

// drawing is a laid-out view ready for the UI goroutine.
type drawing struct {
	doc, view *graph.Doc
	full      *explore.Graph // the exploration's graph (built off the UI goroutine)
	lay       *graph.Layout
	img       image.Image
	scale     float64 // the scale img was drawn at
	note      string
	err       error
	// classes maps an overview's class nodes to a state of each class
	// and members to all its graph states (nil when the view is not an
	// overview).
	classes map[string]string
	members map[string]map[string]bool
}

// viewSpec says what part of a large graph to show.
type viewSpec struct {
	center   string
	radius   int
	overview string          // "" for none, overviewAuto, or an expression
	within   map[string]bool // the states of an opened class (nil: all)
	class    string          // its label
	whole    bool            // draw graphs up to DrawLimit states whole, not OverviewAbove
	minimal  bool            // draw the minimised graph (see minimisedOf)
}

// builtGraphs keeps the graph and the document of the last exploration
// prepared: every change of view (a class opened, the steps, a center)
// prepares again, and a graph of millions of transitions takes seconds
// and a gigabyte to build. The zero value is ready; a nil one keeps
// nothing.
type builtGraphs struct {
	mu   sync.Mutex
	x    *explore.Exploration
	full *explore.Graph
	doc  *graph.Doc
}

// of returns x's graph and document, built once for the last x.
func (b *builtGraphs) of(x *explore.Exploration) (*explore.Graph, *graph.Doc, error) {
	build := func() (*explore.Graph, *graph.Doc, error) {
		full := x.Graph()
		doc, err := graph.FromExplorationGraph(x, full)
		return full, doc, err
	}
	if b == nil {
		return build()
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.x != x {
		b.x, b.full, b.doc = nil, nil, nil // the old ones may go before the new are built
		full, doc, err := build()
		if err != nil {
			return nil, nil, err
		}
		b.x, b.full, b.doc = x, full, doc
	}
	return b.full, b.doc, nil
}

// drop lets x's graph and document go (all of them when x is nil): a
// closed project's, or one prepared for a project closed meanwhile.
func (b *builtGraphs) drop(x *explore.Exploration) {
	b.mu.Lock()
	if x == nil || b.x == x {
		b.x, b.full, b.doc = nil, nil, nil
	}
	b.mu.Unlock()
}

// prepare builds the document and lays out what will be shown: the whole
// graph when it is small enough, else its overview by the expression
// overview ("" for none), else the neighbourhood of center. It runs off the
// UI goroutine.
func prepare(ctx context.Context, x *explore.Exploration, vs viewSpec, scale func(*graph.Layout) float64, built *builtGraphs) drawing {
	var d drawing
	if d.full, d.doc, d.err = built.of(x); d.err != nil {
		return d
	}
	d.view = d.doc
	center, radius := vs.center, vs.radius
	if vs.within != nil {
		// The states of one class of the overview, around center.
		inside := d.doc.Restrict(vs.within)
		d.view = inside
		d.note = fmt.Sprintf("The class %s: %d states (dashed ones have transitions to other classes).", vs.class, len(inside.States))
		if len(inside.States) > DrawLimit {
			d.view = inside.Neighbourhood(center, radius)
			d.note += fmt.Sprintf(" Showing the %d within %d steps of %s.", len(d.view.States), radius, center)
		}
	} else if vs.minimal && minimisedOf(x, vs.whole, &d) {
		// The minimised graph, drawn like an overview.
	} else if n := len(d.doc.States); n > wholeUpTo(vs.whole) && (vs.overview == "" || !overviewAny(x, vs.overview, &d, minimalNote(vs.minimal, &d))) {
		why := d.note // why there is no overview, if one was asked for
		if center == "" || d.doc.StateIndex(center) < 0 {
			center = "S0"
		}
		d.view = d.doc.Neighbourhood(center, radius)
		d.note = why + fmt.Sprintf("%d states, %d transitions: %s. Showing the %d states within %d steps of %s (click a state to move; dashed states have more beyond).",
			n, len(d.doc.Transitions), tooMany(n), len(d.view.States), radius, center)
		if len(d.view.States) > DrawLimit {
			d.note = why + fmt.Sprintf("%d states, %d transitions; even %d steps around %s hold %d states. Lower the steps, narrow the configuration, or export the graph.",
				n, len(d.doc.Transitions), radius, center, len(d.view.States))
			d.view = nil
			return d
		}
	}
	d.lay, d.err = layoutWithin(ctx, d.view)
	overBudget := func() bool { return errors.Is(d.err, context.DeadlineExceeded) && ctx.Err() == nil }
	if overBudget() && vs.within == nil {
		// Over the budget: the overview by depth is small, lay that out.
		why := fmt.Sprintf("Laying out %d states took over %s. ", len(d.view.States), LayoutBudget)
		if overviewOf(x, explore.QuotientDepth, &d) {
			d.lay, d.err = layoutWithin(ctx, d.view)
		}
		if d.lay == nil || overBudget() {
			d.view, d.err = nil, nil
			d.note = why + "Its overview by depth could not be drawn either: narrow the configuration or export the graph."
			return d
		}
		d.note = why + d.note
	}
	if d.err != nil {
		return d
	}
	d.scale = scale(d.lay)
	d.img = d.lay.Draw(d.scale, nil)
	return d
}

// overviewOf makes d.view the quotient of x by the expression (or depth):
// false, with a note, when it cannot (a bad expression, too many classes).
func overviewOf(x *explore.Exploration, by string, d *drawing) bool {
	q, class, err := x.QuotientBy(by, "overview")
	if err != nil {
		d.note = fmt.Sprintf("Overview by %s: %s. ", by, configeditor.ExprError(err))
		return false
	}
	if len(q.States) > DrawLimit {
		d.note = fmt.Sprintf("Overview by %s: %d classes, too many to draw. ", by, len(q.States))
		return false
	}
	g := d.full
	d.classes, d.members = map[string]string{}, map[string]map[string]bool{}
	for _, c := range q.States {
		d.classes[c.ID] = g.States[g.Entry[c.Model]].ID
		d.members[c.ID] = map[string]bool{}
	}
	for m, c := range class {
		if c >= 0 {
			id := q.States[c].ID
			d.members[id][g.States[g.Entry[m]].ID] = true
			d.members[id][g.States[g.ActiveOf[m]].ID] = true
		}
	}
	d.view = graph.FromGraph(q, nil)
	// A class's tooltip: its count, then one of its states.
	for i, c := range q.States {
		if j := d.doc.StateIndex(d.classes[c.ID]); j >= 0 {
			d.view.States[i].Vars = append(graph.Vars{{Name: "sample", Value: d.classes[c.ID]}}, d.doc.States[j].Vars...)
		}
	}
	// The classes count model states; the graph drawn may have more states
	// (a state where the tester waits is drawn twice: active and passive).
	inClasses := 0
	for _, c := range q.States {
		inClasses += c.Count
	}
	of, counted := "", "states"
	if inClasses != len(d.doc.States) {
		of = fmt.Sprintf(" of its %d model states (the whole graph shows a state where the tester waits twice: passive, then active)", inClasses)
		counted = "model states"
	}
	d.note = fmt.Sprintf("%d states, %d transitions: the overview by %s%s, %d classes (each with its number of %s). Click a class to see its states.",
		len(d.doc.States), len(d.doc.Transitions), by, of, len(q.States), counted)
	return true
}

// overviewChosen makes d.view the overview the model's structure suggests
// (explore.OverviewChoices): the readable one with the fewest arcs between
// classes, else the depth.
func overviewChosen(x *explore.Exploration, d *drawing) bool {
	cs, err := x.OverviewChoices(context.Background())
	if err != nil {
		d.note = "Overview: " + err.Error() + ". "
		return false
	}
	for _, c := range cs {
		if c.Readable() && overviewOf(x, c.By, d) {
			d.note = fmt.Sprintf("Overview by %s — chosen from the model's variables, properties and groupings (readable classes, fewest arcs between them; others under by…). ", c.Words()) + d.note
			return true
		}
	}
	d.note = ""
	return overviewOf(x, explore.QuotientDepth, d)
}

// minimisedOf makes d.view the minimised graph of x (explore.Minimize):
// each of its states, M0, M1, …, a class of states with the same future,
// drawn with their number; opening one shows its states, as an overview's
// class. False, with a note, when even the minimised graph is too large to
// draw whole.
func minimisedOf(x *explore.Exploration, whole bool, d *drawing) bool {
	y, class := x.Minimize()
	q := y.Graph()
	if n := len(q.States); n > wholeUpTo(whole) {
		d.note = fmt.Sprintf("Minimised: the %d states have %d classes of states with the same future, too many to read whole (large graphs: whole graph draws up to %d). ", len(d.full.States), n, DrawLimit)
		return false
	}
	g := d.full
	d.classes, d.members = map[string]string{}, map[string]map[string]bool{}
	rep := make([]int, len(y.States)) // each class's first state
	for m := len(class) - 1; m >= 0; m-- {
		rep[class[m]] = m
	}
	ids := make([]string, len(q.States))
	for j := range q.States {
		c := &q.States[j]
		ids[j] = "M" + strings.TrimPrefix(c.ID, "S")
		if c.Label == c.ID {
			c.Label = ids[j]
		}
		c.ID = ids[j]
		// A class node stands for its first state (the passive twin for a
		// passive node).
		passive := c.Kind == explore.Passive
		d.classes[c.ID] = g.States[twinOf(g, rep[c.Model], passive)].ID
		d.members[c.ID] = map[string]bool{}
	}
	for m, c := range class {
		for _, passive := range []bool{false, true} {
			j := twinOf(q, c, passive)
			if passive == (q.States[j].Kind == explore.Passive) {
				d.members[ids[j]][g.States[twinOf(g, m, passive)].ID] = true
			}
		}
	}
	w, err := x.Model.NewWorker()
	if err != nil {
		d.note = "Minimised: " + err.Error() + ". "
		return false
	}
	d.view = graph.FromGraph(q, graph.ExplorationVars(y, q, w))
	d.note = fmt.Sprintf("Minimised: %s → %s — states with the same future merged (bisimulation over the actions' labels, keeping accepting, error and deadlock marks apart); each shows how many states it stands for. Click one to see them.",
		explore.SizeWords(len(g.States), len(g.Trans), len(x.States)), explore.SizeWords(len(q.States), len(q.Trans), len(y.States)))
	return true
}

// twinOf is the graph state of model state m: its passive twin when
// passive and it has one, else its active state.
func twinOf(g *explore.Graph, m int, passive bool) int {
	if passive {
		return g.Entry[m]
	}
	return g.ActiveOf[m]
}

// LayoutBudget bounds one layout of the workbench: past it the view falls
// back to the overview by depth (docs/performance.md has the measurements:
// dot needs seconds for a few hundred states and may not finish on more).
var LayoutBudget = 10 * time.Second

// layoutWithin lays a view out within LayoutBudget.
func layoutWithin(ctx context.Context, view *graph.Doc) (*graph.Layout, error) {
	ctx, cancel := context.WithTimeout(ctx, LayoutBudget)
	defer cancel()
	return graph.LayoutDoc(ctx, view, "")
}

// overviewAuto asks for the overview by the default expression.
const overviewAuto = "auto"

// overviewAny makes the overview by the expression asked for or, for
// overviewAuto, the one the model's structure suggests (overviewChosen).
func overviewAny(x *explore.Exploration, by string, d *drawing, before string) bool {
	ok := false
	if by != overviewAuto {
		ok = overviewOf(x, by, d)
	} else {
		ok = overviewChosen(x, d)
	}
	d.note = before + d.note
	return ok
}

// minimalNote is why the minimised graph is not drawn, when it was asked
// for (minimisedOf's note), "" otherwise.
func minimalNote(minimal bool, d *drawing) string {
	if !minimal {
		return ""
	}
	why := d.note
	d.note = ""
	return why + "Showing the graph instead. "
}

var drawScaleBase = 2.0

// present lays out an exploration (partial when !final) off the UI goroutine
// and shows it unless something newer has been shown meanwhile.
func (wb *Workbench) present(gen, seq int, x *explore.Exploration, final bool) {
	wb.mu.Lock()
	if gen != wb.gen {
		// An older exploration's: it must not cancel the layout of the
		// current one (which would then never reach the screen).
		wb.mu.Unlock()
		return
	}
	if x != wb.s.last && wb.s.centerKey != "" {
		// Another exploration: the selected state by its identity.
		wb.s.center = ""
		if m := x.FindKey(wb.s.centerKey); m >= 0 {
			wb.s.center = x.GraphID(m, wb.s.centerPassive)
		}
	}
	vs := viewSpec{center: wb.s.center, radius: wb.radius, overview: wb.s.overview, within: wb.s.within, class: wb.s.withinLabel, whole: wb.s.whole, minimal: wb.s.minimal}
	// A newer presentation supersedes this one: its layout (a child
	// process when graph.LayoutCommand is set) is killed.
	if wb.layoutCancel != nil {
		wb.layoutCancel()
	}
	ctx, cancel := context.WithCancel(context.Background())
	wb.layoutCancel = cancel
	wb.mu.Unlock()
	d := prepare(ctx, x, vs, wb.graph.DrawScale, &wb.built)
	if !wb.current(gen) {
		wb.built.drop(x) // the project was closed meanwhile
	}
	if errors.Is(d.err, context.Canceled) {
		return
	}
	wb.do(func() {
		if !wb.current(gen) {
			return
		}
		wb.mu.Lock()
		stale := seq < wb.seq && !final
		wb.mu.Unlock()
		if stale {
			return
		}
		fresh := false
		if final {
			wb.finishRun()
			wb.mu.Lock()
			fresh = wb.s.last != x
			wb.s.last = x
			wb.mu.Unlock()
		}
		wb.show(x, d, final)
		if fresh || wb.s.reselect {
			wb.s.reselect = false
			wb.refreshDetails()
		}
		if final {
			wb.shown()
		}
	})
}

// show puts a prepared drawing on screen (UI goroutine).
func (wb *Workbench) show(x *explore.Exploration, d drawing, final bool) {
	if d.err != nil {
		wb.graph.SetMessage("Layout failed: " + d.err.Error())
		return
	}
	wb.mu.Lock()
	full := d.full
	if full == nil {
		full = x.Graph()
	}
	wb.s.doc, wb.s.full, wb.s.classes, wb.s.members = d.doc, full, d.classes, d.members
	if wb.s.matchesOf != x {
		// Find's matches name another exploration's states.
		wb.s.matches, wb.s.matchAt, wb.s.matchesOf = nil, -1, nil
	}
	if d.classes != nil && d.view != nil {
		wb.s.classLabels = map[string]string{}
		for _, s := range d.view.States {
			wb.s.classLabels[s.ID] = s.Label
		}
	}
	wb.mu.Unlock()
	st := x.Stats
	end := st.Ending()
	if !st.Complete && st.StoppedBy == "" && (!final || st.Search == "") {
		end = "exploring…"
	}
	errs := 0
	for _, s := range d.doc.States {
		if s.Error != "" {
			errs++
		}
	}
	size := explore.SizeWords(len(d.doc.States), len(d.doc.Transitions), len(x.States))
	summary := fmt.Sprintf("%s [%s]: %s, %d tried, %.3f s, %s", wb.s.project.Name, wb.configs.Selected, size, st.Tried, st.Seconds, end)
	if final && st.Search != "" {
		summary = searchSummary(wb.s.project.Name, wb.configs.Selected, x, size)
	}
	if errs > 0 {
		summary += ", " + explore.Count(errs, "error state")
	}
	if final && st.StoppedBy == "max states" && wb.usedBound > 0 {
		summary += fmt.Sprintf(" — the workbench stops at %d states when the configuration sets no max_states: Continue explores again up to %d", wb.usedBound, 4*wb.usedBound)
		wb.continueB.Show()
	}
	if final {
		wb.status.SetText(summary)
		wb.counts.SetText("")
	} else {
		wb.counts.SetText(fmt.Sprintf("%d states so far", len(d.doc.States)))
	}
	if d.note != "" {
		wb.note.SetText(d.note)
		wb.note.Show()
	} else {
		wb.note.Hide()
	}
	if d.view == nil {
		wb.graph.SetMessage(d.note)
		return
	}
	wb.graph.SetGraph(d.view, d.lay, d.img, d.scale)
	wb.graph.SetMarks(nil)
	wb.resetPathMode()
	if tv := wb.s.test; tv != nil {
		defer tv.Remark() // a test watched on the explored graph marks it again
	}
	if !wb.graph.UserZoomed() {
		wb.graph.Fit()
	}
	wb.mu.Lock()
	center := wb.s.center
	wb.mu.Unlock()
	if center != "" {
		if i := d.view.StateIndex(center); i >= 0 {
			wb.graph.Select(i)
		}
	}
}

// refreshDetails shows the selected state's details from the graph just
// explored, or clears them when it has no such state: the details of a state
// of an earlier exploration (another configuration, an edited model) are
// never left beside the new graph.
func (wb *Workbench) refreshDetails() {
	wb.mu.Lock()
	id, doc := wb.s.center, wb.s.doc
	wb.mu.Unlock()
	if id != "" && doc != nil && doc.StateIndex(id) >= 0 {
		wb.selectDocState(id)
		return
	}
	wb.s.details.Clear(graphview.Hint)
}

// redraw shows the last exploration again (after the view settings changed).
func (wb *Workbench) redraw() {
	wb.mu.Lock()
	x, gen := wb.s.last, wb.gen
	wb.mu.Unlock()
	if x == nil {
		return
	}
	seq := wb.nextSeq()
	go wb.present(gen, seq, x, true)
}

// How graphs too large to draw whole are shown.
const (
	largeOverview      = "overview"
	largeNeighbourhood = "neighbourhood"
	largeWhole         = "whole graph" // whole up to DrawLimit states, then the overview
)

// wholeUpTo is the largest graph drawn whole: DrawLimit states when the
// user asked for whole graphs, else OverviewAbove.
func wholeUpTo(whole bool) int {
	if whole {
		return DrawLimit
	}
	return OverviewAbove
}

// tooMany says why a graph of n states is not drawn whole.
func tooMany(n int) string {
	if n <= DrawLimit {
		return fmt.Sprintf("too many to read whole (large graphs: whole graph draws up to %d)", DrawLimit)
	}
	return "too many to draw whole"
}

// setLargeMode shows large graphs as an overview (by the expression typed,
// else the default) or as the neighbourhood of the selection.
func (wb *Workbench) setLargeMode(mode string) {
	wb.mu.Lock()
	wb.s.within = nil // a mode chosen by hand leaves an opened class
	wb.s.whole = mode == largeWhole
	switch {
	case mode == largeNeighbourhood:
		wb.s.overview = ""
	case strings.TrimSpace(wb.overviewBy.Text) != "":
		wb.s.overview = strings.TrimSpace(wb.overviewBy.Text)
	default:
		wb.s.overview = overviewAuto
	}
	wb.mu.Unlock()
	if wb.largeMode.Selected != mode {
		wb.largeMode.SetSelected(mode) // calls back once more, harmless
		return
	}
	wb.redraw()
}

// setMinimal shows the minimised graph (on) or the graph (off).
func (wb *Workbench) setMinimal(on bool) {
	wb.mu.Lock()
	changed := wb.s.minimal != on || wb.s.within != nil
	wb.s.minimal, wb.s.within = on, nil
	wb.mu.Unlock()
	if changed {
		wb.redraw()
	}
}

// openClass shows the states of an overview's class (the neighbourhood of
// one of them); false when id is no class of the overview shown.
func (wb *Workbench) openClass(id string) bool { return wb.openClassAt(id, "") }

// openClassAt opens class id centred on one of its states (state "": the
// class's own).
func (wb *Workbench) openClassAt(id, at string) bool {
	wb.mu.Lock()
	state, ok := wb.s.classes[id]
	members, label := wb.s.members[id], wb.s.classLabels[id]
	wb.mu.Unlock()
	if !ok {
		return false
	}
	if at != "" && members[at] {
		state = at
	}
	onChanged := wb.largeMode.OnChanged
	wb.largeMode.OnChanged = nil // one redraw, below
	wb.largeMode.SetSelected(largeNeighbourhood)
	wb.largeMode.OnChanged = onChanged
	wb.mu.Lock()
	wb.s.overview = ""
	wb.s.center, wb.s.within, wb.s.withinLabel = state, members, label
	wb.mu.Unlock()
	wb.redraw()
	return true
}

// overviewShown reports whether the graph on screen is an overview (its
// nodes are classes of states).
func (wb *Workbench) overviewShown() bool {
	wb.mu.Lock()
	defer wb.mu.Unlock()
	return len(wb.s.classes) > 0 && wb.s.within == nil
}

// classOnScreen is the overview's class that holds state id, when an
// overview is on screen and the state is not drawn itself ("" else).
func (wb *Workbench) classOnScreen(id string) string {
	v := wb.graph.Doc()
	if v == nil || !wb.overviewShown() || v.StateIndex(id) >= 0 {
		return ""
	}
	wb.mu.Lock()
	defer wb.mu.Unlock()
	for c, ms := range wb.s.members {
		if ms[id] {
			return c
		}
	}
	return ""
}

// drawnIndex returns a function that gives the index, in the graph on
// screen, of what stands for an exploration's state: the state itself, or
// the overview's class that holds it; -1 when neither is drawn. Paths of
// suites and replays are marked on an overview this way.
func (wb *Workbench) drawnIndex() func(id string) int {
	view := wb.graph.Doc()
	wb.mu.Lock()
	members := wb.s.members
	wb.mu.Unlock()
	var classOf map[string]string
	return func(id string) int {
		if view == nil {
			return -1
		}
		if i := view.StateIndex(id); i >= 0 {
			return i
		}
		if classOf == nil {
			classOf = map[string]string{}
			for c, ms := range members {
				for m := range ms {
					classOf[m] = c
				}
			}
		}
		if c, ok := classOf[id]; ok {
			return view.StateIndex(c)
		}
		return -1
	}
}
