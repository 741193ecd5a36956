package offline

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"

	"github.com/modex/modex/graph"
)

// The Offline tab opens a concurrent history, checks it, marks the
// operations placed and the one that cannot be, and draws the timeline;
// pointing at a bar says what it is. Opening a linearizable history then
// clears the failure.
func TestOfflineHistory(t *testing.T) {
	ov, _ := newView(t, "../../projects/register/register.toml", "")
	done := 0
	ov.OnDone = func() { done++ }
	if err := ov.LoadTrace("../../projects/register/histories/etcd_000.log"); err != nil {
		t.Fatal(err)
	}
	if !pump(10*time.Second, func() bool { return ov.hist.history != nil }) { // read in the background
		t.Fatalf("never read: %q", ov.traceLabel.Text)
	}
	if len(ov.traceRows) != 85 || !strings.Contains(ov.traceRows[0].text, "lines    1–7") || !strings.Contains(ov.traceLabel.Text, "85 operations of 19 processes") {
		t.Fatalf("%d rows: %q / %q", len(ov.traceRows), ov.traceRows[0].text, ov.traceLabel.Text)
	}
	ov.Replay()
	if !pump(30*time.Second, func() bool { return done == 1 }) {
		t.Fatal("the check never finished")
	}
	fails, oks := 0, 0
	for _, r := range ov.traceRows {
		if r.fail {
			fails++
			if !strings.Contains(r.text, "read() → 2") {
				t.Errorf("the red row is %q", r.text)
			}
		}
		if r.ok {
			oks++
		}
	}
	if fails != 1 || oks != 43 || !strings.Contains(ov.traceLabel.Text, "the history up to line 85 linearizes (43 operations placed") {
		t.Errorf("%d red, %d placed: %q", fails, oks, ov.traceLabel.Text)
	}
	tl := ov.hist.timeline.Timeline()
	if tl == nil || tl.Cut < 0 || len(tl.Bars) != 85 || ov.hist.tabs.Selected() != ov.hist.tab {
		t.Fatalf("timeline %v", tl)
	}
	// Pointing at the failing bar says what it is.
	var bar *graph.TimelineBar
	for i := range tl.Bars {
		if tl.Bars[i].State == graph.BarFailed {
			bar = &tl.Bars[i]
		}
	}
	var said string
	ov.hist.timeline.OnHover = func(b *graph.TimelineBar) {
		if b != nil {
			said = b.Tip
		}
	}
	// (The view shows the SVG's drawing without its header and lane names.)
	at := ov.hist.timeline.At(tl.X(bar.Start), tl.Y(bar.Lane)+tl.BarHeight()/2)
	ov.hist.timeline.MouseMoved(&desktop.MouseEvent{PointEvent: fyne.PointEvent{Position: at}})
	if !strings.Contains(said, "read() → 2 by process 11, lines 85–86") {
		t.Errorf("hover says %q", said)
	}
	// A linearizable history, replayed as soon as it is read.
	if err := ov.LoadTrace("../../projects/register/histories/etcd_002.log"); err != nil {
		t.Fatal(err)
	}
	if ov.hist.timeline.Timeline() != nil {
		t.Error("the old timeline stays")
	}
	ov.Replay()
	if !pump(30*time.Second, func() bool { return done == 2 }) {
		t.Fatal("the check never finished")
	}
	if !strings.Contains(ov.traceLabel.Text, "pass") || !strings.Contains(ov.traceLabel.Text, "Linearizable") {
		t.Errorf("%q", ov.traceLabel.Text)
	}
	for _, r := range ov.traceRows {
		if r.fail || !r.ok && !strings.Contains(r.text, "need not have taken effect") {
			t.Fatalf("row %q", r.text)
		}
	}
}

// A long search says how long it has been running, and Stop (the Replay
// button while it runs) ends it: inconclusive, "stopped".
func TestOfflineHistoryStop(t *testing.T) {
	// Twenty concurrent writes, then a read of a value none wrote: every
	// order of the writes is tried before the history fails.
	var text strings.Builder
	for p := 0; p < 20; p++ {
		fmt.Fprintf(&text, "{:process %d, :type :invoke, :f :write, :value %d}\n", p, p)
	}
	for p := 0; p < 20; p++ {
		fmt.Fprintf(&text, "{:process %d, :type :ok, :f :write, :value %d}\n", p, p)
	}
	text.WriteString("{:process 99, :type :invoke, :f :read, :value nil}\n{:process 99, :type :ok, :f :read, :value 99}\n")
	path := filepath.Join(t.TempDir(), "hard.edn")
	os.WriteFile(path, []byte(text.String()), 0o644)
	ov, _ := newView(t, "../../projects/register/register.toml", "")
	done := 0
	ov.OnDone = func() { done++ }
	if err := ov.LoadTrace(path); err != nil {
		t.Fatal(err)
	}
	if !pump(10*time.Second, func() bool { return ov.hist.history != nil }) {
		t.Fatalf("never read: %q", ov.traceLabel.Text)
	}
	ov.Replay()
	if ov.hist.button.Text != "Stop" {
		t.Fatalf("the button says %q while searching", ov.hist.button.Text)
	}
	if !pump(10*time.Second, func() bool { return strings.Contains(ov.traceLabel.Text, "Searching for a linearization… 1 s") }) {
		t.Fatalf("no progress: %q", ov.traceLabel.Text)
	}
	ov.hist.button.OnTapped()
	if !pump(10*time.Second, func() bool { return done == 1 }) {
		t.Fatal("Stop did not end the search")
	}
	if ov.hist.button.Text != "Replay" || !strings.Contains(ov.traceLabel.Text, "inconclusive") || !strings.Contains(ov.traceLabel.Text, "stopped before the search ended") {
		t.Errorf("%q: %q", ov.hist.button.Text, ov.traceLabel.Text)
	}
}
