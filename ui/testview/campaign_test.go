package testview

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"github.com/modex/modex/campaign"
	"github.com/modex/modex/engine/conform"
	"github.com/modex/modex/ui/graphview"
)

// campaignAndWait taps Campaign and waits for the campaign's end.
func campaignAndWait(t *testing.T, tv *View) *campaign.Summary {
	t.Helper()
	return runAndWait(t, &tv.OnCampaignDone, func() {
		test.Tap(tv.camp.button)
		if !tv.startB.Disabled() || !tv.camp.button.Disabled() || tv.stop.Disabled() {
			t.Error("the buttons do not say a campaign runs")
		}
	}, "campaign", 90*time.Second)
}

// The Test tab runs a campaign with two local workers on the server in
// Modex: jobs, runs and each worker's rate on screen, states covered over
// time, each failure listed as it arrives; a click on one draws its run
// with the failure in red, saves it and shows how to rerun it.
func TestCampaignInTestTab(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", dir)
	bin := buildFakeAdapter(t, dir)
	b := newDash(t, "../../projects/stack/stack.toml", "")
	tv := b.tv
	tv.adapter.SetText(bin + " wrong-pop")
	tv.runs.SetText("12")
	tv.steps.SetText("20")
	tv.seed.SetText("4")
	tv.camp.workers.SetText("2")
	tv.camp.shrink.SetChecked(true)
	sum := campaignAndWait(t, tv)
	if sum == nil || sum.Runs != 12 || sum.Tally[conform.Fail] != 12 || sum.Jobs != 4 { // jobs of 12/(2×2) runs
		t.Fatalf("summary %v", sum)
	}
	if !strings.Contains(tv.verdicts.Text, "12 runs: 0 pass, 12 fail") || !strings.Contains(tv.counters.Text, "4 of 4 jobs, 12 runs") ||
		!regexp.MustCompile(`covered \d+ of \d+ states`).MatchString(tv.verdicts.Text) {
		t.Errorf("on screen: %q / %q", tv.counters.Text, tv.verdicts.Text)
	}
	var fails []int
	shrunk := 0
	for i, l := range tv.lines {
		if l.camp > 0 && l.fail && strings.Contains(l.text, "output-mismatch") {
			fails = append(fails, i)
		}
		if strings.Contains(l.text, " → 2: ") {
			shrunk++
		}
	}
	if shrunk != 4 { // the first failure of each job
		t.Errorf("%d failures say they shrank to 2 steps, want 4", shrunk)
	}
	if len(fails) != 12 || tv.chart.Len() != 4 || tv.chart.Unit != "jobs done" || !strings.Contains(tv.report, "output-mismatch") {
		t.Fatalf("%d failures listed of %d lines, %d chart points, report %q", len(fails), len(tv.lines), tv.chart.Len(), tv.report)
	}
	tv.log.Select(widget.TableCellID{Row: fails[0]})
	if !pump(30*time.Second, func() bool { return strings.Contains(tv.report, "rerun its steps") }) {
		t.Fatalf("the failure was not shown: %q", tv.report)
	}
	g := b.graph
	red := 0
	for i, s := range g.Doc().States {
		if s.Error != "" && g.Marks()[i] == graphview.MarkCurrent {
			red++
		}
	}
	if red != 1 || len(g.Doc().States) < 3 {
		t.Errorf("the failing run on the graph: %d red of %d states", red, len(g.Doc().States))
	}
	// ... and as a sequence chart of its saved steps, its failure last.
	if ch := tv.seq.Chart(); ch == nil || !strings.HasPrefix(ch.Title, "campaign failure, seed ") || len(ch.Messages) == 0 || !strings.Contains(ch.Verdict, "output-mismatch") && !strings.Contains(ch.Verdict, "fail at step") {
		t.Errorf("campaign failure chart: %+v", ch)
	}
	saved, _ := filepath.Glob(filepath.Join(dir, "modex", "failures", "*", "*-campaign-seed*.json"))
	// Shrinking was on: the first failure of each job (jobs of 3 runs)
	// comes with its shrunk run.
	if len(saved) != 2 || !strings.Contains(tv.report, saved[0]) || !strings.Contains(tv.report, saved[1]) || !strings.Contains(tv.report, "shrunk: 2 steps") {
		t.Errorf("saved %v, report:\n%s", saved, tv.report)
	}
	// A state of the drawn run shows its variables and what the model
	// enables there.
	b.graph.OnSelect(0)
	if !pump(10*time.Second, func() bool { return len(b.details.ActionRows()) > 0 }) {
		t.Error("a state of the failing run shows no details")
	}
	// The correct implementation passes; nothing listed.
	tv.adapter.SetText(bin + " good")
	tv.seed.SetText("40")
	sum = campaignAndWait(t, tv)
	if sum.Tally[conform.Pass] != 12 || len(tv.lines) != 0 || len(tv.camp.fails) != 0 {
		t.Errorf("good: %v, %d lines", sum.Tally, len(tv.lines))
	}
	if _, err := os.Stat(filepath.Join(dir, "modex", "nats-workbench")); err != nil {
		t.Errorf("the server in Modex keeps its streams in the cache: %v", err)
	}
}

