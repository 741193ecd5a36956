package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/modex/modex/engine/conform"
	"github.com/modex/modex/engine/explore"
	"github.com/modex/modex/engine/model"
	"github.com/modex/modex/graph"
	"github.com/modex/modex/internal/safetext"
)

// traceFiles expands folders into the trace files they hold.
func traceFiles(paths []string) ([]string, error) {
	var out []string
	for _, p := range paths {
		fi, err := os.Stat(p)
		if err != nil {
			return nil, err
		}
		if !fi.IsDir() {
			out = append(out, p)
			continue
		}
		entries, err := os.ReadDir(p)
		if err != nil {
			return nil, err
		}
		var files []string
		for _, e := range entries {
			switch filepath.Ext(e.Name()) {
			case ".xml", ".jsonl", ".trace", ".txt", ".log", ".edn":
				// Regular files only: a named pipe would block the
				// replay (it is reported when named on its own).
				if e.Type().IsRegular() {
					files = append(files, filepath.Join(p, e.Name()))
				}
			}
		}
		sort.Strings(files)
		if len(files) == 0 {
			return nil, fmt.Errorf("%s holds no trace or history files (.xml, .jsonl, .trace, .txt, .log, .edn)", p)
		}
		out = append(out, files...)
	}
	return out, nil
}

func cmdReplay(args []string, stdout io.Writer) (err error) {
	fs := flag.NewFlagSet("replay", flag.ContinueOnError)
	config := fs.String("config", "", "the configuration `NAME` (default: the project's default)")
	window := intFlag(fs, "window", -1, -1, math.MaxInt, "-1 (the project's window) or 0 or more", "reordering window: events of different threads may match out of order within `N` positions (-1: the project's, else 0)")
	threadAttr := fs.String("thread-attr", "", "the event attribute `ATTR` that names an event's thread (default: thread)")
	accepting := fs.Bool("accepting", false, "fail the traces that end outside an accepting state")
	maxStates := intFlag(fs, "max-states", 0, 1, math.MaxInt, "at least 1 (leave it out for the project's max_states, else 1000)", "bound on the states the model may be in, at least 1 (default: the project's max_states, else 1000)")
	chart := fs.String("chart", "", "write the replay of the trace (the first failing one, with several) as a sequence chart, SVG, to `FILE`")
	shrinkFlag := fs.Bool("shrink", false, "for each failing trace, find the shortest prefix that already fails")
	budget := durationFlag(fs, "time-budget", 0, 0, "a duration above 0, as 30s or 5m (leave it out for the project's time_budget, else 60s)",
		"histories: how long to search before the verdict is inconclusive (default: the project's time_budget, else 60s)")
	key := fs.String("key", "", "histories: the attribute `ATTR` that cuts a history into independent parts (default: the project's)")
	timeline := fs.String("timeline", "", "histories: write the timeline of the history (the first failing one, with several) as SVG to `FILE`")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(pos) < 2 {
		return usagef("replay takes PROJECT and one or more traces or folders of traces")
	}
	ctx, stop := signalContext()
	defer stop()
	phase := "while loading the model"
	defer func() { err = orStopped(ctx, err, "replay", phase) }()
	p, m, cfg, name, err := openConfig(ctx, pos[0], *config)
	if err != nil {
		return err
	}
	rc, err := p.ReplayConfig(m)
	if err != nil {
		return err
	}
	overrideReplay(&rc, *window, *threadAttr, *accepting, *maxStates)
	if *budget > 0 {
		rc.TimeBudget = *budget
	}
	if *key != "" {
		rc.Key = *key
	}
	files, err := traceFiles(pos[1:])
	if err != nil {
		return err
	}
	phase = ""
	counts := conform.Tally{}
	type row struct{ file, verdict, detail string }
	var rows []row
	unread := 0
	one := &replayOne{ctx: ctx, stdout: stdout, m: m, cfg: cfg, rc: rc, chart: *chart, timeline: *timeline, shrink: *shrinkFlag,
		title: fmt.Sprintf("%s [%s] ", p.Name, name), only: len(files) == 1}
	for _, f := range files {
		if ctx.Err() != nil {
			break
		}
		verdict, detail, err := one.file(f)
		if err != nil {
			// A file that is no trace (or cannot be read) is reported and
			// the others are replayed.
			if len(files) == 1 {
				return err
			}
			unread++
			fmt.Fprintf(stdout, "%s: not replayed: %s\n", safetext.Term(f), safetext.Term(err.Error()))
			verdict, detail = "error", conform.ShortText(err.Error())
		} else {
			counts[verdict]++
		}
		rows = append(rows, row{filepath.Base(f), string(verdict), detail})
	}
	if len(rows) > 1 {
		fmt.Fprintf(stdout, "\n%-32s %-13s %s\n", "trace", "verdict", "")
		for _, r := range rows {
			fmt.Fprintf(stdout, "%-32s %-13s %s\n", safetext.Term(r.file), r.verdict, safetext.Term(r.detail))
		}
	}
	sig := stopSignal(ctx)
	done := explore.Count(len(files), "trace")
	if sig != "" {
		// The file the stop cut is inconclusive, never a pass.
		done = stoppedAfter(len(rows), len(files), one.noun(), sig, one.cut)
	}
	summary := fmt.Sprintf("%s [%s]: %s: %s", safetext.Term(p.Name), safetext.Term(name), done, counts)
	if unread > 0 {
		summary += fmt.Sprintf(", %d could not be read", unread)
	}
	fmt.Fprintln(stdout, summary)
	if sig != "" {
		return stopErr("replay stopped by %s after %d of %d %s%s", sig, len(rows), len(files), plural(len(files), one.noun()), failedBefore(counts))
	}
	if n := counts[conform.ModelError]; n > 0 {
		return fmt.Errorf("model error in %d of %s: fix the model, no verdict about the implementation", n, explore.Count(len(files), "trace"))
	}
	if counts[conform.Fail] > 0 {
		return fmt.Errorf("%d of %s failed", counts[conform.Fail], explore.Count(len(files), "trace"))
	}
	if unread > 0 {
		return fmt.Errorf("%d of %s could not be read", unread, explore.Count(len(files), "trace"))
	}
	return nil
}

