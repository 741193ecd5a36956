// Package ui is the Modex workbench: Fyne widgets and screens. It talks to
// the engine through its public API only and never blocks the UI goroutine:
// model loading, exploration and graph layout run in goroutines and hand
// their results back with fyne.Do.
package ui

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"sync"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"github.com/modex/modex/assets"
	"github.com/modex/modex/engine"
	"github.com/modex/modex/graph"
	"github.com/modex/modex/projects"
)

// DrawLimit is the largest graph (in states) the workbench lays out whole.
const DrawLimit = 300

// Workbench is the main window's content: a project, its model, a
// configuration, and the explored graph.
type Workbench struct {
	win fyne.Window

	mu      sync.Mutex // guards the fields below, shared with goroutines
	project *projects.Project
	model   *engine.StarModel
	cancel  context.CancelFunc
	gen     int // exploration generation: results of older ones are dropped
	last    *engine.Exploration

	// widgets
	title    *widget.Label
	configs  *widget.Select
	explore  *widget.Button
	stop     *widget.Button
	progress *widget.ProgressBarInfinite
	status   *widget.Label
	source   *widget.TextGrid
	image    *canvas.Image
	note     *widget.Label
	content  fyne.CanvasObject

	// AutoExplore explores the default configuration as soon as a project
	// opens.
	AutoExplore bool

	// onShown, when set, is called on the UI goroutine each time an
	// exploration's result (summary and drawing) is on screen.
	onShown func()
}

// OnShown sets a function called (on the UI goroutine) whenever a finished
// exploration is fully on screen.
func (wb *Workbench) OnShown(f func()) { wb.onShown = f }

func (wb *Workbench) shown() {
	if wb.onShown != nil {
		wb.onShown()
	}
}

// NewWorkbench builds the workbench inside a window.
func NewWorkbench(win fyne.Window) *Workbench {
	wb := &Workbench{win: win}
	wb.title = widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	wb.configs = widget.NewSelect(nil, func(string) {})
	wb.explore = widget.NewButton("Explore", wb.Explore)
	wb.explore.Importance = widget.HighImportance
	wb.stop = widget.NewButton("Cancel", wb.Cancel)
	wb.stop.Disable()
	wb.progress = widget.NewProgressBarInfinite()
	wb.progress.Stop()
	wb.progress.Hide()
	wb.status = widget.NewLabel("Open a project, pick a configuration and press Explore.")
	wb.status.Wrapping = fyne.TextWrapWord
	wb.source = widget.NewTextGrid()
	wb.image = canvas.NewImageFromImage(nil)
	wb.image.FillMode = canvas.ImageFillOriginal
	wb.note = widget.NewLabel("")
	wb.note.Wrapping = fyne.TextWrapWord
	bar := container.NewHBox(wb.title, widget.NewLabel("Configuration:"), wb.configs, wb.explore, wb.stop, wb.progress)
	left := container.NewBorder(widget.NewLabelWithStyle("Model", fyne.TextAlignLeading, fyne.TextStyle{Bold: true}), nil, nil, nil, container.NewScroll(wb.source))
	right := container.NewBorder(wb.note, nil, nil, nil, container.NewScroll(container.NewCenter(wb.image)))
	split := container.NewHSplit(left, right)
	split.Offset = 0.35
	wb.content = container.NewBorder(bar, wb.status, nil, nil, split)
	win.SetContent(wb.content)
	win.SetIcon(assets.Icon)
	return wb
}

// Open loads a project (or bare .star model) and shows its model.
func (wb *Workbench) Open(path string) error {
	p, err := projects.Load(path)
	if err != nil {
		return err
	}
	src, _ := os.ReadFile(p.ModelPath())
	m, merr := p.LoadModel()
	wb.mu.Lock()
	wb.project, wb.model, wb.last = p, m, nil
	wb.mu.Unlock()
	wb.win.SetTitle("Modex — " + p.Name)
	wb.title.SetText(p.Name)
	wb.configs.Options = p.ConfigNames()
	wb.configs.SetSelected(p.Default)
	wb.source.SetText(string(src))
	wb.image.Image = nil
	wb.image.Refresh()
	if merr != nil {
		wb.status.SetText("Model error: " + merr.Error())
		wb.note.SetText(merr.Error())
		wb.explore.Disable()
		return nil
	}
	wb.explore.Enable()
	wb.note.SetText("")
	wb.status.SetText(fmt.Sprintf("%s: %s", filepath.Base(p.ModelPath()), p.Description))
	if wb.AutoExplore {
		wb.Explore()
	}
	return nil
}

