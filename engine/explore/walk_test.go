package explore_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/modex/modex/engine/explore"
	"github.com/modex/modex/engine/model"
)

// small is a model of a few hundred states with everything a walk must
// handle as breadth-first search does: inputs from domains, a choose()
// with two outcomes (one of them the same state twice), an observable
// action (passive twins), a filter and a state in which nothing is
// enabled.
const small = `
def init():
    return {"x": 0, "y": 0, "log": []}

def Add(s, n):
    require(s.x + n <= 6)
    s.x += n

def Flip(s):
    require(s.y < 3)
    s.y += choose([1, 1, 2])

def Tick(s):
    require(len(s.log) < 1)
    s.log.append(s.x)

def Stop(s):
    require(s.x == 6 and s.y >= 3)
    s.x, s.y = 7, 7

def state_filter(s):
    return s.x != 5 or s.y != 0

actions = [Add, Flip, Stop]
observables = [Tick]
domains = {Add: {"n": [1, 2]}}
`

func loadSrc(t testing.TB, name, src string) *model.StarModel {
	t.Helper()
	m, err := model.LoadStarlarkSource(name, []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// walks explores m by directed search with the default configuration
// changed by set.
func walks(t testing.TB, m model.Model, n, depth int, seed int64, set func(*explore.Config)) *explore.Exploration {
	t.Helper()
	cfg := explore.DefaultConfig(m)
	cfg.Search, cfg.Walks, cfg.WalkDepth, cfg.Seed = explore.SearchWalks, n, depth, seed
	if set != nil {
		set(cfg)
	}
	x, err := explore.Explore(context.Background(), m, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return x
}

// transKeys lists an exploration's transitions as (source key, label,
// target key).
func transKeys(x *explore.Exploration) map[string]bool {
	out := map[string]bool{}
	for i := range x.Trans {
		t := &x.Trans[i]
		out[x.StateKey(int(t.From))+" --"+x.TransLabel(t)+"-> "+x.StateKey(int(t.To))] = true
	}
	return out
}

// The same model, configuration and seed give the same exploration, on
// one worker or two; another seed, another one.
func TestWalksReproducibleBySeed(t *testing.T) {
	m := loadSrc(t, "small.star", small)
	one := func(workers int, seed int64) *explore.Exploration {
		return walks(t, m, 150, 8, seed, func(c *explore.Config) { c.Workers = workers })
	}
	a := one(1, 42)
	if !a.DirectedSearch() || a.Stats.Search != "walks" || a.Stats.Seed != 42 || a.Stats.Walks != 150 || a.Stats.WalkDepth != 8 {
		t.Fatalf("stats %+v", a.Stats)
	}
	for _, b := range []*explore.Exploration{one(1, 42), one(2, 42), one(2, 42)} {
		if fa, fb := fingerprint(a), fingerprint(b); fa != fb {
			t.Errorf("seed 42 again: %s, want %s", fb, fa)
		}
	}
	differ := 0
	for seed := int64(1); seed <= 5; seed++ {
		if fingerprint(one(2, seed)) != fingerprint(a) {
			differ++
		}
	}
	if differ < 4 {
		t.Errorf("only %d of 5 other seeds gave another exploration", differ)
	}
	// With a grouping, each walk sees what those before it kept: the same
	// on one worker as on two, and no two states in one group.
	group := func(workers int) *explore.Exploration {
		return walks(t, m, 100, 8, 9, func(c *explore.Config) {
			c.Workers = workers
			c.Groupings = []model.Expr{compile(t, m, "s.x + s.y")}
		})
	}
	g := group(1)
	if fingerprint(g) != fingerprint(group(2)) {
		t.Errorf("with a grouping: %s on one worker, %s on two", fingerprint(g), fingerprint(group(2)))
	}
	labels := map[string]bool{}
	for i := range g.States {
		if l := g.StateLabel(i); labels[l] {
			t.Errorf("two states in group %s", l)
		} else {
			labels[l] = true
		}
	}
	// A seed below 0 is drawn and told.
	if x := walks(t, m, 2, 3, -1, nil); x.Stats.Seed < 0 {
		t.Errorf("drawn seed %d", x.Stats.Seed)
	}
}

// What the walks visit is a subgraph of the breadth-first graph: every
// state and transition; a state is frontier exactly when it was not
// expanded or the breadth-first graph has more transitions out of it.
// Walks enough cover the whole graph: the exploration is then complete.
func TestWalksVisitASubgraph(t *testing.T) {
	m := loadSrc(t, "small.star", small)
	full := exploreOn(t, m, 2, nil)
	keys := map[string]int{}
	for i := range full.States {
		keys[full.StateKey(i)] = i
	}
	fullTrans := transKeys(full)
	fullOut := map[string]int{}
	for i := range full.Trans {
		fullOut[full.StateKey(int(full.Trans[i].From))]++
	}
	for _, n := range []int{1, 10, 3000} {
		x := walks(t, m, n, 12, 7, nil)
		out := map[string]int{}
		for k := range transKeys(x) {
			if !fullTrans[k] {
				t.Errorf("%d walks: transition %s not in the full graph", n, k)
			}
			out[strings.SplitN(k, " --", 2)[0]]++
		}
		frontier := 0
		for i, s := range x.States {
			k := x.StateKey(i)
			fi, ok := keys[k]
			if !ok {
				t.Errorf("%d walks: state %q not in the full graph", n, k)
				continue
			}
			want := !s.ModelErr && (!s.Expanded || out[k] < fullOut[k])
			if s.Frontier != want {
				t.Errorf("%d walks: state %q frontier %v, want %v (expanded %v, %d of %d transitions)", n, k, s.Frontier, want, s.Expanded, out[k], fullOut[k])
			}
			if s.Frontier {
				frontier++
			}
			if fs := full.States[fi]; s.Initial != fs.Initial || s.Accepting != fs.Accepting || s.Deadlock != fs.Deadlock || x.StateError(i) != full.StateError(fi) {
				t.Errorf("%d walks: state %q flags differ from the full graph's", n, k)
			}
		}
		// An expanded state has its passive twin (the timeout extension)
		// as in the full graph, whichever transitions the walks took.
		g, fg := x.Graph(), full.Graph()
		for i, s := range x.States {
			fi := keys[x.StateKey(i)]
			if s.Expanded && (g.Entry[i] != g.ActiveOf[i]) != (fg.Entry[fi] != fg.ActiveOf[fi]) {
				t.Errorf("%d walks: state %q has a passive twin: %v; in the full graph: %v", n, x.StateKey(i), g.Entry[i] != g.ActiveOf[i], fg.Entry[fi] != fg.ActiveOf[fi])
			}
		}
		if x.Stats.Frontier != frontier {
			t.Errorf("%d walks: Stats.Frontier %d, counted %d", n, x.Stats.Frontier, frontier)
		}
		if n == 3000 {
			if !x.Stats.Complete || len(x.States) != len(full.States) || len(x.Trans) != len(full.Trans) || x.SizeText() != full.SizeText() {
				t.Errorf("3000 walks: %s, %s; the full graph %s", x.SizeText(), x.Stats.Ending(), full.SizeText())
			}
		} else if x.Stats.Complete || x.Stats.Ending() != "partial: directed search" {
			t.Errorf("%d walks: %s", n, x.Stats.Ending())
		}
	}
}

// An action whose weight is 0 is never taken; one with a count is taken
// at most count times a walk; weights are the test weights' expressions.
func TestWalksFollowWeights(t *testing.T) {
	m := loadSrc(t, "w.star", `
def init():
    return {"a": 0, "b": 0, "c": 0}

def A(s):
    s.a += 1

def B(s):
    s.b += 1

def C(s):
    s.c += 1

actions = [A, B, C]
`)
	info := m.Info()
	x := walks(t, m, 30, 20, 3, func(c *explore.Config) {
		c.Actions[info.Action("A")].Weight = compile(t, m, "0 if s.a >= 0 else 1")
		c.Actions[info.Action("B")].Count = 2
		c.Actions[info.Action("C")].Weight = compile(t, m, "5")
	})
	w, _ := m.NewWorker()
	maxB, sumC := 0, 0
	for i := range x.States {
		vars, err := x.StateVars(w, i)
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range vars {
			n, _ := model.AsInt(v.Value)
			switch v.Name {
			case "a":
				if n != 0 {
					t.Errorf("state %s: A taken with weight 0", x.StateKey(i))
				}
			case "b":
				maxB = max(maxB, n)
			case "c":
				sumC += n
			}
		}
	}
	if maxB != 2 || sumC == 0 {
		t.Errorf("b at most %d (count 2), c summed %d", maxB, sumC)
	}
	// A walk whose actions all weigh 0 stops: its state is frontier.
	x = walks(t, m, 3, 20, 3, func(c *explore.Config) {
		for i := range c.Actions {
			c.Actions[i].Weight = compile(t, m, "0")
		}
	})
	if len(x.States) != 1 || !x.States[0].Frontier || !x.States[0].Expanded || x.States[0].Deadlock {
		t.Errorf("all weights 0: %d states, %+v", len(x.States), x.States[0])
	}
	// A weight that is not a number stops the search with its error.
	cfg := explore.DefaultConfig(m)
	cfg.Search, cfg.Seed = explore.SearchWalks, 1
	cfg.Actions[0].Weight = compile(t, m, `"heavy"`)
	if _, err := explore.Explore(context.Background(), m, cfg); err == nil || !strings.Contains(err.Error(), "must give a number") {
		t.Errorf("a weight \"heavy\": %v", err)
	}
}

// counters is a model of 10 counters from 0 to 9: 10^10 states, every one
// reachable. Its invariant fails once the counters add up to 40.
const counters = `
N = 10

def init():
    return {"c": [0] * N}

def Inc(s, i):
    require(s.c[i] < 9)
    s.c[i] += 1

def Dec(s, i):
    require(s.c[i] > 0)
    s.c[i] -= 1

def total(s):
    t = 0
    for x in s.c:
        t += x
    return t

def invariant(s):
    if total(s) >= 40:
        return "the counters add up to %d" % total(s)
    return True

actions = [Inc, Dec]
domains = {Inc: {"i": list(range(N))}, Dec: {"i": list(range(N))}}
`

// replay steps a model worker along a path of an exploration from its
// first state and returns the state reached; each step must reach the
// path's next state.
func replayWalk(t *testing.T, x *explore.Exploration, path []explore.MTrans) model.State {
	t.Helper()
	w, err := x.Model.NewWorker()
	if err != nil {
		t.Fatal(err)
	}
	if len(path) == 0 {
		t.Fatal("empty path")
	}
	if !x.States[path[0].From].Initial {
		t.Fatalf("the path starts in %s, not an initial state", x.StateKey(int(path[0].From)))
	}
	st, err := w.Decode(x.StateKey(int(path[0].From)))
	if err != nil {
		t.Fatal(err)
	}
	for i, tr := range path {
		if i > 0 && tr.From != path[i-1].To {
			t.Fatalf("step %d starts in state %d, not %d", i, tr.From, path[i-1].To)
		}
		outs, why, err := w.Step(st, int(tr.Action), x.ArgsOf(&tr))
		if err != nil || len(outs) == 0 {
			t.Fatalf("step %d %s: %v %s", i, x.TransLabel(&tr), err, why)
		}
		var next model.State
		for _, o := range outs {
			if o.Err == nil && o.Next.Key() == x.StateKey(int(tr.To)) {
				next = o.Next
			}
		}
		if next == nil {
			t.Fatalf("step %d %s does not reach %s", i, x.TransLabel(&tr), x.StateKey(int(tr.To)))
		}
		st = next
	}
	return st
}

// On a model of 10^10 states, which breadth-first search cannot
// enumerate, walks weighted towards Inc find the invariant violation, with
// the walk's steps to it: replayed by a model worker from the initial
// state, they reach the violating state.
func TestWalksFindViolationInHugeModel(t *testing.T) {
	m := loadSrc(t, "counters.star", counters)
	inc := m.Info().Action("Inc")
	x := walks(t, m, 4, 150, 2026, func(c *explore.Config) {
		c.Actions[inc].Weight = compile(t, m, "3")
		c.StopOnError = true
	})
	if x.Stats.ErrorStates == 0 {
		t.Fatalf("no violation found: %s, %+v", x.SizeText(), x.Stats)
	}
	var bad []int
	for i := range x.States {
		if x.StateError(i) != "" {
			bad = append(bad, i)
			if x.States[i].Expanded {
				t.Errorf("error state %s expanded with stop on error", x.StateKey(i))
			}
		}
	}
	walk, path, ok := x.WalkPath(bad[0])
	if !ok || walk < 1 || walk > 4 || len(path) < 40 || int(path[len(path)-1].To) != bad[0] {
		t.Fatalf("walk %d, path of %d steps, ok %v", walk, len(path), ok)
	}
	w, _ := m.NewWorker()
	if msg, err := w.Invariant(replayWalk(t, x, path)); err != nil || !strings.HasPrefix(msg, "the counters add up to 40") {
		t.Errorf("the replayed path ends in a state whose invariant says %q (%v)", msg, err)
	}
	// Breadth-first search with a bound of 10^5 states stops far from it.
	bfs := exploreOn(t, m, 2, func(c *explore.Config) { c.MaxStates = 100_000 })
	if bfs.Stats.ErrorStates != 0 || bfs.Stats.Complete {
		t.Errorf("breadth-first: %+v", bfs.Stats)
	}
}

// A walk ends in a deadlock, which is reported with the walk's steps;
// a model error ends a walk too, in an error state with its walk.
func TestWalksReportDeadlocksAndModelErrors(t *testing.T) {
	m := loadSrc(t, "dl.star", `
def init():
    return {"x": 0}

def Inc(s):
    require(s.x < 4)
    s.x += 1

def Boom(s):
    require(s.x == 2)
    fail("boom at %d" % s.x)

def accepting(s):
    return s.x == 0

actions = [Inc, Boom]
`)
	x := walks(t, m, 20, 10, 5, nil)
	dl := x.Deadlocks()
	if len(dl) != 1 || x.Stats.Deadlocks != 1 {
		t.Fatalf("deadlocks %v", dl)
	}
	walk, path, ok := x.WalkPath(dl[0])
	if !ok || walk < 1 || len(path) != 4 {
		t.Fatalf("deadlock: walk %d, %d steps, %v", walk, len(path), ok)
	}
	w, _ := m.NewWorker()
	if vars := w.Vars(replayWalk(t, x, path)); fmt.Sprint(vars[0].Value) != "4" {
		t.Errorf("the deadlock's path reaches %v", vars)
	}
	errs := 0
	for i, s := range x.States {
		if !s.ModelErr {
			continue
		}
		errs++
		if _, path, ok := x.WalkPath(i); !ok || len(path) != 3 || !strings.Contains(x.StateError(i), "boom at 2") {
			t.Errorf("model error %q: path %v", x.StateError(i), path)
		}
	}
	if errs != 1 {
		t.Errorf("%d model error states", errs)
	}
	if _, _, ok := x.WalkPath(0); ok {
		t.Error("a path to a state that is neither an error nor a deadlock")
	}
}

// A bound stops the walks, keeping what they found; so does a cancel.
func TestWalksStopAtBounds(t *testing.T) {
	m := loadSrc(t, "counters.star", counters)
	x := walks(t, m, 1000, 100, 1, func(c *explore.Config) { c.MaxStates = 300 })
	if x.Stats.StoppedBy != "max states" || len(x.States) != 300 || x.Stats.Complete || x.Stats.Walks > 5 {
		t.Errorf("max states: %d states, %d walks, %s", len(x.States), x.Stats.Walks, x.Stats.Ending())
	}
	ctx, cancel := context.WithCancel(context.Background())
	cfg := explore.DefaultConfig(m)
	cfg.Search, cfg.Walks, cfg.WalkDepth, cfg.Seed = explore.SearchWalks, 1_000_000, 100, 1
	cfg.ProgressEvery = 10_000_000 // 10 ms
	cfg.Progress = func(p explore.Progress) {
		if p.States > 500 {
			cancel()
		}
	}
	x, err := explore.Explore(ctx, m, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if x.Stats.StoppedBy != "cancelled" || len(x.States) < 500 || x.Stats.Walks >= 1_000_000 {
		t.Errorf("cancelled: %d states, %d walks, %s", len(x.States), x.Stats.Walks, x.Stats.Ending())
	}
}
