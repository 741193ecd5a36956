package offline

import (
	"fmt"
	"path/filepath"
	"time"

	"fyne.io/fyne/v2/container"

	"github.com/modex/modex/engine/conform"
	"github.com/modex/modex/engine/explore"
	"github.com/modex/modex/graph"
	"github.com/modex/modex/ui/timeline"
	"github.com/modex/modex/ui/widgets"
)

// historyPart is the Offline tab's part for concurrent histories: the
// history loaded, its last verdict, and the timeline tab.
type historyPart struct {
	history  *conform.History
	result   *conform.HistoryResult
	timeline *timeline.View
	tabs     *container.AppTabs
	tab      *container.TabItem
	button   *widgets.Button // Replay, or Stop while a search runs
	running  chan struct{}   // closed when the search in progress ends
	// loading numbers the history being read (0: none); replayAfter is
	// a Replay asked for meanwhile.
	loading     int
	replayAfter bool
}

// loadHistory reads a concurrent history in the background (a history
// may be long): one row per operation. A Replay asked for meanwhile runs
// once it is read.
func (ov *View) loadHistory(path string) {
	host := ov.host
	ov.trace, ov.tracePath, ov.replay = nil, path, nil
	ov.hist.history, ov.hist.result = nil, nil
	ov.traceChart.SetChart(nil)
	ov.hist.timeline.SetTimeline(nil)
	ov.traceRows = ov.traceRows[:0]
	ov.traceList.Refresh()
	ov.setTraceText("Reading " + path + "…")
	ov.hist.loading++
	loading := ov.hist.loading
	go func() {
		h, err := conform.ReadHistoryFile(path)
		var rows []traceRow
		procs := map[string]bool{}
		if err == nil {
			rows = make([]traceRow, len(h.Ops))
			for i := range h.Ops {
				rows[i] = traceRow{text: historyRowText(h, i), state: -1}
				procs[h.Ops[i].Process] = true
			}
		}
		host.Do(func() {
			if loading != ov.hist.loading || ov.tracePath != path {
				return // another file was opened meanwhile
			}
			ov.hist.loading = 0
			replay := ov.hist.replayAfter
			ov.hist.replayAfter = false
			if err != nil {
				ov.setTraceText(err.Error())
				return
			}
			ov.hist.history, ov.traceRows = h, rows
			ov.setTraceText(fmt.Sprintf("%s: a concurrent history, %s of %s (lines of invocation and completion). "+
				"Replay checks it for linearizability against the model's actions.", path, explore.Count(len(h.Ops), "operation"), explore.Count(len(procs), "process")))
			ov.traceList.Refresh()
			if replay {
				ov.Replay()
			}
		})
	}()
}

func historyRowText(h *conform.History, i int) string {
	o := &h.Ops[i]
	end := "–"
	if o.ReturnLine > 0 {
		end = fmt.Sprint(o.ReturnLine)
	}
	return fmt.Sprintf("%4d  lines %4d–%-4s process %-4s %s", i+1, o.CallLine, end, o.Process, h.OpLabel(i))
}

// checkHistory checks the loaded history in the background; the rows say
// where each operation went, the timeline draws it.
func (ov *View) checkHistory() {
	host := ov.host
	h := ov.hist.history
	cfg, rc, ok := ov.replaySetup()
	if !ok {
		return
	}
	m := host.Model()
	ov.setTraceText("Searching for a linearization…")
	ctx := ov.background()
	running := make(chan struct{})
	ov.hist.running = running
	ov.hist.button.SetText("Stop")
	start := time.Now()
	go func() {
		// Say how long it has been searching, every second.
		tick := time.NewTicker(time.Second)
		defer tick.Stop()
		for {
			select {
			case <-running:
				return
			case <-tick.C:
				secs := int(time.Since(start).Seconds())
				host.Do(func() {
					if ov.hist.running == running {
						ov.setTraceText(fmt.Sprintf("Searching for a linearization… %d s (of the budget of %s; Stop ends it, inconclusive)", secs, budgetText(rc)))
					}
				})
			}
		}
	}()
	go func() {
		res, err := conform.CheckHistory(ctx, m, cfg, h, rc)
		close(running)
		host.Do(func() {
			defer ov.done()
			if ov.hist.running == running {
				ov.hist.running = nil
				ov.hist.button.SetText("Replay")
			}
			if err != nil {
				ov.setTraceText("Error: " + err.Error())
				return
			}
			if h != ov.hist.history {
				return // another file was opened meanwhile
			}
			ov.showHistoryResult(h, res)
		})
	}()
}

// budgetText is the search's time budget as it will be.
func budgetText(rc conform.ReplayConfig) string {
	if rc.TimeBudget > 0 {
		return rc.TimeBudget.String()
	}
	return conform.DefaultHistoryBudget.String()
}

// showHistoryResult marks the rows and draws the timeline.
func (ov *View) showHistoryResult(h *conform.History, res *conform.HistoryResult) {
	ov.hist.result = res
	for i := range ov.traceRows {
		ov.traceRows[i] = traceRow{text: historyRowText(h, i), state: -1}
	}
	for k, i := range res.Order {
		ov.traceRows[i].ok = true
		ov.traceRows[i].text += fmt.Sprintf("   #%d", res.OrderFrom+k+1)
	}
	text := fmt.Sprintf("%s: %s — %s of %s", filepath.Base(ov.tracePath), res.Verdict, explore.Count(res.Ops, "operation"), explore.Count(res.Processes, "process"))
	if res.Partitions > 1 {
		text += fmt.Sprintf(" in %d independent parts (by %s)", res.Partitions, res.KeyAttr)
	}
	text += fmt.Sprintf(", %s searched in %.3f s.", explore.Count(res.Nodes, "step"), res.Seconds)
	switch f := res.Failure; {
	case res.Verdict == conform.Pass:
		if res.Partitions > 1 {
			text += " Linearizable: the numbers give, key after key, an order in which each key's operations took effect."
		} else {
			text += " Linearizable: the numbers give an order in which the operations took effect."
		}
		for i := range ov.traceRows {
			if res.OrderFrom == 0 && !ov.traceRows[i].ok && h.Ops[i].Status == conform.OpInfo {
				ov.traceRows[i].text += "   (unknown outcome: need not have taken effect)"
			}
		}
	case f != nil && res.Verdict == conform.Fail:
		o := &h.Ops[f.Op]
		ov.traceRows[f.Op].fail = true
		ov.traceRows[f.Op].text += "   ◀ cannot be placed"
		ov.traceList.ScrollTo(f.Op)
		text += fmt.Sprintf("\nNot linearizable: the history up to line %d linearizes (%d operations placed, numbered); then %s by process %s (line %d) cannot be placed. %s",
			o.ReturnLine-1, len(res.Order)+res.OrderFrom, h.OpLabel(f.Op), o.Process, o.ReturnLine, f.Message)
	case res.Reason != "":
		text += "\n" + res.Reason
	}
	ov.setTraceText(text)
	ov.traceList.Refresh()
	ov.hist.timeline.SetTimeline(graph.HistoryTimeline(filepath.Base(ov.tracePath), h, res))
	ov.hist.tabs.Select(ov.hist.tab)
	ov.host.Open(ov.ReplayView())
}
