package explore_test

import (
	"context"
	"fmt"
	"os"
	"reflect"
	"testing"

	"github.com/modex/modex/engine/explore"
	"github.com/modex/modex/engine/model"
)

// An exploration that counts its transitions without keeping them
// (Config.DropTransitions, modex explore's summary) finds the states, the
// counts, the deadlocks, the errors and the passive twins one that keeps
// them finds; and the way PredecessorPath gives to every state is made of
// the kept exploration's transitions, from an initial state, as long as the
// state's depth (a shortest way). With one worker and with two, with
// choose() giving the same outcome twice (counted once), observable and
// internal actions (twins), error states, deadlocks, and bounds stopping
// the search.
func TestDropTransitionsSameSummary(t *testing.T) {
	const dead = `
def init():
    return {"n": 0, "m": 0}

def Up(s):
    require(s.n < 4)
    k = choose([1, 2, 3])
    s.n = min(s.n + (1 if k == 3 else k), 4)   # 1 and 3 give one transition, apart

def Reset(s):
    require(s.n == 4 and s.m == 2)
    s.n, s.m = 0, 0                       # back to the initial state

def Side(s, k):
    require(s.m < 2 and s.n != 3)
    s.m += k

def Fail(s):
    require(s.n == 2 and s.m == 1)
    s.n = {}["x"]

actions = [Up, Side, Fail, Reset]
domains = {Side: {"k": [1, 2]}}
`
	star := func(name, src string) func() (model.Model, *explore.Config) {
		return func() (model.Model, *explore.Config) {
			m, err := model.LoadStarlarkSource(name, []byte(src))
			if err != nil {
				t.Fatal(err)
			}
			return m, explore.DefaultConfig(m)
		}
	}
	file := func(path string) func() (model.Model, *explore.Config) {
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return star(path, string(src))
	}
	sample := func(name, config string) func() (model.Model, *explore.Config) {
		return func() (model.Model, *explore.Config) { return loadSample(t, name, config) }
	}
	bounded := func(load func() (model.Model, *explore.Config), states, trans int) func() (model.Model, *explore.Config) {
		return func() (model.Model, *explore.Config) {
			m, cfg := load()
			cfg.MaxStates, cfg.MaxTransitions = states, trans
			return m, cfg
		}
	}
	cases := []struct {
		name string
		load func() (model.Model, *explore.Config)
	}{
		{"deadlocks, errors, choose() giving one state twice", star("dead.star", dead)},
		{"choose, internal actions, invariant", file("testdata/choose.star")},
		{"chat (observables: passive twins)", sample("chat", "")},
		{"webshop more_items (groupings, filters)", sample("webshop", "more_items")},
		{"kv", sample("kv", "")},
		{"chat, max transitions", bounded(sample("chat", ""), 0, 7)},
		{"webshop, max states", bounded(sample("webshop", "more_items"), 40, 0)},
	}
	for _, c := range cases {
		for _, workers := range []int{1, 2} {
			t.Run(fmt.Sprintf("%s/%d workers", c.name, workers), func(t *testing.T) {
				explored := func(drop bool) *explore.Exploration {
					m, cfg := c.load()
					cfg.Workers, cfg.DropTransitions = workers, drop
					x, err := explore.Explore(context.Background(), m, cfg)
					if err != nil {
						t.Fatal(err)
					}
					x.Stats.Seconds = 0
					return x
				}
				kept, counted := explored(false), explored(true)
				if kept.TransitionsDropped() || !counted.TransitionsDropped() {
					t.Fatalf("TransitionsDropped: kept %v, counted %v", kept.TransitionsDropped(), counted.TransitionsDropped())
				}
				if n := explore.DroppedTail(counted); len(counted.Trans) != 0 || n > 4 {
					t.Errorf("%d transitions kept, %d held for duplicates", len(counted.Trans), n)
				}
				if kept.Stats != counted.Stats {
					t.Errorf("stats:\n kept    %+v\n counted %+v", kept.Stats, counted.Stats)
				}
				if kept.Stats.Transitions != len(kept.Trans) || kept.Stats.Transitions == 0 {
					t.Errorf("%d transitions counted, %d kept", kept.Stats.Transitions, len(kept.Trans))
				}
				if a, b := kept.SizeText(), counted.SizeText(); a != b {
					t.Errorf("size: kept %q, counted %q", a, b)
				}
				if fingerprint(kept) == fingerprint(counted) {
					t.Error("the fingerprints agree: the transitions were kept")
				}
				if !reflect.DeepEqual(kept.Deadlocks(), counted.Deadlocks()) {
					t.Errorf("deadlocks: kept %v, counted %v", kept.Deadlocks(), counted.Deadlocks())
				}
				ways := map[explore.MTrans]bool{}
				for _, tr := range kept.Trans {
					ways[tr] = true
				}
				if len(ways) != len(kept.Trans) {
					t.Errorf("%d transitions, %d of them distinct: an outcome given twice was added twice", len(kept.Trans), len(ways))
				}
				for i := range kept.States {
					ks, cs := kept.States[i], counted.States[i]
					if kept.StateKey(i) != counted.StateKey(i) || ks != cs || kept.StateError(i) != counted.StateError(i) || kept.StateLabel(i) != counted.StateLabel(i) {
						t.Fatalf("state %d: kept %+v %q, counted %+v %q", i, ks, kept.StateKey(i), cs, counted.StateKey(i))
					}
					for _, passive := range []bool{false, true} {
						if i > 50 && i%97 != 0 {
							break // GraphID counts from the start
						}
						if a, b := kept.GraphID(i, passive), counted.GraphID(i, passive); a != b {
							t.Fatalf("state %d (passive %v): graph id kept %s, counted %s", i, passive, a, b)
						}
					}
					path := counted.PredecessorPath(i)
					if len(path) == 0 && ks.Frontier && kept.Stats.StoppedBy == "max transitions" {
						continue // added, then its transition refused by the bound
					}
					if len(path) != int(ks.Depth) {
						t.Fatalf("state %d at depth %d: a way of %d transitions", i, ks.Depth, len(path))
					}
					if ks.Initial {
						continue
					}
					if !kept.States[path[0].From].Initial || int(path[len(path)-1].To) != i {
						t.Fatalf("state %d: the way %v does not lead from an initial state to it", i, path)
					}
					for j, tr := range path {
						if !ways[tr] || (j > 0 && tr.From != path[j-1].To) {
							t.Fatalf("state %d: step %d of %v is not a transition of the graph", i, j, path)
						}
						if kept.TransLabel(&tr) == "" {
							t.Fatalf("state %d: step %d of %v has no label", i, j, path)
						}
					}
				}
				if kept.PredecessorPath(len(kept.States)-1) != nil {
					t.Error("a way given by an exploration that kept its transitions")
				}
			})
		}
	}
}

