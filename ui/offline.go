package ui

import (
	"bytes"
	"context"
	"fmt"
	"image/color"
	"path/filepath"
	"sort"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/widget"

	"github.com/modex/modex/engine/conform"
	"github.com/modex/modex/engine/explore"
	"github.com/modex/modex/engine/model"
	"github.com/modex/modex/graph"
	"github.com/modex/modex/projects"
	"github.com/modex/modex/ui/area"
	"github.com/modex/modex/ui/graphview"
	"github.com/modex/modex/ui/seqchart"
	"github.com/modex/modex/ui/timeline"
	"github.com/modex/modex/ui/widgets"
)

// OfflineView holds offline test suites and recorded traces: generate,
// load, save and run suites (a case's path is highlighted on the graph),
// and replay traces (the trace is shown as a table, the reproduced path
// highlighted, the divergence in red).
type OfflineView struct {
	wb       *Workbench
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

// NewOfflineView builds the Offline tab.
func NewOfflineView(wb *Workbench) *OfflineView {
	ov := &OfflineView{wb: wb, verdicts: map[int]string{}, details: map[int]string{}}
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
	ov.caseChart, casePanel = seqchart.NewPanel(wb.saveSVG, "The selected case as it ran (Run the suite first). Click a message: its state in the graph.")
	ov.caseChart.OnMessage = func(_ int, m *graph.Message) { ov.selectKey(m.State) }
	ov.traceChart, tracePanel = seqchart.NewPanel(wb.saveSVG, "The replay: threads as lifelines, the event that diverged in red. Click a message: the states up to it on the graph.")
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
	ov.hist.timeline, timelinePanel = timeline.NewPanel(wb.app, wb.saveSVG, "Point at a bar: what it is. Window… shows the timeline large.")
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
func (ov *OfflineView) Content() fyne.CanvasObject { return ov.content }

// setSummary says what the suite is or did, in the side panel and above
// the Suite view.
func (ov *OfflineView) setSummary(text string) {
	ov.summary.SetText(text)
	ov.suiteHead.SetText(text)
	if ov.suiteView != nil {
		ov.suiteView.Refresh() // the lines the text takes (see setCounters)
	}
}

// setTraceText says what the trace is or did, in the side panel and above
// the Replay view.
func (ov *OfflineView) setTraceText(text string) {
	ov.traceLabel.SetText(text)
	ov.replayHead.SetText(text)
	if ov.replayView != nil {
		ov.replayView.Refresh()
	}
}

// SuiteView is the Suite view of the central area: the cases, and the
// selected case's plan and run.
func (ov *OfflineView) SuiteView() area.View { return area.Pane{Name: "Suite", Body: ov.suiteView} }

// ReplayView is the Replay view of the central area: the trace's events,
// its sequence chart and a history's timeline.
func (ov *OfflineView) ReplayView() area.View { return area.Pane{Name: "Replay", Body: ov.replayView} }

// onScreen reports whether this view belongs to the open project; a view of
// a project that was closed must not touch the shared graph or status line.
func (ov *OfflineView) onScreen() bool { return ov.wb.s.offline == ov }

// Stop cancels the suite run or replay in progress.
func (ov *OfflineView) Stop() {
	if ov.cancel != nil {
		ov.cancel()
	}
}

// background returns a context for a new run, cancelling the previous one.
func (ov *OfflineView) background() context.Context {
	ov.Stop()
	ctx, cancel := context.WithCancel(context.Background())
	ov.cancel = cancel
	return ctx
}

func (ov *OfflineView) done() {
	if ov.OnDone != nil {
		ov.OnDone()
	}
}

// Generate derives a suite from the last exploration.
func (ov *OfflineView) Generate() {
	wb := ov.wb
	wb.mu.Lock()
	x := wb.s.last
	wb.mu.Unlock()
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
	s.Model, s.Config = wb.s.model.Info().Name, wb.configs.Selected
	ov.setSuite(s)
}

func (ov *OfflineView) setSuite(s *explore.Suite) {
	ov.results = nil
	ov.caseChart.SetChart(nil)
	ov.suite, ov.verdicts, ov.details = s, map[int]string{}, map[int]string{}
	if ov.onScreen() {
		ov.wb.views.Open(ov.SuiteView())
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
func (ov *OfflineView) showCase(i int) {
	if ov.suite == nil || i >= len(ov.suite.Cases) {
		return
	}
	view := ov.wb.graph.Doc()
	if view == nil {
		return
	}
	marks := map[int]color.NRGBA{}
	drawn := ov.wb.drawnIndex()
	for _, st := range ov.suite.Cases[i].Steps {
		for _, id := range []string{st.From, st.To} {
			if j := drawn(id); j >= 0 {
				marks[j] = graphview.MarkPath
			}
		}
	}
	ov.wb.graph.SetMarks(marks)
	ov.wb.status.SetText(fmt.Sprintf("%s: %s", ov.suite.Cases[i].Name, caseText(ov.suite.Cases[i])))
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
func (ov *OfflineView) selectKey(key string) {
	wb := ov.wb
	wb.mu.Lock()
	x := wb.s.last
	wb.mu.Unlock()
	if x == nil || key == "" {
		return
	}
	if m := x.FindKey(key); m >= 0 {
		wb.SelectState(x.GraphID(m, false))
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
func (ov *OfflineView) Save() {
	if ov.suite == nil {
		return
	}
	ov.wb.dialogs.Save("Save the test suite", filepath.Join(ov.wb.projectDir(), "suite.json"), []string{"json"}, func(path string) {
		if path == "" {
			return
		}
		var b bytes.Buffer
		ov.suite.WriteJSON(&b)
		if err := projects.WriteFileAtomic(path, b.Bytes()); err != nil {
			dialog.ShowError(err, ov.wb.win)
			return
		}
		ov.wb.status.SetText("Saved " + path)
	})
}

// Load reads a suite file.
func (ov *OfflineView) Load() {
	ov.wb.dialogs.Open("Load a test suite", ov.wb.projectDir(), []string{"json"}, func(path string) {
		if path != "" {
			ov.LoadFile(path)
		}
	})
}

// LoadFile reads a suite file.
func (ov *OfflineView) LoadFile(path string) error {
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
func (ov *OfflineView) Run() {
	wb := ov.wb
	if ov.suite == nil || wb.s.model == nil {
		return
	}
	wb.consented(wb.s.test.Command(), ov.run)
}

func (ov *OfflineView) run() {
	wb := ov.wb
	if ov.suite == nil || wb.s.model == nil {
		return
	}
	cfg, err := wb.s.project.Build(wb.s.model, wb.configs.Selected)
	if err != nil {
		ov.setSummary(err.Error())
		return
	}
	suite, p, m := ov.suite, wb.s.project, wb.s.model
	if err := suite.CheckFits(m.Info(), cfg, wb.configs.Selected); err != nil {
		ov.setSummary(err.Error())
		return
	}
	command := wb.s.test.Command()
	ov.setSummary("Running the suite…")
	ov.wb.views.Open(ov.SuiteView())
	ctx := ov.background()
	go func() {
		var res *conform.SuiteResult
		impl, err := p.Connect(ctx, m.Info(), command, "")
		if err == nil {
			res, err = conform.RunSuite(ctx, m, cfg, impl, suite, conform.TestConfig{})
			impl.Close()
		}
		wb.do(func() {
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

// OpenTrace asks for a trace file.
func (ov *OfflineView) OpenTrace() {
	ov.wb.dialogs.Open("Open a recorded trace or history", ov.wb.projectDir(), []string{"xml", "jsonl", "trace", "txt", "log", "edn"}, func(path string) {
		if path != "" {
			ov.LoadTrace(path)
		}
	})
}

// LoadTrace reads a trace and shows it as a table.
func (ov *OfflineView) LoadTrace(path string) error {
	if ov.onScreen() {
		ov.wb.views.Open(ov.ReplayView())
	}
	if isHist, _ := conform.IsHistoryFile(path); isHist {
		ov.loadHistory(path)
		return nil
	}
	ov.hist.loading, ov.hist.replayAfter = 0, false
	var err error
	ov.trace, err = conform.ReadTraceFile(path)
	if err != nil {
		ov.setTraceText(err.Error())
		return err
	}
	ov.tracePath, ov.replay = path, nil
	ov.hist.history, ov.hist.result = nil, nil
	ov.hist.timeline.SetTimeline(nil)
	ov.traceRows = nil
	ov.traceChart.SetChart(nil)
	for i, r := range ov.trace {
		// Events are numbered as the command line numbers them; the
		// file's line follows (an XML event spans lines).
		ov.traceRows = append(ov.traceRows, traceRow{text: fmt.Sprintf("%4d  line %-4d %s", i+1, r.Line, r.String()), state: -1})
	}
	ov.setTraceText(fmt.Sprintf("%s: %d events (numbered, with their line in the file). Events… maps them to the model; Replay checks them.", path, len(ov.trace)))
	ov.traceList.Refresh()
	return nil
}

// EditMapping shows the event kinds of the trace with their role and model
// action (seed 004, Figure 5.5); changes go into the project's [replay].
func (ov *OfflineView) EditMapping() {
	wb := ov.wb
	if ov.hist.history != nil {
		d := dialog.NewInformation("A history's operations", "A history's operations (:f) name the model's actions; the project's "+
			"[replay.events.NAME] maps other names (action = …) and says how completions read: output = \"value\" or \"none\", "+
			"ok_output and fail_output (docs/histories.md); [replay] key = \"…\" checks the parts of a history with different keys apart.", wb.win)
		wb.showKeyed(d, d.Hide, d.Hide)
		return
	}
	if len(ov.trace) == 0 || wb.s.model == nil {
		return
	}
	p := wb.s.project
	if p.Replay == nil {
		p.Replay = &projects.ReplaySpec{}
	}
	if p.Replay.Events == nil {
		p.Replay.Events = map[string]*projects.EventSpec{}
	}
	info := wb.s.model.Info()
	var names []string
	seen := map[string]bool{}
	for _, r := range ov.trace {
		if !seen[r.Name] {
			seen[r.Name] = true
			names = append(names, r.Name)
		}
	}
	sort.Strings(names)
	var actions []string
	for _, a := range info.Actions {
		actions = append(actions, a.Name)
	}
	var items []*widget.FormItem
	for _, n := range names {
		n := n
		spec := p.Replay.Events[n]
		if spec == nil {
			spec = &projects.EventSpec{}
		}
		role := widgets.NewSelect([]string{conform.RoleAction, conform.RoleEvent, conform.RoleIgnore}, nil)
		action := widgets.NewSelect(actions, nil)
		def := n
		if spec.Action != "" {
			def = spec.Action
		}
		action.SetSelected(def)
		r := spec.Role
		if r == "" {
			r = conform.RoleEvent
			if ai := info.Action(def); ai >= 0 && info.Actions[ai].Kind == model.Controllable {
				r = conform.RoleAction
			}
		}
		role.SetSelected(r)
		update := func(string) {
			e := p.Replay.Events[n]
			if e == nil {
				e = &projects.EventSpec{}
				p.Replay.Events[n] = e
			}
			e.Role = role.Selected
			if action.Selected != n {
				e.Action = action.Selected
			} else {
				e.Action = ""
			}
			wb.setDirty(true)
		}
		role.OnChanged, action.OnChanged = update, update
		label := widget.NewLabel(n) // the whole name, on a line of its own
		label.TextStyle.Monospace = true
		items = append(items, widget.NewFormItem("", container.NewVBox(label, container.NewHBox(role, widget.NewLabel("→"), action))))
	}
	window := widget.NewEntry()
	window.SetText(fmt.Sprint(p.Replay.Window))
	wi := widget.NewFormItem("reordering window", window)
	wi.HintText = "How many of the next events replay may take out of their recorded order: 0 keeps the trace's order; " +
		"a few allow for events of different objects written in another order than they happened (seed 004 §5)."
	items = append(items, wi)
	intro := widget.NewLabel("Each kind of event in the trace: an action of the environment (the tester's side), an event of the " +
		"system (observed), or ignored; and the model action it stands for.")
	intro.Wrapping = fyne.TextWrapWord
	items = append([]*widget.FormItem{widget.NewFormItem("", intro)}, items...)
	d := dialog.NewForm("Recorded events: actions of the environment, events of the system", "Done", "Cancel", items, func(ok bool) {
		if ok {
			var n int
			if _, err := fmt.Sscan(window.Text, &n); err == nil && n >= 0 && n != p.Replay.Window {
				p.Replay.Window = n
				wb.setDirty(true)
			}
		}
	}, wb.win)
	d.Resize(fyne.NewSize(min(760, wb.win.Canvas().Size().Width*0.9), min(600, wb.win.Canvas().Size().Height*0.9)))
	wb.showKeyed(d, d.Submit, d.Hide)
}

// replaySetup is the configuration and the replay settings for the loaded
// trace or history; false (said in the label) when the project has none.
func (ov *OfflineView) replaySetup() (*explore.Config, conform.ReplayConfig, bool) {
	wb := ov.wb
	cfg, err := wb.s.project.Build(wb.s.model, wb.configs.Selected)
	if err != nil {
		ov.setTraceText(err.Error())
		return nil, conform.ReplayConfig{}, false
	}
	rc, err := wb.s.project.ReplayConfig(wb.s.model)
	if err != nil {
		ov.setTraceText(err.Error())
		return nil, conform.ReplayConfig{}, false
	}
	rc.File = ov.tracePath
	return cfg, rc, true
}

// Replay replays the loaded trace against the model.
func (ov *OfflineView) Replay() {
	wb := ov.wb
	if ov.hist.running != nil {
		ov.Stop() // the button says Stop while a history is searched
		return
	}
	if ov.hist.loading != 0 {
		ov.hist.replayAfter = true // once it is read
		return
	}
	if ov.hist.history != nil && wb.s.model != nil {
		ov.checkHistory()
		return
	}
	if ov.trace == nil || wb.s.model == nil {
		return
	}
	cfg, rc, ok := ov.replaySetup()
	if !ok {
		return
	}
	recs, m := ov.trace, wb.s.model
	ov.setTraceText("Replaying…")
	ov.wb.views.Open(ov.ReplayView())
	ctx := ov.background()
	go func() {
		res, err := conform.Replay(ctx, m, cfg, recs, rc)
		wb.do(func() {
			defer ov.done()
			if err != nil {
				ov.setTraceText("Error: " + err.Error())
				return
			}
			ov.replay = res
			for i := range ov.traceRows {
				ov.traceRows[i].ok, ov.traceRows[i].fail, ov.traceRows[i].state = false, false, -1
			}
			for k, st := range res.Path {
				ov.traceRows[st.Index].ok = true
				ov.traceRows[st.Index].state = k
			}
			text := fmt.Sprintf("%s: %s — %d of %d events reproduced, at most %d candidate states.", ov.tracePath, res.Verdict, res.Matched, res.Total, res.MaxStates)
			if f := res.Failure; f != nil {
				if f.Index < len(ov.traceRows) {
					ov.traceRows[f.Index].fail = true
					ov.traceRows[f.Index].text += "   ✗ " + f.Message
					// Clicking it shows where the model was when the
					// trace left it (in red).
					ov.traceRows[f.Index].state = len(res.Path) - 1
				}
				text += fmt.Sprintf("\nDiverges at event %d (line %d): %s. The model would have accepted: %s", f.Index+1, f.Line, f.Message, strings.Join(f.Expected, ", "))
			}
			if res.Reason != "" {
				text += "\n" + res.Reason
			}
			ov.setTraceText(text)
			ov.traceChart.SetChart(graph.ReplayChart(filepath.Base(ov.tracePath), res))
			ov.traceList.Refresh()
			ov.atFailure = res.Failure != nil
			ov.markReplay(len(res.Path) - 1)
		})
	}()
}

// selectTraceRow shows what a row of the trace was for the model: the
// states after it on the graph; for the event that diverged, the states
// the model may have been in (in the inspector too: they may lie outside
// the explored graph) and what they would have accepted.
func (ov *OfflineView) selectTraceRow(i widget.ListItemID) {
	if i < 0 || i >= len(ov.traceRows) {
		return
	}
	r := ov.traceRows[i]
	f := (*conform.ReplayFailure)(nil)
	if ov.replay != nil {
		f = ov.replay.Failure
	}
	ov.atFailure = r.fail && f != nil
	if r.state >= 0 {
		ov.markReplay(r.state)
	}
	if !ov.atFailure || !ov.onScreen() {
		return
	}
	if r.state < 0 { // it failed at its first event
		ov.wb.graph.SetMarks(nil)
		ov.wb.status.SetText(fmt.Sprintf("Event %d (line %d), the first, left the model: %s", f.Index+1, f.Line, f.Message))
	}
	states := make([][]model.Var, len(f.States))
	for k, s := range f.States {
		states[k] = s.Vars
	}
	ov.wb.s.details.ShowModelStates(fmt.Sprintf("Before event %d (line %d): the model may have been in %s", f.Index+1, f.Line,
		explore.Count(len(f.States), "state")), states, f.Expected)
}

// markReplay highlights on the graph the states the replay went through up
// to step k, the last of them as current.
func (ov *OfflineView) markReplay(k int) {
	wb := ov.wb
	wb.mu.Lock()
	x, full := wb.s.last, wb.s.full
	wb.mu.Unlock()
	view := wb.graph.Doc()
	if !ov.onScreen() || ov.replay == nil || x == nil || full == nil || view == nil || k < 0 {
		return
	}
	drawn := wb.drawnIndex()
	byKey := map[string][]int{}
	for gi, s := range full.States {
		key := x.StateKey(int(s.Model))
		byKey[key] = append(byKey[key], gi)
	}
	marks := map[int]color.NRGBA{}
	for j := 0; j <= k && j < len(ov.replay.Path); j++ {
		c := graphview.MarkPath
		if j == k {
			c = graphview.MarkSelected
		}
		for _, key := range ov.replay.Path[j].States {
			for _, gi := range byKey[key] {
				if vi := drawn(full.States[gi].ID); vi >= 0 {
					marks[vi] = c
				}
			}
		}
	}
	if ov.replay.Failure != nil && k == len(ov.replay.Path)-1 {
		for vi, c := range marks {
			if c == graphview.MarkSelected {
				marks[vi] = graphview.MarkCurrent
			}
		}
	}
	wb.graph.SetMarks(marks)
	event := ov.replay.Path[min(k, len(ov.replay.Path)-1)].Index + 1
	switch f := ov.replay.Failure; {
	case f != nil && k == len(ov.replay.Path)-1 && ov.atFailure:
		where := "in red"
		if len(marks) == 0 {
			where = "not in the explored graph (values outside the configuration's domains or bounds); the inspector shows them"
		}
		wb.status.SetText(fmt.Sprintf("Where the model was when event %d (line %d) left it, %s: %s", f.Index+1, f.Line, where, f.Message))
	case len(marks) == 0:
		wb.status.SetText(fmt.Sprintf("Event %d: the model's states there are not in the explored graph (the trace's values lie outside "+
			"the configuration's domains or bounds); the trace table shows how far it was reproduced.", event))
	case f != nil && k == len(ov.replay.Path)-1:
		wb.status.SetText(fmt.Sprintf("In red: where the model was when event %d (line %d) left it: %s", f.Index+1, f.Line, f.Message))
	default:
		wb.status.SetText(fmt.Sprintf("Event %d: the model's states after it, the path before it in orange.", event))
	}
}
