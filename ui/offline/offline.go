// Package offline is the workbench's Offline tab: test suites generated
// from the explored graph (or loaded), saved and run through the adapter,
// each case's path marked on the graph (offline.go); recorded traces
// replayed against the model, the path reproduced marked and the event
// that diverged in red (replay.go); and concurrent histories checked for
// linearizability, drawn as a timeline (history.go). Its controls are in
// the side panel, its Suite and Replay views in the central area. It
// reaches the workbench only through its Host, and never imports package
// ui.
package offline

import (
	"bytes"
	"context"
	"fmt"
	"image/color"
	"path/filepath"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/widget"

	"github.com/modex/modex/engine/conform"
	"github.com/modex/modex/engine/explore"
	"github.com/modex/modex/graph"
	"github.com/modex/modex/projects"
	"github.com/modex/modex/ui/area"
	"github.com/modex/modex/ui/graphview"
	"github.com/modex/modex/ui/seqchart"
	"github.com/modex/modex/ui/timeline"
	"github.com/modex/modex/ui/widgets"
)

// View holds offline test suites and recorded traces: generate,
// load, save and run suites (a case's path is highlighted on the graph),
// and replay traces (the trace is shown as a table, the reproduced path
// highlighted, the divergence in red).
type View struct {
	host     Host
	coverage *widgets.Select
	cases    *widget.List
	suite    *explore.Suite
	verdicts map[int]string
	details  map[int]string // a case's whole result, shown when selected
	summary  *widget.Label
	caseInfo *widget.Label // the selected case: its steps and whole result

	traceRows  []traceRow
	traceList  *widget.List
	traceLabel *widget.Label
	trace      []conform.Record
	tracePath  string
	replay     *conform.ReplayResult
	// results are the last suite run's cases; caseChart and traceChart
	// draw the selected case's run and the replay as sequence charts.
	results    []conform.CaseResult
	caseChart  *seqchart.Chart
	traceChart *seqchart.Chart
	content    fyne.CanvasObject // the controls (side panel)
	suiteView  fyne.CanvasObject // the suite (central area)
	replayView fyne.CanvasObject // the replay (central area)
	// atFailure says the row selected last is the event that diverged.
	atFailure bool
	// suiteHead and replayHead repeat the summaries above the views: the
	// verdicts where the user reads the results.
	suiteHead, replayHead *widget.Label
	cancel                context.CancelFunc // stops the suite run or replay in progress
	hist                  historyPart        // a concurrent history instead of a trace

	// OnDone, when set, is called on the UI goroutine after a suite run or a
	// replay ends.
	OnDone func()
}

type traceRow struct {
	text  string
	state int // replay step index, -1 for none
	fail  bool
	ok    bool
}

