package explore_test

import (
	"context"
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/modex/modex/engine/explore"
	"github.com/modex/modex/engine/model"
)

// errorCase is one chunk of a testdata file of failing models.
type errorCase struct {
	line    int    // first line of the chunk in the file
	src     []byte // the file with every line outside the chunk blanked
	explore bool
	filter  string
	want    map[int]string // line -> text the error naming that line contains
}

var (
	wantMark    = regexp.MustCompile(`###\s*(.*)$`)
	exploreMark = regexp.MustCompile(`^#!\s*explore(?:\s+filter\s+(.+))?\s*$`)
)

// readErrorCases splits a file into cases at lines "---" (see the comment at
// the top of testdata/errors.star for the format).
func readErrorCases(t testing.TB, path string) []errorCase {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(data), "\n")
	var cases []errorCase
	start := -1
	flush := func(end int) {
		if start < 0 {
			return
		}
		c := errorCase{line: start + 1, want: map[int]string{}}
		blank := make([]string, len(lines))
		for i := start; i < end; i++ {
			l := lines[i]
			blank[i] = l
			if i == start {
				if m := exploreMark.FindStringSubmatch(l); m != nil {
					c.explore, c.filter = true, strings.TrimSpace(m[1])
				}
			}
			if m := wantMark.FindStringSubmatch(l); m != nil && !strings.HasPrefix(strings.TrimSpace(l), "#!") {
				at := i + 1
				if i == start {
					at = 1 // an error at the start of the file
				}
				c.want[at] = strings.TrimSpace(m[1])
			}
		}
		c.src = []byte(strings.Join(blank, "\n"))
		cases = append(cases, c)
	}
	for i, l := range lines {
		if l == "---" {
			flush(i)
			start = i + 1
		}
	}
	flush(len(lines))
	return cases
}

// errorsOf loads (and, for explore cases, explores) a case and returns the
// error messages it produced.
func errorsOf(t *testing.T, path string, c errorCase, workers int) []string {
	m, err := model.LoadStarlarkSource(path, c.src)
	if !c.explore {
		if err == nil {
			return nil
		}
		return []string{err.Error()}
	}
	if err != nil {
		t.Fatalf("the model does not load: %v", err)
	}
	cfg := explore.DefaultConfig(m)
	cfg.StepBudget, cfg.MaxStates, cfg.Workers = 20000, 50, workers
	if c.filter != "" {
		cfg.Filters = []model.Expr{compile(t, m, c.filter)}
	}
	done := make(chan struct{})
	var x *explore.Exploration
	go func() {
		x, err = explore.Explore(context.Background(), m, cfg)
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("exploration hangs")
	}
	var msgs []string
	if err != nil {
		msgs = append(msgs, err.Error())
	}
	if x != nil {
		for i := range x.States {
			if e := x.StateError(i); e != "" {
				msgs = append(msgs, e)
			}
		}
	}
	return msgs
}

// Failing models are reported with file:line:col and say what failed; every
// case of testdata/errors.star states where and what inline.
func TestModelErrors(t *testing.T) {
	const path = "testdata/errors.star"
	for _, c := range readErrorCases(t, path) {
		// Explored with one worker (settling as it goes) and with two
		// (merging): both meet every error.
		for _, workers := range []int{1, 2} {
			if !c.explore && workers > 1 {
				continue
			}
			t.Run(fmt.Sprintf("line%d/%d_workers", c.line, workers), func(t *testing.T) {
				msgs := errorsOf(t, path, c, workers)
				if len(c.want) == 0 && len(msgs) > 0 {
					t.Errorf("unexpected errors: %q", msgs)
				}
				for line, text := range c.want {
					at := fmt.Sprintf("%s:%d:", path, line)
					found := false
					for _, msg := range msgs {
						found = found || (strings.Contains(msg, at) && strings.Contains(msg, text))
					}
					if !found {
						t.Errorf("no error names %s and contains %q; errors: %q", at, text, msgs)
					}
				}
			})
		}
	}
}
