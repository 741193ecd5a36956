package ui

import (
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/test"

	"github.com/modex/modex/ui/widgets"
)

// A drop-down taken out of the window while it has the keyboard focus (a
// configuration editor rebuilt, a project replaced) or while the pointer
// is on it is not on any canvas: a key or a tap that reaches it then
// opened its menu on no canvas, and Fyne dereferenced the nil canvas (the
// crash of issue 52). It ignores them now; the workbench also takes the
// focus back from what it removes.
func TestDetachedSelectDoesNotCrash(t *testing.T) {
	a := test.NewTempApp(t)
	w := a.NewWindow("t")
	w.Resize(fyne.NewSize(400, 300))
	// As the desktop driver: an object on no canvas once out of the tree.
	old := widgets.CanvasFor
	defer func() { widgets.CanvasFor = old }()
	widgets.CanvasFor = func(o fyne.CanvasObject) fyne.Canvas {
		if within(w.Content(), o) {
			return w.Canvas()
		}
		return nil
	}
	s := widgets.NewSelect([]string{"a", "b"}, nil)
	holder := container.NewStack(s)
	w.SetContent(holder)
	w.Canvas().Focus(s)
	holder.Objects = nil // detached, still focused
	holder.Refresh()
	test.Tap(s)
	s.TypedKey(&fyne.KeyEvent{Name: fyne.KeyDown})
	s.TypedKey(&fyne.KeyEvent{Name: fyne.KeySpace})
	if s.Selected != "" || w.Canvas().Overlays().Top() != nil {
		t.Errorf("a detached drop-down opened (or chose %q)", s.Selected)
	}
	// Attached again, it works.
	holder.Objects = []fyne.CanvasObject{s}
	holder.Refresh()
	test.Tap(s)
	if c := w.Canvas().Overlays().Top(); c == nil {
		t.Error("an attached drop-down does not open")
	}
}

// within reports whether o is root or inside it, through containers.
func within(root, o fyne.CanvasObject) bool {
	if root == o {
		return true
	}
	if c, ok := root.(*fyne.Container); ok {
		for _, k := range c.Objects {
			if within(k, o) {
				return true
			}
		}
	}
	return false
}
