package projects

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/modex/modex/engine/conform"
)

// A failing run against the real buggy chat server shrinks to at most 8
// steps: the bug needs two Create, two Enter, two Posts of one sender and
// the out-of-order ?Deliver (7). The failure is a race: shrinking may give
// up on a run it cannot reproduce, or stop early where the race seldom
// shows, so up to four failing runs are tried.
func TestChatShrink(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the chat server")
	}
	bin := buildChatImpl(t)
	p, m, cfg := sample(t, "chat", "hi_bye")
	impl, err := p.Connect(context.Background(), m.Info(), bin+" adapter", "")
	if err != nil {
		t.Fatal(err)
	}
	defer impl.Close()
	// The server's reordering is a race: on a busy machine 20 runs may all
	// pass, so up to five batches are run until one has failing runs.
	tc := conform.TestConfig{Runs: 20, Steps: 30, Seed: 1}
	var res *conform.TestResult
	for batch := 0; batch < 5; batch++ {
		tc.Seed = uint64(1 + 20*batch)
		var err error
		if res, err = conform.Test(context.Background(), m, cfg, impl, tc); err != nil {
			t.Fatal(err)
		}
		if slices.ContainsFunc(res.Runs, func(r conform.RunResult) bool { return r.Failure != nil }) {
			break
		}
		t.Logf("seeds %d–%d: no run failed", tc.Seed, tc.Seed+19)
	}
	tried := 0
	for _, r := range res.Runs {
		if r.Failure == nil || tried == 4 {
			continue
		}
		tried++
		orig := conform.SaveRun("chat", "hi_bye", tc, r)
		sh, err := conform.Shrink(context.Background(), m, cfg, impl, tc, orig, conform.ShrinkConfig{Repeats: 4})
		if err != nil {
			if strings.Contains(err.Error(), "does not reproduce") {
				t.Logf("run %d: %v", r.Run, err)
				continue
			}
			t.Fatal(err)
		}
		t.Logf("run %d: shrunk: %d steps (from %d), fails %d of %d re-runs; %d runs, %.1f s, stopped %q", r.Run, sh.Steps, sh.From, sh.Fails, sh.Of, sh.Runs, sh.Seconds, sh.Stopped)
		if sh.Steps > sh.From || sh.Run.Failure == nil || sh.Run.Failure.Kind != conform.FailUnexpected {
			t.Fatalf("run %d shrunk to %d steps (from %d): %+v", r.Run, sh.Steps, sh.From, sh.Run.Failure)
		}
		if sh.Steps > 8 {
			continue // the race did not show often enough on the way down
		}
		posts := 0
		for _, st := range sh.Script {
			if st.Action == "Post" {
				posts++
			}
		}
		if posts != 2 {
			t.Errorf("the shrunk script has %d posts: %+v", posts, sh.Script)
		}
		return
	}
	t.Fatalf("none of %d failing runs shrank to 8 steps or fewer", tried)
}
