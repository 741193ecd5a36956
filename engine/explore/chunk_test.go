package explore_test

import (
	"context"
	"fmt"
	"hash/fnv"
	"os"
	"strings"
	"testing"

	"github.com/modex/modex/engine/explore"
	"github.com/modex/modex/engine/model"
	"github.com/modex/modex/projects"
)

// fingerprint hashes everything an exploration found, in order: states
// (key, depth, label, error, flags), transitions and the statistics.
func fingerprint(x *explore.Exploration) string {
	h := fnv.New64a()
	for i, s := range x.States {
		fmt.Fprintf(h, "%q %d %q %q %v %v %v %v %v\n", x.StateKey(i), s.Depth, x.StateLabel(i), x.StateError(i), s.Initial, s.Accepting, s.Expanded, s.Frontier, s.ModelErr)
	}
	for _, t := range x.Trans {
		fmt.Fprintln(h, t)
	}
	st := x.Stats
	return fmt.Sprintf("%x %d states %d trans %d tried %d filtered %d pruned %q", h.Sum64(), st.States, st.Transitions, st.Tried, st.Filtered, st.Pruned, st.StoppedBy)
}

// Expanding a level chunk by chunk gives the graph a whole-level merge
// gives: the same states in the same order, the same transitions, the
// same counts, whatever the chunk size and the number of workers — with
// groupings and filters pruning, and a bound stopping in the middle of a
// level.
func TestLevelChunksGiveTheSameGraph(t *testing.T) {
	src, err := os.ReadFile("testdata/bigstack.star")
	if err != nil {
		t.Fatal(err)
	}
	stack, err := model.LoadStarlarkSource("stack10.star", []byte(strings.Replace(string(src), "CAPACITY = 14", "CAPACITY = 10", 1)))
	if err != nil {
		t.Fatal(err)
	}
	p, err := projects.Load("../../projects/webshop/webshop.toml")
	if err != nil {
		t.Fatal(err)
	}
	shop, err := p.LoadModelFor("more_items")
	if err != nil {
		t.Fatal(err)
	}
	shopCfg, err := p.Build(shop, "more_items")
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		m    model.Model
		cfg  func() *explore.Config
	}{
		{"stack", stack, func() *explore.Config { return explore.DefaultConfig(stack) }},
		{"stack, max states in a level", stack, func() *explore.Config {
			c := explore.DefaultConfig(stack)
			c.MaxStates = 1500
			return c
		}},
		{"webshop more_items (groupings, filters)", shop, func() *explore.Config { c := *shopCfg; return &c }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var want string
			for _, chunk := range []int{1 << 30, 4096, 7, 1} {
				for _, workers := range []int{1, 2} {
					restore := explore.SetLevelChunk(chunk)
					cfg := tc.cfg()
					cfg.Workers = workers
					x, err := explore.Explore(context.Background(), tc.m, cfg)
					restore()
					if err != nil {
						t.Fatal(err)
					}
					got := fingerprint(x)
					if want == "" {
						want = got
						if x.Stats.States < 1000 {
							t.Fatalf("too small to have levels of several chunks: %s", got)
						}
						continue
					}
					if got != want {
						t.Errorf("chunks of %d, %d workers: %s, want %s", chunk, workers, got, want)
					}
				}
			}
		})
	}
}
