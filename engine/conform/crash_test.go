package conform_test

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/modex/modex/engine/conform"
	"github.com/modex/modex/engine/explore"
)

// crashing is a correct stack until its reset number resets (0: none) or
// its call number calls (0: none), where it fails with err, as it does at
// every reset and call after.
func crashing(resets, calls int, err error) conform.Implementation {
	good := stackImpl(3, "")
	dead := false
	return &conform.InProcess{
		ResetFunc: func() error {
			if resets--; resets == 0 || dead {
				dead = true
				return err
			}
			return good.ResetFunc()
		},
		Do: func(action string, args []any) (any, error) {
			if calls--; calls == 0 || dead {
				dead = true
				return nil, err
			}
			return good.Do(action, args)
		},
	}
}

// An implementation that crashed, was killed, hung or broke the protocol
// stops the test and the suite at once: the result's Halt is the run's
// failure, which carries how the implementation ended, and says so in a
// line; the failure's message does not repeat its kind.
func TestHaltNamesTheCrash(t *testing.T) {
	m, cfg := stackModelForTest(t)
	killed := &conform.Crash{Signal: "SIGKILL", Stderr: "listening on :9000\npanic: \x1b[31mboom"}
	for _, tc := range []struct {
		name        string
		reset, call int
		err         *conform.ImplError
		want        string // the summary's words
	}{
		{"killed in a step", 0, 50, &conform.ImplError{Kind: conform.FailCrash, Msg: killed.Message(), Crash: killed},
			"the implementation was killed by signal SIGKILL (its stderr ends: listening on :9000 | panic: \\x1b[31mboom)"},
		{"killed at a reset", 7, 0, &conform.ImplError{Kind: conform.FailCrash, Msg: killed.Message(), Crash: killed},
			"the implementation was killed by signal SIGKILL (its stderr ends: listening on :9000 | panic: \\x1b[31mboom)"},
		{"exited", 0, 50, &conform.ImplError{Kind: conform.FailCrash, Msg: "x", Crash: &conform.Crash{Status: 3, Launcher: 1}},
			"the implementation exited with status 3, as its launcher reported, exiting with status 1"},
		{"closed its output", 0, 50, &conform.ImplError{Kind: conform.FailCrash, Msg: "the implementation closed its output"},
			"the implementation crashed: STEP: the implementation closed its output"},
		{"hung", 0, 50, &conform.ImplError{Kind: conform.FailTimeout, Msg: "no answer to invoke within 5s"},
			"the implementation stopped answering: STEP: no answer to invoke within 5s"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := conform.Test(context.Background(), m, cfg, crashing(tc.reset, tc.call, tc.err), conform.TestConfig{Runs: 100, Steps: 10, Seed: 1})
			if err != nil {
				t.Fatal(err)
			}
			last := res.Runs[len(res.Runs)-1]
			f := last.Failure
			if res.Halt == nil || res.Halt.Run != last.Run || res.Halt.Failure != f || f.Kind != tc.err.Kind || f.Crash != tc.err.Crash || len(res.Runs) == 100 {
				t.Fatalf("%d runs, halt %+v, last failure %+v", len(res.Runs), res.Halt, f)
			}
			if strings.Contains(f.Message, string(f.Kind)+": ") || tc.name == "killed at a reset" && !strings.HasPrefix(f.Message, "reset: the implementation was killed") {
				t.Errorf("message %q", f.Message)
			}
			step, _, _ := strings.Cut(f.Message, ": ") // the step that met it
			want := "stopped at run " + strconv.Itoa(last.Run) + " of 100: " + strings.Replace(tc.want, "STEP", step, 1)
			if got := res.Halt.Stopped(100, "run"); got != want {
				t.Errorf("got  %q\nwant %q", got, want)
			}
			if got := res.Halt.Stopped(last.Run, "run"); !strings.HasPrefix(got, strconv.Itoa(last.Run)+" runs, the last ended when the implementation ") {
				t.Errorf("the last run planned: %q", got)
			}
		})
	}
	// A suite stops at the case the implementation died in.
	g, err := explore.Explore(context.Background(), m, cfg)
	if err != nil {
		t.Fatal(err)
	}
	suite, err := g.Graph().StateCases(nil)
	if err != nil || len(suite.Cases) < 3 {
		t.Fatalf("%v, %+v", err, suite)
	}
	res, err := conform.RunSuite(context.Background(), m, cfg, crashing(3, 0, &conform.ImplError{Kind: conform.FailCrash, Msg: killed.Message(), Crash: killed}), suite, conform.TestConfig{})
	if err != nil {
		t.Fatal(err)
	}
	n := len(res.Cases)
	if res.Halt == nil || res.Halt.Run != n || n == len(suite.Cases) || res.Cases[n-1].Failure.Crash != killed {
		t.Fatalf("%d of %d cases, halt %+v", n, len(suite.Cases), res.Halt)
	}
	if got := res.Halt.Stopped(len(suite.Cases), "case"); !strings.HasPrefix(got, "stopped at case "+strconv.Itoa(n)+" of ") || !strings.Contains(got, ": the implementation was killed by signal SIGKILL (its stderr ends: ") {
		t.Errorf("suite: %q", got)
	}
}