// Graph, made from GraphStream, builds the graph the one-function builder
// it replaced built (explore.ReferenceGraph): passive twins kept, empty ones
// kept or not, the timeout extension forced on and off, initial states with
// observable actions, bounds leaving frontier states, error states,
// deadlocks, transitions dropped, and a minimised exploration's counts.
func TestGraphStreamSameGraph(t *testing.T) {
	type variant struct {
		name string
		edit func(*explore.Config)
	}
	variants := []variant{
		{"default", func(*explore.Config) {}},
		{"timeouts off", func(c *explore.Config) { c.Timeouts = explore.TimeoutOff }},
		{"timeouts on, empty passive kept", func(c *explore.Config) { c.Timeouts, c.KeepEmptyPassive = explore.TimeoutOn, true }},
		{"max states 9", func(c *explore.Config) { c.MaxStates = 9 }},
		{"transitions dropped", func(c *explore.Config) { c.DropTransitions = true }},
	}
	loads := map[string]func() (model.Model, *explore.Config){
		"chat":       func() (model.Model, *explore.Config) { return loadSample(t, "chat", "") },
		"conference": func() (model.Model, *explore.Config) { return loadSample(t, "conference", "agents-1") },
		"kv":         func() (model.Model, *explore.Config) { return loadSample(t, "kv", "") },
		"choose": func() (model.Model, *explore.Config) {
			m, err := model.LoadStarlark("testdata/choose.star")
			if err != nil {
				t.Fatal(err)
			}
			return m, explore.DefaultConfig(m)
		},
		"observable first": func() (model.Model, *explore.Config) {
			m, err := model.LoadStarlarkSource("obs.star", []byte(`
def init():
    return [{"n": 0, "up": True}, {"n": 2, "up": False}]

def Step(s):
    require(s.up and s.n < 3)
    s.n += 1

def Tick(s):
    require(s.n > 0)
    s.n -= 1
    s.up = s.n == 0

def Stuck(s):
    require(s.n == 3)
    s.n = {}["x"]

actions = [Step, Stuck]
observables = [Tick]
`))
			if err != nil {
				t.Fatal(err)
			}
			return m, explore.DefaultConfig(m)
		},
	}
	for name, load := range loads {
		for _, v := range variants {
			m, cfg := load()
			v.edit(cfg)
			x, err := explore.Explore(context.Background(), m, cfg)
			if err != nil {
				t.Fatal(err)
			}
			for _, y := range []*explore.Exploration{x, minimized(x)} {
				if got, want := y.Graph(), explore.ReferenceGraph(y); !reflect.DeepEqual(got, want) {
					t.Errorf("%s, %s (minimised %v): the graphs differ:\n got  %+v\n want %+v", name, v.name, y.Merged != nil, got, want)
				}
			}
		}
	}
}

func minimized(x *explore.Exploration) *explore.Exploration {
	y, _ := x.Minimize()
	return y
}
