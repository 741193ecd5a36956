// Package testview is the workbench's test dashboard: the Test tab's
// settings in the side panel and the Test run view of the central area.
// Online tests run live there (the visited graph grows on the workbench's
// graph view, with a step log, counters, a coverage chart, the first
// failure whole and a sequence chart); a failing run is shrunk; a test may
// be watched on the explored graph instead of its own, with the
// implementation's code coverage measured. Campaigns on NATS JetStream run
// from the same tab (campaign.go) and share its log, chart and failure
// panel. The dashboard reaches the workbench only through its Host, and
// never imports package ui.
package testview

import (
	"context"
	"fmt"
	"image/color"
	"strconv"
	"strings"
	"sync"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/widget"

	"github.com/modex/modex/campaign"
	"github.com/modex/modex/engine/conform"
	"github.com/modex/modex/engine/explore"
	"github.com/modex/modex/graph"
	"github.com/modex/modex/projects"
	"github.com/modex/modex/ui/area"
	"github.com/modex/modex/ui/chart"
	"github.com/modex/modex/ui/graphview"
	"github.com/modex/modex/ui/seqchart"
	"github.com/modex/modex/ui/widgets"
)

// View runs online tests from the workbench and shows them live: the
// graph of visited states grows, the current state is marked, failures are
// red; a step log, counters and a coverage chart follow the run.
type View struct {
	host     Host
	runs     *widgets.Entry
	steps    *widgets.Entry
	seed     *widgets.Entry
	strategy *widgets.Select
	adapter  *widgets.Entry
	startB   *widgets.Button
	stop     *widgets.Button
	counters *widget.Label
	verdicts *widget.Label
	chart    *chart.Coverage
	cover    testCover
	log      *widget.Table
	tips     *tipLayer // the step log's tooltips
	lines    []logLine // UI goroutine only
	// dropped counts the oldest log lines let go (see MaxLogLines).
	dropped int
	failure *widget.Entry
	report  string // the failure panel's text; UI goroutine only
	bottom  *container.AppTabs
	shrinkB *widgets.Button
	// The test's first failing run, its test and saved file, for Shrink
	// (UI goroutine).
	firstFail *conform.RunResult
	failInfo  runInfo
	failFile  string
	// shown is the test's last drawing and current node (UI goroutine):
	// shown again when the Test tab comes back; selID is the node the user
	// selected in it, kept selected as the live graph grows.
	shown    *drawing
	shownCur int
	selID    string
	actions  int               // steps (actions) shown in the log; UI goroutine only
	runsDone int               // runs ended; UI goroutine only
	content  fyne.CanvasObject // the settings (side panel)
	// onGraph says the graph view shows this test's graph or its
	// placeholder (not the exploration's): leaving the Test tab puts the
	// exploration's back.
	onGraph bool
	// chartPanel holds the counters above the chart (see setCounters).
	chartPanel *fyne.Container
	// explored, when ticked, shows the test on the explored graph
	// (testonexplored.go); marked is what it marks there, config the
	// configuration the test runs.
	explored *widgets.Check
	marked   *visitedKeys
	config   string
	// failNote says, beside the Shrink button, how the shrinking goes.
	failNote *widget.Label
	results  fyne.CanvasObject // the run (central area)
	camp     campaignPanel
	// seq draws the current run as a sequence chart, or the first failing
	// run once one fails (seqPinned); seqSteps and seqNodes are that run's
	// last steps and their graph nodes (UI goroutine).
	seq        *seqchart.Chart
	seqRun     int
	seqSteps   []conform.StepRecord
	seqNodes   []string
	seqDropped int
	seqPinned  bool

	mu      sync.Mutex // guards the fields below, shared with the test goroutine
	queue   []any      // conform.StepRecord or conform.RunResult, not yet shown
	cancel  context.CancelFunc
	gen     int
	visited *conform.Visited
	cfg     *explore.Config // the running test's configuration
	doc     *graph.Doc

	// OnDone, when set, is called on the UI goroutine when a test ends.
	OnDone func(*conform.TestResult, error)
	// OnCampaignDone, when set, is called on the UI goroutine when a
	// campaign ends.
	OnCampaignDone func(*campaign.Summary, error)
}

