package testview

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image/color"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"github.com/modex/modex/campaign"
	"github.com/modex/modex/engine/conform"
	"github.com/modex/modex/engine/model"
	"github.com/modex/modex/graph"
	"github.com/modex/modex/projects"
	"github.com/modex/modex/ui/chart"
	"github.com/modex/modex/ui/graphview"
	"github.com/modex/modex/ui/widgets"
)

// campaignPanel is the Test tab's campaign part: how many local workers,
// which NATS server, the button, and the failures received (UI goroutine).
type campaignPanel struct {
	workers *widgets.Entry
	nats    *widgets.Entry
	button  *widgets.Button
	shrink  *widgets.Check
	fails   []campaign.Failure
	// unlisted counts the failures beyond maxListedFailures, not listed.
	unlisted int
	// perWorker is the last report's figures per worker.
	perWorker map[string]campaign.WorkerStat
	info      runInfo // the campaign's project, configuration and settings
}

// campaignRow builds the campaign controls.
func (tv *View) campaignRow() fyne.CanvasObject {
	c := &tv.camp
	c.workers = tv.newEntry()
	c.workers.SetText("2")
	c.nats = tv.newEntry()
	c.nats.PlaceHolder = "NATS URL (optional)"
	c.button = widgets.NewButton("Campaign", tv.StartCampaign)
	c.shrink = widgets.NewCheck("shrink", nil) // each job's first failing run, on its worker
	// Two rows: the side panel is narrow.
	return container.NewVBox(
		container.NewHBox(widget.NewLabel("local workers"), container.NewGridWrap(fyne.NewSize(50, c.workers.MinSize().Height), c.workers)),
		c.nats, container.NewHBox(c.button, c.shrink))
}

// maxListedFailures bounds the failures a campaign lists in the Test tab
// (within the log's lines, so that every one listed stays there to click);
// the coordinator keeps the others' runs in the campaign's folder too.
const maxListedFailures = MaxLogLines * 9 / 10

// campaignReportEvery is the least time between two campaign reports drawn
// (reports with new failures are always drawn).
const campaignReportEvery = 200 * time.Millisecond

// StartCampaign runs the test settings as a campaign on NATS JetStream (see
// package campaign): jobs of runs pulled by the local workers (and by any
// modex worker attached to the NATS server given, whose results do not
// count: the workbench trusts only its own workers), watched live: jobs,
// runs/s, each worker's rate, states covered over time, failures as they
// arrive (click one to draw it).
func (tv *View) StartCampaign() {
	host := tv.host
	p := host.Project()
	if p == nil || host.Model() == nil {
		return
	}
	if p.Path == "" {
		tv.verdicts.SetText("A campaign needs a project file (.toml), not a bare model.")
		return
	}
	workers, err := strconv.Atoi(strings.TrimSpace(tv.camp.workers.Text))
	if err != nil || workers < 0 || workers > 64 {
		tv.verdicts.SetText("Local workers must be a whole number from 0 to 64.")
		return
	}
	if workers == 0 && strings.TrimSpace(tv.camp.nats.Text) == "" {
		tv.verdicts.SetText("With the server in Modex, a campaign needs at least one local worker.")
		return
	}
	if workers == 0 {
		// The workbench names no other worker to trust: only its own
		// results count.
		tv.verdicts.SetText("A campaign here counts only its local workers' results: start at least one " +
			"(modex campaign --nats URL --trust-worker KEY counts other workers').")
		return
	}
	command := tv.Command()
	host.Consented(command, func() { tv.startCampaign(workers) })
}

