package ui

import (
	"os"
	"strings"
	"testing"

	"github.com/modex/modex/engine/explore"
)

// A configuration with search = "walks" is explored by directed search:
// the status line says so, with its seed, and the graph drawn is what the
// walks visited, its unexpanded and partly expanded states on the
// frontier.
func TestDirectedSearchInWorkbench(t *testing.T) {
	path := copyProject(t, "webshop")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Replace(string(data), `default = "some_items"`, `default = "walks"`, 1) + `
[configs.walks]
extends = "more_items"
search = "walks"
walks = 6
walk_depth = 5
seed = 5
`
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	b := newBench(t)
	b.open(path)
	b.wait()
	x := b.wb.Last()
	if x == nil || !x.DirectedSearch() || x.Stats.Seed != 5 {
		t.Fatalf("exploration %+v", x)
	}
	if st := b.wb.Status(); !strings.Contains(st, "webshop [walks]: directed search: 6 walks, depth 5, seed 5: ") || strings.Contains(st, "exploring") {
		t.Errorf("status %q", st)
	}
	frontier := 0
	for _, s := range b.wb.Graph().Doc().States {
		if s.Frontier {
			frontier++
		}
	}
	if frontier == 0 || len(x.States) > 6*5+1 {
		t.Errorf("%d states, %d drawn on the frontier", len(x.States), frontier)
	}
}

// While it runs, the status line tells a directed search and its seed,
// drawn at once when the configuration sets none.
func TestDirectedSearchStatus(t *testing.T) {
	cfg := &explore.Config{Search: explore.SearchWalks, Walks: 3, Seed: -1}
	got := exploringText("sim", cfg)
	if cfg.Seed < 0 || !strings.HasPrefix(got, "Directed search of sim: 3 walks of at most 100 steps, seed ") {
		t.Errorf("%q, seed %d", got, cfg.Seed)
	}
	if got := exploringText("all", &explore.Config{}); got != "Exploring all…" {
		t.Errorf("%q", got)
	}
}
