package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The hostile project (testdata/hostile) names itself and a configuration
// with escape sequences, names another configuration with a shell command,
// and its model's fail() message, its trace and its history carry control
// characters and forged verdict lines (issue 51: nothing raw reaches a
// terminal or a file format).
const (
	hostileConfig    = "x; touch pwned #"
	hostileEscConfig = "esc\x1b[31mred\u202e"
)

// printed runs modex as main does, the error printed as main prints it.
func printed(args ...string) (stdout, stderr string, code int) {
	var o, e bytes.Buffer
	err := run(args, &o, &e)
	if err != nil {
		e.WriteString(errorText(err) + "\n")
	}
	return o.String(), e.String(), exitCode(err)
}

// rawControl is what must not reach a terminal: C0 controls but line
// breaks and tabs, DEL, C1 controls, bidi overrides and isolates.
var rawControl = regexp.MustCompile("[\x00-\x08\x0b-\x1f\x7f\u0080-\u009f\u202a-\u202e\u2066-\u2069]")

// forged matches lines that only a hostile value holds: the model's and
// the adapter's forged verdict lines.
var forged = regexp.MustCompile(`(?m)^(run 9/9|run 1/1 \(seed 1\): pass|run 2/2 \(seed 1\): pass)`)

// checkPrinted fails the test when out holds a raw control character, a
// byte that is not UTF-8, or a forged line.
func checkPrinted(t *testing.T, what, out string) {
	t.Helper()
	if loc := rawControl.FindStringIndex(out); loc != nil {
		t.Errorf("%s prints %q raw:\n%s", what, out[loc[0]:loc[1]], out)
	}
	if !isUTF8(out) {
		t.Errorf("%s prints bytes that are not UTF-8:\n%q", what, out)
	}
	if m := forged.FindString(out); m != "" {
		t.Errorf("%s prints a forged line %q:\n%s", what, m, out)
	}
}

func isUTF8(s string) bool { return strings.ToValidUTF8(s, "\ufffd") == s }

// hostileProject copies testdata/hostile into a folder whose name a shell
// would take as a command ($(...), ;, a quote) and returns the project's
// path and the folder the test runs in.
func hostileProject(t *testing.T) (project, dir string) {
	dir = t.TempDir()
	proj := filepath.Join(dir, "it's; $(touch pwned) `touch pwned`")
	if err := os.Mkdir(proj, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"hostile.toml", "hostile.star", "trace.jsonl", "history.jsonl"} {
		if err := os.WriteFile(filepath.Join(proj, f), readFile(t, filepath.Join("testdata", "hostile", f)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(proj, "hostile.toml"), dir
}

// hostileAdapter is a TCP adapter — a network peer — for the hostile
// model: it pushes, and refuses every Pop with a reason holding escape
// sequences and a forged verdict line.
func hostileAdapter(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				in, out := bufio.NewScanner(c), json.NewEncoder(c)
				for in.Scan() {
					var m map[string]any
					if json.Unmarshal(in.Bytes(), &m) != nil {
						return
					}
					var answer map[string]any
					switch {
					case m["type"] == "hello":
						answer = map[string]any{"type": "hello", "id": m["id"], "protocol": "modex-adapter/1", "name": "evil\x1b[31m"}
					case m["type"] == "reset":
						answer = map[string]any{"type": "ok", "id": m["id"]}
					case m["type"] == "shutdown":
						return
					case m["action"] == "Push":
						answer = map[string]any{"type": "result", "id": m["id"], "output": nil}
					default:
						answer = map[string]any{"type": "refused", "id": m["id"], "reason": "\x1b[31mno\x1b]0;pwned\x07\nrun 2/2 (seed 1): pass, 3 steps\u202e"}
					}
					if out.Encode(answer) != nil {
						return
					}
				}
			}()
		}
	}()
	return l.Addr().String()
}

// pasted runs a command line modex printed, as a user pasting it would,
// in dir: modex's place taken by printf, it gives back the words the
// shell made of it. A line with $'...' words needs bash: without one, it
// gives nil.
func pasted(t *testing.T, dir, line string) []string {
	t.Helper()
	rest, ok := strings.CutPrefix(line, "modex ")
	if !ok {
		t.Fatalf("not a modex command line: %q", line)
	}
	shell := "/bin/sh"
	if strings.Contains(rest, "$'") {
		if _, err := exec.LookPath("bash"); err != nil {
			t.Logf("no bash to read %s", line)
			return nil
		}
		shell = "bash"
	}
	cmd := exec.Command(shell, "-c", `printf '%s\0' `+rest)
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s -c %q: %v", shell, rest, err)
	}
	return strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
}