type logLine struct {
	text  string   // the line in words (a title, a notice, a failure; not a step)
	cells []string // its columns (logColumns), nil for a title or notice
	node  string   // graph node id to jump to
	fail  bool
	title bool
	camp  int // 1 + the index of a campaign failure, 0 for none
}

// MaxLogLines bounds the step log: past it the oldest lines are let go
// (down to nine tenths of it, behind one line that says how many), so that a
// run of any length takes the same memory; the Failure panel keeps the
// first failure whole.
const MaxLogLines = 10_000

// appendLines adds lines to the log, within MaxLogLines (UI goroutine).
func (tv *View) appendLines(lines ...logLine) {
	tv.lines = append(tv.lines, lines...)
	if len(tv.lines) <= MaxLogLines {
		return
	}
	body := tv.lines
	if tv.dropped > 0 {
		body = body[1:] // the previous notice
	}
	keep := MaxLogLines * 9 / 10
	drop := len(body) - keep
	tv.dropped += drop
	notice := logLine{text: fmt.Sprintf("… %d earlier lines not kept (the log keeps the last %d)", tv.dropped, keep), title: true}
	tv.lines = append([]logLine{notice}, body[drop:]...)
}

// New builds a project's test dashboard, in the workbench host.
func New(host Host) *View {
	tv := &View{host: host}
	tv.runs = tv.newEntry()
	tv.steps = tv.newEntry()
	tv.seed = tv.newEntry()
	tv.seed.PlaceHolder = "from the clock"
	var strategies []string
	for _, st := range conform.Strategies() {
		strategies = append(strategies, string(st))
	}
	tv.strategy = widgets.NewSelect(strategies, nil)
	tv.strategy.SetSelected(strategies[0])
	tv.adapter = tv.newEntry()
	tv.adapter.PlaceHolder = "adapter command (from the project)"
	tv.startB = widgets.NewButton("Start", tv.Start)
	tv.startB.Importance = widget.HighImportance
	tv.stop = widgets.NewButton("Stop", tv.Stop)
	tv.stop.Disable()
	tv.counters = widget.NewLabel("")
	tv.counters.Wrapping = fyne.TextWrapWord
	tv.verdicts = widget.NewLabel("")
	tv.verdicts.Wrapping = fyne.TextWrapWord
	tv.chart = chart.NewCoverage()
	tv.tips = newTipLayer()
	tv.log = tv.newStepLog()
	// A label and its field a row: the side panel is narrow.
	form := container.New(layout.NewFormLayout(), widget.NewLabel("runs"), tv.runs, widget.NewLabel("steps per run"), tv.steps,
		widget.NewLabel("seed"), tv.seed, widget.NewLabel("strategy"), tv.strategy, widget.NewLabel("adapter"), tv.adapter)
	tv.explored = widgets.NewCheck("on the explored graph", tv.setOnExplored)
	top := container.NewVBox(form, tv.coverRow(), container.NewHBox(tv.startB, tv.stop), tv.explored, tv.campaignRow(), tv.verdicts)
	// The failure panel: the first failure of a test, whole, selectable and
	// copyable (read-only: edits are undone), with the saved run and the
	// command that reruns it.
	tv.failure = widget.NewMultiLineEntry()
	tv.failure.TextStyle = fyne.TextStyle{Monospace: true}
	tv.failure.Wrapping = fyne.TextWrapWord // the verdict's line is long: read without scrolling sideways
	tv.failure.SetPlaceHolder("The first failure of a test shows here, whole.")
	tv.failure.OnChanged = func(s string) {
		if s != tv.report {
			tv.failure.SetText(tv.report)
		}
	}
	copyB := widgets.NewButton("Copy", func() {
		if a := fyne.CurrentApp(); a != nil {
			a.Clipboard().SetContent(tv.report)
		}
	})
	tv.shrinkB = tv.newShrinkButton()
	tv.failNote = widget.NewLabel("") // the shrinking's progress and result
	tv.failNote.Truncation = fyne.TextTruncateEllipsis
	tv.failNote.Hide()
	tv.bottom = container.NewAppTabs(
		container.NewTabItem("Step log", tv.log),
		container.NewTabItem("Failure", container.NewBorder(nil, container.NewBorder(nil, nil, container.NewHBox(copyB, tv.shrinkB), nil, tv.failNote), nil, nil, tv.failure)),
		container.NewTabItem("Sequence", tv.seqChartPanel()))
	// The settings and the verdicts in the side panel (messages next to
	// the fields and buttons they are about); the run in the central area:
	// the chart above, the log, failure and sequence chart below, a divider
	// the user moves. The chart's part holds the counters and the chart
	// (its legend and x axis say what it counts).
	chart := widgets.HeadAbove(tv.counters, tv.chart)
	tv.chartPanel = chart
	lower := container.NewVSplit(chart, tv.bottom)
	lower.Offset = 0.42
	tv.content = container.NewVScroll(top)
	tv.results = container.NewStack(lower, tv.tips.layer)
	return tv
}

