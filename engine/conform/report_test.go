package conform_test

import (
	"regexp"
	"strings"
	"testing"

	"go.starlark.net/starlark"

	"github.com/modex/modex/engine/conform"
	"github.com/modex/modex/engine/model"
)

// A failure's report shows what came from outside — a model's fail()
// message, an adapter's refusal or stderr, values it sent — escaped: no
// escape sequence reaches the terminal, and no line break in a value
// starts a line that reads as Modex's own (a message's later lines are
// marked "  | " under the FAIL line).
func TestFailureReportEscapes(t *testing.T) {
	for _, c := range []struct {
		name, msg, want string
	}{
		{"fail() with an escape sequence", "fail: \x1b[2J\x1b[Hall clear", `fail: \x1b[2J\x1b[Hall clear`},
		{"refusal forging a verdict line", "refused\nrun 2/2 (seed 9): pass, 10 steps", "refused\n    | run 2/2 (seed 9): pass, 10 steps"},
		{"refusal forging a trace entry", "refused\n    3  Pop()\nmodel state: s = 1", "refused\n    |     3  Pop()\n    | model state: s = 1\n"},
		{"adapter stderr with a title sequence", "the implementation exited; its last output on stderr:\n\x1b]0;pwned\x07panic\n", "the implementation exited; its last output on stderr:\n    | \\x1b]0;pwned\\x07panic\n"},
		{"bidi override and C1", "ok\u202e liaf \u009b2J", `ok\u202e liaf \u009b2J`},
		{"invalid UTF-8", "bad \xff\xfe", `bad \xff\xfe`},
	} {
		r := conform.RunResult{Run: 1, Verdict: conform.Fail, Steps: []conform.StepRecord{
			{Step: 1, Kind: model.Controllable, Action: "Post", Args: []model.Value{starlark.String(c.msg)}},
		}, Failure: &conform.Failure{Kind: conform.FailRefused, Step: 2, Message: c.msg, Expected: []string{"Post(" + c.msg + ")"},
			States: []conform.ModelState{{Vars: []model.Var{{Name: "log\x1b[8m", Value: starlark.String(c.msg)}}}}}}
		rep := conform.FailureReport(r, "  ")
		if strings.ContainsAny(rep, "\x1b\x07\r\u009b\u202e") || !strings.Contains(rep, c.want) {
			t.Errorf("%s: the report shows values raw:\n%s", c.name, rep)
		}
		own := regexp.MustCompile(`^  (FAIL |trace |    \d  |  ·  |model state: |the model allowed: |  \| )`)
		for _, line := range strings.Split(strings.TrimSuffix(rep, "\n"), "\n") {
			if !own.MatchString(line) {
				t.Errorf("%s: a line not of the report's own: %q", c.name, line)
			}
		}
		if len(regexp.MustCompile(`(?m)^  model state: `).FindAllString(rep, -1)) != 1 || len(regexp.MustCompile(`(?m)^    ...  ✗ `).FindAllString(rep, -1)) != 1 {
			t.Errorf("%s: a value passes for a line of the report:\n%s", c.name, rep)
		}
		sr := conform.ShrinkResult{Stopped: c.msg}
		if sum := sr.Summary(); strings.Count(sum, "\n") != 1 || strings.ContainsAny(sum, "\x1b\x07\u202e") {
			t.Errorf("%s: the shrinking summary shows its reason raw: %q", c.name, sum)
		}
	}
}
