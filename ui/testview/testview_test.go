package testview

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modex/modex/ui/internal/uitest"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"github.com/modex/modex/engine/conform"
	"github.com/modex/modex/projects"
	"github.com/modex/modex/ui/graphview"
)

// startAndWait starts a test in the Test tab and waits for its result.
func startAndWait(t *testing.T, tv *View) *conform.TestResult {
	t.Helper()
	return runAndWait(t, &tv.OnDone, tv.Start, "test", 60*time.Second)
}

// runAndWait is uitest.RunAndWait.
func runAndWait[R any](t *testing.T, onDone *func(R, error), start func(), what string, limit time.Duration) R {
	t.Helper()
	return uitest.RunAndWait(t, onDone, start, what, limit)
}

func buildChat(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "chatimpl")
	if msg, err := exec.Command("go", "build", "-o", bin, "../../projects/chat/impl").CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, msg)
	}
	return bin
}

// The Test tab sets runs up through the same run setup as the command line:
// the project's total_steps and end_wait hold in the workbench too.
func TestTestTabHonoursProjectSettings(t *testing.T) {
	bin := buildChat(t)
	b := newDash(t, "../../projects/chat/chat.toml", "hi_bye")
	b.project.Test = &projects.TestSpec{Runs: 6, Steps: 5, TotalSteps: 7, EndWait: 0.3, Seed: 9}
	tv := b.tv
	tv.ProjectChanged()
	if tv.runs.Text != "6" || tv.steps.Text != "5" || tv.seed.Text != "9" {
		t.Fatalf("fields not filled from [test]: runs %q steps %q seed %q", tv.runs.Text, tv.steps.Text, tv.seed.Text)
	}
	tc, err := tv.setup()
	if err != nil {
		t.Fatal(err)
	}
	if tc.TotalSteps != 7 || tc.EndWait != 300*time.Millisecond || tc.Seed != 9 {
		t.Fatalf("setup ignores the project: %+v", tc)
	}
	tv.adapter.SetText(bin + " adapter --fixed")
	res := startAndWait(t, tv)
	// Six runs of five steps would take 30 steps; total_steps stops new runs
	// once 7 were taken (the run in progress still ends in its cleanup).
	if res == nil || len(res.Runs) >= 6 || len(res.Runs) == 0 {
		t.Fatalf("total_steps not honoured: %+v", res)
	}
}