// A campaign stopped midway says so, with what it had; bad settings are
// refused with a sentence.
func TestCampaignStopAndBadSettings(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", dir)
	b := newDash(t, "../../projects/stack/stack.toml", "")
	tv := b.tv
	for _, tc := range []struct{ workers, nats, want string }{
		{"x", "", "whole number from 0 to 64"},
		{"65", "", "whole number from 0 to 64"},
		{"0", "", "at least one local worker"},
		{"0", "nats://127.0.0.1:1", "counts only its local workers' results"},
	} {
		tv.camp.workers.SetText(tc.workers)
		tv.camp.nats.SetText(tc.nats)
		test.Tap(tv.camp.button)
		if !strings.Contains(tv.verdicts.Text, tc.want) || tv.startB.Disabled() {
			t.Errorf("workers %q: %q", tc.workers, tv.verdicts.Text)
		}
	}
	// Stopped midway: what was done, and the other jobs withdrawn.
	bin := buildFakeAdapter(t, dir)
	tv.adapter.SetText(bin + " good")
	tv.runs.SetText("5000")
	tv.camp.workers.SetText("1")
	tv.camp.nats.SetText("")
	stopped := false
	tv.OnCampaignDone = func(*campaign.Summary, error) { stopped = true }
	test.Tap(tv.camp.button)
	if !pump(60*time.Second, func() bool { return tv.chart.Len() >= 2 }) {
		t.Fatal("no job done")
	}
	test.Tap(tv.stop)
	if !pump(30*time.Second, func() bool { return stopped }) {
		t.Fatal("the campaign did not stop")
	}
	if !strings.Contains(tv.verdicts.Text, "Campaign stopped: ") || !strings.Contains(tv.verdicts.Text, "withdrawn") || tv.camp.button.Disabled() {
		t.Errorf("stopped: %q", tv.verdicts.Text)
	}
	// A server nobody listens on: the campaign ends with the error.
	tv.adapter.SetText(bin + " good")
	tv.camp.workers.SetText("1")
	tv.camp.nats.SetText("nats://user:secret@127.0.0.1:1")
	done := false
	tv.OnCampaignDone = func(*campaign.Summary, error) { done = true }
	test.Tap(tv.camp.button)
	if !pump(30*time.Second, func() bool { return done }) {
		t.Fatal("the campaign never ended")
	}
	if !strings.Contains(tv.verdicts.Text, "connecting to NATS") || strings.Contains(tv.verdicts.Text, "secret") || tv.startB.Disabled() {
		t.Errorf("%q", tv.verdicts.Text)
	}
}

// buildFakeAdapter builds the adapter of engine/adapter's tests into dir.
func buildFakeAdapter(t *testing.T, dir string) string {
	t.Helper()
	bin := filepath.Join(dir, "fakeadapter")
	if msg, err := exec.Command("go", "build", "-o", bin, "../../engine/adapter/testdata/fakeadapter").CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, msg)
	}
	return bin
}

