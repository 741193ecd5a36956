// Package configeditor is the configuration editor of the side panel: one
// named configuration of a project, every expression compiled against the
// model as it is typed.
package configeditor

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/widget"
	"go.starlark.net/starlark"

	"github.com/modex/modex/engine/model"
	"github.com/modex/modex/projects"
	"github.com/modex/modex/ui/widgets"
)

// Editor edits one named configuration of a project. Every expression
// is compiled against the model as it is typed; an error is shown beside
// its field and the configuration keeps its last valid value.
type Editor struct {
	p        *projects.Project
	m        model.Model
	name     string
	spec     *projects.ConfigSpec
	resolved *projects.ConfigSpec
	onChange func()
	// Shortcut, when set, runs the workbench's Ctrl (Cmd) shortcut s typed
	// in a field and reports whether there was one (nil in tests that
	// build an editor alone).
	Shortcut func(s fyne.Shortcut) bool
	// OnInvalid, when set, is called after an edit that is not valid (a
	// pending re-exploration of the previous valid text must not start).
	OnInvalid func()
	fields    map[string]*Field
	// choices are the drop-downs by path ("actions.Post.combine"), and
	// refresh what shows the configuration's effect, run after every
	// valid edit.
	choices map[string]*widgets.Select
	refresh []func()
	content fyne.CanvasObject
}

// Field is an editable setting with its error label.
type Field struct {
	Entry *widgets.Entry
	Error *widget.Label
}

// New builds an editor for configuration name of p; onChange is
// called after every valid edit.
func New(p *projects.Project, m model.Model, name string, onChange func()) *Editor {
	ce := &Editor{p: p, m: m, name: name, onChange: onChange, fields: map[string]*Field{}, choices: map[string]*widgets.Select{}}
	ce.spec = p.Configs[name]
	if ce.spec == nil {
		ce.spec = &projects.ConfigSpec{}
		p.Configs[name] = ce.spec
	}
	ce.resolved, _ = p.Resolve(name)
	if ce.resolved == nil {
		ce.resolved = ce.spec
	}
	// Both ways: a narrow panel scrolls sideways rather than set the
	// window's width; the wheel scrolls the editor over its fields too.
	// Scrolled up and down only: its sentences wrap to the side panel's
	// width, a long expression scrolls in its field.
	ce.content = widgets.WithWheel(container.NewVScroll(ce.build()))
	return ce
}

// Content is the editor's widget tree.
func (ce *Editor) Content() fyne.CanvasObject { return ce.content }

// Field returns a field by path ("filters.0", "actions.Post.enabled",
// "actions.Post.params.msg", "domains.Message", "max_states", ...), or nil.
func (ce *Editor) Field(path string) *Field { return ce.fields[path] }

func (ce *Editor) changed() {
	for _, f := range ce.refresh {
		f()
	}
	if ce.onChange != nil {
		ce.onChange()
	}
}

// ExprError is an expression's error in a line: its column and message.
func ExprError(err error) string {
	var pe *model.PosError
	if errors.As(err, &pe) {
		msg := pe.Msg
		if i := strings.Index(msg, "`: "); i >= 0 {
			msg = msg[i+3:]
		}
		return fmt.Sprintf("column %d: %s", pe.Pos.Col, msg)
	}
	return err.Error()
}

// field makes an entry with an error label; check returns "" when the text
// is acceptable, apply stores it.
func (ce *Editor) field(path, value, placeholder string, multi bool, check func(string) string, apply func(string)) fyne.CanvasObject {
	e := widgets.NewEntry(func(s fyne.Shortcut) bool { return ce.Shortcut != nil && ce.Shortcut(s) })
	if multi {
		e.MultiLine = true
		e.Wrapping = fyne.TextWrapWord
	}
	e.SetText(value)
	e.PlaceHolder = placeholder
	errL := widget.NewLabel("")
	errL.Importance = widget.DangerImportance
	errL.Wrapping = fyne.TextWrapWord
	errL.Hide()
	e.OnChanged = func(s string) {
		if msg := check(s); msg != "" {
			errL.SetText(msg)
			errL.Show()
			if ce.OnInvalid != nil {
				ce.OnInvalid()
			}
			return
		}
		errL.Hide()
		apply(s)
		ce.changed()
	}
	ce.fields[path] = &Field{Entry: e, Error: errL}
	return container.NewVBox(e, errL)
}

// expr makes a field for a Starlark expression over s ("" allowed: unset).
func (ce *Editor) expr(path, value, placeholder string, apply func(string)) fyne.CanvasObject {
	return ce.field(path, value, placeholder, false, ce.checkExpr, apply)
}

