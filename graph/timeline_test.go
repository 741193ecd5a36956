package graph_test

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/modex/modex/engine/conform"
	"github.com/modex/modex/graph"
	"github.com/modex/modex/projects"
)

// checkSampleHistory checks a history of a bundled sample with the
// project's [replay] settings.
func checkSampleHistory(t *testing.T, sample string, h *conform.History) *conform.HistoryResult {
	t.Helper()
	p, err := projects.Load("../projects/" + sample + "/" + sample + ".toml")
	if err != nil {
		t.Fatal(err)
	}
	m, err := p.LoadModel()
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := p.Build(m, "")
	if err != nil {
		t.Fatal(err)
	}
	rc, err := p.ReplayConfig(m)
	if err != nil {
		t.Fatal(err)
	}
	res, err := conform.CheckHistory(context.Background(), m, cfg, h, rc)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// The timeline of porcupine's etcd_000: processes as lanes, the longest
// linearizable prefix numbered in order, the read that cannot be placed in
// red at the cut.
func TestHistoryTimelineGolden(t *testing.T) {
	h, err := conform.ReadHistoryFile("../projects/register/histories/etcd_000.log")
	if err != nil {
		t.Fatal(err)
	}
	res := checkSampleHistory(t, "register", h)
	tl := graph.HistoryTimeline("register [all] etcd_000.log", h, res)
	if tl.Cut < 0 || !strings.Contains(tl.Failure, "Line 86: read() → 2 by process 11 cannot be placed") {
		t.Errorf("cut %v: %s", tl.Cut, tl.Failure)
	}
	failed, placed := 0, 0
	for _, b := range tl.Bars {
		switch b.State {
		case graph.BarFailed:
			failed++
		case graph.BarPlaced:
			placed++
			if b.Mark < b.Start || b.Mark > b.End {
				t.Errorf("op %d: mark %.2f outside %v-%v", b.Op, b.Mark, b.Start, b.End)
			}
		}
	}
	if failed != 1 || placed != 43 {
		t.Errorf("%d failed, %d placed", failed, placed)
	}
	var b bytes.Buffer
	if err := tl.WriteSVG(&b); err != nil {
		t.Fatal(err)
	}
	golden(t, "etcd_000_timeline.svg", b.Bytes())
}

// A long history's timeline draws a window of MaxTimelineOps operations
// around the failure: its size does not grow with the history
// (porcupine#20: 1.5 GB of HTML at 3,000 operations).
func TestHistoryTimelineBounded(t *testing.T) {
	var text strings.Builder
	const n = 20000
	for i := 0; i < n; i++ {
		p := i % 5
		fmt.Fprintf(&text, "{:process %d, :type :invoke, :f :write, :value %d}\n", p, i%4)
		fmt.Fprintf(&text, "{:process %d, :type :ok, :f :write, :value %d}\n", p, i%4)
		fmt.Fprintf(&text, "{:process %d, :type :invoke, :f :read, :value nil}\n", p)
		v := i % 4
		if i == n-100 {
			v = 9 // never written: not linearizable here
		}
		fmt.Fprintf(&text, "{:process %d, :type :ok, :f :read, :value %d}\n", p, v)
	}
	h, err := conform.ReadHistory("long.edn", strings.NewReader(text.String()))
	if err != nil {
		t.Fatal(err)
	}
	res := checkSampleHistory(t, "register", h)
	if res.Verdict != conform.Fail || res.Failure == nil || h.Ops[res.Failure.Op].ReturnLine != 4*(n-100)+4 {
		t.Fatalf("%s %+v", res.Verdict, res.Failure)
	}
	tl := graph.HistoryTimeline("long", h, res)
	var b bytes.Buffer
	if err := tl.WriteSVG(&b); err != nil {
		t.Fatal(err)
	}
	if len(tl.Bars) != graph.MaxTimelineOps || b.Len() > 400<<10 || !strings.Contains(tl.Note, "300 of them drawn, invoked at lines") {
		t.Errorf("%d bars, %d bytes: %s", len(tl.Bars), b.Len(), tl.Note)
	}
	hasFailed := false
	for _, bar := range tl.Bars {
		hasFailed = hasFailed || bar.Op == res.Failure.Op && bar.State == graph.BarFailed
	}
	if !hasFailed {
		t.Error("the window misses the failing operation")
	}
}