// replayOne replays trace files and checks history files, one at a time.
type replayOne struct {
	ctx             context.Context
	stdout          io.Writer
	m               model.Model
	cfg             *explore.Config
	rc              conform.ReplayConfig
	chart, timeline string // written once, then cleared
	shrink          bool
	title           string // project [config]
	only            bool   // a single file
	// traces and histories count the files replayed or checked; cut is
	// set when the last of them was cut short by a stop.
	traces, histories int
	cut               bool
}

// noun names the files replayed so far: trace, history, or file when
// they are of both kinds (or none).
func (r *replayOne) noun() string {
	switch {
	case r.histories > 0 && r.traces == 0:
		return "history"
	case r.traces > 0 && r.histories == 0:
		return "trace"
	}
	return "file"
}

// file replays a trace or checks a history; it returns the verdict and
// the detail of the summary table (an error: the file was not replayed).
func (r *replayOne) file(f string) (conform.Verdict, string, error) {
	r.rc.File = f
	title := r.title + filepath.Base(f)
	if isHist, err := conform.IsHistoryFile(f); err == nil && isHist {
		r.histories++
		v, detail, err := historyRow(r.ctx, r.stdout, f, title, r.m, r.cfg, r.rc, &r.timeline, r.only)
		r.cut = v == conform.Inconclusive && stopSignal(r.ctx) != ""
		return v, detail, err
	}
	r.traces++
	tr, closer, err := conform.OpenTrace(f)
	if err != nil {
		return "", "", err
	}
	defer closer.Close()
	// A step log of modex test holds its runs: each is a trace of its own.
	runs := conform.SplitRuns(tr)
	var verdict conform.Verdict
	var details []string
	tally := conform.Tally{}
	for sub, n, ok := runs.Next(); ok; sub, n, ok = runs.Next() {
		name := f
		if n > 0 {
			name = fmt.Sprintf("%s, run %d", f, n)
		}
		v, detail, err := r.replayRun(f, name, title, n, sub)
		if err != nil {
			return "", "", err
		}
		tally[v]++
		verdict, details = worse(verdict, v), append(details, detail)
		if r.ctx.Err() != nil {
			break
		}
	}
	if len(details) == 1 {
		return verdict, details[0], nil
	}
	return verdict, fmt.Sprintf("%s: %s", explore.Count(len(details), "run"), tally), nil
}

// worse is the verdict of a file of runs: fail over inconclusive over pass.
func worse(a, b conform.Verdict) conform.Verdict {
	rank := map[conform.Verdict]int{"": 0, conform.Pass: 1, conform.Inconclusive: 2, conform.Fail: 3}
	if rank[b] > rank[a] {
		return b
	}
	return a
}

