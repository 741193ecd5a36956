package conform_test

import (
	"bytes"
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modex/modex/engine/conform"
	"github.com/modex/modex/engine/explore"
	"github.com/modex/modex/engine/model"
)

// timerModel is testdata/timer.star with the timeout Δ(s) 1 s while
// armed and the given earliest ("" for none).
func timerModel(t *testing.T, earliest string) (*model.StarModel, *explore.Config) {
	t.Helper()
	m, err := model.LoadStarlark("testdata/timer.star")
	if err != nil {
		t.Fatal(err)
	}
	cfg := explore.DefaultConfig(m)
	if cfg.Timeout, err = m.Compile("1 if armed(s) else 0", model.Pos{File: "t"}); err != nil {
		t.Fatal(err)
	}
	if earliest != "" {
		if cfg.Earliest, err = m.Compile(earliest, model.Pos{File: "t"}); err != nil {
			t.Fatal(err)
		}
	}
	return m, cfg
}

// timerImpl is a timer that expires delay after it is armed. fired gets,
// for each expiry, how long after Arm was called the event was emitted
// (an upper bound of the gap the tester measures, but for the call's own
// way to Do).
type timerImpl struct {
	*conform.InProcess
	mu    sync.Mutex
	gen   int // a reset makes pending expiries stale
	gaps  []time.Duration
	delay time.Duration
}

func newTimer(delay time.Duration) *timerImpl {
	ti := &timerImpl{delay: delay}
	ti.InProcess = &conform.InProcess{
		ResetFunc: func() error { ti.mu.Lock(); ti.gen++; ti.mu.Unlock(); return nil },
		Do: func(action string, args []any) (any, error) {
			armed := time.Now()
			ti.mu.Lock()
			gen := ti.gen
			ti.mu.Unlock()
			time.AfterFunc(ti.delay, func() {
				ti.mu.Lock()
				defer ti.mu.Unlock()
				if ti.gen == gen {
					ti.Emit("Expire")
					ti.gaps = append(ti.gaps, time.Since(armed))
				}
			})
			return nil, nil
		},
	}
	return ti
}

// longest is the longest gap between Arm and its expiry's event.
func (ti *timerImpl) longest() time.Duration {
	ti.mu.Lock()
	defer ti.mu.Unlock()
	var most time.Duration
	for _, g := range ti.gaps {
		most = max(most, g)
	}
	return most
}

const timerEarliest = "0.1 if armed(s) else 0"

