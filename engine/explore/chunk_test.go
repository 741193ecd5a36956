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

// exploreInChunks explores m under cfg, expanding levels in chunks of the
// given number of states; an error fails t.
func exploreInChunks(t *testing.T, m model.Model, cfg *explore.Config, chunk int) *explore.Exploration {
	t.Helper()
	restore := explore.SetLevelChunk(chunk)
	defer restore()
	x, err := explore.Explore(context.Background(), m, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return x
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
					cfg := tc.cfg()
					cfg.Workers = workers
					x := exploreInChunks(t, tc.m, cfg, chunk)
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

// The explorer remembers an action's inputs from state to state; a model
// that fills the same domain slice with other values each time (or gives
// values of other kinds) still gets, and labels, the inputs of each state.
func TestInputMemoFollowsTheDomain(t *testing.T) {
	counter := func(reuse bool) model.Model {
		buf := make([]model.Value, 2)
		m, err := model.Native(&model.NativeModel[int]{
			Name: "counter", Vars: []string{"n"},
			Init:   func() int { return 0 },
			Encode: func(dst []byte, s int) []byte { return append(dst, byte(s)) },
			Decode: func(k []byte) (int, error) { return int(k[0]), nil },
			Actions: []model.NativeAction[int]{{Name: "Add", Params: []string{"x"},
				Domains: []func(int) []model.Value{func(n int) []model.Value {
					var d []model.Value
					if reuse {
						d = buf[:0]
					}
					if n%3 == 2 {
						return append(d, model.Tuple(model.Int(1)), model.Str("one")) // not scalars
					}
					return append(d, model.Int(n%2+1), model.Int(n%2+2))
				}},
				Step: func(n int, args []model.Value) (int, model.Value, bool, string) {
					x, ok := model.AsInt(args[0])
					if !ok {
						x = 1
					}
					return min(n+x, 12), nil, n < 12, "full"
				}},
				// Two parameters: remembered per combination of values;
				// its keys must not overwrite the ones remembered for Add.
				{Name: "Pair", Params: []string{"p", "q"},
					Domains: []func(int) []model.Value{
						func(int) []model.Value { return []model.Value{model.Str("p1"), model.Str("p2")} },
						func(int) []model.Value { return []model.Value{model.Str("q")} },
					},
					Step: func(n int, _ []model.Value) (int, model.Value, bool, string) {
						return n, nil, n == 0, "only at 0"
					}}},
		})
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	var labels [2]string
	for i, reuse := range []bool{false, true} {
		x, err := explore.Explore(context.Background(), counter(reuse), nil)
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		for _, tr := range x.Trans {
			fmt.Fprintf(&b, "%q-%s(%s)->%q\n", x.StateKey(int(tr.From)), x.Model.Info().Actions[tr.Action].Name, model.FormatArgs(x.ArgsOf(&tr)), x.StateKey(int(tr.To)))
		}
		labels[i] = b.String()
		seen := map[string]bool{}
		for _, args := range x.ArgTable {
			if k := model.FormatArgs(args); seen[k] {
				t.Errorf("inputs %s interned twice", k)
			} else {
				seen[k] = true
			}
		}
	}
	for _, tr := range strings.Split(strings.TrimSpace(labels[0]), "\n") {
		if strings.Contains(tr, "Add(") && strings.Contains(tr, `"p`) || strings.Contains(tr, "Pair(") && !strings.Contains(tr, `"q"`) {
			t.Errorf("an action has another's inputs: %s", tr)
		}
	}
	if labels[0] != labels[1] {
		t.Errorf("a reused domain slice gave\n%s\nfresh slices\n%s", labels[1], labels[0])
	}
	if !strings.Contains(labels[0], "Add((1,))") || !strings.Contains(labels[0], `Add("one")`) || !strings.Contains(labels[0], "Add(3)") {
		t.Errorf("inputs missing: %s", labels[0])
	}
}