// setCounters says what the test or campaign has done so far, above its
// chart, laid out again for the lines the text now takes (a label's new
// height did not reach its panel, and the chart hid the second line).
func (tv *View) setCounters(text string) {
	tv.counters.SetText(text)
	if tv.chartPanel != nil {
		tv.chartPanel.Refresh()
	}
}

// Content is the side panel's Test tab: the settings and controls.
func (tv *View) Content() fyne.CanvasObject { return tv.content }

// RunView is the Test run view of the central area: the coverage chart,
// the step log, the failure and the sequence chart.
func (tv *View) RunView() area.View { return area.Pane{Name: "Test run", Body: tv.results} }

// ProjectChanged fills the settings from the project's [test] and [adapter]
// (through the same run setup the command line uses).
func (tv *View) ProjectChanged() {
	p := tv.host.Project()
	tc, fromClock, err := p.TestSetup(projects.NoOverrides())
	if err != nil {
		tc, fromClock, _ = (&projects.Project{}).TestSetup(projects.NoOverrides())
	}
	tv.strategy.SetSelected(string(tc.Strategy))
	tv.seed.SetText("")
	if !fromClock {
		tv.seed.SetText(strconv.FormatUint(tc.Seed, 10))
	}
	tv.runs.SetText(strconv.Itoa(tc.Runs))
	tv.steps.SetText(strconv.Itoa(tc.Steps))
	tv.adapter.SetText(p.AdapterCommandLine())
	tv.coverChanged(p)
}

// setup reads the settings fields into a test configuration: what the user
// typed overrides the project's [test] (total_steps and end_wait come from
// there), which overrides the defaults.
func (tv *View) setup() (conform.TestConfig, error) {
	runs, err1 := strconv.Atoi(tv.runs.Text)
	steps, err2 := strconv.Atoi(tv.steps.Text)
	if err1 != nil || err2 != nil || runs <= 0 || steps <= 0 {
		return conform.TestConfig{}, fmt.Errorf("Runs and steps must be positive whole numbers.")
	}
	o := projects.NoOverrides()
	o.Runs, o.Steps, o.Strategy = runs, steps, tv.strategy.Selected
	if tv.seed.Text != "" {
		s, err := strconv.ParseInt(tv.seed.Text, 10, 64)
		if err != nil || s < 0 {
			return conform.TestConfig{}, fmt.Errorf("The seed must be a whole number.")
		}
		o.Seed = s
	}
	tc, _, err := tv.host.Project().TestSetup(o)
	tc.KeepFailingSteps = projects.MaxSavedFailures // the panel reports the first failure, seen whole by OnRun
	return tc, err
}

// Start runs online testing in the background, once the user allowed the
// adapter command to run (see Consent).
func (tv *View) Start() {
	if tv.host.Project() == nil || tv.host.Model() == nil {
		return
	}
	command := tv.Command()
	tv.host.Consented(command, tv.start)
}

