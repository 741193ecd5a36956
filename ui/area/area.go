// Package area is the workbench's central area, where results are read:
// the graph, a test's run, an offline suite, a replay. One view at a time
// gets the whole of it, or a result view shares it with the graph, side by
// side (a result opens that way: a test's run beside the graph it walks,
// clicking either selects in both). The side panel holds the controls; the
// views hold what they produce.
//
// Every view claims the area the same way: it is a View, and Open shows it
// as its result arrives; the user picks one in the area's bar (Show).
package area

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"github.com/modex/modex/ui/widgets"
)

// View is a view of the central area.
type View interface {
	// Title is the view's name, its button in the area's bar; it tells
	// the views apart (a new project's view of the same title replaces
	// the old one, see Set).
	Title() string
	// Content is what the view shows in the area.
	Content() fyne.CanvasObject
}

// Pane is a View made of its title and content, for a part of a larger
// view (an offline panel's suite and replay).
type Pane struct {
	// Name is the pane's title.
	Name string
	// Body is what the pane shows.
	Body fyne.CanvasObject
}

// Title is the pane's name.
func (p Pane) Title() string { return p.Name }

// Content is the pane's content.
func (p Pane) Content() fyne.CanvasObject { return p.Body }

// Opener is how a view claims the area when its result arrives (the
// workbench gives the views an Opener, never the Area itself).
type Opener interface {
	// Open shows v, beside the graph when the graph was on screen.
	Open(v View)
}

// Area is the central area: a bar of the views' buttons and a "beside the
// graph" check above the view (or views) shown.
type Area struct {
	views   []View
	holders []*fyne.Container // each view's content, swapped by Set
	buttons []*widgets.Button
	beside  *widget.Check
	split   *container.Split
	body    *fyne.Container
	content fyne.CanvasObject
	cur     int
	// OnShow is called after a view was shown, with whether the graph is
	// on screen too.
	OnShow func(v View, graphShown bool)
}

// New builds the area around its views, the graph's first, and shows the
// graph.
func New(graph View, results ...View) *Area {
	a := &Area{views: append([]View{graph}, results...), cur: -1}
	var bar []fyne.CanvasObject
	for i, v := range a.views {
		a.holders = append(a.holders, container.NewStack(v.Content()))
		a.buttons = append(a.buttons, widgets.NewButton(v.Title(), func() { a.show(i, a.beside.Checked) }))
		bar = append(bar, a.buttons[i])
	}
	a.beside = widget.NewCheck("beside the graph", func(on bool) {
		if a.cur >= 0 {
			a.show(a.cur, on)
		}
	})
	var second fyne.CanvasObject = container.NewStack()
	if len(a.holders) > 1 {
		second = a.holders[1]
	}
	a.split = container.NewHSplit(a.holders[0], second)
	a.split.Offset = 0.5
	a.body = container.NewStack()
	head := container.NewBorder(nil, nil, container.NewHBox(bar...), a.beside)
	a.content = container.NewBorder(head, nil, nil, nil, a.body)
	a.show(0, false)
	return a
}

// Content is the area's widget tree.
func (a *Area) Content() fyne.CanvasObject { return a.content }

// Views are the area's views, the graph's first.
func (a *Area) Views() []View { return append([]View(nil), a.views...) }

// index is the place of the view titled as v, -1 for none.
func (a *Area) index(v View) int {
	for i, w := range a.views {
		if w.Title() == v.Title() {
			return i
		}
	}
	return -1
}

// Set puts v in the place of the view of its title (a new project's view
// replacing the old project's), keeping what is shown.
func (a *Area) Set(v View) {
	i := a.index(v)
	if i < 0 {
		return
	}
	a.views[i] = v
	h := a.holders[i]
	if len(h.Objects) != 1 || h.Objects[0] != v.Content() {
		h.Objects = []fyne.CanvasObject{v.Content()}
		h.Refresh()
	}
}

// Show gives v the area, or the area beside the graph (beside is ignored
// for the graph).
func (a *Area) Show(v View, beside bool) {
	if i := a.index(v); i >= 0 {
		a.show(i, beside)
	}
}

func (a *Area) show(i int, beside bool) {
	beside = beside && i != 0
	if a.beside.Checked != beside {
		a.beside.Checked = beside // no OnChanged: this is it
		a.beside.Refresh()
	}
	if i == 0 {
		a.beside.Disable()
	} else {
		a.beside.Enable()
	}
	var o fyne.CanvasObject = a.holders[i]
	if beside {
		a.split.Leading, a.split.Trailing = a.holders[0], a.holders[i]
		a.split.Refresh()
		o = a.split
	}
	if a.cur != i || len(a.body.Objects) != 1 || a.body.Objects[0] != o {
		a.body.Objects = []fyne.CanvasObject{o}
		a.body.Refresh()
	}
	a.cur = i
	for k, b := range a.buttons {
		imp := widget.LowImportance
		if k == i {
			imp = widget.HighImportance
		}
		if b.Importance != imp {
			b.Importance = imp
			b.Refresh()
		}
	}
	if a.OnShow != nil {
		a.OnShow(a.views[i], i == 0 || beside)
	}
}

// Open shows a result view as it arrives: beside the graph when the graph
// was on screen (alone or beside another result), else alone, as the view
// the user was reading. It is the one way a view claims the area.
func (a *Area) Open(v View) {
	i := a.index(v)
	if i < 0 || a.cur == i {
		return
	}
	a.show(i, a.cur == 0 || a.beside.Checked)
}

// Current is the view shown (beside the graph when Beside).
func (a *Area) Current() View { return a.views[a.cur] }

// Beside reports whether the view shown shares the area with the graph.
func (a *Area) Beside() bool { return a.beside.Checked }

// GraphShown reports whether the graph is on screen.
func (a *Area) GraphShown() bool { return a.cur == 0 || a.beside.Checked }
