package ui

import (
	"context"
	"errors"
	"fmt"
	"image"

	"github.com/modex/modex/engine/explore"
	"github.com/modex/modex/graph"
)

// drawing is a laid-out view ready for the UI goroutine.
type drawing struct {
	doc, view *graph.Doc
	lay       *graph.Layout
	img       image.Image
	scale     float64 // the scale img was drawn at
	note      string
	err       error
}

// prepare builds the document and lays out what will be shown: the whole
// graph when it is small enough, else the neighbourhood of center. It runs
// off the UI goroutine.
func prepare(ctx context.Context, x *explore.Exploration, center string, radius int, scale func(*graph.Layout) float64) drawing {
	var d drawing
	d.doc, d.err = graph.FromExploration(x)
	if d.err != nil {
		return d
	}
	d.view = d.doc
	if n := len(d.doc.States); n > DrawLimit {
		if center == "" || d.doc.StateIndex(center) < 0 {
			center = "S0"
		}
		d.view = d.doc.Neighbourhood(center, radius)
		d.note = fmt.Sprintf("%d states, %d transitions: too many to draw whole. Showing the %d states within %d steps of %s (click a state to move; dashed states have more beyond).",
			n, len(d.doc.Transitions), len(d.view.States), radius, center)
		if len(d.view.States) > DrawLimit {
			d.note = fmt.Sprintf("%d states, %d transitions; even %d steps around %s hold %d states. Lower the steps, narrow the configuration, or export the graph.",
				n, len(d.doc.Transitions), radius, center, len(d.view.States))
			d.view = nil
			return d
		}
	}
	d.lay, d.err = graph.LayoutDoc(ctx, d.view, "")
	if d.err != nil {
		return d
	}
	d.scale = scale(d.lay)
	d.img = d.lay.Draw(d.scale, nil)
	return d
}

var drawScaleBase = 2.0

// present lays out an exploration (partial when !final) off the UI goroutine
// and shows it unless something newer has been shown meanwhile.
func (wb *Workbench) present(gen, seq int, x *explore.Exploration, final bool) {
	wb.mu.Lock()
	center, radius := wb.s.center, wb.radius
	// A newer presentation supersedes this one: its layout (a child
	// process when graph.LayoutCommand is set) is killed.
	if wb.layoutCancel != nil {
		wb.layoutCancel()
	}
	ctx, cancel := context.WithCancel(context.Background())
	wb.layoutCancel = cancel
	wb.mu.Unlock()
	d := prepare(ctx, x, center, radius, wb.graph.DrawScale)
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
		if final {
			wb.finishRun()
			wb.mu.Lock()
			wb.s.last = x
			wb.mu.Unlock()
		}
		wb.show(x, d, final)
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
	wb.s.doc, wb.s.full = d.doc, x.Graph()
	wb.mu.Unlock()
	st := x.Stats
	end := st.Ending()
	if !st.Complete && st.StoppedBy == "" {
		end = "exploring…"
	}
	errs := 0
	for _, s := range d.doc.States {
		if s.Error != "" {
			errs++
		}
	}
	summary := fmt.Sprintf("%s [%s]: %d states, %d transitions, %d tried, %.3f s, %s",
		wb.s.project.Name, wb.configs.Selected, len(d.doc.States), len(d.doc.Transitions), st.Tried, st.Seconds, end)
	if errs > 0 {
		summary += fmt.Sprintf(", %d error states", errs)
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
	if !wb.graph.UserZoomed() {
		wb.graph.Fit()
	}
	if wb.s.center != "" {
		if i := d.view.StateIndex(wb.s.center); i >= 0 {
			wb.graph.Select(i)
		}
	}
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

// MaxImagePixels bounds the image drawn for the view (texture upload on the
// UI goroutine grows with it); MaxImageSide keeps within GL texture limits.
const (
	MaxImagePixels = 4_000_000
	MaxImageSide   = 8000
)
