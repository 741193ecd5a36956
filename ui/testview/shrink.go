package testview

import (
	"fmt"
	"strings"

	"github.com/modex/modex/engine/conform"
	"github.com/modex/modex/engine/model"
	"github.com/modex/modex/graph"
	"github.com/modex/modex/projects"
	"github.com/modex/modex/ui/widgets"
)

// shrinkRepeats is K for the Shrink button: runs per candidate.
const shrinkRepeats = 4

// newShrinkButton is the failure panel's Shrink button: it shrinks the
// test's first failing run against the implementation (see Shrink).
func (tv *View) newShrinkButton() *widgets.Button {
	b := widgets.NewButton("Shrink", tv.Shrink)
	b.Disable()
	return b
}

// failed records the test's first failing run for Shrink (UI goroutine).
func (tv *View) failed(ri runInfo, r conform.RunResult, saved string) {
	if tv.firstFail != nil || r.Verdict != conform.Fail {
		return
	}
	tv.firstFail, tv.failInfo, tv.failFile = &r, ri, saved
	tv.shrinkB.Enable()
}

// Shrink searches for the shortest run that fails like the test's first
// failing run, in the background: progress in the verdicts line, Stop
// cancels, and the result (trace, model state, what the model allowed,
// the saved file) is added to the failure panel and drawn on the graph, the
// failing step in red.
func (tv *View) Shrink() {
	host := tv.host
	p, m, r := host.Project(), host.Model(), tv.firstFail
	if p == nil || m == nil || r == nil {
		return
	}
	ri, file := tv.failInfo, tv.failFile
	cfg, err := p.Build(m, ri.config)
	if err != nil {
		tv.verdicts.SetText("Configuration error: " + err.Error())
		return
	}
	command := tv.Command()
	ctx, gen := tv.newJob(nil)
	tv.running(true)
	tv.shrinking(true)
	saved := conform.SaveRun(p.Name, ri.config, ri.tc, *r)
	tv.shrinkNote(fmt.Sprintf("Shrinking run %d (%d steps)…", r.Run, r.Failure.Step))
	tc := ri.tc
	tc.OnStep, tc.OnRun = nil, nil
	go func() {
		var res *conform.ShrinkResult
		impl, err := p.Connect(ctx, m.Info(), command, "")
		if err == nil {
			res, err = conform.Shrink(ctx, m, cfg, impl, tc, saved, conform.ShrinkConfig{Repeats: shrinkRepeats,
				Progress: func(pr conform.ShrinkProgress) {
					host.Do(func() {
						if gen == tv.gen {
							tv.shrinkNote(fmt.Sprintf("Shrinking run %d: %d runs, %d controllable steps so far (%s)…", r.Run, pr.Runs, pr.Steps, pr.Phase))
						}
					})
				}})
			impl.Close()
		}
		var text string
		var d drawing
		if err == nil {
			text = shrinkReport(ri, file, saved, res)
			d, err = shrunkDrawing(m, res, tv.host.Graph().DrawScale)
		}
		host.Do(func() { tv.shrunk(gen, res, text, d, err) })
	}()
}

// shrinking turns the Shrink button into the shrinking's Stop (on) and
// back: progress and cancel where the user asked for it.
func (tv *View) shrinking(on bool) {
	if on {
		tv.shrinkB.SetText("Stop shrinking")
		tv.shrinkB.OnTapped = tv.Stop
	} else {
		tv.shrinkB.SetText("Shrink")
		tv.shrinkB.OnTapped = tv.Shrink
	}
	tv.shrinkB.Enable()
}

// shrinkNote shows the shrinking's progress in the verdicts, above the
// failure it shrinks and on the status line.
func (tv *View) shrinkNote(text string) {
	tv.verdicts.SetText(text)
	tv.failNote.SetText(text)
	tv.failNote.Show()
	if tv.onScreen() {
		tv.host.SetStatus(text)
	}
}

// shrinkReport is the text added to the failure panel for a shrunk run; it
// saves the run next to the original.
func shrinkReport(ri runInfo, file string, orig *conform.SavedRun, res *conform.ShrinkResult) string {
	var b strings.Builder
	b.WriteString("\n" + res.Summary() + "\n")
	b.WriteString(conform.FailureReport(res.Run, ""))
	if file == "" {
		return b.String()
	}
	if out, err := projects.SaveShrunk(file, res.Saved(orig)); err != nil {
		fmt.Fprintf(&b, "(the shrunk run could not be saved: %v)\n", err)
	} else {
		fmt.Fprintf(&b, "saved: %s\nrerun it: %s\n", out, projects.RerunCommand(ri.path, "", out))
	}
	return b.String()
}

// shrunkDrawing lays out the shrunk run alone: its path, then the failure.
func shrunkDrawing(m model.Model, res *conform.ShrinkResult, scale func(*graph.Layout) float64) (drawing, error) {
	v, err := conform.NewVisited(m)
	if err != nil {
		return drawing{}, err
	}
	for _, s := range res.Run.Steps {
		v.Add(s)
	}
	if res.Run.Failure != nil {
		v.Fail(res.Run)
	}
	doc := graph.FromGraph(v.Graph(), v.Vars)
	d := prepareDoc(doc, doc.States[max(v.Current(), 0)].ID, 50, scale)
	return d, d.err
}

// shrunk shows the result of Shrink (UI goroutine).
func (tv *View) shrunk(gen int, res *conform.ShrinkResult, text string, d drawing, err error) {
	if gen != tv.gen {
		return
	}
	tv.running(false)
	tv.shrinking(false)
	if err != nil {
		tv.shrinkNote("Shrinking: " + err.Error())
		return
	}
	tv.shrinkNote(fmt.Sprintf("Shrunk: %d steps (from %d), fails %d of %d re-runs.", res.Steps, res.From, res.Fails, res.Of))
	// The shrunk run first: it is what to read; the original follows.
	tv.report = strings.TrimPrefix(text, "\n") + "\n— the run it was shrunk from —\n" + tv.report
	tv.failure.SetText(tv.report)
	tv.bottom.SelectIndex(1)
	if tv.host.Active() {
		tv.host.Open(tv.RunView())
	}
	if !tv.onScreen() {
		return
	}
	tv.host.SetStatus(tv.verdicts.Text)
	tv.mu.Lock()
	tv.doc = d.doc
	tv.mu.Unlock()
	tv.host.Graph().FitNext()
	tv.newGraph(fmt.Sprintf("The shrunk run (%d steps), its path in orange and its failure in red.", res.Steps))
	tv.show(d, -1)
	// The path in orange, the failure in red.
	tv.host.Graph().SetMarks(pathMarks(d.view))
}