// A campaign with more failures than the coordinator keeps whole in
// memory (campaign.MaxDetailedFailures): a late failure, kept on disk
// only, draws as the first ones do when clicked (its run on the graph, its
// sequence chart, its report, saved to rerun); one whose file is gone says
// why in plain words and how to run its choices again.
func TestCampaignLateFailureOpens(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", dir)
	bin := buildFakeAdapter(t, dir)
	b := newDash(t, "../../projects/stack/stack.toml", "")
	tv := b.tv
	tv.adapter.SetText(bin + " wrong-pop")
	runs := campaign.MaxDetailedFailures + 40
	tv.runs.SetText(strconv.Itoa(runs))
	tv.steps.SetText("20")
	tv.seed.SetText("9")
	tv.camp.workers.SetText("2")
	start := time.Now()
	sum := campaignAndWait(t, tv)
	t.Logf("%d runs in %v", runs, time.Since(start))
	if sum == nil || sum.Tally[conform.Fail] != runs || len(tv.camp.fails) != runs || sum.Kept != runs || sum.Stripped != 40 {
		t.Fatalf("summary %v, %d listed", sum, len(tv.camp.fails))
	}
	if !strings.Contains(tv.verdicts.Text, "The runs of "+strconv.Itoa(runs)+" failures are kept in "+sum.FailuresDir) {
		t.Errorf("where the runs are kept: %q", tv.verdicts.Text)
	}
	late := -1 // a failure kept without its run in memory
	for i, f := range tv.camp.fails {
		if f.Saved == nil && f.File != "" {
			late = i
		}
	}
	row := -1
	for i, l := range tv.lines {
		if l.camp == late+1 {
			row = i
		}
	}
	if late < 0 || row < 0 {
		t.Fatalf("no failure kept on disk only listed (%d, row %d)", late, row)
	}
	f := tv.camp.fails[late]
	t.Logf("listed after %v", time.Since(start))
	tv.log.Select(widget.TableCellID{Row: row})
	if !pump(30*time.Second, func() bool { return strings.Contains(tv.report, "rerun its steps") }) {
		t.Fatalf("the late failure was not shown: %q", tv.report)
	}
	g := b.graph
	red := 0
	for i, s := range g.Doc().States {
		if s.Error != "" && g.Marks()[i] == graphview.MarkCurrent {
			red++
		}
	}
	want := fmt.Sprintf("campaign failure, seed %d", f.Seed)
	if ch := tv.seq.Chart(); red != 1 || ch == nil || ch.Title != want || len(ch.Messages) == 0 || !strings.Contains(tv.report, "output-mismatch") ||
		!strings.Contains(b.status, fmt.Sprintf("seed %d", f.Seed)) {
		t.Errorf("the late failure: %d red states, chart %+v, report %q, status %q", red, ch, tv.report, b.status)
	}
	t.Logf("drawn after %v", time.Since(start))
	// Its file gone: why, and the command that runs its choices again.
	other := tv.camp.fails[late-1]
	if err := os.Remove(other.File); err != nil {
		t.Fatal(err)
	}
	for i, l := range tv.lines {
		if l.camp == late {
			tv.log.Select(widget.TableCellID{Row: i})
		}
	}
	again := fmt.Sprintf("--runs 1 --seed %d --steps 20", other.Seed)
	if !pump(30*time.Second, func() bool { return strings.Contains(tv.report, again) }) {
		t.Fatalf("a failure whose file is gone: %q", tv.report)
	}
	if !strings.Contains(tv.report, "cannot be drawn") || !strings.Contains(tv.report, other.File) || strings.Contains(tv.report, "EOF") {
		t.Errorf("a failure whose file is gone: %q", tv.report)
	}
}

// A campaign from the Test tab with "code coverage" ticked: its workers
// measure their implementations (here an adapter that reports an LCOV
// file) and the verdict says the merged figure.
func TestCampaignCodeCoverage(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", dir)
	bin := buildFakeAdapter(t, dir)
	b := newDash(t, "../../projects/stack/stack.toml", "")
	tv := b.tv
	tv.adapter.SetText(bin + " coverage-lcov")
	tv.runs.SetText("4")
	tv.steps.SetText("10")
	tv.seed.SetText("1")
	tv.camp.workers.SetText("2")
	tv.cover.check.SetChecked(true)
	sum := campaignAndWait(t, tv)
	if sum == nil || sum.Runs != 4 {
		t.Fatalf("summary %v", sum)
	}
	if !strings.Contains(tv.verdicts.Text, "Code coverage of the implementation: 66.7 % of 3 statements") {
		t.Errorf("verdict %q", tv.verdicts.Text)
	}
}
