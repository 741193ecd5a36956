package ui

import (
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2/widget"

	"github.com/modex/modex/engine/conform"
	"github.com/modex/modex/ui/graphview"
)

// Opening another project replaces everything that belonged to the first:
// the details panel, the Test tab's runs, the Offline tab's suite, Find's
// text and error, the selection and a zoom set by hand.
func TestProjectSwitchLeavesNothingStale(t *testing.T) {
	bin := buildChat(t)
	b := newBench(t)
	b.open("../projects/chat/chat.toml")
	b.wait()
	chat := b.wb.s

	// Details of a chat state.
	b.wb.SelectState("S1")
	if len(chat.details.Rows()) < 2 {
		t.Fatal("selecting a chat state shows no details")
	}
	// A Find with an error.
	chat.find.SetText("pending(s) ==")
	b.wb.Find()
	if chat.findErr.Text == "" {
		t.Fatal("the bad find expression shows no error")
	}
	// A suite, generated in the Offline tab.
	b.wb.configs.SetSelected("offline")
	b.wait()
	chat.offline.Generate()
	if chat.offline.Suite() == nil {
		t.Fatal("no suite generated")
	}
	// A test run in the Test tab.
	b.wb.configs.SetSelected("figure1")
	b.wait()
	chat.test.Fields().Adapter.SetText(bin + " adapter --fixed")
	chat.test.Fields().Runs.SetText("1")
	chat.test.Fields().Steps.SetText("5")
	chat.test.Fields().Seed.SetText("1")
	if res := startAndWait(t, chat.test); res == nil || chat.test.LogLines() == 0 {
		t.Fatal("the chat test left no log")
	}
	b.wb.graph.ZoomIn()

	b.open("../projects/threadpool/threadpool.toml")
	b.wait()
	s := b.wb.s
	if s == chat || s.project.Name == chat.project.Name {
		t.Fatal("the session was not replaced")
	}
	for name, tc := range map[string]struct {
		ok   bool
		what string
	}{
		"details": {len(s.details.Rows()) == 1 && b.wb.detailsHolder.Objects[0] == s.details.Content(),
			"the details panel still shows the previous project's state"},
		"test": {s.test.LogLines() == 0 && s.test.Verdicts() == "" && b.wb.testHolder.Objects[0] == s.test.Content() &&
			!strings.Contains(s.test.Fields().Adapter.Text, "chat"), "the Test tab keeps the previous project's runs or adapter"},
		"offline": {s.offline.Suite() == nil && b.wb.offlineHolder.Objects[0] == s.offline.Content(),
			"the Offline tab keeps the previous project's suite"},
		"find": {s.find.Text == "" && s.findErr.Text == "" && b.wb.findHolder.Objects[0] == s.find,
			"Find keeps its text or error"},
		"zoom":      {!b.wb.graph.UserZoomed(), "the zoom set by hand carries over"},
		"selection": {b.wb.graph.Selected() < 0, "a state is still selected"},
	} {
		if !tc.ok {
			t.Errorf("%s: %s", name, tc.what)
		}
	}
	// Running the Offline tab does nothing without a suite of this project
	// (before, it ran chat's suite against the thread pool).
	s.offline.Run()
	if strings.Contains(s.offline.Summary(), "adapter") {
		t.Errorf("the offline run used a stale suite: %q", s.offline.Summary())
	}
	if l, ok := s.details.Rows()[0].(*widget.Label); !ok || !strings.Contains(l.Text, "Click a state") {
		t.Errorf("details panel: %#v", s.details.Rows()[0])
	}
}

// The first time a project's adapter command would run (and whenever it
// changes), the workbench shows the whole command and its folder and asks;
// the answer is remembered per project file and command.
func TestAdapterCommandConsent(t *testing.T) {
	bin := buildChat(t)
	b := newBench(t)
	b.wb.AutoExplore = false
	b.open("../projects/chat/chat.toml")
	b.wb.configs.SetSelected("figure1")
	tv := b.wb.s.test
	tv.Fields().Runs.SetText("1")
	tv.Fields().Steps.SetText("3")
	tv.Fields().Seed.SetText("1")
	cmd := bin + " adapter --fixed"
	tv.Fields().Adapter.SetText(cmd)
	startAndWait(t, tv)
	if len(b.asked) != 1 || !strings.Contains(b.asked[0], cmd) || !strings.Contains(b.asked[0], "projects/chat") {
		t.Fatalf("prompts %q, want one showing %q and the folder", b.asked, cmd)
	}
	startAndWait(t, tv)
	if len(b.asked) != 1 {
		t.Errorf("asked again for the same command: %d prompts", len(b.asked))
	}
	tv.Fields().Adapter.SetText(cmd + " ")
	startAndWait(t, tv) // the same argv: strings.Fields
	tv.Fields().Adapter.SetText(bin + " adapter")
	startAndWait(t, tv)
	if len(b.asked) != 2 {
		t.Errorf("a changed command: %d prompts, want 2", len(b.asked))
	}
	// Cancel: nothing runs.
	b.wb.confirm = func(title, msg string, ok func()) { b.asked = append(b.asked, msg) }
	tv.Fields().Adapter.SetText(bin + " adapter --fixed --other")
	ran := false
	tv.OnDone = func(*conform.TestResult, error) { ran = true }
	tv.Start()
	idle(200 * time.Millisecond)
	if ran || len(b.asked) != 3 {
		t.Errorf("cancelled prompt: ran %v, %d prompts", ran, len(b.asked))
	}
}

// A new exploration (here of another configuration) refreshes the details
// panel: the selected state's details come from the new graph, or the panel
// is cleared; the old state's label and variables are not left on screen.
func TestNewExplorationRefreshesDetails(t *testing.T) {
	b := newBench(t)
	b.open("../projects/webshop/webshop.toml")
	b.wb.configs.SetSelected("some_items")
	b.wait()
	b.wb.SelectState("S3")
	labels := func() string {
		var all []string
		for _, o := range b.wb.s.details.Rows() {
			if l, ok := o.(*widget.Label); ok {
				all = append(all, l.Text)
			}
		}
		return strings.Join(all, "\n")
	}
	old := labels()
	if !strings.Contains(old, `"Flowers"`) {
		t.Fatalf("S3 of some_items shows %q", old)
	}
	b.wb.configs.SetSelected("more_items")
	b.wait()
	now := labels()
	if now == old || strings.Contains(now, "set([") {
		t.Errorf("after exploring more_items the details still show some_items' S3:\n%s", now)
	}
	// The same state, under its id in more_items, or nothing.
	doc := b.wb.s.doc
	if id := b.wb.s.center; id != "" {
		if i := doc.StateIndex(id); i < 0 || !strings.Contains(now, doc.States[i].Vars[0].Value) {
			t.Errorf("the details do not show more_items' %s:\n%s", id, now)
		}
	} else if !strings.Contains(now, graphview.Hint) {
		t.Errorf("nothing selected, yet the details show:\n%s", now)
	}
}