func (ce *Editor) checkExpr(s string) string {
	if strings.TrimSpace(s) == "" {
		return ""
	}
	x, err := ce.m.Compile(s, model.Pos{File: ce.name, Line: 1, Col: 1})
	if err != nil {
		return ExprError(err)
	}
	return ce.evalOnInit(x)
}

// evalOnInit runs an expression on the model's initial state at once, so
// that one that compiles but fails when it runs (s.colour < 2 on a string)
// shows its error under the field instead of as an error state.
func (ce *Editor) evalOnInit(x model.Expr) string {
	_, msg := ce.valueOnInit(x)
	return msg
}

// valueOnInit evaluates x on the initial state: its value, or why it
// fails ("" and a nil value when the initial state cannot be had).
func (ce *Editor) valueOnInit(x model.Expr) (model.Value, string) {
	w, err := ce.m.NewWorker()
	if err != nil {
		return nil, ""
	}
	st, err := w.Init()
	if err != nil {
		return nil, ""
	}
	v, err := w.Eval(x, st)
	if err != nil {
		return nil, "fails on the initial state: " + ExprError(err)
	}
	return v, ""
}

// checkWeight accepts a weight expression that compiles and, on the
// initial state, gives a number, 0 or more.
func (ce *Editor) checkWeight(s string) string {
	if msg := ce.checkExpr(s); msg != "" || strings.TrimSpace(s) == "" {
		return msg
	}
	x, err := ce.m.Compile(s, model.Pos{File: "weight", Line: 1, Col: 1})
	if err != nil {
		return ExprError(err)
	}
	v, msg := ce.valueOnInit(x)
	if msg != "" || v == nil {
		return msg
	}
	n, isInt := model.AsInt(v)
	f, isFloat := v.(starlark.Float)
	switch {
	case !isInt && !isFloat:
		return fmt.Sprintf("a weight is a number, 0 or more; this is %s (a %s) in the initial state", cutText(model.Format(v), 40), v.Type())
	case isInt && n < 0, isFloat && (f < 0 || f != f):
		return "a weight is a number, 0 or more"
	}
	return ""
}

// Invalid lists the fields whose text has an error ("filters.0: column
// 1: …"), sorted: what Save must not pass over, since the configuration
// holds their last valid value, not what is on screen.
func (ce *Editor) Invalid() []string {
	var out []string
	for path, f := range ce.fields {
		if f.Error != nil && f.Error.Visible() && f.Error.Text != "" {
			out = append(out, path+": "+f.Error.Text)
		}
	}
	sort.Strings(out)
	return out
}

func (ce *Editor) checkDomain(s string) string {
	if strings.HasPrefix(s, "@") {
		if _, ok := ce.resolved.Domains[s[1:]]; !ok {
			if _, ok := ce.spec.Domains[s[1:]]; !ok {
				return fmt.Sprintf("no named domain %q (add it under Named domains)", s[1:])
			}
		}
		return ""
	}
	return ce.checkExpr(s)
}