func (tv *View) startCampaign(workers int) {
	host := tv.host
	p := host.Project()
	config := host.Config()
	cfg, tc, ok := tv.prepare()
	if !ok {
		return
	}
	if tc.Strategy == conform.StrategyCode {
		tv.verdicts.SetText("A campaign cannot use the code strategy: its workers do not measure the implementation's code coverage (run a test with it).")
		return
	}
	command := tv.Command()
	// Jobs of at most 10 runs, at least two per worker.
	jobRuns := max(1, min(10, tc.Runs/max(1, 2*workers)))
	spec := campaign.Spec{ProjectFile: p.Path, Config: config, Runs: tc.Runs, Steps: tc.Steps, Seed: tc.Seed, Strategy: string(tc.Strategy),
		EndWait: tc.EndWait.Seconds(), JobRuns: jobRuns, Cover: tv.cover.check.Checked, CoverInclude: tv.cover.includes()}
	if tv.camp.shrink.Checked {
		spec.Shrink = &campaign.Shrinking{Repeats: shrinkRepeats, Seconds: 300}
	}
	where := campaign.Where{URL: strings.TrimSpace(tv.camp.nats.Text), Workers: workers, Adapter: command}
	on := "on the NATS server given"
	if where.URL == "" {
		cache, err := os.UserCacheDir()
		if err != nil {
			tv.verdicts.SetText(err.Error())
			return
		}
		where.Dir = filepath.Join(cache, "modex", "nats-workbench")
		on = "on a NATS server in Modex"
	} else {
		// Workers elsewhere trust the user's coordinator key: the same
		// from campaign to campaign (modex campaign --nats uses it too).
		file, err := campaign.DefaultKeyFile()
		if err == nil {
			spec.Key, err = campaign.LoadOrCreateKey(file)
		}
		if err != nil {
			tv.verdicts.SetText("coordinator key: " + err.Error())
			return
		}
		on += "; only the local workers' results count (coordinator key " + campaign.PublicKey(spec.Key) + ")"
	}
	ctx, gen := tv.newJob(func() {
		tv.queue = nil
		tv.visited, tv.cfg = nil, cfg
	})
	tv.camp.fails, tv.camp.unlisted = nil, 0
	tv.camp.info = runInfo{gen: gen, started: time.Now(), project: p.Name, path: p.Path, config: config, tc: tc}
	tv.camp.perWorker = nil
	tv.clear("jobs done")
	tv.setCounters(fmt.Sprintf("Campaign: %d runs of %d steps in jobs of %d, seed %d, %d local workers, %s…", spec.Runs, spec.Steps, jobRuns, spec.Seed, workers, on))
	tv.verdicts.SetText("")
	host.Details().Clear("Click a failure to draw its run.")
	host.StopExploring()
	var mu sync.Mutex
	var errs []string
	where.WorkerError = func(name string, err error) {
		mu.Lock()
		errs = append(errs, fmt.Sprintf("worker %s: %v", name, err))
		mu.Unlock()
	}
	go func() {
		var last time.Time
		sum, err := campaign.Run(ctx, spec, where, func(pr campaign.Progress) {
			if len(pr.New) == 0 && time.Since(last) < campaignReportEvery && pr.Done < pr.Jobs {
				return
			}
			last = time.Now()
			host.Do(func() { tv.campaignProgress(gen, pr) })
		})
		mu.Lock()
		werrs := strings.Join(errs, "\n")
		mu.Unlock()
		host.Do(func() { tv.campaignFinished(gen, sum, werrs, err) })
	}()
}

// running switches the buttons between a job running and none.
func (tv *View) running(on bool) {
	for _, b := range []*widgets.Button{tv.startB, tv.camp.button} {
		if on {
			b.Disable()
		} else {
			b.Enable()
		}
	}
	if on {
		tv.stop.Enable()
	} else {
		tv.stop.Disable()
	}
}

// campaignProgress shows a campaign's report (UI goroutine).
func (tv *View) campaignProgress(gen int, pr campaign.Progress) {
	if gen != tv.gen {
		return
	}
	tv.setCounters(fmt.Sprintf("%d of %d jobs, %d runs (%.0f runs/s), %d steps, %d failures, %d model states visited; %.1f s",
		pr.Done, pr.Jobs, pr.Runs, float64(pr.Runs)/max(pr.Seconds, 0.001), pr.Steps, pr.Failures, pr.States, pr.Seconds))
	tv.camp.perWorker = pr.PerWorker
	tv.verdicts.SetText(workerLines(pr.PerWorker))
	if n := pr.Done - tv.chart.Len(); n > 0 { // a point per job done
		tv.chart.Add(slices.Repeat([]chart.Point{{States: pr.States, Trans: -1}}, n)...)
	}
	for _, f := range pr.New {
		if len(tv.camp.fails) >= maxListedFailures {
			tv.camp.unlisted++ // the campaign's summary counts them
			continue
		}
		tv.camp.fails = append(tv.camp.fails, f)
		shrunk := ""
		if f.ShrunkSteps > 0 {
			shrunk = fmt.Sprintf(" → %d", f.ShrunkSteps)
		}
		cells := failCells(0, f.Step, string(f.Kind), f.Message, f.Worker)
		cells[colRun] = "seed " + strconv.FormatUint(f.Seed, 10)
		cells[colStep] += shrunk
		tv.appendLines(logLine{text: fmt.Sprintf("seed %d  ✗ %s at step %d%s: %s (%s)", f.Seed, f.Kind, f.Step, shrunk, f.Message, f.Worker),
			cells: cells, fail: true, camp: len(tv.camp.fails)})
		if tv.report == "" {
			tv.report = f.Report
			tv.failure.SetText(tv.report)
		}
	}
	if len(pr.New) > 0 {
		tv.log.Refresh()
		tv.log.ScrollToBottom()
	}
}

