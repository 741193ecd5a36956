package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/modex/modex/engine/explore"
	"github.com/modex/modex/engine/model"
	"github.com/modex/modex/internal/safetext"
	"github.com/modex/modex/projects"
)

// checkFlags are modex explore's flags of the checking mode.
type checkFlags struct {
	check *bool
	dir   *string
}

func addCheckFlags(fs *flag.FlagSet) *checkFlags {
	return &checkFlags{
		check: fs.Bool("check", false, "check every state without keeping the graph, as TLC does: the states seen as fingerprints in memory and on disk, the states to expand on disk (the configuration's check = true does the same)"),
		dir:   fs.String("check-dir", "", "the folder `DIR` of --check's temporary files, removed at the end (default: the system's temporary folder)"),
	}
}

// on says whether the checking mode is asked for: --check, or check = true
// in the configuration.
func (f *checkFlags) on(p *projects.Project, config string) bool {
	if *f.check {
		return true
	}
	spec, err := p.Resolve(config)
	return err == nil && spec.Check != nil && *spec.Check
}

// graphFlags are modex explore's flags that write the graph.
type graphFlags struct {
	format, quotient string
	minimize         bool
}

// refuse refuses the flags that write a graph, which a check does not
// keep.
func (g graphFlags) refuse() error {
	switch {
	case g.format != "":
		return usagef("--check keeps no graph to write: drop --format and --out")
	case g.quotient != "":
		return usagef("--check keeps no graph to write an overview of: drop --quotient")
	case g.minimize:
		return usagef("--check keeps no graph to minimise: drop --minimize")
	}
	return nil
}

// runCheck checks the configuration (explore.Check) and prints the summary,
// the fingerprints' figures and the first violation with its path.
func runCheck(ctx context.Context, project, config string, m model.Model, cfg *explore.Config, ef *exploreFlags, cf *checkFlags, g graphFlags, stdout, stderr io.Writer) error {
	if err := g.refuse(); err != nil {
		return err
	}
	opts := explore.CheckOptions{Dir: *cf.dir}
	if opts.Dir != "" {
		if st, err := os.Stat(opts.Dir); err != nil || !st.IsDir() {
			return usagef("--check-dir %s is not a folder", opts.Dir)
		}
	}
	ef.watchCheck(&opts, stderr)
	r, err := explore.Check(ctx, m, cfg, opts)
	if err != nil {
		return err
	}
	fmt.Fprintln(stdout, CheckSummary(project, config, r))
	fmt.Fprintln(stdout, CheckFigures(r))
	if strings.Contains(r.Stats.StoppedBy, "memory budget") {
		fmt.Fprintln(stdout, "the heap (the fingerprints kept in memory, the queues' buffers and the model's values) reached the memory budget: raise it with --memory-budget MB, or memory_budget_mb in the configuration")
	}
	if v := r.Violation; v != nil {
		for _, line := range strings.Split(v.ViolationText(), "\n") {
			fmt.Fprintln(stdout, safetext.Term(line))
		}
	}
	return verdict(&explore.Exploration{Stats: r.Stats})
}

// CheckSummary is the one-line report of a check, in the words of Summary,
// with the search's depth: "counters [c6]: 1000000 states, 5400000
// transitions, 6000000 tried, depth 54, 5.895 s, complete".
func CheckSummary(project, config string, r *explore.CheckResult) string {
	return fmt.Sprintf("%s [%s]: %s", safetext.Term(project), safetext.Term(config), r.Words())
}

// CheckFigures is the second line of a check's report (see
// explore.CheckResult.Figures).
func CheckFigures(r *explore.CheckResult) string { return r.Figures() }

// watchCheck prints a check's progress lines on w as watch prints an
// exploration's: every --progress seconds, on a terminal or when
// --progress was given, unless --quiet.
func (f *exploreFlags) watchCheck(opts *explore.CheckOptions, w io.Writer) {
	every := time.Duration(*f.progress * float64(time.Second))
	if *f.quiet || every <= 0 || !(f.given("progress") || isTerminal(os.Stderr)) {
		return
	}
	var mu sync.Mutex
	last := time.Now()
	opts.ProgressEvery = min(every, time.Second)
	opts.Progress = func(p explore.CheckProgress) {
		mu.Lock()
		defer mu.Unlock()
		if p.Done || time.Since(last) < every {
			return
		}
		last = time.Now()
		fmt.Fprintln(w, "explore --check: "+p.String())
	}
}
