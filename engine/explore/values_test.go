package explore_test

import (
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/modex/modex/engine/explore"
	"github.com/modex/modex/engine/model"
)

// choose() lists its collection once per step, not once per branch, and
// still hands each branch the element of its own run: choosing a list of
// the state and changing it changes that run's state only; a choice after
// another sees the collection the earlier choice led to; sets are chosen
// from in canonical order, duplicates once. (The same graph as listing the
// collection in every branch, checked against that implementation when
// the cache was added.)
func TestChooseBranchesSeeTheirOwnRun(t *testing.T) {
	m, err := model.LoadStarlarkSource("runs.star", []byte(`
def init():
    return {"qs": [[], [], []], "n": 0, "log": []}

def Put(s):
    require(s.n < 2)
    q = choose(s.qs)
    q.append(s.n)
    k = choose(range(len(q)))          # depends on the first choice
    v = choose(set(["b", "a", "b"]))
    s.n += 1
    s.log.append((k, v))
    return v

actions = [Put]
`))
	if err != nil {
		t.Fatal(err)
	}
	for _, workers := range []int{1, 2} {
		x := exploreOn(t, m, workers, nil)
		w, _ := m.NewWorker()
		var finals []string
		for i := range x.States {
			vars, err := x.StateVars(w, i)
			if err != nil {
				t.Fatal(err)
			}
			if s := fmt.Sprint(vars); strings.Contains(s, "n 2") || strings.Contains(s, "{n 2}") {
				finals = append(finals, s)
			}
		}
		sort.Strings(finals)
		// Equal queues are one choice (choose() drops duplicates): the
		// first put goes to the first queue, the second to it (k then 0
		// or 1) or to the first empty one (k 0), each with "a" or "b".
		if len(x.States) != 1+2+len(finals) || len(finals) != 12 {
			t.Errorf("%d workers: %d states, %d after two puts:\n%s", workers, len(x.States), len(finals), strings.Join(finals, "\n"))
		}
		for _, f := range finals {
			if strings.Count(f, "0") < 1 || strings.Count(f, "1") < 1 {
				t.Errorf("a final state lost a put: %s", f)
			}
		}
	}
}

// Values that contain themselves, or nest deeper than model.MaxValueDepth,
// are model errors naming where, in the state and in outputs, not a Go
// stack overflow; the exploration ends, with an error state.
func TestCyclicAndDeepValues(t *testing.T) {
	for name, src := range map[string]string{
		"list in itself": "def A(s):\n    s.xs.append(s.xs)\n",
		"dict in itself": "def A(s):\n    d = {}\n    d[1] = d\n    s.xs.append(d)\n",
		"cyclic output":  "def A(s):\n    l = []\n    l.append(l)\n    s.n = 1\n    return l\n",
		"too deep":       "def A(s):\n    x = []\n    for i in range(5000):\n        x = [x]\n    s.xs.append(x)\n",
	} {
		m, err := model.LoadStarlarkSource(name+".star", []byte("def init():\n    return {\"xs\": [], \"n\": 0}\n"+src+"actions = [A]\n"))
		if err != nil {
			t.Fatal(err)
		}
		for _, workers := range []int{1, 2} {
			x := exploreOn(t, m, workers, nil)
			found := ""
			for i := range x.States {
				if e := x.StateError(i); e != "" {
					found = e
				}
			}
			if !strings.Contains(found, "nests more than 1000 levels deep") || !strings.Contains(found, name+".star:") || len(found) > 400 {
				t.Errorf("%s, %d workers: %q", name, workers, found)
			}
		}
	}
}

// One huge allocation that is garbage before the next poll of the memory
// watcher still makes the exploration incomplete: it never reports
// "complete" after passing its budget.
func TestMemoryBudgetBurstNotComplete(t *testing.T) {
	m, err := model.LoadStarlarkSource("burst.star", []byte(`
def init():
    return {"n": 0}

def Once(s):
    require(s.n == 0)
    x = len([0] * 20000000)   # 320 MB, garbage at once
    s.n = 1

actions = [Once]
`))
	if err != nil {
		t.Fatal(err)
	}
	x := exploreOn(t, m, 1, func(c *explore.Config) { c.MemoryBudget = 64 << 20 })
	if x.Stats.Complete || !strings.Contains(x.Stats.StoppedBy, "memory budget (64 MiB)") {
		t.Errorf("complete %v, stopped by %q", x.Stats.Complete, x.Stats.StoppedBy)
	}
}