// workerLines says what each worker did: jobs, runs and its rate.
func workerLines(per map[string]campaign.WorkerStat) string {
	names := make([]string, 0, len(per))
	for w := range per {
		names = append(names, w)
	}
	sort.Strings(names)
	var out []string
	for _, w := range names {
		st := per[w]
		out = append(out, fmt.Sprintf("%s: %d jobs, %d runs, %.0f runs/s", w, st.Jobs, st.Runs, float64(st.Runs)/max(st.Busy, 0.001)))
	}
	return strings.Join(out, " · ")
}

// campaignFinished shows a campaign's end (UI goroutine).
func (tv *View) campaignFinished(gen int, sum *campaign.Summary, workerErrs string, err error) {
	if gen != tv.gen {
		return
	}
	tv.running(false)
	text := ""
	switch {
	case errors.Is(err, context.Canceled) && sum != nil:
		text = fmt.Sprintf("Campaign stopped: %d of %d jobs done, %d runs: %s; the other jobs were withdrawn.", sum.Done, sum.Jobs, sum.Runs, sum.Tally)
	case err != nil && sum != nil:
		text = fmt.Sprintf("Campaign stopped (%v): %d of %d jobs done, %d runs: %s.", err, sum.Done, sum.Jobs, sum.Runs, sum.Tally)
	case err != nil:
		text = "Campaign: " + err.Error()
	default:
		text = fmt.Sprintf("Campaign %s: %d runs: %s; %s; %d of %d jobs done, %d given up, %d duplicates dropped; %.1f s.",
			sum.Campaign, sum.Runs, sum.Tally, sum.Covered.Coverage(sum.Size), sum.Done, sum.Jobs, sum.GivenUp, sum.Duplicates, sum.Seconds)
		if c, _ := sum.Code.Summary(); c.Total > 0 {
			text += " Code coverage of the implementation: " + c.String() + "."
		} else if sum.CodeNote != "" {
			text += " No code coverage: " + sum.CodeNote + "."
		}
		for _, e := range sum.JobErrors {
			text += "\njob error: " + e
		}
	}
	text += keptText(sum, tv.camp.unlisted)
	if w := workerLines(tv.camp.perWorker); w != "" {
		text += "\n" + w
	}
	if workerErrs != "" {
		text += "\n" + workerErrs
	}
	tv.verdicts.SetText(text)
	if tv.onScreen() {
		tv.host.SetStatus(strings.SplitN(text, "\n", 2)[0])
	}
	if tv.OnCampaignDone != nil {
		tv.OnCampaignDone(sum, err)
	}
}

// keptText says where a campaign kept its failures' runs, how many it
// could not keep, and how many are not listed here ("" : nothing to say).
func keptText(sum *campaign.Summary, unlisted int) string {
	if sum == nil {
		return ""
	}
	text := ""
	if sum.Kept > 0 {
		text += fmt.Sprintf("\nThe runs of %d failures are kept in %s.", sum.Kept, sum.FailuresDir)
	}
	if sum.Lost > 0 {
		text += fmt.Sprintf("\nThe runs of %d failures could not be kept: click one for why and how to run it again.", sum.Lost)
	}
	if unlisted > 0 {
		text += fmt.Sprintf("\n%d failures after the first %d are not listed here (their runs are in the folder above).", unlisted, maxListedFailures)
	}
	return text
}