// Command is the adapter command typed in the tab, "" when it is the
// project's own (the offline suites run with it too).
func (tv *View) Command() string {
	if c := tv.adapter.Text; c != tv.host.Project().AdapterCommandLine() {
		return c
	}
	return ""
}

// prepare builds the selected configuration and reads the settings for a
// test or campaign; false (the reason shown) when it cannot start.
func (tv *View) prepare() (*explore.Config, conform.TestConfig, bool) {
	p, m := tv.host.Project(), tv.host.Model()
	if p == nil || m == nil {
		return nil, conform.TestConfig{}, false
	}
	cfg, err := p.Build(m, tv.host.Config())
	if err != nil {
		tv.verdicts.SetText("Configuration error: " + err.Error())
		return nil, conform.TestConfig{}, false
	}
	tc, err := tv.setup()
	if err != nil {
		tv.verdicts.SetText(err.Error())
		return nil, conform.TestConfig{}, false
	}
	return cfg, tc, true
}

func (tv *View) start() {
	host := tv.host
	p, m := host.Project(), host.Model()
	cfg, tc, ok := tv.prepare()
	if !ok {
		return
	}
	visited, err := conform.NewVisited(m)
	if err != nil {
		tv.verdicts.SetText(err.Error())
		return
	}
	ctx, gen := tv.newJob(func() {
		tv.queue = nil
		tv.visited, tv.cfg = visited, cfg
	})
	tv.clear("steps")
	tv.config = host.Config()
	tv.verdicts.SetText(fmt.Sprintf("Testing %s [%s], seed %d…", p.Name, host.Config(), tc.Seed))
	host.Details().Clear("Click a state of the test's graph to see its details.")
	host.StopExploring()   // an exploration would fight over the graph view
	host.Graph().FitNext() // the visited graph starts fitted, not at the last graph's zoom
	tc.OnStep = func(s conform.StepRecord) { tv.push(s) }
	tc.OnRun = func(r conform.RunResult) { tv.push(r) }
	var impl conform.Implementation
	env, err := tv.beginCover(ctx, &tc, func() conform.Implementation { return impl })
	if err != nil {
		tv.verdicts.SetText(err.Error())
		tv.running(false)
		return
	}
	command := tv.Command()
	started := time.Now()
	done := make(chan struct{})
	pumped := make(chan struct{})
	go func() {
		path := p.Path
		if path == "" {
			path = p.ModelPath()
		}
		tv.pump(runInfo{gen: gen, started: started, project: p.Name, path: path, config: host.Config(), tc: tc}, done)
		close(pumped)
	}()
	go func() {
		var res *conform.TestResult
		var err error
		impl, err = p.ConnectWith(ctx, m.Info(), command, "", env)
		code := ""
		if err == nil {
			res, err = conform.Test(ctx, m, cfg, impl, tc)
			code = tv.endCover(ctx, impl)
			impl.Close()
		}
		var size conform.ModelSize
		if err == nil {
			// Coverage is given against the model's size when it can be
			// explored whole quickly.
			size, _ = conform.SizeOf(ctx, m, cfg, conform.SizeStates, conform.SizeTime)
		}
		stopped := ctx.Err() != nil
		close(done)
		<-pumped // the last steps and failures are on screen before the verdict
		host.Do(func() { tv.finished(gen, res, size, err, stopped, tc.Runs, code) })
	}()
}

