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

// refuseWithCheck refuses the flags that write a graph, which a check
// does not keep.
func refuseWithCheck(format, quotient string, minimize bool) error {
	switch {
	case format != "":
		return usagef("--check keeps no graph to write: drop --format and --out")
	case quotient != "":
		return usagef("--check keeps no graph to write an overview of: drop --quotient")
	case minimize:
		return usagef("--check keeps no graph to minimise: drop --minimize")
	}
	return nil
}

// runCheck checks the configuration (explore.Check) and prints the summary,
// the fingerprints' figures and the first violation with its path.
func runCheck(ctx context.Context, project, config string, m model.Model, cfg *explore.Config, ef *exploreFlags, cf *checkFlags, stdout, stderr io.Writer) error {
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
	x := &explore.Exploration{Stats: r.Stats}
	if hint := budgetHint(x); hint != "" {
		fmt.Fprintln(stdout, hint)
	}
	if v := r.Violation; v != nil {
		for _, line := range strings.Split(v.ViolationText(), "\n") {
			fmt.Fprintln(stdout, safetext.Term(line))
		}
	}
	return verdict(x)
}

// CheckSummary is the one-line report of a check, in the words of Summary,
// with the search's depth: "counters [c6]: 1000000 states, 5400000
// transitions, 6000000 tried, depth 54, 5.895 s, complete".
func CheckSummary(project, config string, r *explore.CheckResult) string {
	st := r.Stats
	extra := ""
	if n := st.InitialStates; n > 1 {
		extra += fmt.Sprintf(", %d initial", n)
	}
	if st.ErrorStates > 0 {
		extra += ", " + explore.Count(st.ErrorStates, "error state")
	}
	if st.Deadlocks > 0 {
		extra += ", " + explore.Count(st.Deadlocks, "deadlock")
	}
	size := explore.SizeWords(st.States+st.Passive, st.Transitions+st.Timeouts, st.States)
	return fmt.Sprintf("%s [%s]: %s, %d tried, depth %d, %.3f s, %s%s",
		safetext.Term(project), safetext.Term(config), size, st.Tried, r.Depth, st.Seconds, st.Ending(), extra)
}

// CheckFigures is the second line of a check's report: the fingerprints'
// collision probability as TLC gives it, the disk and the heap it took.
func CheckFigures(r *explore.CheckResult) string {
	actual := "no figure from the fingerprints (the check stopped)"
	if r.Stats.Complete {
		actual = fmt.Sprintf("%.1e from the fingerprints", r.CollisionActual)
	}
	return fmt.Sprintf("checked without a graph: fingerprint collision probability %.1e calculated (optimistic), %s; %s generated; disk %s at most (%s, %s); peak heap %s",
		r.Collision, actual, explore.Thousands(r.Generated), explore.Bytes(r.DiskBytes),
		explore.Count(r.Spills, "spill"), explore.Count(r.Merges, "merge"), explore.Bytes(int64(r.PeakHeap)))
}

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
