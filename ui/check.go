package ui

import (
	"context"
	"runtime"
	"strings"
	"time"

	"github.com/modex/modex/engine/explore"
	"github.com/modex/modex/engine/model"
	"github.com/modex/modex/projects"
)

// checked checks the selected configuration, with no graph, when it asks
// for the checking mode (check = true), and says whether it did.
func (wb *Workbench) checked(ctx context.Context, gen int, p *projects.Project, m model.Model, cfg *explore.Config) bool {
	name := wb.configs.Selected
	spec, err := p.Resolve(name)
	if err != nil || spec.Check == nil || !*spec.Check {
		return false
	}
	wb.runCheck(ctx, gen, m, cfg, name)
	return true
}

// runCheck checks the configuration (explore.Check) in the background: the
// counter shows the check's progress, the status its summary and the first
// violation with its path; the graph on screen stays as it was.
func (wb *Workbench) runCheck(ctx context.Context, gen int, m model.Model, cfg *explore.Config, name string) {
	cfg.Workers = max(1, runtime.NumCPU()-1) // a core for the UI, as Explore leaves
	opts := explore.CheckOptions{ProgressEvery: 250 * time.Millisecond}
	opts.Progress = func(p explore.CheckProgress) {
		wb.do(func() {
			if !wb.current(gen) {
				return
			}
			if !p.Done {
				v := wb.progress.Value + 0.1
				if v > 1.001 {
					v = 0
				}
				wb.progress.SetValue(v)
			}
			wb.counts.SetText(p.String())
		})
	}
	wb.startRun()
	wb.status.SetText("Checking " + name + " without a graph (check = true)…")
	go func() {
		r, err := explore.Check(ctx, m, cfg, opts)
		wb.do(func() {
			if !wb.current(gen) {
				return
			}
			wb.finishRun()
			if err != nil {
				wb.status.SetText("Error: " + err.Error())
			} else {
				text := "Checked " + name + " (check = true, no graph): " + r.Words()
				if v := r.Violation; v != nil {
					text += "; " + strings.ReplaceAll(v.ViolationText(), "\n    ", " ")
				}
				wb.status.SetText(text)
			}
			wb.shown()
		})
	}()
}