// clear empties the log, failure panel and chart for a new test or
// campaign (its chart counting unit) and marks it running.
func (tv *View) clear(unit string) {
	if tv.host.Active() {
		if !tv.host.TabShown() {
			tv.host.ShowTab() // a test is watched in its tab
		}
		tv.host.Open(tv.RunView()) // beside its graph
	}
	tv.lines, tv.actions, tv.dropped, tv.runsDone = nil, 0, 0, 0
	tv.setCounters("")
	tv.verdicts.SetText("")
	tv.shown, tv.selID, tv.marked = nil, "", nil
	tv.mu.Lock()
	tv.doc = nil
	tv.mu.Unlock()
	if tv.onScreen() {
		// Nothing of the previous test's graph stays while the new one
		// starts.
		tv.host.Graph().SetMessage("Starting the implementation…")
		tv.onGraph = true
		tv.host.SetNote("")
		tv.host.Details().Clear("Click a state of the test's graph to see its details.")
	}
	tv.report = ""
	tv.failure.SetText("")
	tv.seqSteps, tv.seqNodes, tv.seqDropped, tv.seqPinned, tv.seqRun = nil, nil, 0, false, 0
	tv.seq.SetChart(nil)
	tv.firstFail, tv.failFile = nil, ""
	tv.shrinkB.Disable()
	tv.failNote.Hide()
	tv.bottom.SelectIndex(0)
	tv.log.Refresh()
	tv.chart.Reset()
	tv.chart.Unit = unit
	tv.running(true)
}

// newJob cancels what the tab was running and starts a new job: its context
// (Stop cancels it) and generation (results of older jobs are dropped);
// with tv.mu held, it runs also.
func (tv *View) newJob(also func()) (context.Context, int) {
	ctx, cancel := context.WithCancel(context.Background())
	tv.mu.Lock()
	defer tv.mu.Unlock()
	if tv.cancel != nil {
		tv.cancel()
	}
	tv.cancel = cancel
	tv.gen++
	if also != nil {
		also()
	}
	return ctx, tv.gen
}

func (tv *View) push(x any) {
	tv.mu.Lock()
	tv.queue = append(tv.queue, x)
	tv.mu.Unlock()
}

// Stop cancels the running test; the run in progress ends inconclusive.
func (tv *View) Stop() {
	tv.mu.Lock()
	if tv.cancel != nil {
		tv.cancel()
	}
	tv.mu.Unlock()
}

// pump moves queued steps into the visited graph, lays it out and shows it,
// at most four times a second, until the test ends.
// runInfo is what the pump needs to know of the test it shows, fixed when
// the test starts.
type runInfo struct {
	gen                   int
	started               time.Time
	project, path, config string
	tc                    conform.TestConfig
}

func (tv *View) pump(ri runInfo, done chan struct{}) {
	t := time.NewTicker(250 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-done:
			tv.flush(ri)
			return
		case <-t.C:
			tv.flush(ri)
		}
	}
}