func (ce *Editor) build() fyne.CanvasObject {
	s, r := ce.spec, ce.resolved
	box := container.NewVBox()
	add := func(objs ...fyne.CanvasObject) { box.Objects = append(box.Objects, objs...) }
	add(ce.field("description", s.Description, "what this configuration is for", true, func(string) string { return "" },
		func(v string) { s.Description = v }))
	if s.Extends != "" {
		add(widgets.HintLabel("extends " + s.Extends + ": empty fields inherit from it"))
	}
	add(widgets.Heading("State filters"), widgets.HintLabel("A transition into a state where a filter is false is dropped."))
	add(ce.list("filters", s.Filters, r.Filters, func(v []string) { s.Filters = v }))
	add(widgets.Heading("State groupings"), widgets.HintLabel("A state with seen grouping values is pruned; values label states."))
	add(ce.list("groupings", s.Groupings, r.Groupings, func(v []string) { s.Groupings = v }))
	add(ce.scenarios()...)
	add(widgets.Heading("Named domains"), widgets.HintLabel("Parameters point to these with @Name (or share their name)."))
	add(ce.domains())
	add(widgets.Heading("Actions"))
	info := ce.m.Info()
	for _, a := range info.Actions {
		add(ce.action(a))
	}
	add(widgets.Heading("Testing"))
	add(widgets.HintLabel("Timeout Δ(s), seconds"), ce.expr("timeout", s.Timeout, orDefault(r.Timeout, "0"), func(v string) { s.Timeout = v }))
	add(widgets.HintLabel("Earliest observable, seconds after the state is reached"), ce.expr("earliest", s.Earliest, orDefault(r.Earliest, "none"), func(v string) { s.Earliest = v }))
	add(widgets.HintLabel("Accepting states (overrides the model's accepting)"), ce.expr("accepting", s.Accepting, orDefault(r.Accepting, "the model's accepting(s)"), func(v string) { s.Accepting = v }))
	mode := widgets.NewSelect([]string{"auto", "on", "off"}, func(v string) {
		if v != s.Timeouts && !(v == "auto" && s.Timeouts == "") {
			s.Timeouts = v
			ce.changed()
		}
	})
	mode.SetSelected(orDefault(r.Timeouts, "auto"))
	add(widgets.HintLabel("Timeout extension"), mode)
	add(ce.check("Keep passive states without observable actions", r.KeepEmptyPassive != nil && *r.KeepEmptyPassive, func(b bool) { s.KeepEmptyPassive = &b }))
	add(ce.check("Apply the model's state_filter", r.ModelFilter == nil || *r.ModelFilter, func(b bool) { s.ModelFilter = &b }))
	add(ce.check("Stop at invariant violations", r.StopOnError != nil && *r.StopOnError, func(b bool) { s.StopOnError = &b }))
	add(widgets.Heading("Bounds (0 = none)"))
	add(container.New(layout.NewFormLayout(),
		widget.NewLabel("max states"), ce.intField("max_states", s.MaxStates, r.MaxStates, func(v *int) { s.MaxStates = v }),
		widget.NewLabel("max transitions"), ce.intField("max_transitions", s.MaxTransitions, r.MaxTransitions, func(v *int) { s.MaxTransitions = v }),
		widget.NewLabel("max depth"), ce.intField("max_depth", s.MaxDepth, r.MaxDepth, func(v *int) { s.MaxDepth = v }),
		widget.NewLabel("max seconds"), ce.floatField("max_seconds", s.MaxSeconds, r.MaxSeconds, func(v *float64) { s.MaxSeconds = v }),
	))
	add(ce.search()...)
	return box
}

func orDefault(v, d string) string {
	if v == "" {
		return d
	}
	return v
}

func (ce *Editor) check(label string, on bool, apply func(bool)) fyne.CanvasObject {
	c := widgets.NewCheck("", nil)
	c.SetChecked(on)
	c.OnChanged = func(b bool) {
		apply(b)
		ce.changed()
	}
	// The label beside the box wraps (a check box's own text does not):
	// the side panel is narrow.
	return container.NewBorder(nil, nil, c, nil, widgets.HintLabel(label))
}

func (ce *Editor) intField(path string, own, inherited *int, apply func(*int)) fyne.CanvasObject {
	return ce.intFieldOr(path, own, inherited, "0", apply)
}

// intFieldOr is intField whose empty text means def (its placeholder when
// nothing is inherited).
func (ce *Editor) intFieldOr(path string, own, inherited *int, def string, apply func(*int)) fyne.CanvasObject {
	val, ph := "", def
	if own != nil {
		val = strconv.Itoa(*own)
	} else if inherited != nil {
		ph = strconv.Itoa(*inherited)
	}
	return ce.field(path, val, ph, false, func(s string) string {
		if s == "" {
			return ""
		}
		if n, err := strconv.Atoi(s); err != nil || n < 0 {
			return "a whole number, 0 or more"
		}
		return ""
	}, func(s string) {
		if s == "" {
			apply(nil)
			return
		}
		n, _ := strconv.Atoi(s)
		apply(&n)
	})
}

func (ce *Editor) floatField(path string, own, inherited *float64, apply func(*float64)) fyne.CanvasObject {
	val, ph := "", "0"
	if own != nil {
		val = strconv.FormatFloat(*own, 'g', -1, 64)
	} else if inherited != nil {
		ph = strconv.FormatFloat(*inherited, 'g', -1, 64)
	}
	return ce.field(path, val, ph, false, func(s string) string {
		if s == "" {
			return ""
		}
		if f, err := strconv.ParseFloat(s, 64); err != nil || f < 0 {
			return "a number of seconds, 0 or more"
		}
		return ""
	}, func(s string) {
		if s == "" {
			apply(nil)
			return
		}
		f, _ := strconv.ParseFloat(s, 64)
		apply(&f)
	})
}

