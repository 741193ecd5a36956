package ui

import (
	"fmt"

	"github.com/modex/modex/engine/explore"
)

// Directed search in the workbench: a configuration with search = "walks"
// explores by walks (explore.SearchWalks) in the background like any
// other; the status line says so, with the seed, from the start (a seed
// the configuration does not set is drawn here, so that it can be told
// before the walks end).

// exploringText is the status line while the configuration is explored
// (cfg may get its seed).
func exploringText(config string, cfg *explore.Config) string {
	if cfg.Search != explore.SearchWalks {
		return "Exploring " + config + "…"
	}
	if cfg.Seed < 0 {
		cfg.Seed = explore.DrawSeed()
	}
	walks, depth := cfg.Walks, cfg.WalkDepth
	if walks <= 0 {
		walks = explore.DefaultWalks
	}
	if depth <= 0 {
		depth = explore.DefaultWalkDepth
	}
	return fmt.Sprintf("Directed search of %s: %s of at most %s, seed %d…", config, explore.Count(walks, "walk"), explore.Count(depth, "step"), cfg.Seed)
}

// searchSummary is the status line after a directed search (graph: the
// drawn graph's size in words), "" after a breadth-first exploration.
func searchSummary(project, config string, x *explore.Exploration, graph string) string {
	st := x.Stats
	if st.Search == "" {
		return ""
	}
	end := ""
	if st.Complete || st.StoppedBy != "" {
		end = ", " + st.Ending()
	}
	return fmt.Sprintf("%s [%s]: %s; %s, %d tried, %.3f s%s", project, config, st.SearchWords(), graph, st.Tried, st.Seconds, end)
}
