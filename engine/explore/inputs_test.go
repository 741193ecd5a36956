package explore_test

import (
	"fmt"
	"strconv"
	"testing"

	"github.com/modex/modex/engine/explore"
	"github.com/modex/modex/engine/model"
)

// atoi reads a formatted integer; anything else fails t.
func atoi(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatalf("not an integer: %q", s)
	}
	return n
}

// Inputs tried in vain in many states (disabled, or never enabled, as
// LamportMutex's p == q) and enabled only in later states are interned
// once, when first enabled, and every transition carries the inputs its
// step took: on one worker, on two, and with chunks of a few states (the
// argument table grows between the tries of a combination).
func TestInputsEnabledLateAreInternedOnce(t *testing.T) {
	m, err := model.LoadStarlarkSource("late.star", []byte(`
def init():
    # twenty initial states: levels large enough for two workers to share
    return [{"n": 0, "t": 0, "k": k} for k in range(20)]

def Move(s, i, j):
    require(i != j and s.n == i and s.t < 6)
    s.n = j
    s.t += 1

def Tick(s):
    require(s.t < 6)
    s.t += 1

actions = [Move, Tick]
domains = {Move: {"i": [0, 1, 2, 3], "j": [0, 1, 2, 3]}}
`))
	if err != nil {
		t.Fatal(err)
	}
	w, err := m.NewWorker()
	if err != nil {
		t.Fatal(err)
	}
	n := func(x *explore.Exploration, st int32) int {
		vars, err := x.StateVars(w, int(st))
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range vars {
			if v.Name == "n" {
				return atoi(t, model.Format(v.Value))
			}
		}
		t.Fatalf("no n in %v", vars)
		return 0
	}
	var want string
	for _, workers := range []int{1, 2} {
		for _, chunk := range []int{1, 3, 4096} {
			x := exploreInChunks(t, m, func() *explore.Config {
				c := explore.DefaultConfig(m)
				c.Workers = workers
				return c
			}(), chunk)
			seen := map[string]bool{}
			for _, args := range x.ArgTable {
				k := fmt.Sprint(args)
				if seen[k] {
					t.Errorf("%d workers, chunks of %d: inputs %s interned twice", workers, chunk, k)
				}
				seen[k] = true
			}
			moves := 0
			for i := range x.Trans {
				tr := &x.Trans[i]
				if m.Info().Actions[tr.Action].Name != "Move" {
					continue
				}
				moves++
				args := x.ArgsOf(tr)
				if len(args) != 2 {
					t.Fatalf("Move with inputs %v", args)
				}
				i0, j0 := atoi(t, model.Format(args[0])), atoi(t, model.Format(args[1]))
				if i0 == j0 || n(x, tr.From) != i0 || n(x, tr.To) != j0 {
					t.Errorf("%d workers, chunks of %d: Move%v from n=%d to n=%d", workers, chunk, args, n(x, tr.From), n(x, tr.To))
				}
			}
			// Every (i, j) with i != j is enabled somewhere: 12 inputs, no more.
			if len(x.ArgTable) != 12+1 || moves == 0 {
				t.Errorf("%d workers, chunks of %d: %d inputs interned, %d moves", workers, chunk, len(x.ArgTable), moves)
			}
			got := fingerprint(x)
			if want == "" {
				want = got
			} else if got != want {
				t.Errorf("%d workers, chunks of %d: %s, want %s", workers, chunk, got, want)
			}
		}
	}
}
