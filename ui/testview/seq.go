package testview

import (
	"strconv"

	"fyne.io/fyne/v2"

	"github.com/modex/modex/engine/conform"
	"github.com/modex/modex/graph"
	"github.com/modex/modex/ui/seqchart"
)

// seqChartPanel is the Test tab's chart: clicking a message selects its
// state in the test's graph.
func (tv *View) seqChartPanel() fyne.CanvasObject {
	var panel fyne.CanvasObject
	tv.seq, panel = seqchart.NewPanel(tv.host.SaveSVG, "The current run, or the first that failed. Click a message: its state in the graph.")
	tv.seq.OnMessage = func(_ int, m *graph.Message) {
		if m.State != "" {
			tv.Jump(m.State)
		}
	}
	return panel
}

// seqItem is a logged step with its graph node, or a run's end (run set).
type seqItem struct {
	step conform.StepRecord
	run  *conform.RunResult
	node string
}

// addSeq follows the current run on the sequence chart until a run fails,
// then keeps showing that run (UI goroutine).
func (tv *View) addSeq(items []seqItem) {
	if tv.seqPinned || len(items) == 0 {
		return
	}
	var end *conform.RunResult
	failNode := ""
	for _, it := range items {
		if it.run != nil {
			if it.run.Failure == nil {
				continue
			}
			if it.run.Run != tv.seqRun {
				// It failed before logging a step.
				tv.seqRun, tv.seqSteps, tv.seqNodes, tv.seqDropped = it.run.Run, nil, nil, 0
			}
			end, failNode = it.run, it.node
			tv.seqPinned = true
			break
		}
		if it.step.Run != tv.seqRun {
			tv.seqRun, tv.seqSteps, tv.seqNodes, tv.seqDropped = it.step.Run, nil, nil, 0
		}
		tv.seqSteps = append(tv.seqSteps, it.step)
		tv.seqNodes = append(tv.seqNodes, it.node)
		if n := len(tv.seqSteps) - 2*graph.MaxChartMessages; n > 0 {
			tv.seqSteps, tv.seqNodes = tv.seqSteps[n:], tv.seqNodes[n:]
			tv.seqDropped += n
		}
	}
	r := conform.RunResult{Run: tv.seqRun, Steps: tv.seqSteps, StepsDropped: tv.seqDropped, Verdict: "running…"}
	if end != nil {
		r.Verdict, r.Failure, r.Seed = end.Verdict, end.Failure, end.Seed
	}
	ch := graph.RunChart("run "+strconv.Itoa(tv.seqRun), r)
	// The rows are the last steps, then the failing event: each links to
	// its node of the test's graph.
	rows := len(ch.Messages)
	if end != nil && end.Failure.Event != nil {
		rows--
		ch.Messages[rows].State = failNode
	}
	off := len(tv.seqNodes) - rows
	for i := 0; i < rows; i++ {
		ch.Messages[i].State = tv.seqNodes[off+i]
	}
	tv.seq.SetChart(ch)
}
