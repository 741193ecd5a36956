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

// replayTimer replays a trace of the timer with earliest 100 ms after Arm.
func replayTimer(t *testing.T, trace string, rc conform.ReplayConfig) *conform.ReplayResult {
	t.Helper()
	m, cfg := timerModel(t, timerEarliest)
	recs, err := conform.ParseTrace("t.trace", []byte(trace))
	if err != nil {
		t.Fatal(err)
	}
	res, err := conform.Replay(context.Background(), m, cfg, recs, rc)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// With [replay] time_attr a trace's times are checked against earliest,
// counted from the previous event replayed: an expiry 5 ms after Arm
// fails there, one 150 ms after passes; the environment's actions, the
// first event, an ignored record, and traces without time_attr are not
// judged by it.
func TestEarliestReplay(t *testing.T) {
	const wording = "?Expire() came after 5 ms; the model says not before 100 ms (earliest `0.1 if armed(s) else 0` in this state)"
	ms := conform.ReplayConfig{TimeAttr: "time", TimeUnit: 0.001}
	xml := func(expire string) string {
		return "<trace>\n  <Arm time=\"1000\"/>\n  <Expire time=\"" + expire + "\"/>\n  <Arm time=\"2000\"/>\n  <Expire time=\"2200\"/>\n</trace>\n"
	}
	res := replayTimer(t, xml("1005"), ms)
	if f := res.Failure; res.Verdict != conform.Fail || f == nil || f.Index != 1 || f.Line != 3 || f.Message != wording || f.Step == nil || f.Step.Label != "?Expire()" || len(f.States) != 1 {
		t.Errorf("5 ms after Arm: %s %+v", res.Verdict, f)
	}
	if res = replayTimer(t, xml("1150"), ms); res.Verdict != conform.Pass || res.Matched != 4 {
		t.Errorf("150 ms after Arm: %s %+v", res.Verdict, res.Failure)
	}
	if res = replayTimer(t, xml("1005"), conform.ReplayConfig{}); res.Verdict != conform.Pass {
		t.Errorf("no time_attr: %s %+v", res.Verdict, res.Failure)
	}
	// Seconds (the default unit) in JSON lines, where times are numbers.
	jsonl := func(expire string) string {
		return `{"event": "Arm", "time": 0.5}` + "\n" + `{"event": "Expire", "time": ` + expire + "}\n"
	}
	if res = replayTimer(t, jsonl("0.505"), conform.ReplayConfig{TimeAttr: "time"}); res.Verdict != conform.Fail || res.Failure.Message != wording {
		t.Errorf("JSON lines, 5 ms: %s %+v", res.Verdict, res.Failure)
	}
	if res = replayTimer(t, jsonl("0.65"), conform.ReplayConfig{TimeAttr: "time"}); res.Verdict != conform.Pass {
		t.Errorf("JSON lines, 150 ms: %s %+v", res.Verdict, res.Failure)
	}
	// An ignored record is no event to count from: 95 ms after Arm fails.
	ignore := conform.ReplayConfig{TimeAttr: "time", TimeUnit: 0.001, Mappings: map[string]*conform.EventMapping{"tick": {Role: conform.RoleIgnore}}}
	if res = replayTimer(t, "<trace><Arm time=\"0\"/><tick time=\"90\"/><Expire time=\"95\"/></trace>", ignore); res.Verdict != conform.Fail {
		t.Errorf("ignored tick between: %s %+v", res.Verdict, res.Failure)
	}
	// Mapped as an action of the environment, Expire is not judged; a
	// time going back (a window's reordering) is not judged either.
	asAction := conform.ReplayConfig{TimeAttr: "time", TimeUnit: 0.001, Mappings: map[string]*conform.EventMapping{"Expire": {Role: conform.RoleAction}}}
	if res = replayTimer(t, xml("1005"), asAction); res.Verdict != conform.Pass {
		t.Errorf("Expire as an action: %s %+v", res.Verdict, res.Failure)
	}
	if res = replayTimer(t, xml("999"), ms); res.Verdict != conform.Pass {
		t.Errorf("time going back: %s %+v", res.Verdict, res.Failure)
	}
	// Exactly the bound is not early, in whatever unit: 100000 µs is
	// 100 ms, though 100000 × 0.000001 is 0.09999999999999999.
	us := conform.ReplayConfig{TimeAttr: "time", TimeUnit: 0.000001}
	if res = replayTimer(t, "<trace><Arm time=\"0\"/><Expire time=\"100000\"/></trace>", us); res.Verdict != conform.Pass {
		t.Errorf("exactly 100 ms after Arm: %s %+v", res.Verdict, res.Failure)
	}
	if res = replayTimer(t, "<trace><Arm time=\"0\"/><Expire time=\"99999\"/></trace>", us); res.Verdict != conform.Fail ||
		!strings.HasPrefix(res.Failure.Message, "?Expire() came after 99.999 ms; the model says not before 100 ms") {
		t.Errorf("1 µs short of 100 ms: %s %+v", res.Verdict, res.Failure)
	}
	// Plain traces have no times.
	if res = replayTimer(t, "Arm()\n?Expire()\n", ms); res.Verdict != conform.Pass {
		t.Errorf("plain trace: %s %+v", res.Verdict, res.Failure)
	}
}

// A timed event without its time, or with one that is no number, is a
// malformed trace at its line.
func TestEarliestReplayTraceErrors(t *testing.T) {
	m, cfg := timerModel(t, timerEarliest)
	for trace, want := range map[string]string{
		"<trace>\n<Arm time=\"0\"/>\n<Expire/>\n</trace>": `t.trace:3: event Expire has no time attribute "time" (time_attr)`,
		"<trace>\n<Arm time=\"soon\"/>\n</trace>":         `t.trace:2: event Arm: its time time="soon" is not a number`,
		`{"event": "Arm", "time": "NaN"}`:                 `t.trace:1: event Arm: its time time="NaN" is not a number`,
	} {
		recs, err := conform.ParseTrace("t.trace", []byte(trace))
		if err != nil {
			t.Fatal(err)
		}
		_, err = conform.Replay(context.Background(), m, cfg, recs, conform.ReplayConfig{TimeAttr: "time", File: "t.trace"})
		if err == nil || err.Error() != want {
			t.Errorf("%q: %v, want %s", trace, err, want)
		}
	}
}
