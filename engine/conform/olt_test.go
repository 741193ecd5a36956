package conform_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modex/modex/engine/conform"
	"github.com/modex/modex/engine/explore"
	"github.com/modex/modex/engine/internal/enginetest"
	"github.com/modex/modex/engine/model"
)

// stackImpl is an in-process stack; bug changes its behaviour.
func stackImpl(capacity int, bug string) *conform.InProcess {
	var stack []int
	return &conform.InProcess{
		ResetFunc: func() error { stack = nil; return nil },
		Do: func(action string, args []any) (any, error) {
			switch action {
			case "Push":
				if len(stack) >= capacity && bug != "push-refuses-early" {
					return nil, &conform.RefusedError{Reason: "full"}
				}
				if bug == "push-refuses-early" && len(stack) >= capacity-1 {
					return nil, &conform.RefusedError{Reason: "full"}
				}
				stack = append(stack, int(args[0].(int64)))
				return nil, nil
			case "Pop":
				if len(stack) == 0 {
					return nil, &conform.RefusedError{Reason: "empty"}
				}
				top := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				if bug == "pop-bottom" && len(stack) > 0 {
					top, stack = stack[0], append(stack[1:], top)
				}
				return top, nil
			}
			return nil, fmt.Errorf("unknown action %s", action)
		},
	}
}

func stackModelForTest(t testing.TB) (*model.StarModel, *explore.Config) {
	t.Helper()
	return enginetest.StackModel(t)
}