// New builds a project's Offline tab, in the workbench host.
func New(host Host) *View {
	ov := &View{host: host, verdicts: map[int]string{}, details: map[int]string{}}
	ov.caseInfo = widget.NewLabel("")
	ov.caseInfo.Wrapping = fyne.TextWrapWord
	ov.caseInfo.Selectable = true
	ov.caseInfo.Hide()
	ov.coverage = widgets.NewSelect([]string{"transitions", "states", "strategies"}, nil)
	ov.coverage.SetSelected("transitions")
	ov.summary = widget.NewLabel("Generate a suite from the explored graph, or load one.")
	ov.summary.Wrapping = fyne.TextWrapWord
	ov.cases = widget.NewList(func() int {
		if ov.suite == nil {
			return 0
		}
		return len(ov.suite.Cases)
	}, func() fyne.CanvasObject {
		l := widget.NewLabel("")
		l.Truncation = fyne.TextTruncateEllipsis
		return l
	}, func(i widget.ListItemID, o fyne.CanvasObject) {
		c := ov.suite.Cases[i]
		text := c.Name + " — " + explore.Count(c.Actions(), "step")
		l := o.(*widget.Label)
		l.Importance = widget.MediumImportance
		if v, ok := ov.verdicts[i]; ok {
			text += ": " + v
			if strings.HasPrefix(v, string(conform.Fail)) {
				l.Importance = widget.DangerImportance
			}
		}
		l.SetText(text)
	})
	ov.cases.OnSelected = ov.showCase
	ov.traceLabel = widget.NewLabel("Open a recorded trace (XML, JSON lines or plain lines) to replay it, or a concurrent history " +
		"(Jepsen EDN, JSON lines, a Jepsen log) to check it for linearizability.")
	ov.traceLabel.Wrapping = fyne.TextWrapWord
	ov.traceList = widget.NewList(func() int { return len(ov.traceRows) }, func() fyne.CanvasObject {
		l := widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Monospace: true})
		l.Truncation = fyne.TextTruncateEllipsis
		return l
	}, func(i widget.ListItemID, o fyne.CanvasObject) {
		r := ov.traceRows[i]
		l := o.(*widget.Label)
		l.Importance = widget.MediumImportance
		if r.fail {
			l.Importance = widget.DangerImportance
		} else if r.ok {
			l.Importance = widget.SuccessImportance
		}
		l.SetText(r.text)
	})
	ov.traceList.OnSelected = ov.selectTraceRow
	suiteBar := widgets.WrapRow(container.NewHBox(widget.NewLabel("coverage"), ov.coverage),
		container.NewHBox(widgets.NewButton("Generate", ov.Generate), widgets.NewButton("Load…", ov.Load), widgets.NewButton("Save…", ov.Save), widgets.NewButton("Run", ov.Run)))
	ov.hist.button = widgets.NewButton("Replay", ov.Replay)
	traceBar := widgets.WrapRow(widgets.NewButton("Open trace…", ov.OpenTrace), widgets.NewButton("Events…", ov.EditMapping), ov.hist.button)
	// The cases above, the selected case's steps and result below, a
	// divider between them the user moves (a long case needs the room).
	var casePanel, tracePanel fyne.CanvasObject
	ov.caseChart, casePanel = seqchart.NewPanel(host.SaveSVG, "The selected case as it ran (Run the suite first). Click a message: its state in the graph.")
	ov.caseChart.OnMessage = func(_ int, m *graph.Message) { ov.selectKey(m.State) }
	ov.traceChart, tracePanel = seqchart.NewPanel(host.SaveSVG, "The replay: threads as lifelines, the event that diverged in red. Click a message: the states up to it on the graph.")
	ov.traceChart.OnMessage = func(row int, _ *graph.Message) {
		if ch := ov.traceChart.Chart(); ov.replay != nil && ch != nil {
			ov.markReplay(min(row+ch.Dropped, len(ov.replay.Path)-1)) // the chart keeps the last rows
		}
	}
	// The controls in the side panel; the suite (its cases beside the
	// selected case's plan and run) and the replay in the central area.
	caseSplit := container.NewHSplit(ov.cases, container.NewAppTabs(
		container.NewTabItem("Steps", container.NewVScroll(ov.caseInfo)), container.NewTabItem("Sequence", casePanel)))
	caseSplit.Offset = 0.3
	var timelinePanel fyne.CanvasObject
	ov.hist.timeline, timelinePanel = timeline.NewPanel(host.App(), host.SaveSVG, "Point at a bar: what it is. Window… shows the timeline large.")
	ov.hist.tab = container.NewTabItem("Timeline", timelinePanel)
	ov.hist.tabs = container.NewAppTabs(container.NewTabItem("Events", ov.traceList), container.NewTabItem("Sequence", tracePanel), ov.hist.tab)
	ov.content = container.NewVScroll(container.NewVBox(widgets.Heading("Test suite"), suiteBar, ov.summary, widget.NewSeparator(),
		widgets.Heading("Recorded trace or history"), traceBar, ov.traceLabel))
	ov.suiteHead, ov.replayHead = widgets.HintLabel(ov.summary.Text), widgets.HintLabel(ov.traceLabel.Text)
	ov.suiteView = widgets.HeadAbove(ov.suiteHead, caseSplit)
	ov.replayView = widgets.HeadAbove(ov.replayHead, ov.hist.tabs)
	return ov
}

// Content is the side panel's Offline tab: the suite's and the trace's
// controls and summaries.
func (ov *View) Content() fyne.CanvasObject { return ov.content }

// setSummary says what the suite is or did, in the side panel and above
// the Suite view.
func (ov *View) setSummary(text string) {
	ov.summary.SetText(text)
	ov.suiteHead.SetText(text)
	if ov.suiteView != nil {
		ov.suiteView.Refresh() // the lines the text takes (see setCounters)
	}
}

// setTraceText says what the trace is or did, in the side panel and above
// the Replay view.
func (ov *View) setTraceText(text string) {
	ov.traceLabel.SetText(text)
	ov.replayHead.SetText(text)
	if ov.replayView != nil {
		ov.replayView.Refresh()
	}
}

// SuiteView is the Suite view of the central area: the cases, and the
// selected case's plan and run.
func (ov *View) SuiteView() area.View { return area.Pane{Name: "Suite", Body: ov.suiteView} }

// ReplayView is the Replay view of the central area: the trace's events,
// its sequence chart and a history's timeline.
func (ov *View) ReplayView() area.View { return area.Pane{Name: "Replay", Body: ov.replayView} }

// Suite is the suite loaded or generated (nil for none).
func (ov *View) Suite() *explore.Suite { return ov.suite }

// Summary is what the suite is or did.
func (ov *View) Summary() string { return ov.summary.Text }