// A timer that expires 5 ms after Arm where the model says not before
// 100 ms fails early-observable, saying when it came and what the model
// says; one that expires after 150 ms passes, and without earliest the
// early one passes too (timeouts are unaffected).
func TestEarliestOnline(t *testing.T) {
	m, cfg := timerModel(t, timerEarliest)
	tc := conform.TestConfig{Runs: 2, Steps: 4, Seed: 1}
	late, err := conform.Test(context.Background(), m, cfg, newTimer(150*time.Millisecond), tc)
	if err != nil {
		t.Fatal(err)
	}
	if !late.Passed() || late.Steps != 8 {
		t.Errorf("expiring after 150 ms (earliest 100 ms): %+v", late.Runs)
	}
	early := newTimer(5 * time.Millisecond)
	res, err := conform.Test(context.Background(), m, cfg, early, tc)
	if err != nil {
		t.Fatal(err)
	}
	r := res.Runs[0]
	if gap := early.longest(); gap > 10*time.Millisecond {
		// A loaded machine: the expiry was not ten times early.
		t.Logf("the expiry came %s after Arm: not asserting the early failure (%s %+v)", gap, r.Verdict, r.Failure)
		return
	}
	f := r.Failure
	if r.Verdict != conform.Fail || f == nil || f.Kind != conform.FailEarly {
		t.Fatalf("expiring after 5 ms (earliest 100 ms): %s %+v", r.Verdict, f)
	}
	if f.Step != 2 || f.Event == nil || f.Event.Label() != "?Expire()" || len(f.States) != 1 ||
		!strings.HasPrefix(f.Message, "?Expire() came after ") ||
		!strings.HasSuffix(f.Message, " ms; the model says not before 100 ms (earliest `0.1 if armed(s) else 0` in this state)") {
		t.Errorf("failure: step %d, event %+v, %d states, %q", f.Step, f.Event, len(f.States), f.Message)
	}
	report := conform.FailureReport(r, "")
	if !strings.Contains(report, "FAIL early-observable at step 2: ?Expire() came after") {
		t.Errorf("report:\n%s", report)
	}
	t.Log(report)

	// The saved run ends with the early event, which a rerun waits for
	// and judges again.
	saved := conform.SaveRun("p", "c", tc, r)
	var buf bytes.Buffer
	if err := saved.Write(&buf); err != nil {
		t.Fatal(err)
	}
	back, err := conform.ReadSavedRun(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(back.Trace); n != 2 || !back.Trace[1].Failing || back.Trace[1].Action != "Expire" || back.Failure.Kind != conform.FailEarly {
		t.Fatalf("saved: %+v", back)
	}
	again := newTimer(5 * time.Millisecond)
	rerun, err := conform.Test(context.Background(), m, cfg, again, conform.TestConfig{Runs: 1, Steps: 4, Script: back.Script()})
	if err != nil {
		t.Fatal(err)
	}
	if f := rerun.Runs[0].Failure; again.longest() <= 10*time.Millisecond && (f == nil || f.Kind != conform.FailEarly || f.Step != 2) {
		t.Errorf("rerun: %s %+v", rerun.Runs[0].Verdict, f)
	}

	// Without earliest the same timer passes.
	m, cfg = timerModel(t, "")
	if res, err = conform.Test(context.Background(), m, cfg, newTimer(5*time.Millisecond), tc); err != nil || !res.Passed() {
		t.Errorf("no earliest: %+v %v", res.Runs, err)
	}
}

// An earliest that is no number of seconds is the model's error, not the
// implementation's.
func TestEarliestModelError(t *testing.T) {
	m, cfg := timerModel(t, `"soon" if armed(s) else 0`)
	res, err := conform.Test(context.Background(), m, cfg, newTimer(time.Millisecond), conform.TestConfig{Runs: 1, Steps: 2, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	r := res.Runs[0]
	if r.Verdict != conform.ModelError || r.Failure == nil || !strings.Contains(r.Failure.Message, "earliest `\"soon\" if armed(s) else 0` must give a number of seconds, not \"soon\"") {
		t.Errorf("%s %+v", r.Verdict, r.Failure)
	}
}

// A suite case is judged the same way: Arm, then ?Expire after 5 ms fails
// early-observable; after 150 ms it passes.
func TestEarliestSuite(t *testing.T) {
	m, cfg := timerModel(t, timerEarliest)
	suite := &explore.Suite{Cases: []explore.SuiteCase{{Name: "arm and expire", Steps: []explore.SuiteStep{
		{Kind: "controllable", Action: "Arm", Label: "Arm()"},
		{Kind: "observable", Action: "Expire", Label: "?Expire()"},
	}}}}
	res, err := conform.RunSuite(context.Background(), m, cfg, newTimer(150*time.Millisecond), suite, conform.TestConfig{})
	if err != nil || !res.Passed() {
		t.Fatalf("expiring after 150 ms: %+v %v", res, err)
	}
	early := newTimer(5 * time.Millisecond)
	if res, err = conform.RunSuite(context.Background(), m, cfg, early, suite, conform.TestConfig{}); err != nil {
		t.Fatal(err)
	}
	c := res.Cases[0]
	if early.longest() <= 10*time.Millisecond && (c.Verdict != conform.Fail || c.Failure == nil || c.Failure.Kind != conform.FailEarly || c.Failure.Step != 2) {
		t.Errorf("expiring after 5 ms: %s %+v", c.Verdict, c.Failure)
	}
}