// list edits a list of expressions (filters, groupings): rows with a remove
// button and an Add button. The configuration gets the non-empty entries
// once all of them compile.
func (ce *Editor) list(path string, own, inherited []string, apply func([]string)) fyne.CanvasObject {
	return ce.listOf(path, own, inherited, "expression over s, e.g. pending(s) < 2", ce.checkExpr, apply)
}

// listOf is list with another placeholder and check (scenarios, machine
// files).
func (ce *Editor) listOf(path string, own, inherited []string, placeholder string, check func(string) string, apply func([]string)) fyne.CanvasObject {
	rows := container.NewVBox()
	var entries []*widgets.Entry
	values := own
	if values == nil {
		values = inherited
	}
	sync := func() {
		var out []string
		for _, e := range entries {
			if strings.TrimSpace(e.Text) == "" {
				continue
			}
			if check(e.Text) != "" {
				return
			}
			out = append(out, e.Text)
		}
		if out == nil {
			out = []string{}
		}
		apply(out)
	}
	var addRow func(v string)
	addRow = func(v string) {
		i := len(entries)
		var row *fyne.Container
		obj := ce.field(fmt.Sprintf("%s.%d", path, i), v, placeholder, false, check, func(string) { sync() })
		entries = append(entries, ce.fields[fmt.Sprintf("%s.%d", path, i)].Entry)
		del := widgets.NewButton("Remove", nil)
		row = container.NewBorder(nil, nil, nil, del, obj)
		del.OnTapped = func() {
			for j, e := range entries {
				if e == ce.fields[fmt.Sprintf("%s.%d", path, i)].Entry {
					entries = append(entries[:j], entries[j+1:]...)
					break
				}
			}
			rows.Remove(row)
			sync()
			ce.changed()
		}
		rows.Add(row)
	}
	for _, v := range values {
		addRow(v)
	}
	addBtn := widgets.NewButton("Add", func() { addRow("") })
	return container.NewVBox(rows, addBtn)
}

// domains edits the named domains.
func (ce *Editor) domains() fyne.CanvasObject {
	s := ce.spec
	rows := container.NewVBox()
	names := map[string]bool{}
	addRow := func(name, value string) {
		var row *fyne.Container
		// Remove drops this configuration's own domain (an inherited one
		// stays: it belongs to the configuration it comes from).
		remove := widgets.NewButton("Remove", func() {
			delete(s.Domains, name)
			delete(ce.fields, "domains."+name)
			delete(names, name)
			rows.Remove(row)
			ce.changed()
		})
		if _, inherited := ce.resolved.Domains[name]; inherited && ce.spec.Extends != "" {
			if _, own := s.Domains[name]; !own {
				remove.Disable()
			}
		}
		row = container.NewBorder(nil, nil, widget.NewLabel(name+" ="), remove,
			ce.expr("domains."+name, value, "a collection, e.g. [\"hi\"] or list(s.members)", func(v string) {
				if s.Domains == nil {
					s.Domains = map[string]string{}
				}
				if v == "" {
					delete(s.Domains, name)
				} else {
					s.Domains[name] = v
				}
			}))
		rows.Add(row)
	}
	for n := range ce.resolved.Domains {
		names[n] = true
	}
	for n := range s.Domains {
		names[n] = true
	}
	var sorted []string
	for n := range names {
		sorted = append(sorted, n)
	}
	sort.Strings(sorted)
	for _, n := range sorted {
		v, ok := s.Domains[n]
		if !ok {
			v = ce.resolved.Domains[n]
		}
		addRow(n, v)
	}
	name := widget.NewEntry()
	name.PlaceHolder = "new domain name"
	addBtn := widgets.NewButton("Add domain", func() {
		n := strings.TrimSpace(name.Text)
		if n == "" || names[n] {
			return
		}
		names[n] = true
		addRow(n, "")
		name.SetText("")
	})
	return container.NewVBox(rows, container.NewBorder(nil, nil, nil, addBtn, name))
}