func TestOnlinePassesConformingStack(t *testing.T) {
	m, cfg := stackModelForTest(t)
	res, err := conform.Test(context.Background(), m, cfg, stackImpl(3, ""), conform.TestConfig{Runs: 5, Steps: 40, Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res.Runs {
		if r.Verdict != conform.Pass {
			t.Fatalf("run %d: %s %+v", r.Run, r.Verdict, r.Failure)
		}
		// Runs end accepting: the stack is empty after cleanup.
		if n := r.Actions; n < 40 {
			t.Errorf("run %d has %d steps", r.Run, n)
		}
		if r.Steps != nil {
			t.Errorf("run %d passed but keeps its %d log entries (memory grows with runs)", r.Run, len(r.Steps))
		}
	}
	if res.States < 10 {
		t.Errorf("random testing covered only %d of 15 states", res.States)
	}
	cov, err := conform.Test(context.Background(), m, cfg, stackImpl(3, ""), conform.TestConfig{Runs: 5, Steps: 40, Seed: 7, Strategy: "coverage"})
	if err != nil {
		t.Fatal(err)
	}
	if !cov.Passed() || cov.States != 15 || cov.Transitions < res.Transitions {
		t.Errorf("coverage-directed: passed %v, %d states (want 15), %d transitions (random: %d)", cov.Passed(), cov.States, cov.Transitions, res.Transitions)
	}
}

func TestOnlineFailureKinds(t *testing.T) {
	m, cfg := stackModelForTest(t)
	for _, tc := range []struct {
		impl conform.Implementation
		kind conform.FailureKind
	}{
		{stackImpl(3, "pop-bottom"), conform.FailOutput},
		{stackImpl(3, "push-refuses-early"), conform.FailRefused},
		{&conform.InProcess{Do: func(string, []any) (any, error) {
			return nil, &conform.ImplError{Kind: conform.FailCrash, Msg: "gone"}
		}}, conform.FailCrash},
	} {
		res, err := conform.Test(context.Background(), m, cfg, tc.impl, conform.TestConfig{Runs: 3, Steps: 60, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		f := res.Runs[len(res.Runs)-1].Failure
		if f == nil || f.Kind != tc.kind {
			t.Errorf("want a %s failure, got %+v", tc.kind, res.Runs)
			continue
		}
		if len(f.States) == 0 || f.Message == "" {
			t.Errorf("%s failure without states or message: %+v", tc.kind, f)
		}
		t.Logf("%s at step %d: %s; expected %v", f.Kind, f.Step, f.Message, f.Expected)
	}
}

// Same seed, same run; different seeds, different runs.
func TestOnlineDeterministic(t *testing.T) {
	m, cfg := stackModelForTest(t)
	trace := func(seed uint64) string {
		res, err := conform.Test(context.Background(), m, cfg, stackImpl(3, ""), conform.TestConfig{Runs: 1, Steps: 30, Seed: seed, KeepPassingSteps: true})
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		for _, s := range res.Runs[0].Steps {
			b.WriteString(s.Label() + " ")
		}
		return b.String()
	}
	if a, b := trace(3), trace(3); a != b {
		t.Errorf("same seed, different runs:\n%s\n%s", a, b)
	}
	if a, b := trace(3), trace(4); a == b {
		t.Errorf("seeds 3 and 4 gave the same run")
	}
}

// A switch that overheats: observable events, timeouts and cleanup.
func TestOnlineObservables(t *testing.T) {
	m, err := model.LoadStarlark("../../projects/switch/switch.star")
	if err != nil {
		t.Fatal(err)
	}
	cfg := explore.DefaultConfig(m)
	timeout, _ := m.Compile("0.05 if s.level == 3 else 0", model.Pos{File: "t"})
	cfg.Timeout = timeout
	var mu sync.Mutex
	on, level := false, 0
	var impl *conform.InProcess
	impl = &conform.InProcess{
		ResetFunc: func() error { mu.Lock(); on, level = false, 0; mu.Unlock(); return nil },
		Do: func(action string, args []any) (any, error) {
			mu.Lock()
			defer mu.Unlock()
			switch action {
			case "PowerOn":
				on, level = true, 1
			case "PowerOff":
				on, level = false, 0
			case "SetLevel":
				level = int(args[0].(int64))
				if level == 3 {
					go func() { // overheats soon after reaching full level
						time.Sleep(time.Millisecond)
						mu.Lock()
						hot := on && level == 3
						if hot {
							on, level = false, 0
						}
						mu.Unlock()
						if hot {
							impl.Emit("Overheat")
						}
					}()
				}
			}
			return nil, nil
		},
	}
	res, err := conform.Test(context.Background(), m, cfg, impl, conform.TestConfig{Runs: 5, Steps: 30, Seed: 11, KeepPassingSteps: true})
	if err != nil {
		t.Fatal(err)
	}
	overheats := 0
	for _, r := range res.Runs {
		if r.Verdict != conform.Pass {
			t.Fatalf("run %d: %s %+v", r.Run, r.Verdict, r.Failure)
		}
		for _, s := range r.Steps {
			if s.Action == "Overheat" {
				overheats++
			}
		}
	}
	if overheats == 0 {
		t.Error("no ?Overheat observed")
	}
	checkPathRoundTrip(t, m, res.Runs)
}

// checkPathRoundTrip checks that runs sent as path steps (through JSON, as
// campaign failures travel) draw the same visited graph as their steps.
func checkPathRoundTrip(t *testing.T, m model.Model, runs []conform.RunResult) {
	t.Helper()
	direct, _ := conform.NewVisited(m)
	sent, _ := conform.NewVisited(m)
	for _, r := range runs {
		for _, s := range r.Steps {
			direct.Add(s)
		}
		data, err := json.Marshal(r.Path())
		if err != nil {
			t.Fatal(err)
		}
		var path []conform.PathStep
		if err := json.Unmarshal(data, &path); err != nil {
			t.Fatal(err)
		}
		for _, p := range path {
			sent.AddPath(p)
		}
	}
	type arc struct {
		from, to int
		label    string
		kind     model.Kind
	}
	shape := func(g *explore.Graph) (states []string, arcs []arc) {
		for _, s := range g.States {
			states = append(states, fmt.Sprintf("%s %v %v", s.ID, s.Kind, s.Accepting))
		}
		for _, tr := range g.Trans {
			arcs = append(arcs, arc{tr.From, tr.To, tr.Label(), tr.Kind})
		}
		return
	}
	s1, a1 := shape(direct.Graph())
	s2, a2 := shape(sent.Graph())
	if fmt.Sprint(s1) != fmt.Sprint(s2) || fmt.Sprint(a1) != fmt.Sprint(a2) {
		t.Errorf("the path draws another graph:\n%v\n%v\nvs\n%v\n%v", s1, a1, s2, a2)
	}
	timeouts := 0
	for _, a := range a2 {
		if a.kind == model.Timeout {
			timeouts++
		}
	}
	if len(s2) < 3 || timeouts == 0 {
		t.Errorf("a test of the switch should visit several states and timeouts: %v %v", s2, a2)
	}
}

// BenchmarkOnlineInProcess measures test steps per second against an
// in-process implementation (the stack).
func BenchmarkOnlineInProcess(b *testing.B) {
	m, cfg := stackModelForTest(b)
	impl := stackImpl(3, "")
	enginetest.BenchOnline(b, m, cfg, impl)
}

// The model's own verdicts: an observable step into a state that violates
// the invariant, and a run that cannot end in an accepting state.
func TestOnlineModelVerdicts(t *testing.T) {
	src := `
def init():
    return {"n": 0}
def Inc(s):
    s.n += 1
def Tick(s):
    s.n += 1
actions = [Inc]
observables = [Tick]
def invariant(s):
    return s.n < 3 or "n reached 3"
def accepting(s):
    return s.n == 0
`
	m, err := model.LoadStarlarkSource("counter.star", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	cfg := explore.DefaultConfig(m)
	// Ticks push the model past its invariant.
	ticker := &conform.InProcess{Do: func(string, []any) (any, error) { return nil, nil }}
	ticker.ResetFunc = func() error {
		go func() {
			for i := 0; i < 3; i++ {
				ticker.Emit("Tick")
			}
		}()
		return nil
	}
	wait, _ := m.Compile("0.2", model.Pos{File: "t"})
	cfg.Timeout = wait
	res, err := conform.Test(context.Background(), m, cfg, ticker, conform.TestConfig{Runs: 1, Steps: 10, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if f := res.Runs[0].Failure; f == nil || f.Kind != conform.FailInvariant || !strings.Contains(f.Message, "n reached 3") {
		t.Fatalf("want an invariant failure, got %+v", res.Runs[0])
	}
	// Inc moves away from the only accepting state and nothing leads back.
	cfg.Timeout = nil
	quiet := &conform.InProcess{Do: func(string, []any) (any, error) { return nil, nil }}
	res, err = conform.Test(context.Background(), m, cfg, quiet, conform.TestConfig{Runs: 1, Steps: 2, Seed: 1, EndWait: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if f := res.Runs[0].Failure; f == nil || f.Kind != conform.FailNotAccepting {
		t.Fatalf("want a non-accepting end, got %+v", res.Runs[0])
	}
}

// A failing run saved to a file drives the same controllable steps again:
// against the same bug it fails again with the same kind at the same step;
// a saved step the model does not enable ends the rerun inconclusive.
func TestSavedRunRerun(t *testing.T) {
	m, cfg := stackModelForTest(t)
	tc := conform.TestConfig{Runs: 5, Steps: 20, Seed: 3}
	res, err := conform.Test(context.Background(), m, cfg, stackImpl(3, "pop-bottom"), tc)
	if err != nil {
		t.Fatal(err)
	}
	failed, saved := saveFirstFailure(t, res, tc, func(*conform.Failure) bool { return true })
	// A different seed: the script, not the seed, chooses the steps.
	rerun := conform.TestConfig{Runs: 1, Steps: 20, Seed: 999, Script: saved.Script()}
	again, err := conform.Test(context.Background(), m, cfg, stackImpl(3, "pop-bottom"), rerun)
	if err != nil {
		t.Fatal(err)
	}
	f := again.Runs[0].Failure
	if f == nil || f.Kind != failed.Failure.Kind || f.Step != failed.Failure.Step {
		t.Fatalf("rerun: %+v, want %s at step %d", again.Runs[0], failed.Failure.Kind, failed.Failure.Step)
	}
	// The correct stack passes the same steps.
	ok, _ := conform.Test(context.Background(), m, cfg, stackImpl(3, ""), rerun)
	if !ok.Passed() {
		t.Errorf("the correct stack fails the rerun: %+v", ok.Runs[0])
	}
	// A step the model does not enable: Pop from the empty stack.
	bad := conform.TestConfig{Runs: 1, Steps: 20, Script: []conform.SavedStep{{Kind: "controllable", Action: "Pop"}}}
	inc, _ := conform.Test(context.Background(), m, cfg, stackImpl(3, ""), bad)
	if r := inc.Runs[0]; r.Verdict != conform.Inconclusive || !strings.Contains(r.Reason, "could not reproduce: step 1 of the saved run, Pop()") {
		t.Errorf("unreproducible step: %s %q", r.Verdict, r.Reason)
	}
}

// Saved runs are untrusted input: other formats, unknown fields, trailing
// data and unknown step kinds are refused with a reason.
func TestReadSavedRunErrors(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{"format":"modex-suite/1"}`, `format "modex-suite/1"`},
		{`{"format":"modex-run/1","nonsense":1}`, "unknown field"},
		{`{"format":"modex-run/1"} {}`, "data after the JSON document"},
		{`{"format":"modex-run/1","trace":[{"kind":"sideways","action":"X"}]}`, `trace step 1: kind "sideways"`},
		{`[`, "not a saved run"},
	} {
		if _, err := conform.ReadSavedRun(strings.NewReader(tc.in)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.in, err, tc.want)
		}
	}
}

func FuzzReadSavedRun(f *testing.F) {
	f.Add([]byte(`{"format":"modex-run/1","project":"p","config":"c","seed":1,"trace":[{"kind":"controllable","action":"Push","args":["1"]}]}`))
	f.Add([]byte(`{}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := conform.ReadSavedRun(strings.NewReader(string(data)))
		if err != nil {
			return
		}
		var buf strings.Builder
		if err := s.Write(&buf); err != nil {
			t.Fatal(err)
		}
		if _, err := conform.ReadSavedRun(strings.NewReader(buf.String())); err != nil {
			t.Fatalf("a saved run does not read back: %v", err)
		}
	})
}

// An online run whose model allocates without bound ends with a model
// error naming the memory budget, not a crash or a hang.
func TestOnlineMemoryBudget(t *testing.T) {
	m, err := model.LoadStarlarkSource("hog.star", []byte(`
def init():
    return {"n": 0}

def Inc(s):
    for i in range(1000):
        s.n = len([0] * 2000000)

actions = [Inc]
`))
	if err != nil {
		t.Fatal(err)
	}
	cfg := explore.DefaultConfig(m)
	cfg.MemoryBudget = 32 << 20
	cfg.StepBudget = 100_000_000
	impl := &conform.InProcess{Do: func(string, []any) (any, error) { return nil, nil }}
	res, err := conform.Test(context.Background(), m, cfg, impl, conform.TestConfig{Runs: 3, Steps: 5, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	r := res.Runs[0]
	if r.Verdict != conform.ModelError || r.Failure == nil || !strings.Contains(r.Failure.Message, "model exceeded its memory budget (32 MiB)") {
		t.Fatalf("run: %s %+v", r.Verdict, r.Failure)
	}
	if len(res.Runs) != 1 {
		t.Errorf("%d runs after the budget was exceeded, want 1", len(res.Runs))
	}
}

// Verdicts the papers define and no other test pinned (seed 000, §3: the
// invariant is checked after every step, observable ones too; a run ends
// in an accepting state within the cleanup bound or fails; the tester gives
// up, inconclusive, when the model may be in too many states).
func TestOnlineVerdictBoundaries(t *testing.T) {
	m, err := model.LoadStarlarkSource("ticks.star", []byte(`
def init():
    return {"n": 0, "far": False}
def Tick(s):
    s.n += 1
def Scatter(s):
    s.n = choose([10, 11, 12, 13, 14, 15])
def Go(s):
    require(not s.far and s.n == 0)
    s.far = True
    s.n = 5
def Back(s):
    require(s.far and s.n > 0)
    s.n -= 1
actions = [Go, Back]
observables = [Tick, Scatter]
cleanup = [Back]
def invariant(s):
    return s.n < 2 or s.far or "two ticks"
def accepting(s):
    return s.n == 0
`))
	if err != nil {
		t.Fatal(err)
	}
	run := func(impl conform.Implementation, tc conform.TestConfig, wait string) conform.RunResult {
		t.Helper()
		cfg := explore.DefaultConfig(m)
		if wait != "" {
			cfg.Timeout, _ = m.Compile(wait, model.Pos{File: "t"})
		}
		tc.Runs, tc.Seed = 1, 1
		res, err := conform.Test(context.Background(), m, cfg, impl, tc)
		if err != nil {
			t.Fatal(err)
		}
		return res.Runs[0]
	}
	emitting := func(events ...string) *conform.InProcess {
		p := &conform.InProcess{Do: func(string, []any) (any, error) { return nil, nil }}
		p.ResetFunc = func() error {
			for _, ev := range events {
				p.Emit(ev)
			}
			return nil
		}
		return p
	}
	t.Run("invariant broken by an observed event", func(t *testing.T) {
		r := run(emitting("Tick", "Tick"), conform.TestConfig{Steps: 10, EndWait: 50 * time.Millisecond}, "0.2")
		f := r.Failure
		if f == nil || f.Kind != conform.FailInvariant || !strings.Contains(f.Message, "two ticks") || f.Step != 2 || r.Steps[len(r.Steps)-1].Step != 2 || r.Steps[len(r.Steps)-1].Action != "Tick" {
			t.Fatalf("want an invariant failure at the second Tick, got %+v", r)
		}
	})
	t.Run("too many model states", func(t *testing.T) {
		r := run(emitting("Scatter"), conform.TestConfig{Steps: 10, MaxStates: 4, EndWait: 50 * time.Millisecond}, "0.2")
		if r.Verdict != conform.Inconclusive || !strings.Contains(r.Reason, "more than 4 states") {
			t.Fatalf("want inconclusive (six possible states, four allowed), got %+v", r)
		}
	})
	t.Run("cleanup bound", func(t *testing.T) {
		// Go leaves the accepting state five Backs away; the cleanup phase
		// may take three steps.
		quiet := &conform.InProcess{Do: func(string, []any) (any, error) { return nil, nil }}
		r := run(quiet, conform.TestConfig{Steps: 1, CleanupSteps: 3, EndWait: 20 * time.Millisecond}, "")
		f := r.Failure
		if f == nil || f.Kind != conform.FailNotAccepting || !strings.Contains(f.Message, "in 3 steps") {
			t.Fatalf("want a failed cleanup, got %+v", r)
		}
		r = run(quiet, conform.TestConfig{Steps: 1, CleanupSteps: 5, EndWait: 20 * time.Millisecond}, "")
		if r.Verdict != conform.Pass {
			t.Fatalf("five cleanup steps reach the accepting state: %+v", r)
		}
	})
}

// With KeepFailingSteps, failing runs past the first ones keep only the end
// of their log — exactly what their failure report prints, so the report is
// the same — while OnRun sees every run whole.
func TestFailingRunsKeepTheirLastSteps(t *testing.T) {
	m, cfg := stackModelForTest(t)
	inner := stackImpl(3, "")
	calls := 0
	late := &conform.InProcess{ // right for 40 calls a run, then a wrong Pop
		ResetFunc: func() error { calls = 0; return inner.ResetFunc() },
		Do: func(action string, args []any) (any, error) {
			calls++
			out, err := inner.Do(action, args)
			if action == "Pop" && calls > 40 && err == nil {
				return out.(int) + 100, nil
			}
			return out, err
		},
	}
	var whole []conform.RunResult
	tc := conform.TestConfig{Runs: 4, Steps: 80, Seed: 3, KeepFailingSteps: 2, OnRun: func(r conform.RunResult) { whole = append(whole, r) }}
	res, err := conform.Test(context.Background(), m, cfg, late, tc)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Runs) != 4 || len(whole) != 4 {
		t.Fatalf("%d runs, %d seen", len(res.Runs), len(whole))
	}
	for i, r := range res.Runs {
		w := whole[i]
		if r.Failure == nil || r.Failure.Kind != conform.FailOutput || len(w.Steps) <= conform.FailureTraceLen {
			t.Fatalf("run %d: %v after %d entries; the test needs a late output failure", r.Run, r.Failure, len(w.Steps))
		}
		if i < 2 && (len(r.Steps) != len(w.Steps) || r.StepsDropped != 0) {
			t.Errorf("run %d (of the first two): %d entries kept of %d", r.Run, len(r.Steps), len(w.Steps))
		}
		if i >= 2 && (len(r.Steps) != conform.FailureTraceLen || r.StepsDropped != len(w.Steps)-conform.FailureTraceLen ||
			r.Steps[len(r.Steps)-1].Index != w.Steps[len(w.Steps)-1].Index) {
			t.Errorf("run %d: %d entries kept, %d dropped, of %d", r.Run, len(r.Steps), r.StepsDropped, len(w.Steps))
		}
		if got, want := conform.FailureReport(r, ""), conform.FailureReport(w, ""); got != want {
			t.Errorf("run %d: the report changed:\n%s\nwant\n%s", r.Run, got, want)
		}
	}
}

// One long run keeps a bounded step log (its last MaxStepLog to twice that
// entries), counting the others; a saved run of it says it cannot drive a
// rerun, and why.
func TestLongRunKeepsBoundedLog(t *testing.T) {
	m, err := model.LoadStarlarkSource("inc.star", []byte(`
def init():
    return {"n": 0}

def Inc(s):
    s.n += 1
    return s.n

actions = [Inc]
`))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	impl := &conform.InProcess{ResetFunc: func() error { n = 0; return nil }, Do: func(string, []any) (any, error) { n++; return n, nil }}
	steps := 2*conform.MaxStepLog + 5000
	res, err := conform.Test(context.Background(), m, explore.DefaultConfig(m), impl, conform.TestConfig{Runs: 1, Steps: steps, Seed: 1, KeepPassingSteps: true})
	if err != nil {
		t.Fatal(err)
	}
	r := res.Runs[0]
	if r.Verdict != conform.Pass || r.Actions != steps || len(r.Steps) > 2*conform.MaxStepLog || r.StepsDropped+len(r.Steps) != steps ||
		r.Steps[len(r.Steps)-1].Index != steps-1 {
		t.Fatalf("%s, %d actions, %d kept, %d dropped", r.Verdict, r.Actions, len(r.Steps), r.StepsDropped)
	}
	saved := conform.SaveRun("inc", "default", conform.TestConfig{Steps: steps}, r)
	if err := saved.CanRerun(); err == nil || !strings.Contains(err.Error(), "rerun it by its seed") {
		t.Errorf("a truncated saved run: %v", err)
	}
}

// A weight below 0 is the configuration's error, reported as a model
// error, not a run that quietly passes with nothing tested.
func TestNegativeWeightIsAnError(t *testing.T) {
	m, err := model.LoadStarlarkSource("inc.star", []byte("def init():\n    return {\"n\": 0}\ndef Inc(s):\n    s.n += 1\nactions = [Inc]\n"))
	if err != nil {
		t.Fatal(err)
	}
	cfg := explore.DefaultConfig(m)
	x, err := m.Compile("-1", model.Pos{File: "p.toml", Line: 3, Col: 10})
	if err != nil {
		t.Fatal(err)
	}
	cfg.Actions[0].Weight = x
	impl := &conform.InProcess{Do: func(string, []any) (any, error) { return nil, nil }}
	res, err := conform.Test(context.Background(), m, cfg, impl, conform.TestConfig{Runs: 1, Steps: 5, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if r := res.Runs[0]; r.Verdict != conform.ModelError || !strings.Contains(r.Failure.Message, "a weight is a number, 0 or more") {
		t.Errorf("%s %+v", r.Verdict, r.Failure)
	}
}

// A deterministic wrong output reruns from its saved file every time, in a
// model where any state may end a run: the saved trace ends with the step
// that failed (marked), and the failure keeps the output seen and the
// outputs allowed. (The trace once stopped before the failing step; the
// rerun then ended in the accepting state before it and passed.)
func TestSavedRunKeepsFailingStep(t *testing.T) {
	m, cfg := stackModelForTest(t)
	anyEnd, err := m.Compile("True", model.Pos{File: "test.toml", Line: 1, Col: 1})
	if err != nil {
		t.Fatal(err)
	}
	cfg.Accepting = anyEnd
	tc := conform.TestConfig{Runs: 10, Steps: 20, Seed: 3}
	res, err := conform.Test(context.Background(), m, cfg, stackImpl(3, "pop-bottom"), tc)
	if err != nil {
		t.Fatal(err)
	}
	failed, saved := saveFirstFailure(t, res, tc, func(f *conform.Failure) bool { return f.Kind == conform.FailOutput })
	last := saved.Trace[len(saved.Trace)-1]
	if !last.Failing || last.Action != "Pop" || len(saved.Trace) != failed.Failure.Step {
		t.Fatalf("the saved trace ends with %+v after %d steps; want the failing Pop, step %d", last, len(saved.Trace), failed.Failure.Step)
	}
	if saved.Failure.Seen == "" || len(saved.Failure.Expected) == 0 {
		t.Errorf("the saved failure lacks the output seen (%q) or the outputs allowed (%v)", saved.Failure.Seen, saved.Failure.Expected)
	}
	for i := range 10 {
		rerun := conform.TestConfig{Runs: 1, Steps: 20, Seed: uint64(100 + i), Script: saved.Script()}
		again, err := conform.Test(context.Background(), m, cfg, stackImpl(3, "pop-bottom"), rerun)
		if err != nil {
			t.Fatal(err)
		}
		f := again.Runs[0].Failure
		if f == nil || f.Kind != conform.FailOutput || f.Step != failed.Failure.Step {
			t.Fatalf("rerun %d: %s %+v, want %s at step %d", i+1, again.Runs[0].Verdict, f, conform.FailOutput, failed.Failure.Step)
		}
	}
}

// saveFirstFailure writes the first run of res whose failure is one that
// want takes to a saved run's file and reads it back.
func saveFirstFailure(t *testing.T, res *conform.TestResult, tc conform.TestConfig, want func(*conform.Failure) bool) (*conform.RunResult, *conform.SavedRun) {
	t.Helper()
	var failed *conform.RunResult
	for i := range res.Runs {
		if f := res.Runs[i].Failure; f != nil && want(f) {
			failed = &res.Runs[i]
			break
		}
	}
	if failed == nil {
		t.Fatal("no run of the buggy stack failed so")
	}
	var buf strings.Builder
	if err := conform.SaveRun("stack", "all", tc, *failed).Write(&buf); err != nil {
		t.Fatal(err)
	}
	saved, err := conform.ReadSavedRun(strings.NewReader(buf.String()))
	if err != nil {
		t.Fatal(err)
	}
	return failed, saved
}