// replayRun replays one trace (a file, or one run of a step log) as it is
// read (streamed: any length).
func (r *replayOne) replayRun(file, f, title string, run int, tr conform.TraceReader) (conform.Verdict, string, error) {
	res, err := conform.ReplayTrace(r.ctx, r.m, r.cfg, tr, r.rc)
	if err != nil {
		return "", "", err
	}
	r.cut = res.Verdict == conform.Inconclusive && stopSignal(r.ctx) != ""
	detail := printReplay(r.stdout, f, res)
	if r.chart != "" && (r.only || res.Verdict != conform.Pass) {
		path := r.chart
		r.chart = ""
		if err := replayChart(r.stdout, path, title, res); err != nil {
			return "", "", err
		}
	}
	if r.shrink && res.Verdict == conform.Fail && r.ctx.Err() == nil {
		if err := shrinkTrace(r.ctx, r.stdout, file, run, r.m, r.cfg, r.rc); err != nil {
			fmt.Fprintf(r.stdout, "  shrinking: %s\n", safetext.Term(stopWords(r.ctx, err).Error()))
		}
	}
	return res.Verdict, detail, nil
}

// overrideReplay applies the command line's settings to the project's.
func overrideReplay(rc *conform.ReplayConfig, window int, threadAttr string, accepting bool, maxStates int) {
	if window >= 0 {
		rc.Window = window
	}
	if threadAttr != "" {
		rc.ThreadAttr = threadAttr
	}
	rc.RequireAccepting = rc.RequireAccepting || accepting
	if maxStates > 0 {
		rc.MaxStates = maxStates
	}
}

// replayChart writes a replay as a sequence chart.
func replayChart(stdout io.Writer, path, title string, res *conform.ReplayResult) error {
	if err := writeChart(path, graph.ReplayChart(title, res)); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "  sequence chart: %s\n", safetext.Term(path))
	return nil
}

// printReplay prints a trace's verdict and divergence, what came from the
// trace and the model escaped for the terminal; it returns the detail for
// the summary table.
func printReplay(stdout io.Writer, f string, res *conform.ReplayResult) string {
	detail := fmt.Sprintf("%d of %s reproduced, at most %s, %.3f s", res.Matched, explore.Count(res.Total, "event"), explore.Count(res.MaxStates, "candidate state"), res.Seconds)
	fmt.Fprintf(stdout, "%s: %s (%s)\n", safetext.Term(f), res.Verdict, detail)
	switch {
	case res.Failure != nil:
		fl := res.Failure
		where := fmt.Sprintf("event %d", fl.Index+1)
		if fl.Line > 0 {
			where += fmt.Sprintf(" (line %d)", fl.Line)
		}
		head := "FAIL"
		if res.Verdict == conform.ModelError {
			head = "MODEL ERROR (no verdict about the implementation)"
		}
		if fl.Event == "" {
			fmt.Fprintf(stdout, "  %s at the end of the trace: %s\n", head, safetext.TermIndented(fl.Message, "  | "))
		} else {
			fmt.Fprintf(stdout, "  %s at %s: %s\n  %s\n", head, where, safetext.Term(fl.Event), safetext.TermIndented(fl.Message, "  | "))
		}
		for i, st := range fl.States {
			if i == 5 {
				fmt.Fprintf(stdout, "  … and %d more candidate states\n", len(fl.States)-5)
				break
			}
			fmt.Fprintf(stdout, "  candidate state: %s\n", safetext.Term(st.String()))
		}
		if len(fl.Expected) > 0 {
			fmt.Fprintf(stdout, "  they would have accepted: %s\n", safetext.Term(strings.Join(fl.Expected, ", ")))
		}
		detail = fmt.Sprintf("at event %d: %s", fl.Index+1, fl.Event)
	case res.Reason != "":
		fmt.Fprintf(stdout, "  inconclusive: %s\n", safetext.Term(res.Reason))
		detail = res.Reason
	}
	return detail
}

// shrinkTrace prints the shortest prefix of a failing trace that already
// fails (conform.ShrinkReplay).
func shrinkTrace(ctx context.Context, stdout io.Writer, f string, run int, m model.Model, cfg *explore.Config, rc conform.ReplayConfig) error {
	recs, err := conform.ReadTraceFile(f)
	if err != nil {
		return err
	}
	if run > 0 { // one run of a step log
		var mine []conform.Record
		for _, r := range recs {
			if r.Run == run {
				mine = append(mine, r)
			}
		}
		recs = mine
	}
	n, res, err := conform.ShrinkReplay(ctx, m, cfg, recs, rc)
	if err != nil {
		return err
	}
	last := recs[n-1].Line
	fmt.Fprintf(stdout, "  shrunk: %d records (from %d): the first %d already fail, up to line %d of %s\n", n, len(recs), n, last, safetext.Term(f))
	if fl := res.Failure; fl != nil {
		fmt.Fprintf(stdout, "  FAIL at event %d (line %d): %s\n", fl.Index+1, fl.Line, safetext.TermIndented(fl.Message, "  | "))
	}
	return nil
}
