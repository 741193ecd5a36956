package explore_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"testing"

	"github.com/modex/modex/engine/explore"
	"github.com/modex/modex/engine/model"
	"github.com/modex/modex/projects"
)

// Minimize on models whose minimal graphs are known: a variable that never
// influences behaviour doubles the states and the minimised graph halves
// them; marks (accepting, invariant violations) and outputs keep states
// apart; a graph already minimal stays as it is.
func TestMinimize(t *testing.T) {
	cases := []struct {
		name                   string
		src                    string
		states, trans          int // explored
		minStates, minTrans    int // minimised
		initialClass, sameAsS0 int // a state and whether it merged with S0 (1) or not (0)
	}{
		{"irrelevant flag doubles the states", `
def init():
    return {"n": 0, "log": 0}
def Inc(s):
    require(s.n < 3)
    s.n += 1
def Flip(s):
    s.log = 1 - s.log
actions = [Inc, Flip]
`, 8, 14, 4, 7, 2, 1},
		{"the flag read by accepting keeps them apart", `
def init():
    return {"n": 0, "log": 0}
def Inc(s):
    require(s.n < 3)
    s.n += 1
def Flip(s):
    s.log = 1 - s.log
def accepting(s):
    return s.log == 0
actions = [Inc, Flip]
`, 8, 14, 8, 14, 2, 0},
		{"a counter modulo 4 seen through a parity output", `
def init():
    return {"n": 0}
def Step(s):
    s.n = (s.n + 1) % 4
    return s.n % 2
actions = [Step]
`, 4, 4, 2, 2, 2, 1},
		{"an invariant violation is a mark", `
def init():
    return {"n": 0}
def Step(s):
    require(s.n < 2)
    s.n += 1
def Reset(s):
    s.n = 0
def invariant(s):
    return s.n < 2 or "n reached 2"
actions = [Step, Reset]
`, 3, 5, 3, 5, 1, 0},
		{"a ring of equal states folds to one", `
def init():
    return {"n": 0}
def Step(s):
    s.n = (s.n + 1) % 5
actions = [Step]
`, 5, 5, 1, 1, 3, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "m.star")
			if err := os.WriteFile(path, []byte(c.src), 0o644); err != nil {
				t.Fatal(err)
			}
			m := mustLoad(t, path)
			cfg := explore.DefaultConfig(m)
			cfg.NoDeadlockCheck = true
			x, err := explore.Explore(context.Background(), m, cfg)
			if err != nil {
				t.Fatal(err)
			}
			if len(x.States) != c.states || len(x.Trans) != c.trans {
				t.Fatalf("explored %d states %d transitions, want %d and %d", len(x.States), len(x.Trans), c.states, c.trans)
			}
			y, class := x.Minimize()
			if len(y.States) != c.minStates || len(y.Trans) != c.minTrans {
				t.Errorf("minimised to %d states %d transitions, want %d and %d", len(y.States), len(y.Trans), c.minStates, c.minTrans)
			}
			if got := class[c.initialClass] == class[0]; got != (c.sameAsS0 == 1) {
				t.Errorf("state %d with state 0: merged %v, want %v", c.initialClass, got, c.sameAsS0 == 1)
			}
			if y.Stats.States != len(y.States) || y.Stats.ModelStates != len(y.States) || !y.States[0].Initial {
				t.Errorf("stats %+v, first class initial %v", y.Stats, y.States[0].Initial)
			}
			checkBisimulation(t, x, y, class)
			total := 0
			for c, n := range y.Merged {
				total += n
				if g := y.Graph(); g.States[g.ActiveOf[c]].Count != n {
					t.Errorf("class %d: graph count %d, merged %d", c, g.States[g.ActiveOf[c]].Count, n)
				}
			}
			if total != len(x.States) {
				t.Errorf("classes hold %d states in all, want %d", total, len(x.States))
			}
			// Minimal: minimising again changes nothing.
			if z, _ := y.Minimize(); len(z.States) != len(y.States) || len(z.Trans) != len(y.Trans) {
				t.Errorf("minimising again: %d states %d transitions", len(z.States), len(z.Trans))
			}
		})
	}
}