// flush applies queued steps (off the UI goroutine), then shows the result.
func (tv *View) flush(ri runInfo) {
	gen, started := ri.gen, ri.started
	tv.mu.Lock()
	if gen != tv.gen {
		tv.mu.Unlock()
		return
	}
	queue := tv.queue
	tv.queue = nil
	v := tv.visited
	tv.mu.Unlock()
	if len(queue) == 0 {
		return
	}
	var lines []logLine
	var points []chart.Point
	var seq []seqItem
	report := "" // the first failure among these
	var first *conform.RunResult
	firstFile := ""
	failures, steps, runs := 0, 0, 0
	seen := map[int]bool{}
	for _, x := range queue {
		switch it := x.(type) {
		case conform.StepRecord:
			if it.Index == 0 {
				lines = append(lines, logLine{text: fmt.Sprintf("run %d", it.Run), title: true})
			}
			n := v.Add(it)
			if it.Step > 0 { // a timeout is not a step
				steps++
				points = append(points, chart.Point{States: v.ModelStates(), Trans: v.Transitions(), Code: tv.cover.percent()}) // the chart counts steps too
			}
			id := v.ID(n)
			lines = append(lines, logLine{cells: stepCells(it, id), node: id})
			seq = append(seq, seqItem{step: it, node: id})
		case conform.RunResult:
			runs++
			if it.Failure != nil && !seen[it.Run] {
				seen[it.Run] = true
				failures++
				n := v.Fail(it)
				id := v.ID(n)
				seq = append(seq, seqItem{run: &it, node: id})
				lines = append(lines, logLine{text: fmt.Sprintf("%4d  ✗ %s: %s", it.Failure.Step, it.Failure.Kind, it.Failure.Message),
					cells: failCells(it.Run, it.Failure.Step, string(it.Failure.Kind), it.Failure.Message, id), node: id, fail: true})
				if report == "" {
					report, firstFile = failureReport(ri, it)
					first = &it
				}
			}
		}
	}
	doc := graph.FromGraph(v.Graph(), v.Vars)
	vk := keysOf(v)
	current, models, trans := v.Current(), v.ModelStates(), v.Transitions()
	d := prepareDoc(doc, doc.States[max(current, 0)].ID, 3, tv.host.Graph().DrawScale)
	elapsed := time.Since(started).Seconds()
	tv.host.Do(func() {
		if gen != tv.gen {
			return
		}
		tv.appendLines(lines...)
		tv.addSeq(seq)
		if report != "" && tv.report == "" {
			tv.report = report
			tv.failure.SetText(report)
			tv.bottom.SelectIndex(1)
			tv.failed(ri, *first, firstFile)
		}
		tv.log.Refresh()
		tv.log.ScrollToBottom()
		tv.chart.Add(points...)
		tv.actions += steps
		tv.runsDone += runs
		total, el := tv.actions, max(elapsed, 0.001)
		tv.setCounters(fmt.Sprintf("%d runs ended, %.1f runs/s; %d steps, %.0f steps/s; %d model states, %d transitions visited",
			tv.runsDone, float64(tv.runsDone)/el, total, float64(total)/el, models, trans))
		tv.mu.Lock()
		tv.doc = doc
		tv.mu.Unlock()
		if tv.onExplored() {
			tv.shown, tv.shownCur = &d, current // for when the box is unticked
			tv.showOnExplored(vk)
			return
		}
		tv.show(d, current)
	})
}

// prepareDoc lays out a document (its neighbourhood of center when large).
func prepareDoc(doc *graph.Doc, center string, radius int, scale func(*graph.Layout) float64) drawing {
	d := drawing{doc: doc, view: doc}
	if len(doc.States) > graphview.LiveLimit {
		d.view = doc.Neighbourhood(center, radius)
		d.note = fmt.Sprintf("%d states visited: showing those within %d steps of the current one.", len(doc.States), radius)
	}
	d.lay, d.err = graph.LayoutDoc(context.Background(), d.view, "")
	if d.err == nil {
		d.scale = scale(d.lay)
		d.img = d.lay.Draw(d.scale, nil)
	}
	return d
}

// onScreen reports whether this view belongs to the open project; a view of
// a project that was closed must not touch the shared graph or status line.
func (tv *View) onScreen() bool {
	return tv.host.Active() && tv.host.TabShown()
}

// show puts the visited graph on screen with the current state marked.
func (tv *View) show(d drawing, current int) {
	tv.shown, tv.shownCur = &d, current
	if !tv.onScreen() {
		return
	}
	g := tv.host.Graph()
	tv.onGraph = true
	if d.err != nil {
		g.SetMessage("Layout failed: " + d.err.Error())
		return
	}
	g.SetGraph(d.view, d.lay, d.img, d.scale)
	if i := d.view.StateIndex(tv.selID); tv.selID != "" && i >= 0 {
		g.SetSelected(i) // the user's selection stays as the graph grows
	} else if tv.selID != "" {
		tv.selID = ""
		tv.host.Details().Clear("Click a state of the test's graph to see its details.")
	}
	if !g.UserZoomed() {
		g.Fit()
	}
	marks := map[int]color.NRGBA{}
	for i, s := range d.view.States {
		if s.Error != "" {
			marks[i] = graphview.MarkCurrent
		}
	}
	if current >= 0 {
		if i := d.view.StateIndex(d.doc.States[current].ID); i >= 0 {
			if d.doc.States[current].Error == "" {
				marks[i] = graphview.MarkSelected
			}
		}
	}
	g.SetMarks(marks)
	tv.host.SetNote(d.note) // "" hides it
}