// SelectCase selects case i of the suite, as a click in its list does.
func (ov *View) SelectCase(i int) { ov.cases.Select(i) }

// TraceText is what the trace or history is or did.
func (ov *View) TraceText() string { return ov.traceLabel.Text }

// onScreen reports whether this view belongs to the open project; a view of
// a project that was closed must not touch the shared graph or status line.
func (ov *View) onScreen() bool { return ov.host.Active() }

// Stop cancels the suite run or replay in progress.
func (ov *View) Stop() {
	if ov.cancel != nil {
		ov.cancel()
	}
}

// Close stops what runs and empties the timeline, and its window if
// shown (the project is being closed).
func (ov *View) Close() {
	ov.Stop()
	ov.hist.timeline.SetTimeline(nil)
}

// background returns a context for a new run, cancelling the previous one.
func (ov *View) background() context.Context {
	ov.Stop()
	ctx, cancel := context.WithCancel(context.Background())
	ov.cancel = cancel
	return ctx
}

func (ov *View) done() {
	if ov.OnDone != nil {
		ov.OnDone()
	}
}

// Generate derives a suite from the last exploration.
func (ov *View) Generate() {
	host := ov.host
	x, _, _ := host.Explored()
	if x == nil {
		ov.setSummary("Explore first: suites come from the explored graph.")
		return
	}
	g := x.Graph()
	var s *explore.Suite
	var err error
	switch ov.coverage.Selected {
	case "states":
		s, err = g.StateCases(nil)
	case "strategies":
		s, err = g.StrategySuite() // game strategies: transitions, whatever the implementation chooses
	default:
		s, err = g.TransitionTour()
	}
	if err != nil {
		ov.setSummary("Cannot generate: " + err.Error())
		return
	}
	s.Model, s.Config = host.Model().Info().Name, host.Config()
	ov.setSuite(s)
}

func (ov *View) setSuite(s *explore.Suite) {
	ov.results = nil
	ov.caseChart.SetChart(nil)
	ov.suite, ov.verdicts, ov.details = s, map[int]string{}, map[int]string{}
	if ov.onScreen() {
		ov.host.Open(ov.SuiteView())
	}
	ov.caseInfo.Hide()
	text := s.Summary() + "."
	if len(s.Dead) > 0 {
		text += " Dead states left out: " + strings.Join(s.Dead, " ") + "."
	}
	ov.setSummary(text)
	ov.cases.UnselectAll()
	ov.cases.Refresh()
}

// showCase highlights a case's path on the graph.
func (ov *View) showCase(i int) {
	if ov.suite == nil || i >= len(ov.suite.Cases) {
		return
	}
	view := ov.host.Graph().Doc()
	if view == nil {
		return
	}
	marks := map[int]color.NRGBA{}
	drawn := ov.host.DrawnIndex()
	for _, st := range ov.suite.Cases[i].Steps {
		for _, id := range []string{st.From, st.To} {
			if j := drawn(id); j >= 0 {
				marks[j] = graphview.MarkPath
			}
		}
	}
	ov.host.Graph().SetMarks(marks)
	ov.host.SetStatus(fmt.Sprintf("%s: %s", ov.suite.Cases[i].Name, caseText(ov.suite.Cases[i])))
	// The whole case and its result, wrapped and selectable (the list
	// cuts long lines).
	info := fmt.Sprintf("%s: %s", ov.suite.Cases[i].Name, caseText(ov.suite.Cases[i]))
	if c := ov.suite.Cases[i]; c.Plan != nil {
		info += "\n\n" + planText(c)
	}
	if d, ok := ov.details[i]; ok {
		info += "\n\n" + d
	}
	ov.caseInfo.SetText(info)
	ov.caseInfo.Show()
	if i < len(ov.results) {
		c := ov.results[i]
		ov.caseChart.SetChart(graph.RunChart(c.Name, conform.RunResult{Steps: c.Log, Verdict: c.Verdict, Failure: c.Failure, Reason: c.Reason}))
	} else {
		ov.caseChart.SetChart(nil)
	}
}

// selectKey selects, in the graph, the state whose canonical key is key.
func (ov *View) selectKey(key string) {
	host := ov.host
	x, _, _ := host.Explored()
	if x == nil || key == "" {
		return
	}
	if m := x.FindKey(key); m >= 0 {
		host.SelectState(x.GraphID(m, false))
	}
}

