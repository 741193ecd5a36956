package widgets

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"
)

// wheelPass lies over a scroll container and hands it every mouse-wheel
// event: a Fyne text field takes the wheel events over it (even a
// single-line one, which has nothing to scroll), so that a form of fields
// stalled whenever the pointer crossed one. It takes no other event: taps,
// hovering and dragging reach what is under it.
type wheelPass struct {
	widget.BaseWidget
	target *container.Scroll
}

// WithWheel returns s under a wheelPass.
func WithWheel(s *container.Scroll) fyne.CanvasObject {
	w := &wheelPass{target: s}
	w.ExtendBaseWidget(w)
	return container.NewStack(s, w)
}

// Scrolled scrolls the target.
func (w *wheelPass) Scrolled(ev *fyne.ScrollEvent) { w.target.Scrolled(ev) }

// CreateRenderer is part of fyne.Widget: it draws nothing.
func (w *wheelPass) CreateRenderer() fyne.WidgetRenderer {
	return widget.NewSimpleRenderer(container.NewWithoutLayout())
}
