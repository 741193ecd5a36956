package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"strings"
	"time"

	"github.com/modex/modex/engine/conform"
	"github.com/modex/modex/engine/explore"
	"github.com/modex/modex/engine/model"
	"github.com/modex/modex/graph"
	"github.com/modex/modex/internal/safetext"
	"github.com/modex/modex/projects"
)

// shrinkFlags are the options of modex test --shrink.
type shrinkFlags struct {
	on      bool
	repeats int
	runs    int
	seconds float64
}

// addShrinkFlags declares --shrink (shrinking what) and its budgets.
func addShrinkFlags(fs *flag.FlagSet, what string) *shrinkFlags {
	var sh shrinkFlags
	fs.BoolVar(&sh.on, "shrink", false, "shrink "+what+" to the shortest run that still fails")
	intVar(fs, &sh.repeats, "shrink-repeats", 4, 1, math.MaxInt, "at least 1", "runs of each shrinking candidate, at least 1: the candidate fails if one of them fails")
	intVar(fs, &sh.runs, "shrink-runs", 0, 0, math.MaxInt, "0 (no bound) or more", "budget of shrinking in runs (0: none, the time budget alone)")
	secondsVar(fs, &sh.seconds, "shrink-time", 300, 0, false, maxFlagSeconds, "a number of seconds above 0, at most a week", "budget of shrinking in seconds, above 0")
	return &sh
}

// shrinkJob is a failing run to shrink and what it takes.
type shrinkJob struct {
	path, file string // the project's path; the saved run's file
	m          model.Model
	cfg        *explore.Config
	impl       conform.Implementation
	tc         conform.TestConfig
	saved      *conform.SavedRun
	flags      shrinkFlags
	// chart, when set, is where the shrunk run is drawn as a sequence
	// chart (--chart: the run to read is the shrunk one).
	chart, project, config string
}

// shrink shrinks a saved failing run against the implementation, prints
// the result (the shrunk trace, the model state at the failure and what
// the model allowed) and saves the shrunk run next to the original.
func shrink(ctx context.Context, stdout io.Writer, j shrinkJob) error {
	budget := fmt.Sprintf("up to %.0f s", j.flags.seconds)
	if j.flags.runs > 0 {
		budget = fmt.Sprintf("up to %d runs or %.0f s", j.flags.runs, j.flags.seconds)
	}
	fmt.Fprintf(stdout, "shrinking %s: %d steps, failure %s; %s, each candidate run up to %d times, the result re-run %d times\n",
		safetext.Term(j.file), len(j.saved.Trace), safetext.Term(string(j.saved.Failure.Kind)), budget, j.flags.repeats, max(j.flags.repeats, conform.MinReruns))
	last := time.Now()
	res, err := conform.Shrink(ctx, j.m, j.cfg, j.impl, j.tc, j.saved, conform.ShrinkConfig{
		Repeats: j.flags.repeats, MaxRuns: j.flags.runs, MaxTime: time.Duration(j.flags.seconds * float64(time.Second)),
		Progress: func(p conform.ShrinkProgress) {
			if time.Since(last) > 2*time.Second {
				last = time.Now()
				fmt.Fprintf(os.Stderr, "  shrinking (%s): %d runs, %d controllable steps\n", p.Phase, p.Runs, p.Steps)
			}
		}})
	if err != nil {
		return err
	}
	fmt.Fprintln(stdout, strings.ReplaceAll(res.Summary(), "\n", "\n  "))
	io.WriteString(stdout, conform.FailureReport(res.Run, "  "))
	file, err := projects.SaveShrunk(j.file, res.Saved(j.saved))
	if err != nil {
		return fmt.Errorf("saving the shrunk run: %w", err)
	}
	fmt.Fprintf(stdout, "  saved: %s\n  rerun it: %s\n", safetext.Term(file), projects.RerunCommand(j.path, "", file))
	if j.chart != "" {
		r := res.Run
		title := fmt.Sprintf("%s [%s] run %d (seed %d), shrunk to %s", j.project, j.config, r.Run, r.Seed, explore.Count(res.Steps, "step"))
		if err := writeChart(j.chart, graph.RunChart(title, r)); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "  sequence chart of the shrunk run: %s\n", safetext.Term(j.chart))
	}
	return nil
}
