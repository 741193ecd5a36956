package conform_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/modex/modex/engine/conform"
	"github.com/modex/modex/engine/explore"
	"github.com/modex/modex/engine/model"
)

// A test stopped (Ctrl-C) while a run goes on ends that run inconclusive,
// never failed or passed: what the stop does to the implementation — a
// reset or an answer cut off, an adapter gone — is no verdict about it. The
// runs not started are left out; a failure seen before the stop stays one.
func TestStoppedRunsAreInconclusive(t *testing.T) {
	m, cfg := stackModelForTest(t)
	cut := &conform.ImplError{Kind: conform.FailCrash, Msg: "the adapter's connection was closed"}
	for _, tc := range []struct {
		name string
		// stopAt is the call (reset or action, counted from 1) that
		// stops the test; failWith what the implementation then says.
		stopAt   int
		failWith error
		bug      string
		runs     int // runs in the result
		want     []conform.Verdict
	}{
		{"stop during an action, which fails", 30, cut, "", 1, []conform.Verdict{conform.Inconclusive}},
		{"stop during a reset, which fails", 1, errors.New("reset: connection reset by peer"), "", 1, []conform.Verdict{conform.Inconclusive}},
		{"stop during an action, which answers", 30, nil, "", 1, []conform.Verdict{conform.Inconclusive}},
		{"stop in the second run", 60, cut, "", 2, []conform.Verdict{conform.Pass, conform.Inconclusive}},
		{"a failure before the stop stays", 1000, nil, "pop-bottom", 1, []conform.Verdict{conform.Fail}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, stop := context.WithCancel(context.Background())
			defer stop()
			impl := stackImpl(3, tc.bug)
			calls := 0
			reset, do := impl.ResetFunc, impl.Do
			impl.ResetFunc = func() error {
				if calls++; calls == tc.stopAt {
					stop()
					if tc.failWith != nil {
						return tc.failWith
					}
				}
				return reset()
			}
			impl.Do = func(action string, args []any) (any, error) {
				if calls++; calls == tc.stopAt {
					stop()
					if tc.failWith != nil {
						return nil, tc.failWith
					}
				}
				return do(action, args)
			}
			// 40 steps, and as many for the cleanup: a run is 40 to 80
			// calls, its reset first.
			res, err := conform.Test(ctx, m, cfg, impl, conform.TestConfig{Runs: 5, Steps: 40, Seed: 3})
			if err != nil {
				t.Fatal(err)
			}
			if tc.bug != "" {
				// The failing run ends the test early only if stopped.
				res.Runs = res.Runs[:1]
			}
			var got []conform.Verdict
			for _, r := range res.Runs {
				got = append(got, r.Verdict)
			}
			if len(got) != tc.runs || !equalVerdicts(got, tc.want) {
				t.Fatalf("verdicts %v, want %v", got, tc.want)
			}
			if last := res.Runs[len(res.Runs)-1]; tc.bug == "" && (last.Failure != nil || last.Reason != "cancelled") {
				t.Errorf("the run cut short: %q %+v", last.Reason, last.Failure)
			}
		})
	}
}

// An offline suite's case cut by a stop is inconclusive, as an online run.
func TestStoppedSuiteCaseIsInconclusive(t *testing.T) {
	m, cfg := stackModelForTest(t)
	step := func(action, arg, out string) explore.SuiteStep {
		s := explore.SuiteStep{Kind: "controllable", Action: action, Output: out}
		if arg != "" {
			s.Args = []string{arg}
		}
		return s
	}
	c := explore.SuiteCase{Name: "case", Steps: []explore.SuiteStep{step("Push", "1", ""), step("Pop", "", "1"), step("Push", "2", ""), step("Pop", "", "2")}}
	suite := &explore.Suite{Cases: []explore.SuiteCase{c, c, c}}
	// The stop comes with the implementation's error, or with a wrong
	// answer (a failure the tester finds itself, after the stop: it once
	// dereferenced the failure that the stop had kept from being made).
	for _, tc := range []struct {
		name   string
		answer func() (any, error)
	}{
		{"error", func() (any, error) { return nil, &conform.ImplError{Kind: conform.FailCrash, Msg: "cut"} }},
		{"wrong output", func() (any, error) { return 99, nil }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, stop := context.WithCancel(context.Background())
			defer stop()
			impl := stackImpl(3, "")
			calls, do := 0, impl.Do
			impl.Do = func(action string, args []any) (any, error) {
				if calls++; calls == 6 { // the second case's second step
					stop()
					return tc.answer()
				}
				return do(action, args)
			}
			res, err := conform.RunSuite(ctx, m, cfg, impl, suite, conform.TestConfig{})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Cases) != 2 || res.Cases[0].Verdict != conform.Pass || res.Cases[1].Verdict != conform.Inconclusive || res.Cases[1].Failure != nil {
				t.Fatalf("cases %+v", res.Cases)
			}
		})
	}
}

func equalVerdicts(a, b []conform.Verdict) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// A test, a suite or a replay stopped while the model's code runs ends
// inconclusive, never with a model error or a failure: the code was
// cancelled by the stop.
func TestStoppedModelCodeIsNoVerdict(t *testing.T) {
	// The invariant takes long: the stop comes while it runs.
	src := `
def init():
    return {"n": 0}

def Tick(s):
    s.n = s.n + 1

actions = [Tick]

def invariant(s):
    x = 0
    for i in range(100000000):
        x = x + i
    return ""
`
	m, err := model.LoadStarlarkOptions("slow.star", []byte(src), model.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cfg := explore.DefaultConfig(m)
	cfg.StepBudget = 1 << 40
	impl := &conform.InProcess{Do: func(string, []any) (any, error) { return nil, nil }}
	tick := explore.SuiteStep{Kind: "controllable", Action: "Tick"}
	for _, tc := range []struct {
		name string
		run  func(ctx context.Context) (conform.Verdict, string, error)
	}{
		{"test", func(ctx context.Context) (conform.Verdict, string, error) {
			res, err := conform.Test(ctx, m, cfg, impl, conform.TestConfig{Runs: 3, Steps: 5})
			if err != nil || len(res.Runs) != 1 {
				return "", "", fmt.Errorf("%v, %d runs", err, len(res.Runs))
			}
			return res.Runs[0].Verdict, res.Runs[0].Reason, nil
		}},
		{"suite", func(ctx context.Context) (conform.Verdict, string, error) {
			suite := &explore.Suite{Cases: []explore.SuiteCase{{Name: "c", Steps: []explore.SuiteStep{tick, tick}}}}
			res, err := conform.RunSuite(ctx, m, cfg, impl, suite, conform.TestConfig{})
			if err != nil || len(res.Cases) != 1 {
				return "", "", fmt.Errorf("%v, %d cases", err, len(res.Cases))
			}
			return res.Cases[0].Verdict, res.Cases[0].Reason, nil
		}},
		{"replay", func(ctx context.Context) (conform.Verdict, string, error) {
			recs, err := conform.ParseTrace("t.trace", []byte("Tick()\nTick()\n"))
			if err != nil {
				return "", "", err
			}
			res, err := conform.Replay(ctx, m, cfg, recs, conform.ReplayConfig{})
			if err != nil {
				return "", "", err
			}
			return res.Verdict, res.Reason, nil
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, stop := context.WithCancel(context.Background())
			defer stop()
			time.AfterFunc(100*time.Millisecond, stop)
			v, reason, err := tc.run(ctx)
			if err != nil || v != conform.Inconclusive || reason != "cancelled" {
				t.Fatalf("stopped: %v %q %v", v, reason, err)
			}
		})
	}
}