// Explore starts exploring the selected configuration in the background.
func (wb *Workbench) Explore() {
	wb.mu.Lock()
	p, m := wb.project, wb.model
	if p == nil || m == nil {
		wb.mu.Unlock()
		return
	}
	if wb.cancel != nil {
		wb.cancel()
	}
	ctx, cancel := context.WithCancel(context.Background())
	wb.cancel = cancel
	wb.gen++
	gen := wb.gen
	wb.mu.Unlock()
	cfg, err := p.Build(m, wb.configs.Selected)
	if err != nil {
		wb.status.SetText("Configuration error: " + err.Error())
		return
	}
	cfg.Progress = func(pr engine.Progress) {
		fyne.Do(func() {
			if wb.current(gen) && !pr.Done {
				wb.status.SetText(fmt.Sprintf("Exploring: %d states, %d transitions, %d tried, %.0f tried/s", pr.States, pr.Transitions, pr.Tried, pr.Rate))
			}
		})
	}
	wb.explore.Disable()
	wb.stop.Enable()
	wb.progress.Show()
	wb.progress.Start()
	go func() {
		x, err := engine.Explore(ctx, m, cfg)
		var doc *graph.Doc
		if err == nil {
			doc, err = graph.FromExploration(x)
		}
		fyne.Do(func() { wb.explored(gen, p, x, doc, err) })
	}()
}

func (wb *Workbench) current(gen int) bool {
	wb.mu.Lock()
	defer wb.mu.Unlock()
	return gen == wb.gen
}

// explored runs on the UI goroutine when an exploration ends.
func (wb *Workbench) explored(gen int, p *projects.Project, x *engine.Exploration, doc *graph.Doc, err error) {
	if !wb.current(gen) {
		return
	}
	wb.explore.Enable()
	wb.stop.Disable()
	wb.progress.Stop()
	wb.progress.Hide()
	if err != nil {
		wb.status.SetText("Error: " + err.Error())
		wb.shown()
		return
	}
	wb.mu.Lock()
	wb.last = x
	wb.mu.Unlock()
	g := x.Graph()
	end := "complete"
	if !x.Stats.Complete {
		end = "incomplete (" + x.Stats.StoppedBy + ")"
	}
	wb.status.SetText(fmt.Sprintf("%s [%s]: %d states, %d transitions, %d tried, %.3f s, %s",
		p.Name, wb.configs.Selected, len(g.States), len(g.Trans), x.Stats.Tried, x.Stats.Seconds, end))
	if len(doc.States) > DrawLimit {
		wb.image.Image = nil
		wb.image.Refresh()
		wb.note.SetText(fmt.Sprintf("%d states: too many to draw whole (limit %d). Export the graph or narrow the configuration.", len(doc.States), DrawLimit))
		wb.shown()
		return
	}
	wb.note.SetText("Laying out the graph…")
	go func() {
		img, err := renderPNG(doc)
		fyne.Do(func() {
			if !wb.current(gen) {
				return
			}
			if err != nil {
				wb.note.SetText("Layout failed: " + err.Error())
				wb.shown()
				return
			}
			wb.note.SetText("")
			wb.image.Image = img
			wb.image.Refresh()
			wb.shown()
		})
	}()
}

// Cancel stops a running exploration; what was found is kept.
func (wb *Workbench) Cancel() {
	wb.mu.Lock()
	if wb.cancel != nil {
		wb.cancel()
	}
	wb.mu.Unlock()
}

// Last returns the last finished exploration, or nil.
func (wb *Workbench) Last() *engine.Exploration {
	wb.mu.Lock()
	defer wb.mu.Unlock()
	return wb.last
}

// Status returns the status line text.
func (wb *Workbench) Status() string { return wb.status.Text }

func renderPNG(doc *graph.Doc) (image.Image, error) {
	var buf bytes.Buffer
	if err := doc.Render(context.Background(), graph.PNG, "", &buf); err != nil {
		return nil, err
	}
	return png.Decode(&buf)
}

// Run opens the workbench on a project; path "" opens the bundled chat
// sample (copied to the user's cache folder).
func Run(a fyne.App, path string) error {
	if path == "" {
		dir, err := os.UserCacheDir()
		if err != nil {
			dir = os.TempDir()
		}
		if path, err = projects.ExtractSample("chat", filepath.Join(dir, "modex", "samples")); err != nil {
			return err
		}
	}
	a.SetIcon(assets.Icon)
	w := a.NewWindow("Modex")
	w.Resize(fyne.NewSize(1200, 800))
	wb := NewWorkbench(w)
	wb.AutoExplore = true
	if err := wb.Open(path); err != nil {
		return err
	}
	w.ShowAndRun()
	return nil
}
