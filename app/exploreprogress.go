package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/modex/modex/engine/explore"
)

// exploreFlags are modex explore's bounds and progress flags: what a
// project's configuration sets (max_states, max_seconds,
// memory_budget_mb), given on the command line instead.
type exploreFlags struct {
	maxStates  *int
	maxSeconds *float64
	budgetMB   *int
	progress   *float64
	quiet      *bool
	fs         *flag.FlagSet
}

func addExploreFlags(fs *flag.FlagSet) *exploreFlags {
	return &exploreFlags{
		fs:         fs,
		maxStates:  intFlag(fs, "max-states", 0, 0, 1<<40, "0 (the configuration's bound) or more", "stop after `N` model states (0: the configuration's max_states)"),
		maxSeconds: secondsFlag(fs, "max-seconds", 0, 0, true, maxFlagSeconds, "0 (the configuration's bound) or more, at most a week", "stop after `SECONDS` (0: the configuration's max_seconds)"),
		budgetMB: intFlag(fs, "memory-budget", 0, 0, 1<<30, "0 (the configuration's, else a quarter of the memory) or more",
			"stop when the heap passes `MB` megabytes (0: the configuration's memory_budget_mb, else a quarter of the machine's memory)"),
		progress: secondsFlag(fs, "progress", 10, 0, true, maxFlagSeconds, "0 (none) or more, at most a week",
			"print a progress line on standard error every `SECONDS` (on a terminal only, unless given; 0: none)"),
		quiet: fs.Bool("quiet", false, "print no progress lines"),
	}
}

// apply sets the bounds given on the command line.
func (f *exploreFlags) apply(cfg *explore.Config) {
	if *f.maxStates > 0 {
		cfg.MaxStates = *f.maxStates
	}
	if *f.maxSeconds > 0 {
		cfg.MaxTime = time.Duration(*f.maxSeconds * float64(time.Second))
	}
	if *f.budgetMB > 0 {
		cfg.MemoryBudget = uint64(*f.budgetMB) << 20
	}
}

// given says whether the flag was on the command line.
func (f *exploreFlags) given(name string) bool {
	set := false
	f.fs.Visit(func(fl *flag.Flag) { set = set || fl.Name == name })
	return set
}

// watch prints progress lines on w while the exploration runs: every
// --progress seconds, when standard error is a terminal or --progress was
// given, unless --quiet; the first after the interval, so that a short
// exploration prints none.
func (f *exploreFlags) watch(cfg *explore.Config, w io.Writer) {
	every := time.Duration(*f.progress * float64(time.Second))
	if *f.quiet || every <= 0 || !(f.given("progress") || isTerminal(os.Stderr)) {
		return
	}
	var mu sync.Mutex
	last := time.Now()
	cfg.ProgressEvery = min(every, time.Second)
	cfg.Progress = func(p explore.Progress) {
		mu.Lock()
		defer mu.Unlock()
		if p.Done || time.Since(last) < every {
			return
		}
		last = time.Now()
		fmt.Fprintln(w, progressLine(p))
	}
}

// progressLine is a progress report: "explore: " and the progress in words.
func progressLine(p explore.Progress) string { return "explore: " + p.String() }

// isTerminal says whether f is a terminal (a character device).
func isTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// budgetHint says how to raise the memory budget when it stopped the
// exploration ("" otherwise).
func budgetHint(x *explore.Exploration) string {
	if !strings.Contains(x.Stats.StoppedBy, "memory budget") {
		return ""
	}
	return "the heap (the exploration's graph and the model's values) reached the memory budget: raise it with --memory-budget MB, or memory_budget_mb in the configuration"
}
