package offline

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2/widget"

	"github.com/modex/modex/ui/graphview"
)

func TestOfflineSuitesAndTraces(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "chatimpl")
	if msg, err := exec.Command("go", "build", "-o", bin, "../../projects/chat/impl").CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, msg)
	}
	ov, b := newView(t, "../../projects/chat/chat.toml", "offline")
	ov.Generate()
	if ov.suite == nil || len(ov.suite.Cases) == 0 || !strings.Contains(ov.summary.Text, "covering 18 of 18 transitions") {
		t.Fatalf("generate: %q", ov.summary.Text)
	}
	ov.cases.Select(1)
	if len(b.graph.Marks()) < 3 || !strings.Contains(b.status, "Create()/Client1") {
		t.Errorf("the case's path is not shown: %d marks, status %q", len(b.graph.Marks()), b.status)
	}
	done := 0
	ov.OnDone = func() { done++ }
	b.adapter = bin + " adapter --fixed"
	ov.Run()
	if !pump(60*time.Second, func() bool { return done == 1 }) {
		t.Fatal("the suite never finished")
	}
	if !strings.Contains(ov.summary.Text, "2 pass, 0 fail") {
		t.Errorf("run: %q", ov.summary.Text)
	}
	// A selected case shows whole, with its result, under the list.
	ov.cases.Select(0)
	if !ov.caseInfo.Visible() || !strings.Contains(ov.caseInfo.Text, "case 1: ") || !strings.Contains(ov.caseInfo.Text, "pass") {
		t.Errorf("case details: %q", ov.caseInfo.Text)
	}
	// ... and as a sequence chart of what it did; a message selects its
	// state in the graph.
	ch := ov.caseChart.Chart()
	if ch == nil || len(ch.Messages) != len(ov.suite.Cases[0].Steps) || ch.Verdict != "pass" || ch.Lifelines[0] != "Tester" || len(ch.Lifelines) < 3 {
		t.Fatalf("case chart: %+v", ch)
	}
	ov.caseChart.OnMessage(1, &ch.Messages[1])
	if sel := b.graph.Selected(); sel < 0 {
		t.Error("a case chart's message selects nothing")
	}
	// A strategy suite: each case's plan is shown with it; against the
	// fixed server no case is inconclusive.
	ov.coverage.SetSelected("strategies")
	ov.Generate()
	if ov.suite == nil || ov.suite.Format != "modex-suite/2" || !strings.Contains(ov.summary.Text, "game strategies") {
		t.Fatalf("strategies: %q", ov.summary.Text)
	}
	ov.cases.Select(0)
	if !strings.Contains(ov.caseInfo.Text, "Goal: ") || !strings.Contains(ov.caseInfo.Text, "The plan, from S0") {
		t.Errorf("a strategy case's details: %q", ov.caseInfo.Text)
	}
	ov.Run()
	if !pump(60*time.Second, func() bool { return done == 2 }) {
		t.Fatal("the strategy suite never finished")
	}
	if !strings.Contains(ov.summary.Text, " 0 fail, 0 inconclusive") {
		t.Errorf("strategy suite against the fixed server: %q", ov.summary.Text)
	}
	// A recorded trace of the buggy thread pool.
	ov, b = newView(t, "../../projects/threadpool/threadpool.toml", "") // the threadpool's tab
	ov.OnDone = func() { done++ }
	if err := ov.LoadTrace("../../projects/threadpool/traces/buggy-1.xml"); err != nil {
		t.Fatal(err)
	}
	ov.Replay()
	if !pump(30*time.Second, func() bool { return done == 3 }) {
		t.Fatal("the replay never finished")
	}
	fails, oks := 0, 0
	for i, r := range ov.traceRows {
		if r.fail {
			fails++
			// Clicking the red row shows on the graph where the model was
			// when the trace left it, in red, or says why it cannot (the
			// trace's thread ids are not in the explored graph); the
			// verdict names the event as the command line does.
			ov.traceList.Select(i)
			red := 0
			for _, c := range b.graph.Marks() {
				if c == graphview.MarkCurrent {
					red++
				}
			}
			if red == 0 && !strings.Contains(b.status, "not in the explored graph") {
				t.Errorf("clicking the failing event marks nothing red and says %q", b.status)
			}
			if !strings.Contains(ov.traceLabel.Text, fmt.Sprintf("Diverges at event %d (line ", i+1)) {
				t.Errorf("the verdict does not name event %d: %q", i+1, ov.traceLabel.Text)
			}
			if !strings.Contains(r.text, "dequeue") {
				t.Errorf("the red row is %q", r.text)
			}
		}
		if r.ok {
			oks++
		}
	}
	if fails != 1 || oks == 0 || !strings.Contains(ov.traceLabel.Text, "fail") {
		t.Errorf("%d red rows, %d reproduced; %q", fails, oks, ov.traceLabel.Text)
	}
	// The replay as a sequence chart: the trace's threads as lifelines, the
	// diverging event last, in red.
	ch = ov.traceChart.Chart()
	if ch == nil || len(ch.Messages) != oks+1 || !ch.Messages[len(ch.Messages)-1].Failed || len(ch.Lifelines) < 2 || ch.Lifelines[0] != "Environment" {
		t.Fatalf("replay chart: %d messages for %d reproduced events; lifelines %v", len(ch.Messages), oks, ch.Lifelines)
	}
}

// The event where a replay diverged shows where the model was, even when
// those states lie outside the explored graph (threadpool's buggy-1, event
// 11: its thread ids are not in the configuration's domains): it drew
// nothing and the status kept the previous event's words.
func TestReplayFailingEventShowsTheModel(t *testing.T) {
	ov, b := newView(t, "../../projects/threadpool/threadpool.toml", "")
	if err := ov.LoadTrace("../../projects/threadpool/traces/buggy-1.xml"); err != nil {
		t.Fatal(err)
	}
	done := false
	ov.OnDone = func() { done = true }
	ov.Replay()
	if !pump(30*time.Second, func() bool { return done }) || ov.replay == nil || ov.replay.Failure == nil {
		t.Fatal("the replay did not fail")
	}
	f := ov.replay.Failure
	ov.traceList.Select(f.Index - 1)
	if !strings.HasPrefix(b.status, fmt.Sprintf("Event %d:", f.Index)) {
		t.Errorf("the event before: %q", b.status)
	}
	ov.traceList.Select(f.Index)
	if !strings.HasPrefix(b.status, fmt.Sprintf("Where the model was when event %d", f.Index+1)) {
		t.Errorf("the failing event: %q", b.status)
	}
	if !b.details.Shown() {
		t.Fatal("the inspector shows nothing")
	}
	var text []string
	for _, o := range b.details.Rows() {
		if l, ok := o.(*widget.Label); ok {
			text = append(text, l.Text)
		}
	}
	all := strings.Join(text, "\n")
	if !strings.Contains(all, fmt.Sprintf("Before event %d", f.Index+1)) || !strings.Contains(all, "It would have accepted") || !strings.Contains(all, " = ") {
		t.Errorf("the inspector says:\n%s", all)
	}
}