// A runtime error in a project expression is reported where the
// expression stands in the project file (line and column of the failing
// operation), in the message and in its traceback.
func TestExpressionRuntimeErrorPosition(t *testing.T) {
	m, err := model.LoadStarlarkSource("m.star", []byte("def init():\n    return {\"n\": 0}\ndef A(s):\n    s.n = 1\nactions = [A]\n"))
	if err != nil {
		t.Fatal(err)
	}
	e, err := m.Compile("s.n < 1/0", model.Pos{File: "p.toml", Line: 7, Col: 13})
	if err != nil {
		t.Fatal(err)
	}
	x := exploreOn(t, m, 1, func(c *explore.Config) { c.Filters = []model.Expr{e} })
	found := ""
	for i := range x.States {
		if msg := x.StateError(i); msg != "" {
			found = msg
		}
	}
	if !strings.HasPrefix(found, "p.toml:7:20: expression `s.n < 1/0`: floating-point division by zero") || !strings.Contains(found, "p.toml:7:20: in lambda") {
		t.Errorf("%q", found)
	}
}

// A live, partial graph (a snapshot while exploring) does not call the
// states it has not expanded yet terminal; the finished graph calls
// terminal only the states nothing leaves.
func TestPartialGraphHasNoFalseTerminals(t *testing.T) {
	m, err := model.LoadStarlarkSource("line.star", []byte("def init():\n    return {\"n\": 0}\ndef Inc(s):\n    require(s.n < 5)\n    s.n += 1\nactions = [Inc]\n"))
	if err != nil {
		t.Fatal(err)
	}
	var snaps []*explore.Exploration
	x := exploreOn(t, m, 1, func(c *explore.Config) {
		c.SnapshotEvery = time.Nanosecond
		c.Snapshot = func(x *explore.Exploration) { snaps = append(snaps, x) }
	})
	checked := 0
	for _, sx := range snaps {
		g := sx.Graph()
		for _, s := range g.States {
			if !sx.States[s.Model].Expanded && s.Kind == explore.Terminal {
				t.Fatalf("an unexpanded state of a partial graph is terminal: %+v", s)
			}
			checked++
		}
	}
	terminals := 0
	for _, s := range x.Graph().States {
		if s.Kind == explore.Terminal {
			terminals++
		}
	}
	if checked == 0 || terminals != 1 {
		t.Errorf("%d snapshot states checked, %d terminal states at the end (want 1)", checked, terminals)
	}
}

// Labels and errors, kept beside the states (most states have neither),
// read the same in every snapshot as at the end, and a snapshot's do not
// change as the search goes on: with groupings (every state labelled),
// with an invariant broken in one state and an action failing in another
// (an error state), on one worker and on two. (The one note that changes
// after its state is added, an expansion's error when a stored key does
// not decode, is not reached here; snapshots copy the notes for it.)
func TestSnapshotsKeepLabelsAndErrors(t *testing.T) {
	m, err := model.LoadStarlarkSource("notes.star", []byte(`
def init():
    return {"n": 0}

def Inc(s):
    require(s.n < 6)
    s.n += 1

def Boom(s):
    require(s.n == 4)
    s.n = 1 // 0

def invariant(s):
    if s.n == 2:
        return "two is broken"
    return True

actions = [Inc, Boom]
`))
	if err != nil {
		t.Fatal(err)
	}
	g, err := m.Compile("s.n", model.Pos{File: "p.toml", Line: 1, Col: 1})
	if err != nil {
		t.Fatal(err)
	}
	notes := func(x *explore.Exploration) []string {
		var out []string
		for i := range x.States {
			out = append(out, x.StateLabel(i)+" | "+x.StateError(i))
		}
		return out
	}
	for _, workers := range []int{1, 2} {
		var snaps []*explore.Exploration
		var seen [][]string // each snapshot's notes when it was taken
		x := exploreOn(t, m, workers, func(c *explore.Config) {
			c.StopOnError = false
			c.Groupings = []model.Expr{g}
			c.SnapshotEvery = time.Nanosecond
			c.Snapshot = func(x *explore.Exploration) {
				snaps = append(snaps, x)
				seen = append(seen, notes(x))
			}
		})
		end := notes(x)
		want := []string{"0 | ", "1 | ", "2 | two is broken", "3 | ", "4 | ", "5 | "} // then the error state, then 6
		if len(end) != 8 || !strings.HasPrefix(end[6], "error | notes.star:") || !strings.Contains(end[6], "division by zero") {
			t.Fatalf("%d workers: %q", workers, end)
		}
		for i, w := range want {
			if end[i] != w {
				t.Errorf("%d workers: S%d is %q, want %q", workers, i, end[i], w)
			}
		}
		if len(snaps) < 2 {
			t.Fatalf("%d workers: %d snapshots", workers, len(snaps))
		}
		for k, sx := range snaps {
			now := notes(sx)
			if fmt.Sprint(now) != fmt.Sprint(seen[k]) {
				t.Errorf("%d workers: snapshot %d changed after it was taken:\n%q\n%q", workers, k, seen[k], now)
			}
			for i := range now {
				if now[i] != end[i] {
					t.Errorf("%d workers: snapshot %d, S%d: %q, at the end %q", workers, k, i, now[i], end[i])
				}
			}
		}
	}
}
