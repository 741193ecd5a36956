package adapter_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/modex/modex/engine/adapter"
	"github.com/modex/modex/engine/conform"
	"github.com/modex/modex/engine/explore"
	"github.com/modex/modex/engine/model"
)

// An action the adapter does not implement, said in the handshake or on
// first use, leaves the tester's choices for the rest of the test: the
// runs pass, the action is listed as skipped, and never invoked (the
// no-push-hello adapter exits if it is).
func TestUnimplementedActionsAreSkipped(t *testing.T) {
	bin := buildTool(t, "./testdata/fakeadapter")
	m, cfg := stackModelForTest(t)
	hello := adapter.HelloFor(m.Info())
	if strings.Join(hello.Actions, ",") != "Push,Pop" {
		t.Fatalf("hello actions %v", hello.Actions)
	}
	for _, tc := range []struct {
		mode    string
		run     int
		reason  string
		message string // of a failure ("": the runs pass)
	}{
		{"no-push-hello", 0, "the adapter said so at start", ""},
		{"no-push", 1, "the adapter does not implement Push: not yet", ""},
		{"bad-unimplemented", 0, "", `the handshake's unimplemented is not a list of action names: "Push"`},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			impl, err := adapter.StartProcess(context.Background(), hello, []string{bin, tc.mode}, ".", 5*time.Second)
			if tc.message != "" {
				if err == nil || !strings.Contains(err.Error(), tc.message) {
					t.Fatalf("want an error mentioning %q, got %v", tc.message, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer impl.Close()
			res, err := conform.Test(context.Background(), m, cfg, impl, conform.TestConfig{Runs: 3, Steps: 20, Seed: 1})
			if err != nil {
				t.Fatal(err)
			}
			if !res.Passed() {
				t.Fatalf("runs failed: %+v", res.Runs[len(res.Runs)-1].Failure)
			}
			want := []conform.Skip{{Action: "Push", Run: tc.run, Reason: tc.reason}}
			if len(res.Skipped) != 1 || res.Skipped[0] != want[0] {
				t.Fatalf("skipped %+v, want %+v", res.Skipped, want)
			}
			if res.Steps != 0 {
				t.Errorf("%d steps: with Push skipped the empty stack has nothing to do", res.Steps)
			}
		})
	}
}

// Events an invoke causes may reach Modex before its answer or after it:
// the tester takes the invoke first, then the events in the order they
// came, so both orders pass (docs/adapter-protocol.md, "Ordering").
func TestEventsBeforeOrAfterTheAnswer(t *testing.T) {
	bin := buildTool(t, "./testdata/pingadapter")
	m, err := model.LoadStarlark("testdata/ping.star")
	if err != nil {
		t.Fatal(err)
	}
	cfg := explore.DefaultConfig(m)
	if cfg.Timeout, err = m.Compile("0.5 if s.waiting else 0", model.Pos{}); err != nil {
		t.Fatal(err)
	}
	for _, mode := range []string{"before", "after", "both"} {
		t.Run(mode, func(t *testing.T) {
			impl, err := adapter.StartProcess(context.Background(), adapter.HelloFor(m.Info()), []string{bin, mode}, ".", 5*time.Second)
			if err != nil {
				t.Fatal(err)
			}
			defer impl.Close()
			res, err := conform.Test(context.Background(), m, cfg, impl, conform.TestConfig{Runs: 2, Steps: 10, Seed: 1, KeepPassingSteps: true})
			if err != nil {
				t.Fatal(err)
			}
			if !res.Passed() {
				t.Fatalf("%s: %+v", mode, res.Runs[len(res.Runs)-1].Failure)
			}
			var labels []string
			for _, st := range res.Runs[0].Steps {
				if st.Kind != model.Timeout {
					labels = append(labels, st.Label())
				}
			}
			if got := strings.Join(labels, " "); got != "Ping() ?Pong(1) Ping() ?Pong(2) Ping() ?Pong(3)" {
				t.Errorf("run 1: %s", got)
			}
		})
	}
}
