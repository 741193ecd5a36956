package ui

import (
	"context"
	"errors"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/modex/modex/ui/internal/uitest"

	"fyne.io/fyne/v2/test"

	"github.com/modex/modex/campaign"
	"github.com/modex/modex/engine/conform"
	"github.com/modex/modex/ui/testview"
)

// The test dashboard alone is tested in its package (ui/testview); the
// tests here drive it inside the workbench.

// startAndWait starts a test in the Test tab and waits for its result.
func startAndWait(t *testing.T, tv *testview.View) *conform.TestResult {
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
	if msg, err := exec.Command("go", "build", "-o", bin, "../projects/chat/impl").CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, msg)
	}
	return bin
}

// buildFakeAdapter builds the adapter of engine/adapter's tests into dir.
func buildFakeAdapter(t *testing.T, dir string) string {
	t.Helper()
	bin := filepath.Join(dir, "fakeadapter")
	if msg, err := exec.Command("go", "build", "-o", bin, "../engine/adapter/testdata/fakeadapter").CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, msg)
	}
	return bin
}

// Opening another project stops a campaign running in the Test tab (its
// workers and the server in Modex with it); the new project's Test tab is
// idle.
func TestCampaignStopsWithItsProject(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", dir)
	bin := buildFakeAdapter(t, dir)
	b := newBench(t)
	b.wb.AutoExplore = false
	b.open("../projects/stack/stack.toml")
	tv := b.wb.s.test
	f := tv.Fields()
	f.Adapter.SetText(bin + " good")
	f.Runs.SetText("5000")
	f.Workers.SetText("1")
	f.NATS.SetText("")
	var endErr error
	ended := false
	tv.OnCampaignDone = func(_ *campaign.Summary, err error) { endErr, ended = err, true }
	test.Tap(f.Campaign)
	jobDone := regexp.MustCompile(`^[1-9]\d* of \d+ jobs`)
	if !pump(60*time.Second, func() bool { return jobDone.MatchString(tv.Counters()) }) {
		t.Fatalf("no job done: %q", tv.Counters())
	}
	b.open("../projects/chat/chat.toml")
	if !pump(30*time.Second, func() bool { return ended }) {
		t.Fatal("the campaign went on after the project was closed")
	}
	if !errors.Is(endErr, context.Canceled) || b.wb.s.test == tv || b.wb.s.test.Running() {
		t.Errorf("after opening another project: %v", endErr)
	}
}
