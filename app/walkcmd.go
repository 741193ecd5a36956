package main

import (
	"flag"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/modex/modex/engine/explore"
	"github.com/modex/modex/internal/safetext"
)

// walkFlags are modex explore's directed-search flags: what a project's
// configuration sets (search = "walks", walks, walk_depth, seed), given on
// the command line instead.
type walkFlags struct {
	walks, depth *int
	seed         *int64
}

func addWalkFlags(fs *flag.FlagSet) *walkFlags {
	return &walkFlags{
		walks: intFlag(fs, "walks", 0, 0, 1<<30, "0 (the configuration's search) or more",
			"explore by `N` random walks (directed search) instead of breadth-first (0: the configuration's search)"),
		depth: intFlag(fs, "depth", 0, 0, 1<<30, "0 (the configuration's walk_depth) or more",
			fmt.Sprintf("take at most `STEPS` steps a walk (0: the configuration's walk_depth, else %d)", explore.DefaultWalkDepth)),
		seed: int64Flag(fs, "seed", -1, -1, math.MaxInt64, "-1 (the configuration's seed, else one from the clock) or a seed of 0 or more",
			"draw the walks from `SEED` (-1: the configuration's seed, else one from the clock; the summary says which)"),
	}
}

// apply sets the directed search given on the command line; --depth and
// --seed need one (--walks, or a configuration with search = "walks").
func (f *walkFlags) apply(cfg *explore.Config) error {
	if *f.walks > 0 {
		cfg.Search, cfg.Walks = explore.SearchWalks, *f.walks
	}
	if cfg.Search != explore.SearchWalks && (*f.depth > 0 || *f.seed >= 0) {
		return usagef("--depth and --seed are for a directed search: give --walks N, or a configuration with search = \"walks\"")
	}
	if *f.depth > 0 {
		cfg.WalkDepth = *f.depth
	}
	if *f.seed >= 0 {
		cfg.Seed = *f.seed
	}
	return nil
}

// walkSummary is Summary for a directed search: what the walks did, then
// the graph of what they visited.
func walkSummary(project, config string, x *explore.Exploration, extra string) string {
	st := x.Stats
	end := ""
	if st.Complete || st.StoppedBy != "" {
		end = ", " + st.Ending()
	}
	return fmt.Sprintf("%s [%s]: %s; %s, %d tried, %.3f s%s%s",
		safetext.Term(project), safetext.Term(config), st.SearchWords(), x.SizeText(), st.Tried, st.Seconds, end, extra)
}

// printFindings prints the first error state a directed search found and
// the first deadlock, each with the way to it.
func printFindings(w io.Writer, x *explore.Exploration) {
	printWalkError(w, x)
	printDeadlock(w, x)
}

// printWalkError prints, after a directed search, the first error state
// it found (an invariant violation or a model error) with the walk that
// reached it.
func printWalkError(w io.Writer, x *explore.Exploration) {
	for i := range x.States {
		msg := x.StateError(i)
		if msg == "" {
			continue
		}
		walk, path, ok := x.WalkPath(i)
		if !ok {
			continue
		}
		fmt.Fprintf(w, "error state %s, reached by walk %d (seed %d) in %s: %s\n  | %s\n", x.GraphID(i, false), walk, x.Stats.Seed,
			explore.Count(len(path), "step"), pathWords(x, path), safetext.TermIndented(msg, "  | "))
		return
	}
}

// pathWords is a path's labels, for the terminal ("an initial state" for
// none).
func pathWords(x *explore.Exploration, path []explore.MTrans) string {
	var steps []string
	for _, t := range path {
		steps = append(steps, x.TransLabel(&t))
	}
	if len(steps) == 0 {
		return "an initial state"
	}
	return safetext.Term(strings.Join(steps, ", "))
}
