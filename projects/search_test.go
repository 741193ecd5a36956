package projects

import (
	"strings"
	"testing"

	"github.com/modex/modex/engine/explore"
)

// search = "walks" selects directed search with its walks, depth and
// seed; a configuration extending it inherits them and overrides some;
// without a seed, one is drawn from the clock (Config.Seed -1); bad
// values are reported at file:line:col.
func TestSearchSettings(t *testing.T) {
	path := writeProject(t, `name = "x"
model = "chat.star"
[configs.base]
[configs.sim]
search = "walks"
walks = 50
walk_depth = 30
seed = 7
[configs.deeper]
extends = "sim"
walk_depth = 90
[configs.bfs]
extends = "sim"
search = "bfs"
`)
	p, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	m, err := p.LoadModel()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		config       string
		search       explore.SearchMode
		walks, depth int
		seed         int64
	}{
		{"base", explore.SearchBFS, 0, 0, -1},
		{"sim", explore.SearchWalks, 50, 30, 7},
		{"deeper", explore.SearchWalks, 50, 90, 7},
		{"bfs", explore.SearchBFS, 50, 30, 7},
	} {
		cfg, err := p.Build(m, tc.config)
		if err != nil {
			t.Fatal(err)
		}
		if cfg.Search != tc.search || cfg.Walks != tc.walks || cfg.WalkDepth != tc.depth || cfg.Seed != tc.seed {
			t.Errorf("%s: search %v, %d walks, depth %d, seed %d; want %+v", tc.config, cfg.Search, cfg.Walks, cfg.WalkDepth, cfg.Seed, tc)
		}
	}
	for _, tc := range []struct{ text, pos, msg string }{
		{"search = \"dfs\"\n", ":4:10", `search must be bfs or walks, not "dfs"`},
		{"walks = 0\n", ":4:9", "walks must be at least 1"},
		{"walk_depth = -3\n", ":4:14", "walk_depth must be at least 1"},
		{"seed = -1\n", ":4:8", "seed must not be negative"},
		{"seed = \"x\"\n", ":4:8", "seed"},
	} {
		path := writeProject(t, "name = \"x\"\nmodel = \"chat.star\"\n[configs.a]\n"+tc.text)
		err := buildAll(path)
		if err == nil || !strings.HasPrefix(err.Error(), path+tc.pos) || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%q: %v, want it at %s%s saying %q", tc.text, err, path, tc.pos, tc.msg)
		}
	}
}