// planText says what a strategy case plans: its goal, whether it is
// forced, and at each state the tester's move or the choices it waits for.
func planText(c explore.SuiteCase) string {
	p := c.Plan
	kind := "best effort: the implementation may not let it happen"
	if c.Forced {
		kind = "forced: whatever the implementation chooses (if it does not avoid a choice forever)"
	}
	lines := []string{fmt.Sprintf("Goal: %s (%s). The plan, from %s:", c.Goal, kind, p.Start)}
	for _, st := range p.Moves {
		lines = append(lines, fmt.Sprintf("  at %s: %s → %s", st.From, st.Label, st.To))
	}
	lines = append(lines, fmt.Sprintf("  at %s: %s → %s (the goal)", p.Goal.From, stepLabel(p.Goal), p.Goal.To))
	waits := map[string][]string{}
	var order []string
	for _, st := range p.Waits {
		if waits[st.From] == nil {
			order = append(order, st.From)
		}
		waits[st.From] = append(waits[st.From], stepLabel(st)+" → "+st.To)
	}
	for _, from := range order {
		lines = append(lines, fmt.Sprintf("  at %s, wait for: %s", from, strings.Join(waits[from], "; ")))
	}
	for _, st := range p.Finish {
		lines = append(lines, fmt.Sprintf("  then at %s: %s → %s", st.From, st.Label, st.To))
	}
	lines = append(lines, "  ends at: "+strings.Join(p.Ends, ", "))
	return strings.Join(lines, "\n")
}

// stepLabel is a step's label, "timeout" for a timeout.
func stepLabel(st explore.SuiteStep) string {
	if st.Kind == "timeout" {
		return "timeout"
	}
	return st.Label
}

func caseText(c explore.SuiteCase) string {
	var parts []string
	for _, st := range c.Steps {
		l := st.Label
		if st.Kind == "timeout" {
			l = "timeout"
		}
		parts = append(parts, l)
	}
	return strings.Join(parts, "; ")
}

// Save writes the suite to a file.
func (ov *View) Save() {
	if ov.suite == nil {
		return
	}
	ov.host.SaveFile("Save the test suite", filepath.Join(ov.host.ProjectDir(), "suite.json"), []string{"json"}, func(path string) {
		if path == "" {
			return
		}
		var b bytes.Buffer
		ov.suite.WriteJSON(&b)
		if err := projects.WriteFileAtomic(path, b.Bytes()); err != nil {
			dialog.ShowError(err, ov.host.Window())
			return
		}
		ov.host.SetStatus("Saved " + path)
	})
}

// Load reads a suite file.
func (ov *View) Load() {
	ov.host.OpenFile("Load a test suite", ov.host.ProjectDir(), []string{"json"}, func(path string) {
		if path != "" {
			ov.LoadFile(path)
		}
	})
}

// LoadFile reads a suite file.
func (ov *View) LoadFile(path string) error {
	s, err := explore.ReadSuiteFile(path)
	if err != nil {
		ov.setSummary(err.Error())
		return err
	}
	ov.setSuite(s)
	return nil
}

// Run executes the suite through the project's adapter (the Test tab's
// adapter command), once the user allowed that command to run.
func (ov *View) Run() {
	host := ov.host
	if ov.suite == nil || host.Model() == nil {
		return
	}
	host.Consented(host.AdapterCommand(), ov.run)
}

func (ov *View) run() {
	host := ov.host
	if ov.suite == nil || host.Model() == nil {
		return
	}
	cfg, err := host.Project().Build(host.Model(), host.Config())
	if err != nil {
		ov.setSummary(err.Error())
		return
	}
	suite, p, m := ov.suite, host.Project(), host.Model()
	if err := suite.CheckFits(m.Info(), cfg, host.Config()); err != nil {
		ov.setSummary(err.Error())
		return
	}
	command := host.AdapterCommand()
	ov.setSummary("Running the suite…")
	ov.host.Open(ov.SuiteView())
	ctx := ov.background()
	go func() {
		var res *conform.SuiteResult
		impl, err := p.Connect(ctx, m.Info(), command, "")
		if err == nil {
			res, err = conform.RunSuite(ctx, m, cfg, impl, suite, conform.TestConfig{})
			impl.Close()
		}
		host.Do(func() {
			if err != nil {
				ov.setSummary("Error: " + err.Error())
				ov.done()
				return
			}
			counts := conform.Tally{}
			ov.results = res.Cases
			for i, c := range res.Cases {
				counts[c.Verdict]++
				v := string(c.Verdict)
				if c.Failure != nil {
					v += " — " + string(c.Failure.Kind) + ": " + c.Failure.Message
				} else if c.Reason != "" {
					v += " — " + c.Reason
				}
				ov.verdicts[i] = v
				ov.details[i] = v
				if f := c.Failure; f != nil {
					for _, st := range f.States {
						ov.details[i] += "\nmodel state: " + st.String()
					}
					if len(f.Expected) > 0 {
						ov.details[i] += "\nthe model allowed: " + strings.Join(f.Expected, ", ")
					}
				}
			}
			ov.setSummary(fmt.Sprintf("%s: %s.", explore.Count(len(res.Cases), "case"), counts))
			ov.cases.Refresh()
			ov.done()
		})
	}()
}
