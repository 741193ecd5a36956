package explore_test

import (
	"context"
	"errors"
	"runtime"
	"runtime/metrics"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modex/modex/engine/explore"
	"github.com/modex/modex/engine/model"
)

// hostileOutcome names how a load or an exploration of hostile code ended:
// memory (its budget), steps (the step budget), time (max_seconds, or the
// load's deadline), cancelled, or what else it said.
func hostileOutcome(err error, x *explore.Exploration) string {
	word := func(msg string) string {
		switch {
		case strings.Contains(msg, "memory budget"):
			return "memory"
		case strings.Contains(msg, "execution-step budget"):
			return "steps"
		case msg == "max time":
			return "time"
		case strings.Contains(msg, "cancelled"):
			return "cancelled"
		}
		return "other: " + msg
	}
	switch {
	case errors.Is(err, model.ErrMemoryBudget):
		return "memory"
	case errors.Is(err, context.DeadlineExceeded):
		return "time"
	case errors.Is(err, context.Canceled):
		return "cancelled"
	case err != nil:
		return word(err.Error())
	case x.Stats.StoppedBy != "":
		return word(x.Stats.StoppedBy)
	}
	for i := range x.States {
		if msg := x.StateError(i); msg != "" {
			return word(msg)
		}
	}
	return "complete"
}

// hostileBudget is the memory budget of the hostile runs.
const hostileBudget = 256 << 20

// allocated is the bytes the process has allocated so far.
func allocated() uint64 {
	s := []metrics.Sample{{Name: "/gc/heap/allocs:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// runHostile loads testdata/hostile/budget.star with its WHAT, WHERE and
// FORM and explores it, under a memory budget, a small step budget, one
// second of max time (slow) or a cancellation after 200 ms (cancel), and
// returns how it ended. A slow run that is not stopped takes half an
// hour: the test's own timeout fails it. Memory: a compiled run must not
// have allocated more than four budgets' worth (sized allocations are
// refused before they are made; unstopped, the list doubles to 4 GiB).
func runHostile(t *testing.T, what, where, form string) string {
	t.Helper()
	runtime.GC() // the last case's garbage would count against this one's budget
	if what == "memory" && form == "compiled" {
		before := allocated()
		defer func() {
			if n := allocated() - before; n > 4*hostileBudget {
				t.Errorf("the compiled run allocated %d MiB under a budget of %d MiB", n>>20, hostileBudget>>20)
			}
		}()
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	code := what
	switch what {
	case "seconds":
		code = "slow"
		if where == "init" { // max_seconds bounds the load too (projects.LoadModelContext)
			var c2 context.CancelFunc
			ctx, c2 = context.WithTimeout(ctx, time.Second)
			defer c2()
		}
	case "cancel":
		code = "slow"
		time.AfterFunc(200*time.Millisecond, cancel)
	}
	consts := map[string]model.Value{"WHAT": model.Str(code), "WHERE": model.Str(where), "FORM": model.Str(form)}
	m, err := model.LoadStarlarkOptions("testdata/hostile/budget.star", nil, model.LoadOptions{Constants: consts, Context: ctx, MemoryBudget: hostileBudget, Workers: 1})
	if err != nil {
		return hostileOutcome(err, nil)
	}
	// The differential test means something only if the compiled form is
	// compiled and the interpreted one is not.
	part := map[string]string{"filter": "state_filter", "action": "Inc body", "init": "init", "invariant": "invariant", "domain": "state_filter"}[where]
	if compiled := slices.Contains(m.Compiled(), part); compiled != (form == "compiled") && where != "none" {
		t.Fatalf("%s form: %s compiled is %v (compiled: %v)", form, part, compiled, m.Compiled())
	}
	cfg := explore.DefaultConfig(m)
	cfg.MemoryBudget, cfg.StepBudget, cfg.Workers = hostileBudget, 100_000, 1
	// A project's domain expression (compiled when it can be; the model's
	// own domain functions always run in the interpreter).
	cfg.Actions[0].Domains = []model.Expr{compile(t, m, `[1 + hostile("domain") * 0]`)}
	if what == "seconds" {
		cfg.MaxTime = time.Second
	}
	x, err := explore.Explore(ctx, m, cfg)
	return hostileOutcome(err, x)
}

// Model code is stopped by the same budgets whether Modex compiles it or
// the interpreter runs it: memory, steps, max_seconds and cancellation, in
// a filter, an action, init(), an invariant and a domain
// (docs/model-language.md has the table). Compiled code once ran past all
// of them: a list doubled forty times reached 23 GB under a 600 MiB budget.
// init()'s step budget is 10^9 steps (minutes): that case is left out.
func TestHostileBudgets(t *testing.T) {
	if testing.Short() {
		t.Skip("hostile runs take a few seconds each")
	}
	want := map[string]string{"memory": "memory", "steps": "steps", "seconds": "time", "cancel": "cancelled"}
	for _, what := range []string{"memory", "steps", "seconds", "cancel"} {
		for _, where := range []string{"filter", "action", "init", "invariant", "domain"} {
			if what == "steps" && where == "init" {
				continue
			}
			t.Run(what+"/"+where, func(t *testing.T) {
				var got [2]string
				for i, form := range []string{"compiled", "interpreted"} {
					start := time.Now()
					got[i] = runHostile(t, what, where, form)
					t.Logf("%s: %s in %.1f s", form, got[i], time.Since(start).Seconds())
				}
				if got[0] != want[what] || got[1] != want[what] {
					t.Errorf("compiled: %s, interpreted: %s; want %s for both", got[0], got[1], want[what])
				}
			})
		}
	}
}

// The code that runs nothing hostile explores completely (the table's
// control: the hostile functions are called only where WHERE says).
func TestHostileControl(t *testing.T) {
	for _, form := range []string{"compiled", "interpreted"} {
		if got := runHostile(t, "memory", "none", form); got != "complete" {
			t.Errorf("%s: %s", form, got)
		}
	}
}

// A domain of 10^8 values is sized before it is listed: past what the
// memory budget leaves it is refused, naming the domain.
func TestHugeDomainRefused(t *testing.T) {
	src := []byte(`
def init():
    return {"x": 0}
def Set(s, v):
    s.x = v
actions = [Set]
domains = {Set: {"v": range(100000000)}}
`)
	_, err := model.LoadStarlarkOptions("huge.star", src, model.LoadOptions{MemoryBudget: hostileBudget})
	if !errors.Is(err, model.ErrMemoryBudget) || !strings.Contains(err.Error(), "100000000 values") {
		t.Fatalf("got %v, want the memory budget exceeded by a domain of 100000000 values", err)
	}
}