func TestLiveOnlineTest(t *testing.T) {
	bin := buildChat(t)
	b := newDash(t, "../../projects/chat/chat.toml", "hi_bye")
	tv := b.tv
	if tv.adapter.Text != "go run impl/main.go impl/server.go impl/adapter.go impl/modexadapter.go adapter" || tv.runs.Text != "20" {
		t.Errorf("settings not taken from the project: adapter %q runs %q", tv.adapter.Text, tv.runs.Text)
	}
	run := func(fixed bool, runs string) *conform.TestResult {
		cmd := bin + " adapter"
		if fixed {
			cmd += " --fixed"
		}
		tv.adapter.SetText(cmd)
		tv.runs.SetText(runs)
		tv.steps.SetText("30")
		tv.seed.SetText("4")
		return startAndWait(t, tv)
	}
	res := run(true, "3")
	if res == nil || !res.Passed() {
		t.Fatalf("fixed server: %+v", res)
	}
	if len(tv.lines) < 30 || !strings.Contains(tv.lines[0].text, "run 1") {
		t.Errorf("log has %d lines, first %q", len(tv.lines), tv.lines[0].text)
	}
	view := b.graph.Doc()
	if view == nil || len(view.States) < 5 || !strings.HasPrefix(view.States[0].ID, "V") {
		t.Fatalf("the visited graph is not shown: %+v", view)
	}
	passive := 0
	for _, s := range view.States {
		if s.Kind == "passive" {
			passive++
		}
	}
	if passive == 0 || !strings.Contains(tv.counters.Text, "steps/s") || !strings.Contains(tv.verdicts.Text, "3 runs: 3 pass") {
		t.Errorf("passive %d, counters %q, verdicts %q", passive, tv.counters.Text, tv.verdicts.Text)
	}
	checkDashboard(t, b, tv)
	// Clicking a log line selects its state in the graph.
	tv.log.Select(widget.TableCellID{Row: 3})
	if b.graph.Selected() < 0 {
		t.Error("the log line did not select a state")
	}
	// Its details: the path the run took there, and what the model enables.
	d := b.details
	if !pump(10*time.Second, func() bool { return len(d.ActionRows()) > 0 }) {
		t.Error("no enabled actions shown for the visited state")
	}
	for _, o := range d.Rows() {
		if l, ok := o.(*widget.Label); ok && strings.Contains(l.Text, "not reachable") {
			t.Error("a visited state is shown as not reachable")
		}
	}
	// The buggy server: a failing run shows a red failure node.
	for attempt := 0; attempt < 4; attempt++ {
		res = run(false, "40")
		if !res.Passed() {
			break
		}
	}
	if res.Passed() {
		t.Fatal("160 runs against the buggy server passed")
	}
	doc := tv.doc
	found := false
	for _, s := range doc.States {
		if strings.HasPrefix(s.ID, "F") && s.Error != "" && strings.Contains(s.Error, "?Deliver(") && len(s.Vars) > 0 {
			found = true
		}
	}
	if !found || !strings.Contains(tv.verdicts.Text, "failed: unexpected-observable") {
		t.Errorf("no failure node; verdicts %q", tv.verdicts.Text)
	}
	// The failure panel: the whole failure, selectable and copyable, with
	// the saved run and the command that reruns it; edits are undone.
	for _, want := range []string{"FAIL unexpected-observable at step", "model state: clients = ", "the model allowed: ?Deliver(", "rerun its steps: modex test ../../projects/chat/chat.toml --rerun "} {
		if !strings.Contains(tv.report, want) {
			t.Errorf("failure panel lacks %q:\n%s", want, tv.report)
		}
	}
	if tv.bottom.SelectedIndex() != 1 || tv.failure.Text != tv.report {
		t.Error("the failure panel is not shown")
	}
	tv.failure.SetText("edited")
	if tv.failure.Text != tv.report {
		t.Error("the failure panel can be edited")
	}
	// The sequence chart: the first failing run, its failing delivery in
	// red between the two clients; clicking its last step selects that
	// step's state in the graph.
	ch := tv.seq.Chart()
	if ch == nil || len(ch.Messages) < 5 || !strings.HasPrefix(ch.Verdict, "fail at step") {
		t.Fatalf("no chart of the failing run: %+v", ch)
	}
	last := ch.Messages[len(ch.Messages)-1]
	if !last.Failed || !strings.Contains(last.Label, "?Deliver(") || !strings.HasPrefix(ch.Lifelines[last.From], "Client") || !strings.HasPrefix(ch.Lifelines[last.To], "Client") {
		t.Errorf("the failing row %+v between %q and %q", last, ch.Lifelines[last.From], ch.Lifelines[last.To])
	}
	if tv.firstFail == nil || ch.Title != fmt.Sprintf("run %d", tv.firstFail.Run) {
		t.Errorf("chart %q is not of the first failing run", ch.Title)
	}
	b.graph.Select(-1)
	prev := ch.Messages[len(ch.Messages)-2]
	tv.seq.Tapped(&fyne.PointEvent{Position: fyne.NewPos(10, float32(tv.seq.MessageY(len(ch.Messages)-2)))})
	if sel := b.graph.Selected(); sel < 0 || b.graph.Doc().States[sel].ID != prev.State {
		t.Errorf("clicking the row of %s selected %d, want %s", prev.Label, sel, prev.State)
	}
	saved := tv.report[strings.Index(tv.report, "saved: ")+len("saved: "):]
	saved = saved[:strings.Index(saved, "\n")]
	if _, err := os.Stat(saved); err != nil {
		t.Errorf("the failing run was not saved: %v", err)
	}
}

// After a test fails, Shrink finds a shorter run that fails the same way,
// adds it to the failure panel (saved next to the first) and draws it on
// the graph: its path marked, the failure in red. The stack's adapter
// whose Pop answers 42 fails at its first Pop: the shortest failing run is
// one Push, then the cleanup phase's Pop.
func TestShrinkButton(t *testing.T) {
	bin := buildFakeAdapter(t, t.TempDir())
	b := newDash(t, "../../projects/stack/stack.toml", "")
	tv := b.tv
	tv.adapter.SetText(bin + " wrong-pop")
	tv.runs.SetText("5")
	tv.steps.SetText("20")
	tv.seed.SetText("4")
	if !tv.shrinkB.Disabled() {
		t.Fatal("Shrink is enabled before any failure")
	}
	res := startAndWait(t, tv)
	if res.Passed() || tv.firstFail == nil || tv.shrinkB.Disabled() {
		t.Fatalf("no failure to shrink: %d runs, first %v", len(res.Runs), tv.firstFail)
	}
	// The details of an explored state would be stale beside the test's graph.
	if l, ok := b.details.Rows()[0].(*widget.Label); !ok || !strings.Contains(l.Text, "test's graph") {
		t.Errorf("the details panel still shows %v", b.details.Rows()[0])
	}
	from := tv.firstFail.Failure.Step
	tv.Shrink()
	// Its progress where it was asked for, and its Stop there.
	if tv.shrinkB.Text != "Stop shrinking" || tv.shrinkB.Disabled() || !tv.failNote.Visible() || !strings.HasPrefix(tv.failNote.Text, "Shrinking run") {
		t.Errorf("while shrinking: button %q (disabled %v), note %q", tv.shrinkB.Text, tv.shrinkB.Disabled(), tv.failNote.Text)
	}
	if !pump(60*time.Second, func() bool { return !tv.startB.Disabled() }) {
		t.Fatal("shrinking never finished")
	}
	if tv.shrinkB.Text != "Shrink" || !strings.HasPrefix(tv.failNote.Text, "Shrunk: ") || !strings.HasPrefix(b.status, "Shrunk: ") {
		t.Errorf("after shrinking: button %q, note %q, status %q", tv.shrinkB.Text, tv.failNote.Text, b.status)
	}
	var n, was int
	fmt.Sscanf(tv.verdicts.Text, "Shrunk: %d steps (from %d)", &n, &was)
	if n != 2 || was != from || !strings.Contains(tv.report, "shrunk: 2 steps") || !strings.Contains(tv.report, "-shrunk.json") {
		t.Fatalf("%q, first failure at step %d:\n%s", tv.verdicts.Text, from, tv.report)
	}
	if from <= 2 {
		t.Fatalf("the first failure is at step %d: nothing to shrink (pick another seed)", from)
	}
	// The graph shows the shrunk run alone, its failure marked red.
	g := b.graph
	red := 0
	for i, s := range g.Doc().States {
		if s.Error != "" && g.Marks()[i] == graphview.MarkCurrent {
			red++
		}
	}
	if red != 1 || len(g.Marks()) != len(g.Doc().States) || len(g.Doc().States) > 6 {
		t.Errorf("shrunk run on the graph: %d red of %d states, %d marked", red, len(g.Doc().States), len(g.Marks()))
	}
}

