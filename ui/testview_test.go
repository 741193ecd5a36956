package ui

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modex/modex/engine/conform"
)

func TestLiveOnlineTest(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "chatimpl")
	if msg, err := exec.Command("go", "build", "-o", bin, "../projects/chat/impl").CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, msg)
	}
	b := newBench(t)
	b.wb.AutoExplore = false
	b.open("../projects/chat/chat.toml")
	b.wb.configs.SetSelected("hi_bye")
	tv := b.wb.test
	if tv.adapter.Text != "go run impl/main.go impl/server.go impl/adapter.go adapter" || tv.runs.Text != "20" {
		t.Errorf("settings not taken from the project: adapter %q runs %q", tv.adapter.Text, tv.runs.Text)
	}
	run := func(fixed bool, runs string) *conform.TestResult {
		done := make(chan *conform.TestResult, 1)
		tv.OnDone = func(r *conform.TestResult, err error) {
			if err != nil {
				t.Error(err)
			}
			done <- r
		}
		cmd := bin + " adapter"
		if fixed {
			cmd += " --fixed"
		}
		tv.adapter.SetText(cmd)
		tv.runs.SetText(runs)
		tv.steps.SetText("30")
		tv.seed.SetText("4")
		tv.Start()
		select {
		case r := <-done:
			time.Sleep(50 * time.Millisecond) // the last log flush
			return r
		case <-time.After(60 * time.Second):
			t.Fatal("the test never finished")
		}
		return nil
	}
	res := run(true, "3")
	if res == nil || !res.Passed() {
		t.Fatalf("fixed server: %+v", res)
	}
	if len(tv.lines) < 30 || !strings.Contains(tv.lines[0].text, "run 1") {
		t.Errorf("log has %d lines, first %q", len(tv.lines), tv.lines[0].text)
	}
	view := b.wb.Graph().Doc()
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
	// Clicking a log line selects its state in the graph.
	tv.log.Select(3)
	if b.wb.Graph().Selected() < 0 {
		t.Error("the log line did not select a state")
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
}