// checkBisimulation checks that each state's transitions, mapped to
// classes, are exactly its class's, and that merged states agree on their
// marks.
func checkBisimulation(t *testing.T, x, y *explore.Exploration, class []int) {
	t.Helper()
	type edge struct {
		action, to int
		label      string
	}
	edges := func(e *explore.Exploration, tr []explore.MTrans, from int, to func(int) int) map[edge]bool {
		out := map[edge]bool{}
		for i := range tr {
			if int(tr[i].From) == from {
				label := model.FormatArgs(e.ArgsOf(&tr[i])) + "/" + model.Format(e.OutputOf(&tr[i]))
				out[edge{int(tr[i].Action), to(int(tr[i].To)), label}] = true
			}
		}
		return out
	}
	for i := range x.States {
		c := class[i]
		mine := edges(x, x.Trans, i, func(j int) int { return class[j] })
		theirs := edges(y, y.Trans, c, func(j int) int { return j })
		if len(mine) != len(theirs) {
			t.Fatalf("state %d: %d distinct moves, its class %d has %d", i, len(mine), c, len(theirs))
		}
		for e := range mine {
			if !theirs[e] {
				t.Fatalf("state %d: move %+v not in class %d", i, e, c)
			}
		}
		if x.States[i].Accepting != y.States[c].Accepting || x.StateError(i) != y.StateError(c) {
			t.Fatalf("state %d and its class %d differ in marks", i, c)
		}
	}
}

// naiveClasses is the plain round-by-round refinement: each round splits
// every class by its states' (action, inputs, output, target class) sets,
// until no class splits.
func naiveClasses(x *explore.Exploration) []int {
	n := len(x.States)
	class := make([]int, n)
	marks := map[string]int{}
	for i := range x.States {
		s := &x.States[i]
		k := fmt.Sprint(s.Accepting, s.Frontier, s.ModelErr, s.Deadlock, x.StateError(i))
		if _, ok := marks[k]; !ok {
			marks[k] = len(marks)
		}
		class[i] = marks[k]
	}
	count := len(marks)
	for {
		moves := make([][]string, n)
		for _, t := range x.Trans {
			moves[t.From] = append(moves[t.From], fmt.Sprint(t.Action, t.Args, t.Out, class[t.To]))
		}
		index := map[string]int{}
		next := make([]int, n)
		for i := range next {
			sort.Strings(moves[i])
			k := fmt.Sprint(class[i], slices.Compact(moves[i]))
			if _, ok := index[k]; !ok {
				index[k] = len(index)
			}
			next[i] = index[k]
		}
		class = next
		if len(index) == count {
			return class
		}
		count = len(index)
	}
}

// Minimize gives the same partition as the plain refinement on the bundled
// samples and on a graph where a long chain tells states apart one step at
// a time (CoffeeCan: the case the incremental refinement is for).
func TestMinimizeMatchesNaive(t *testing.T) {
	for _, c := range [][2]string{{"webshop", "more_items"}, {"threadpool", "small"}, {"bag", "two_threads"}, {"conference", "agents-6"}, {"chat", "hi_bye"}, {"stack", "all"}} {
		m, cfg := loadSample(t, c[0], c[1])
		x, err := explore.Explore(context.Background(), m, cfg)
		if err != nil {
			t.Fatal(err)
		}
		y, class := x.Minimize()
		naive := naiveClasses(x)
		for i := range class {
			for j := range class {
				if (class[i] == class[j]) != (naive[i] == naive[j]) {
					t.Fatalf("%s [%s]: states %d and %d: merged %v, the plain refinement says %v", c[0], c[1], i, j, class[i] == class[j], naive[i] == naive[j])
				}
			}
			if i > 300 {
				break // the pairs of the first 300 states, then counts
			}
		}
		if got, want := len(y.States), slices.Max(naive)+1; got != want {
			t.Errorf("%s [%s]: %d classes, the plain refinement %d", c[0], c[1], got, want)
		}
		checkBisimulation(t, x, y, class)
	}
	p, err := projects.Load("testdata/tla/coffeecan.toml")
	if err != nil {
		t.Fatal(err)
	}
	m, err := p.LoadModel() // 100 beans: 5,150 states
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := p.Build(m, "coffee100")
	if err != nil {
		t.Fatal(err)
	}
	x, err := explore.Explore(context.Background(), m, cfg)
	if err != nil {
		t.Fatal(err)
	}
	y, class := x.Minimize()
	if naive := naiveClasses(x); len(y.States) != slices.Max(naive)+1 {
		t.Errorf("CoffeeCan: %d classes, the plain refinement %d", len(y.States), slices.Max(naive)+1)
	}
	checkBisimulation(t, x, y, class)
}