// Jump selects the state id of the test's graph on screen and shows its
// details: the path the test took there and what the model enables.
func (tv *View) Jump(id string) {
	g := tv.host.Graph()
	v := g.Doc()
	if v == nil {
		return
	}
	i := v.StateIndex(id)
	if i < 0 {
		return
	}
	g.Select(i)
	tv.selID = id
	d := tv.host.Details()
	d.Show(v, i, docPath(v, i))
	d.ShowActions(nil, nil)
	// What the model enables there, as for explored states.
	tv.mu.Lock()
	vis, m, cfg := tv.visited, tv.host.Model(), tv.cfg
	tv.mu.Unlock()
	if vis == nil || m == nil || cfg == nil {
		return
	}
	key := vis.Key(id)
	if key == "" {
		return
	}
	go func() {
		st, err := explore.Explain(m, cfg, key)
		tv.host.Do(func() {
			if tv.selID == id && g.Doc() != nil && g.Doc().StateIndex(id) == g.Selected() {
				d.ShowActions(st, err)
			}
		})
	}()
}

// finished runs on the UI goroutine when the test ends.
func (tv *View) finished(gen int, res *conform.TestResult, size conform.ModelSize, err error, stopped bool, planned int, code string) {
	if gen != tv.gen {
		return
	}
	tv.running(false)
	switch {
	case err != nil:
		tv.verdicts.SetText("Error: " + err.Error())
		if tv.onScreen() && tv.host.Graph().Doc() == nil { // the placeholder says why instead
			tv.host.Graph().SetMessage("The test did not run: " + err.Error())
		}
	default:
		tv.verdicts.SetText(strings.TrimSpace(testHeadline(res, size, stopped, planned) + " " + code))
	}
	if tv.onScreen() {
		tv.host.SetStatus(tv.verdicts.Text)
	}
	if tv.OnDone != nil {
		tv.OnDone(res, err)
	}
}

// Showing reports whether the graph view shows this view's visited graph
// (or a neighbourhood of it).
func (tv *View) Showing(view *graph.Doc) bool {
	tv.mu.Lock()
	doc := tv.doc
	tv.mu.Unlock()
	if doc == nil || view == nil || len(view.States) == 0 {
		return false
	}
	return doc.StateIndex(view.States[0].ID) >= 0 && (len(view.States[0].ID) > 0 && (view.States[0].ID[0] == 'V' || view.States[0].ID[0] == 'F'))
}

// LeaveGraph is told that the Test tab was left; it reports whether the
// test's graph (or its placeholder) was on screen, so that the
// exploration's must come back.
func (tv *View) LeaveGraph() bool {
	was := tv.onGraph
	tv.onGraph = false
	return was
}

// Running reports whether a test, a shrinking or a campaign runs.
func (tv *View) Running() bool { return !tv.stop.Disabled() }

// Reshow puts the test's last graph back on screen (the Test tab came
// back); false when the test has none.
func (tv *View) Reshow() bool {
	if tv.marked != nil && tv.onExplored() {
		tv.onGraph = true // the exploration's graph, drawn again, then marked
		tv.showOnExplored(*tv.marked)
		return true
	}
	if tv.shown == nil {
		return false
	}
	tv.host.Graph().FitNext()
	tv.show(*tv.shown, tv.shownCur)
	if tv.selID == "" {
		tv.host.Details().Clear("Click a state of the test's graph to see its details.")
	} else if v := tv.host.Graph().Doc(); v != nil {
		if i := v.StateIndex(tv.selID); i >= 0 {
			tv.host.Details().Show(v, i, docPath(v, i))
		}
	}
	return true
}

// newGraph starts a graph of another run (a shrunk run, a campaign
// failure): its node names are its own, so nothing selected in the last
// graph stays selected, and the details say what is now on screen.
func (tv *View) newGraph(what string) {
	tv.selID = ""
	tv.host.Graph().SetSelected(-1)
	tv.host.Details().Clear(what + " Click one of its states to see its details.")
}