// commandLines returns what follows label on each line of out.
func commandLines(out, label string) []string {
	var lines []string
	for _, l := range strings.Split(out, "\n") {
		if _, cmd, ok := strings.Cut(l, label); ok {
			lines = append(lines, cmd)
		}
	}
	return lines
}

// What modex test prints from a hostile project and a hostile adapter is
// escaped, and its command lines to paste, quoted, give back the words
// they name when a shell reads them — and run nothing: pasted, the rerun
// line reproduces the failure.
func TestHostileTestOutput(t *testing.T) {
	project, dir := hostileProject(t)
	addr := hostileAdapter(t)
	saveDir := filepath.Join(dir, "fails 'here'; $(touch pwned)")
	for _, c := range []struct {
		name, config string
		want         []string
	}{
		{"refused with a hostile reason", hostileConfig, []string{
			`FAIL refused at step 2: the implementation refused Pop(): \x1b[31mno\x1b]0;pwned\x07`,
			`    | run 2/2 (seed 1): pass, 3 steps\u202e`,
			`testing hostile\x1b]0;pwned\x07\x1b[2J [x; touch pwned #]: 2 runs`,
			"--config 'x; touch pwned #' --runs 1 --seed ",
		}},
		{"a model's hostile fail()", hostileEscConfig, []string{
			`action Push: fail: \x1b[2J\x1b[Hcleared`,
			`    | run 9/9 (seed 9): pass, 1 steps\u202e`,
			`    | Traceback (most recent call last):`,
			`--config $'esc\x1b[31mred\xe2\x80\xae' --runs 1`,
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			junit := filepath.Join(dir, "junit.xml")
			out, errOut, code := printed("test", project, "--config", c.config, "--address", addr, "--runs", "2", "--steps", "5", "--seed", "1",
				"--save-failures", saveDir, "--junit", junit)
			if code != 1 {
				t.Fatalf("exit %d\n%s%s", code, out, errOut)
			}
			checkPrinted(t, "modex test", out+errOut)
			checkXML(t, junit)
			for _, want := range c.want {
				if !strings.Contains(out, want) {
					t.Errorf("no %q in\n%s", want, out)
				}
			}
			again := commandLines(out, "same choices again (timing may differ): ")
			reruns := commandLines(out, "rerun its steps: ")
			if len(again) != 2 || len(reruns) != 2 {
				t.Fatalf("%d same-choices lines, %d rerun lines:\n%s", len(again), len(reruns), out)
			}
			for _, line := range again {
				words := pasted(t, dir, line)
				if words != nil && len(words) != 12 || words[0] != "test" || words[1] != project || words[2] != "--config" || words[3] != c.config || words[11] != "random" {
					t.Errorf("pasted %s\ngives %q", line, words)
				}
			}
			for _, line := range reruns {
				words := pasted(t, dir, line)
				if len(words) != 4 || words[1] != project || words[2] != "--rerun" || filepath.Dir(words[3]) != saveDir {
					t.Fatalf("pasted %s\ngives %q", line, words)
				}
				if _, err := os.Stat(words[3]); err != nil {
					t.Errorf("pasted %s: %v", line, err)
				}
			}
			// The words, as the shell gave them, rerun the saved run.
			words := pasted(t, dir, reruns[0])
			out, errOut, code = printed(append(words, "--address", addr)...)
			if code != 1 || !strings.Contains(out, "reproduced: the run failed again with") {
				t.Errorf("rerun: exit %d\n%s%s", code, out, errOut)
			}
			checkPrinted(t, "modex test --rerun", out+errOut)
		})
	}
	if matches, _ := filepath.Glob(filepath.Join(dir, "*", "pwned")); len(matches) > 0 || exists(filepath.Join(dir, "pwned")) {
		t.Errorf("a pasted line ran a command: %v", matches)
	}
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// The other commands print the hostile names, traces and histories
// escaped; exports to standard output are data, written as they are; the
// sequence chart and the timeline of hostile threads and processes are
// valid XML.
func TestHostileCommandsOutput(t *testing.T) {
	project, dir := hostileProject(t)
	trace, history := filepath.Join(filepath.Dir(project), "trace.jsonl"), filepath.Join(filepath.Dir(project), "history.jsonl")
	chart, timeline, graphSVG := filepath.Join(dir, "chart.svg"), filepath.Join(dir, "timeline.svg"), filepath.Join(dir, "graph.svg")
	for _, c := range []struct {
		args []string
		code int
		want []string
		svg  string
	}{
		{[]string{"check", project}, 0, []string{`ok: hostile\x1b]0;pwned\x07\x1b[2J: model `, `configurations: x; touch pwned #, esc\x1b[31mred\u202e`}, ""},
		{[]string{"explore", project}, 0, []string{`hostile\x1b]0;pwned\x07\x1b[2J [x; touch pwned #]: 3 states`}, ""},
		{[]string{"explore", project, "--config", hostileEscConfig}, exitViolation, []string{`[esc\x1b[31mred\u202e]: 2 states`, "1 error state"}, ""},
		{[]string{"explore", project, "--config", hostileEscConfig, "--out", graphSVG}, exitViolation, []string{"1 error state"}, graphSVG},
		{[]string{"explore", project, "--format", "dot"}, 0, []string{"digraph modex", `hostile\x1b]0;pwned`}, ""},
		{[]string{"gen", project}, 0, []string{`"cases"`, `hostile\x1b]0;pwned\x07\x1b[2J [x; touch pwned #]: `}, ""},
		{[]string{"explore", project, "--config", "nope\x1b[2J\nrun 1/1 (seed 1): pass"}, 1, []string{`no configuration "nope\x1b[2J\nrun 1/1 (seed 1): pass"`}, ""},
		{[]string{"replay", project, trace, "--chart", chart}, 1, []string{
			`FAIL at event 3 (line 3): Pop(thread="t\u009b2J\x00", note="\x1b]0;pwned\a")`,
			`hostile\x1b]0;pwned\x07\x1b[2J [x; touch pwned #]: 1 trace: 0 pass, 1 fail`,
		}, chart},
		{[]string{"replay", project, history, "--timeline", timeline}, 1, []string{
			`FAIL at line 4: Pop() → 2 by process p\u202e2\nrun 1/1 (seed 1): pass (invoked at line 2) cannot be placed`,
		}, timeline},
		{[]string{"replay", project, trace, history}, 1, []string{"trace.jsonl", "history.jsonl", `line 4: Pop() → 2 cannot be placed`}, ""},
	} {
		out, errOut, code := printed(c.args...)
		what := "modex " + strings.Join(c.args[:1], " ")
		if code != c.code {
			t.Errorf("%q: exit %d, want %d\n%s%s", c.args, code, c.code, out, errOut)
		}
		checkPrinted(t, what, out+errOut)
		for _, want := range c.want {
			if !strings.Contains(out+errOut, want) {
				t.Errorf("%q: no %q in\n%s%s", c.args, want, out, errOut)
			}
		}
		if c.svg != "" {
			checkXML(t, c.svg)
		}
	}
	// A PNG written to standard output is its bytes, not escaped text.
	out, errOut, code := printed("explore", project, "--format", "png")
	if code != 0 || !strings.HasPrefix(out, "\x89PNG\r\n\x1a\n") {
		t.Errorf("png: exit %d, %q…\n%s", code, out[:min(len(out), 16)], errOut)
	}
}

// checkXML parses an SVG or a JUnit report with encoding/xml and checks
// that its text holds no control character but line breaks and tabs.
func checkXML(t *testing.T, path string) {
	t.Helper()
	d := xml.NewDecoder(bytes.NewReader(readFile(t, path)))
	var text strings.Builder
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("%s is not XML: %v", path, err)
		}
		if cd, ok := tok.(xml.CharData); ok {
			text.Write(cd)
		}
	}
	if loc := rawControl.FindStringIndex(text.String()); loc != nil {
		t.Errorf("%s draws %q raw", path, text.String()[loc[0]:loc[1]])
	}
}

// errorText escapes an error's text and indents its later lines: a
// model's message cannot drive the terminal or print a line of its own.
func TestErrorText(t *testing.T) {
	for _, c := range []struct {
		err  error
		want string
	}{
		{errors.New("plain"), "modex: plain"},
		{errors.New("init: fail: \x1b[2J\nok: all pass\r\n"), "modex: init: fail: \\x1b[2J\n  ok: all pass\\r"},
		{errors.New("starting the adapter: exited\nadapter stderr:\n\x1b]0;x\x07boom"), "modex: starting the adapter: exited\n  adapter stderr:\n  \\x1b]0;x\\x07boom"},
		{usagef("unknown command %s", "\x1b[2Jx\ny"), "modex: unknown command \\x1b[2Jx\\ny\nsee modex help"},
	} {
		if got := errorText(c.err); got != c.want {
			t.Errorf("errorText(%q) = %q, want %q", c.err, got, c.want)
		}
	}
}
