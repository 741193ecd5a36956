package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/modex/modex/engine/conform"
	"github.com/modex/modex/engine/explore"
	"github.com/modex/modex/engine/model"
	"github.com/modex/modex/graph"
	"github.com/modex/modex/internal/safetext"
	"github.com/modex/modex/projects"
)

// checkHistoryFile checks a concurrent history for linearizability and
// prints its verdict; it returns the result and the detail for the summary
// table.
func checkHistoryFile(ctx context.Context, stdout io.Writer, f string, m model.Model, cfg *explore.Config, rc conform.ReplayConfig) (*conform.HistoryResult, *conform.History, string, error) {
	h, err := conform.ReadHistoryFileLimit(f, int64(rc.MaxMemory))
	if err != nil {
		return nil, nil, "", err
	}
	res, err := conform.CheckHistory(ctx, m, cfg, h, rc)
	if err != nil {
		return nil, nil, "", err
	}
	return res, h, printHistory(stdout, f, h, res), nil
}

// historyRow checks a history file and, for the first failing one (or the
// only one), writes the timeline *timeline names (and clears it); it
// returns the verdict and the detail of the summary table.
func historyRow(ctx context.Context, stdout io.Writer, f, title string, m model.Model, cfg *explore.Config, rc conform.ReplayConfig, timeline *string, only bool) (conform.Verdict, string, error) {
	res, h, detail, err := checkHistoryFile(ctx, stdout, f, m, cfg, rc)
	if err != nil {
		return "", "", err
	}
	if *timeline != "" && (only || res.Verdict != conform.Pass) {
		path := *timeline
		*timeline = ""
		if err := writeTimeline(stdout, path, title, h, res); err != nil {
			return "", "", err
		}
	}
	return res.Verdict, detail, nil
}

// printHistory prints a history's verdict: for a history that is not
// linearizable, the longest linearizable prefix and the operation that
// cannot be placed after it. What came from the history (process names,
// operations, keys) and the model is escaped for the terminal.
func printHistory(stdout io.Writer, f string, h *conform.History, res *conform.HistoryResult) string {
	parts := ""
	if res.Partitions > 1 {
		parts = fmt.Sprintf(" in %d independent parts", res.Partitions)
	}
	detail := fmt.Sprintf("%s of %s%s, %s searched, %.3f s", explore.Count(res.Ops, "operation"), explore.Count(res.Processes, "process"),
		parts, explore.Count(res.Nodes, "step"), res.Seconds)
	verdict := string(res.Verdict)
	switch res.Verdict {
	case conform.Pass:
		verdict = "pass: linearizable"
	case conform.Fail:
		verdict = "fail: not linearizable"
	}
	fmt.Fprintf(stdout, "%s: %s (%s)\n", safetext.Term(f), verdict, detail)
	if res.Dropped > 0 {
		fmt.Fprintf(stdout, "  %s completed :fail and did not take effect\n", explore.Count(res.Dropped, "operation"))
	}
	if fl := res.Failure; fl != nil && res.Verdict == conform.Fail {
		o := &h.Ops[fl.Op]
		key := ""
		if fl.Key != "" {
			key = fmt.Sprintf(" (key %s)", safetext.Term(fl.Key))
		}
		fmt.Fprintf(stdout, "  the history up to line %d linearizes (%s placed)%s; then\n", o.ReturnLine-1, explore.Count(len(res.Order)+res.OrderFrom, "operation"), key)
		fmt.Fprintf(stdout, "  FAIL at line %d: %s by process %s (invoked at line %d) cannot be placed\n  %s\n",
			o.ReturnLine, safetext.Term(h.OpLabel(fl.Op)), safetext.Term(o.Process), o.CallLine, safetext.TermIndented(fl.Message, "  | "))
		fmt.Fprintf(stdout, "  model state after the prefix: %s\n", safetext.Term(conform.ShortText(fl.State.String())))
		if len(fl.Pending) > 0 {
			var pend []string
			for _, i := range fl.Pending[:min(len(fl.Pending), 8)] {
				pend = append(pend, fmt.Sprintf("%s by %s (line %d)", safetext.Term(h.OpLabel(i)), safetext.Term(h.Ops[i].Process), h.Ops[i].CallLine))
			}
			more := ""
			if len(fl.Pending) > 8 {
				more = fmt.Sprintf(", … %d more", len(fl.Pending)-8)
			}
			fmt.Fprintf(stdout, "  pending then, tried in every order: %s%s\n", strings.Join(pend, ", "), more)
		}
		detail = fmt.Sprintf("line %d: %s cannot be placed", o.ReturnLine, safetext.Term(h.OpLabel(fl.Op)))
	} else if res.Reason != "" {
		fmt.Fprintf(stdout, "  %s: %s\n", res.Verdict, safetext.Term(res.Reason))
		detail = res.Reason
	}
	return detail
}

// writeTimeline writes a history's timeline as SVG.
func writeTimeline(stdout io.Writer, path, title string, h *conform.History, res *conform.HistoryResult) error {
	tl := graph.HistoryTimeline(title, h, res)
	if err := writeSVGFile(path, tl.WriteSVG); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "  timeline: %s\n", safetext.Term(path))
	return nil
}

// writeSVGFile writes an SVG atomically.
func writeSVGFile(path string, write func(io.Writer) error) error {
	var b bytes.Buffer
	if err := write(&b); err != nil {
		return err
	}
	return projects.WriteFileAtomic(path, b.Bytes())
}
