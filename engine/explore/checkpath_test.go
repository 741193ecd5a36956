package explore_test

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/modex/modex/engine/explore"
	"github.com/modex/modex/engine/model"
)

// violations is a model with a grid of states, an invariant violated in
// some, a step that fails in one, and a corner where nothing is enabled.
const violations = `
def init():
    return {"x": 0, "y": 0}

def IncX(s):
    require(s.x < 4)
    s.x += 1

def IncY(s, d):
    require(s.y + d <= 5)
    s.y += d
    return s.y

def Div(s):
    require(s.x == 2 and s.y == 5)
    s.x = 10 // (s.x - 2)

def invariant(s):
    if s.x == 3 and s.y >= 4:
        return "x is 3 and y at least 4"
    return True

actions = [IncX, IncY, Div]
domains = {IncY: {"d": [2, 1]}}
`

func loadSource(t *testing.T, name, src string) model.Model {
	t.Helper()
	m, err := model.LoadStarlarkSource(name, []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// replay steps the path from the model's initial state with a worker of
// its own and returns the last state, and the error of the last step when
// it failed.
func replay(t *testing.T, m model.Model, path []explore.GTrans) (model.Worker, model.State, error) {
	t.Helper()
	w, err := m.NewWorker()
	if err != nil {
		t.Fatal(err)
	}
	st, err := w.Init()
	if err != nil {
		t.Fatal(err)
	}
	info := m.Info()
	for i, step := range path {
		outs, why, err := w.Step(st, info.Action(step.Action), step.Args)
		if err != nil {
			t.Fatal(err)
		}
		if len(outs) != 1 {
			t.Fatalf("step %d, %s: %d outcomes (%s)", i, step.Label(), len(outs), why)
		}
		if outs[0].Err != nil {
			if i != len(path)-1 {
				t.Fatalf("step %d of %d failed: %v", i, len(path), outs[0].Err)
			}
			return w, st, outs[0].Err
		}
		if got, want := model.Format(outs[0].Output), model.Format(step.Output); step.Output != nil && got != want {
			t.Fatalf("step %d, %s: output %s", i, step.Label(), got)
		}
		st = outs[0].Next
	}
	return w, st, nil
}

// firstError is the least depth of an error state of an exploration, and
// the key of the first state at that depth with this error.
func firstError(x *explore.Exploration, msg string) (int, string) {
	depth, key := -1, ""
	for i := range x.States {
		s := &x.States[i]
		if strings.Contains(x.StateError(i), msg) && (depth < 0 || int(s.Depth) < depth) {
			depth, key = int(s.Depth), x.StateKey(i)
		}
	}
	return depth, key
}

// The way a check gives to an invariant violation, a model error and a
// deadlock replays, with a worker of the model's own, to the violating
// state (its invariant gives the message), the failing step and the
// deadlock (the state Explore marks), and is as short as the shortest:
// with the fingerprints in memory and on disk, one worker and two.
func TestCheckViolationPaths(t *testing.T) {
	m := loadSource(t, "violations.star", violations)
	cfgX := explore.DefaultConfig(m)
	cfgX.DropTransitions = true
	x, err := explore.Explore(context.Background(), m, cfgX)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, kind, msg string
		cfg             func(c *explore.Config)
	}{
		{"invariant", "invariant", "x is 3 and y at least 4", nil},
		// Not exploring past violations: the model error comes first.
		{"model error", "error", "division by zero", func(c *explore.Config) {
			c.Filters = []model.Expr{compile(t, m, "not (s.x == 3 and s.y >= 4)")}
		}},
		{"deadlock", "deadlock", "", func(c *explore.Config) {
			c.Filters = []model.Expr{compile(t, m, "not (s.x == 3 and s.y >= 4)")}
			c.Actions[m.Info().Action("Div")].Exclude = true
			c.Accepting = compile(t, m, "False") // else every state is accepting: none is a deadlock
		}},
	} {
		for _, workers := range []int{1, 2} {
			for _, opts := range []explore.CheckOptions{{}, tinyDisk} {
				cfg := explore.DefaultConfig(m)
				cfg.Workers = workers
				if tc.cfg != nil {
					tc.cfg(cfg)
				}
				r := runCheck(t, m, cfg, opts)
				v := r.Violation
				if v == nil || v.Kind != tc.kind || !strings.Contains(v.Message, tc.msg) {
					t.Fatalf("%s: violation %+v", tc.name, v)
				}
				w, st, stepErr := replay(t, m, v.Path)
				switch tc.kind {
				case "invariant":
					msg, _ := w.Invariant(st)
					depth, _ := firstError(x, tc.msg)
					if msg != v.Message || len(v.Path) != depth {
						t.Errorf("%s: the path of %d steps reaches a state whose invariant says %q; the nearest violation is at depth %d", tc.name, len(v.Path), msg, depth)
					}
				case "error":
					depth, _ := firstError(x, tc.msg)
					if stepErr == nil || !strings.Contains(stepErr.Error(), tc.msg) || len(v.Path) != depth {
						t.Errorf("%s: the path of %d steps ends with %v; the error state is at depth %d", tc.name, len(v.Path), stepErr, depth)
					}
				case "deadlock":
					cfgD := explore.DefaultConfig(m)
					tc.cfg(cfgD)
					xd, _ := explore.Explore(context.Background(), m, cfgD)
					dl := xd.Deadlocks()
					if len(dl) == 0 || st.Key() != xd.StateKey(dl[0]) || len(v.Path) != int(xd.States[dl[0]].Depth) {
						t.Errorf("%s: the path of %d steps reaches %v; Explore's deadlocks: %v", tc.name, len(v.Path), w.Vars(st), dl)
					}
				}
				if text := v.ViolationText(); !strings.Contains(text, tc.kind) && tc.kind != "error" || !strings.Contains(text, "\n    x = ") {
					t.Errorf("%s: %q", tc.name, text)
				}
			}
		}
	}
}

// A cancelled check stops soon, says so, and leaves no file; one past a
// bound stops at the level's end, incomplete; groupings are refused.
func TestCheckStops(t *testing.T) {
	m := loadSource(t, "counter.star", `
def init():
    return {"a": 0, "b": 0}

def A(s):
    s.a += 1

def B(s):
    require(s.b < 1000)
    s.b += 1

actions = [A, B]
`)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	dir := t.TempDir()
	r, err := explore.Check(ctx, m, nil, explore.CheckOptions{Dir: dir, ProgressEvery: 1, Progress: func(p explore.CheckProgress) {
		if p.States > 5000 {
			cancel()
		}
	}, MemoryBytes: 1 << 12})
	if err != nil {
		t.Fatal(err)
	}
	if r.Stats.Complete || r.Stats.StoppedBy != "cancelled" || r.Stats.States < 5000 {
		t.Errorf("cancelled: %s after %d states", r.Stats.Ending(), r.Stats.States)
	}
	if es, _ := os.ReadDir(dir); len(es) != 0 {
		t.Errorf("the cancelled check left %d files", len(es))
	}
	cfg := explore.DefaultConfig(m)
	cfg.MaxStates = 300
	r = runCheck(t, m, cfg, explore.CheckOptions{})
	if r.Stats.Complete || r.Stats.StoppedBy != "max states" || r.Stats.States < 300 || r.Stats.States > 330 {
		t.Errorf("max states 300: %s after %d states", r.Stats.Ending(), r.Stats.States)
	}
	cfg = explore.DefaultConfig(m)
	cfg.MaxDepth = 10
	r = runCheck(t, m, cfg, explore.CheckOptions{})
	if r.Stats.StoppedBy != "max depth" || r.Depth != 10 || r.Stats.States != 66 {
		t.Errorf("max depth 10: %s, depth %d, %d states", r.Stats.Ending(), r.Depth, r.Stats.States)
	}
	cfg = explore.DefaultConfig(m)
	cfg.Groupings = []model.Expr{compile(t, m, "s.a")}
	if _, err := explore.Check(context.Background(), m, cfg, explore.CheckOptions{Dir: t.TempDir()}); !errors.Is(err, explore.ErrCheckGroupings) {
		t.Errorf("groupings: %v", err)
	}
}