// action edits one action's settings.
func (ce *Editor) action(a model.ActionInfo) fyne.CanvasObject {
	s := ce.spec
	own := func() *projects.ActionSpec {
		if s.Actions == nil {
			s.Actions = map[string]*projects.ActionSpec{}
		}
		as := s.Actions[a.Name]
		if as == nil {
			as = &projects.ActionSpec{}
			s.Actions[a.Name] = as
		}
		return as
	}
	ra := ce.resolved.Actions[a.Name]
	if ra == nil {
		ra = &projects.ActionSpec{}
	}
	oa := s.Actions[a.Name]
	if oa == nil {
		oa = &projects.ActionSpec{}
	}
	include := widgets.NewCheck("", nil)
	include.SetChecked(!excludedIn(ce.resolved, ra, a.Name))
	include.OnChanged = func(b bool) {
		ex := !b
		own().Exclude = &ex
		ce.changed()
	}
	kind := widgets.NewSelect([]string{"controllable", "observable", "internal"}, nil)
	kind.SetSelected(orDefault(ra.Kind, a.Kind.String()))
	kind.OnChanged = func(v string) {
		if v == orDefault(ra.Kind, a.Kind.String()) && oa.Kind == "" {
			return
		}
		own().Kind = v
		ce.changed()
	}
	sig := widget.NewLabelWithStyle(a.Name+"("+strings.Join(a.Params, ", ")+")", fyne.TextAlignLeading, fyne.TextStyle{Monospace: true})
	sig.Wrapping = fyne.TextWrapWord // between the parameters, in a narrow panel
	form := container.NewVBox(container.NewBorder(nil, nil, include, nil, sig), container.NewHBox(widget.NewLabel("kind"), kind))
	p := "actions." + a.Name + "."
	form.Add(container.NewBorder(nil, nil, widget.NewLabel("enabled when"), nil,
		ce.expr(p+"enabled", oa.Enabled, orDefault(ra.Enabled, "always (controllable actions only)"), func(v string) { own().Enabled = v })))
	for _, param := range a.Params {
		form.Add(ce.paramField(p, param, ra, oa, own))
	}
	if len(a.Params) > 2 { // with fewer, pairwise is the full product
		form.Add(ce.combine(p, a, ra, own))
	}
	form.Add(ce.weightCount(p, ra, oa, own))
	cleanup := a.Cleanup
	if ra.Cleanup != nil {
		cleanup = *ra.Cleanup
	}
	form.Add(ce.check("cleanup action", cleanup, func(b bool) { own().Cleanup = &b }))
	return widget.NewCard("", "", form)
}

// excludedIn reports whether the resolved configuration leaves an action
// out (exclude, or include without it).
func excludedIn(r *projects.ConfigSpec, ra *projects.ActionSpec, name string) bool {
	excluded := ra.Exclude != nil && *ra.Exclude
	for _, n := range r.Exclude {
		excluded = excluded || n == name
	}
	if r.Include != nil {
		in := false
		for _, n := range r.Include {
			in = in || n == name
		}
		excluded = excluded || !in
	}
	return excluded
}

// paramField is the domain field of one parameter of an action.
func (ce *Editor) paramField(p, param string, ra, oa *projects.ActionSpec, own func() *projects.ActionSpec) fyne.CanvasObject {
	ph := "the model's domain"
	if v, ok := ra.Params[param]; ok {
		ph = v
	} else if _, ok := ce.resolved.Domains[param]; ok {
		ph = "@" + param
	}
	return container.NewBorder(nil, nil, widget.NewLabel(param+" in"), nil,
		ce.field(p+"params."+param, oa.Params[param], ph, false, ce.checkDomain, func(v string) {
			as := own()
			if as.Params == nil {
				as.Params = map[string]string{}
			}
			if v == "" {
				delete(as.Params, param)
			} else {
				as.Params[param] = v
			}
		}))
}

// weightCount is the row of an action's weight and count fields.
func (ce *Editor) weightCount(p string, ra, oa *projects.ActionSpec, own func() *projects.ActionSpec) fyne.CanvasObject {
	countVal, countPH := "", "0"
	if oa.Count != nil {
		countVal = strconv.Itoa(*oa.Count)
	} else if ra.Count != nil {
		countPH = strconv.Itoa(*ra.Count)
	}
	return container.NewVBox(
		container.NewBorder(nil, nil, widget.NewLabel("weight"), nil,
			ce.field(p+"weight", oa.Weight, orDefault(ra.Weight, "1"), false, ce.checkWeight, func(v string) { own().Weight = v })),
		container.NewBorder(nil, nil, widget.NewLabel("count"), nil,
			ce.field(p+"count", countVal, countPH, false, func(v string) string {
				if v == "" {
					return ""
				}
				if n, err := strconv.Atoi(v); err != nil || n < 0 {
					return "a whole number, 0 or more"
				}
				return ""
			}, func(v string) {
				if v == "" {
					own().Count = nil
					return
				}
				n, _ := strconv.Atoi(v)
				own().Count = &n
			})),
	)
}

// cutText is s, cut to n runes with an ellipsis.
func cutText(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}