// showCampaignFailure draws failure i of the campaign (its run as the
// tester met it, the failure in red), saves its run and puts its report,
// with the command that reruns it, in the failure panel. A failure kept
// without its run in memory is read from the file the campaign kept it in;
// one whose run was not kept says why, and how to run its choices again.
func (tv *View) showCampaignFailure(i int) {
	if i < 0 || i >= len(tv.camp.fails) || tv.host.Model() == nil {
		return
	}
	f, ri, m := tv.camp.fails[i], tv.camp.info, tv.host.Model()
	gen := tv.gen
	go func() {
		whole, err := f.Load()
		if err != nil {
			tv.host.Do(func() { tv.campaignFailureLost(gen, f, err) })
			return
		}
		f = whole
		text := f.Report
		if file, err := campaign.SaveFailure(ri.project, ri.config, "", f); err == nil {
			text += fmt.Sprintf("saved: %s\nrerun its steps: %s\n", file, projects.RerunCommand(ri.path, ri.config, file))
		} else {
			text += fmt.Sprintf("(its saved run could not be written to the failures folder: %v)\n", err)
		}
		// The shrunk run first: it is what to read.
		shrunk := ""
		if f.ShrunkNote != "" {
			shrunk = f.ShrunkNote + "\n"
		}
		if file, err := campaign.SaveShrunk(ri.project, ri.config, "", f); err == nil {
			shrunk += fmt.Sprintf("saved: %s\nrerun it: %s\n", file, projects.RerunCommand(ri.path, ri.config, file))
		}
		if shrunk != "" {
			text = shrunk + "— the failing run —\n" + text
		}
		var chart *graph.Chart
		if saved, err := conform.ReadSavedRun(bytes.NewReader(f.Saved)); err == nil {
			chart = graph.SavedChart(fmt.Sprintf("campaign failure, seed %d", f.Seed), saved)
		}
		v, d, err := failureDrawing(m, f, tv.host.Graph().DrawScale)
		if err != nil && chart != nil {
			err = fmt.Errorf("%v; its steps are in the sequence chart", err)
		}
		tv.host.Do(func() {
			if gen != tv.gen || !tv.onScreen() {
				return
			}
			tv.report = text
			tv.failure.SetText(text)
			if chart != nil {
				tv.seqPinned = true // the chart shows this failure until the next test
				tv.seq.SetChart(chart)
			}
			if err != nil {
				tv.host.Graph().SetMessage("The failing run cannot be drawn: " + err.Error())
				tv.onGraph = true
				return
			}
			tv.mu.Lock()
			tv.visited, tv.doc = v, d.doc
			tv.mu.Unlock()
			tv.host.Graph().FitNext()
			tv.newGraph(fmt.Sprintf("The failing run of seed %d, its path in orange and its failure in red.", f.Seed))
			tv.show(d, -1)
			tv.host.Graph().SetMarks(pathMarks(d.view))
			tv.host.SetStatus(fmt.Sprintf("Campaign failure: seed %d, %s at step %d", f.Seed, f.Kind, f.Step))
		})
	}()
}

// campaignFailureLost says, in the failure panel and on the graph, why a
// campaign failure's run cannot be drawn, with the command that runs its
// choices again (UI goroutine).
func (tv *View) campaignFailureLost(gen int, f campaign.Failure, why error) {
	if gen != tv.gen || !tv.onScreen() {
		return
	}
	ri := tv.camp.info
	again := projects.SameChoicesCommand(ri.path, ri.config, f.Seed, ri.tc.Steps, ri.tc.Strategy)
	text := fmt.Sprintf("The run of seed %d failed (%s at step %d): %s\n\nIts run cannot be drawn: %v.\n"+
		"Run its choices again (against your implementation as it is now): %s\n", f.Seed, f.Kind, f.Step, f.Message, why, again)
	tv.report = text
	tv.failure.SetText(text)
	tv.host.Graph().SetMessage(fmt.Sprintf("The failing run of seed %d cannot be drawn: %v. Run its choices again: %s", f.Seed, why, again))
	tv.onGraph = true
	tv.host.SetStatus(fmt.Sprintf("Campaign failure: seed %d, %s at step %d (its run was not kept)", f.Seed, f.Kind, f.Step))
}

// failureDrawing lays out a campaign failure's run alone.
func failureDrawing(m model.Model, f campaign.Failure, scale func(*graph.Layout) float64) (*conform.Visited, drawing, error) {
	v, err := conform.NewVisited(m)
	if err != nil {
		return nil, drawing{}, err
	}
	for _, p := range f.Path {
		v.AddPath(p)
	}
	if v.Current() < 0 {
		return nil, drawing{}, fmt.Errorf("its worker did not send the model states of its run (too big to send)")
	}
	v.Fail(conform.RunResult{Run: int(f.Seed), Failure: &conform.Failure{Kind: conform.FailureKind(f.Kind), Step: f.Step, Message: f.Message}})
	doc := graph.FromGraph(v.Graph(), v.Vars)
	d := prepareDoc(doc, doc.States[max(v.Current(), 0)].ID, 50, scale)
	return v, d, d.err
}

// pathMarks marks a drawn run: its states orange, failures red.
func pathMarks(view *graph.Doc) map[int]color.NRGBA {
	marks := map[int]color.NRGBA{}
	for i, s := range view.States {
		marks[i] = graphview.MarkPath
		if s.Error != "" {
			marks[i] = graphview.MarkCurrent
		}
	}
	return marks
}