// checkDashboard checks a finished test's dashboard: the log's columns
// hold the steps' parts, a cut cell shows its whole text when hovered (and
// only a cut one), and the chart counts states and transitions on axes
// that reach its values.
func checkDashboard(t *testing.T, b *dash, tv *View) {
	t.Helper()
	var step *logLine
	for i := range tv.lines {
		if l := &tv.lines[i]; l.cells != nil && l.cells[colKind] == "input" {
			step = l
			break
		}
	}
	if step == nil || step.cells[colRun] != "1" || step.cells[colAction] == "" || !strings.HasPrefix(step.cells[colStates], "V") {
		t.Fatalf("no step of run 1 with its columns in the log: %+v", step)
	}
	c := newLogCell(tv.tips)
	c.Resize(fyne.NewSize(60, 30))
	tv.tips.layer.Resize(fyne.NewSize(400, 400))
	c.SetText("short")
	c.MouseIn(nil)
	if got := tv.tips.text(); got != "" {
		t.Errorf("a cell that is not cut shows the tooltip %q", got)
	}
	long := "Deliver(Client1, Client2, \"a long message that no column holds\")"
	c.SetText(long)
	c.MouseIn(nil)
	if got := tv.tips.text(); got != long {
		t.Errorf("a cut cell's tooltip is %q", got)
	}
	c.MouseOut()
	if tv.tips.text() != "" {
		t.Error("the tooltip stays after the mouse left")
	}
	ch := tv.chart
	if ch.Steps() != tv.actions || ch.Last().States < 2 || ch.Last().Trans < ch.Last().States-1 {
		t.Errorf("chart: %d steps (log %d), last %+v", ch.Steps(), tv.actions, ch.Last())
	}
	test.WidgetRenderer(ch) // drawn
	topText, end, unit := ch.Axes()
	top, _ := strconv.Atoi(topText)
	if top < ch.Last().Trans || top < ch.Last().States || end != strconv.Itoa(ch.Steps()) || unit != "steps" {
		t.Errorf("axes: top %q, end %q, unit %q for %+v after %d", topText, end, unit, ch.Last(), ch.Steps())
	}
	if ch.Size().Height < 100 {
		t.Errorf("the chart is %v high", ch.Size())
	}
	if !strings.Contains(tv.counters.Text, "runs/s") {
		t.Errorf("counters %q", tv.counters.Text)
	}
}

// A finished test's headline names a crash as such with the end of the
// implementation's standard error, and a stopped test says it was stopped
// and how many of its runs it did.
func TestTestHeadline(t *testing.T) {
	crash := &conform.TestResult{Runs: []conform.RunResult{{Run: 1, Seed: 7, Verdict: conform.Fail,
		Failure: &conform.Failure{Kind: conform.FailCrash, Step: 3, Message: "the implementation exited (signal: killed); its last output on stderr:\nstarting\nlistening on :9000\npanic: boom"}}}}
	got := testHeadline(crash, conform.ModelSize{}, false, 1)
	if !strings.Contains(got, "run 1 (seed 7): the implementation crashed at step 3: the implementation exited (signal: killed).") ||
		!strings.Contains(got, "its standard error ended with: starting | listening on :9000 | panic: boom") {
		t.Errorf("%s", got)
	}
	stopped := &conform.TestResult{Runs: []conform.RunResult{{Run: 1, Verdict: conform.Pass}, {Run: 2, Verdict: conform.Inconclusive}}}
	if got := testHeadline(stopped, conform.ModelSize{}, true, 20); !strings.HasPrefix(got, "Stopped after 2 of 20 runs: ") {
		t.Errorf("%s", got)
	}
}
