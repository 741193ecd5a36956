package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/modex/modex/internal/langtest"
	"github.com/modex/modex/projects"
)

// stackImpl is, per language, the code a user writes into the stack
// skeleton's stubs: a real stack (the system under test is the
// adapter's own list), by TODO marker.
var stackImpl = map[string]map[string]string{
	"python": {
		"TODO(reset)":           "    stack.clear()",
		"TODO(Push)":            "    stack.append(x)",
		"TODO(Pop)":             "    return stack.pop()",
		"adapter = mx.Adapter(": "stack = []\nadapter = mx.Adapter(",
	},
	"go": {
		"TODO(reset)":        "\tstack = nil\n\treturn nil",
		"TODO(Push)":         "\tstack = append(stack, x)\n\treturn nil, nil",
		"TODO(Pop)":          "\ttop := stack[len(stack)-1]\n\tstack = stack[:len(stack)-1]\n\treturn top, nil",
		"var adapter = New(": "var stack []int\n\nvar adapter = New(",
	},
	"ts": {
		"TODO(reset)":                  "  stack.length = 0;",
		"TODO(Push)":                   "  stack.push(x);",
		"TODO(Pop)":                    "  return stack.pop();",
		"const adapter = new Adapter(": "const stack: number[] = [];\nconst adapter = new Adapter(",
	},
	"js": {
		"TODO(reset)":                  "  stack.length = 0;",
		"TODO(Push)":                   "  stack.push(x);",
		"TODO(Pop)":                    "  return stack.pop();",
		"const adapter = new Adapter(": "const stack = [];\nconst adapter = new Adapter(",
	},
}

// fillIn replaces each line holding a marker by the code for it (the
// declarations' markers are prefixes, kept in place).
func fillIn(t *testing.T, src string, impl map[string]string, leave string) string {
	t.Helper()
	if len(impl) == 0 {
		t.Fatal("no code to fill in")
	}
	lines := strings.Split(src, "\n")
	for marker, code := range impl {
		if marker == "TODO("+leave+")" {
			continue
		}
		found := false
		for i, l := range lines {
			if !strings.Contains(l, marker) {
				continue
			}
			found = true
			if strings.HasPrefix(marker, "TODO(") {
				lines[i] = code
			} else {
				lines[i] = strings.Replace(l, marker, code, 1)
			}
		}
		if !found {
			t.Fatalf("the skeleton has no %q", marker)
		}
	}
	return strings.Join(lines, "\n")
}

// For each language: modex adapter new writes a skeleton for the stack
// sample; with its stubs filled in it passes modex adapter check and modex
// test; with Pop left unimplemented it tests the rest and says Pop was
// skipped.
func TestAdapterSkeletons(t *testing.T) {
	for _, tc := range []struct{ lang, tool, file string }{
		{"python", "python3", "adapter.py"},
		{"go", "go", "adapter.go"},
		{"js", "node", "adapter.js"},
		{"ts", "node", "adapter.ts"},
	} {
		t.Run(tc.lang, func(t *testing.T) {
			langtest.Need(t, tc.tool)
			project, err := projects.ExtractSample("stack", t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			out, errOut, code := cli("adapter", "new", "--lang", tc.lang, project)
			if code != 0 {
				t.Fatalf("adapter new: %s%s", out, errOut)
			}
			dir := filepath.Join(filepath.Dir(project), "adapter-"+tc.lang)
			entry := out[strings.Index(out, "[adapter]"):]
			entry = entry[:strings.Index(entry, "]\n\n")+2]
			appendFile(t, project, "\n"+entry)
			skeleton := string(readFile(t, filepath.Join(dir, tc.file)))
			for _, want := range []string{"Push", "Pop", "TODO(Push)", "TODO(Pop)", "def Push(s, x):", "stack.star:8"} {
				if !strings.Contains(skeleton, want) {
					t.Errorf("the skeleton lacks %q", want)
				}
			}

			// Pop left unimplemented: tested without it. Pop is the stack's
			// only way back to its accepting (empty) state, so the runs end
			// inconclusive, never failed, saying why.
			tsc := ""
			if tc.lang == "ts" {
				tsc = findTSC(t)
			}
			write := func(src string) {
				writeFile(t, filepath.Join(dir, tc.file), src)
				if tsc != "" { // compiled as the skeleton says: tsc -p adapter-ts/tsconfig.json
					if msg, err := exec.Command(tsc, "-p", filepath.Join(dir, "tsconfig.json")).CombinedOutput(); err != nil {
						t.Fatalf("tsc: %v\n%s", err, msg)
					}
				}
			}
			if tsc != "" {
				write(skeleton) // the skeleton as written compiles
			}
			write(fillIn(t, skeleton, stackImpl[tc.lang], "Pop"))
			out, errOut, _ = cli("test", project, "--runs", "5", "--seed", "1")
			if !strings.Contains(out, "0 fail, 5 inconclusive") || !strings.Contains(out, "1 action not implemented: skipped (Pop)") ||
				!strings.Contains(out, "could not end in an accepting state without Pop, which the adapter does not implement") {
				t.Fatalf("modex test with Pop left out:\n%s%s", out, errOut)
			}
			out, errOut, code = cli("adapter", "check", project)
			if code != 0 || !strings.Contains(out, "Push  ok") || !strings.Contains(out, "Pop   not implemented") {
				t.Fatalf("modex adapter check with Pop left out: exit %d\n%s%s", code, out, errOut)
			}

			// All filled in.
			write(fillIn(t, skeleton, stackImpl[tc.lang], ""))
			out, errOut, code = cli("adapter", "check", project)
			if code != 0 || !strings.Contains(out, "2 of 2 actions ok") || !strings.Contains(out, "no protocol violation") {
				t.Fatalf("modex adapter check: exit %d\n%s%s", code, out, errOut)
			}
			out, errOut, code = cli("test", project, "--runs", "5", "--seed", "1")
			if code != 0 || !strings.Contains(out, "5 pass, 0 fail") || strings.Contains(out, "not implemented") {
				t.Fatalf("modex test: exit %d\n%s%s", code, out, errOut)
			}

			// A wrong Pop is found by both.
			wrong := stackImpl[tc.lang]
			bad := map[string]string{}
			for k, v := range wrong {
				bad[k] = v
			}
			bad["TODO(Pop)"] = map[string]string{"python": "    return 7", "go": "\treturn 7, nil", "js": "  return 7;", "ts": "  return 7;"}[tc.lang]
			write(fillIn(t, skeleton, bad, ""))
			out, errOut, code = cli("adapter", "check", project)
			if code != 1 || !strings.Contains(out, "Pop   FAILED (after Push(1)): output-mismatch") {
				t.Fatalf("modex adapter check of a wrong Pop: exit %d\n%s%s", code, out, errOut)
			}
		})
	}
}

// findTSC is the TypeScript compiler make deps installs (or one on PATH);
// without one the test skips.
func findTSC(t *testing.T) string {
	t.Helper()
	tsc, err := filepath.Abs("../adapters/ts/.tools/node_modules/.bin/tsc")
	if err == nil {
		if _, err = os.Stat(tsc); err == nil {
			return tsc
		}
	}
	if tsc, err = exec.LookPath("tsc"); err == nil {
		return tsc
	}
	t.Skip("no tsc in adapters/ts/.tools or on PATH (make deps installs one with npm): the TypeScript skeleton is not run")
	return ""
}

func appendFile(t *testing.T, path, text string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(text); err != nil {
		t.Fatal(err)
	}
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// modex adapter check names what a broken adapter does: a line that is
// not the protocol (the fake writes "this is not JSON" on standard
// output), and the actions it could not check after that; exit 1.
func TestAdapterCheckProtocolViolation(t *testing.T) {
	bin := fakeAdapter(t)
	for _, tc := range []struct {
		mode string
		code int
		want []string
	}{
		{"good", 0, []string{"Push  ok", "Pop   ok (after Push(1))", "2 of 2 actions ok", "no protocol violation", "round trips: "}},
		{"garbage-after 1", 1, []string{"Push  ok: then the run failed", "Pop   not checked: the implementation is unusable",
			"FAILED after Push: protocol at step 2: Pop(): line 4 from the implementation is not a JSON object: \"this is not JSON\"",
			"the implementation became unusable: protocol"}},
		{"wrong-pop", 1, []string{"Pop   FAILED (after Push(1)): output-mismatch at step 2: Pop() returned 42"}},
		{"no-push-hello", 0, []string{"not implemented, said in the handshake: Push", "Push  not implemented: said at start",
			"Pop   not reached (after Push(1)): step 1 of its path, Push(1), is an action the adapter does not implement"}},
	} {
		out, errOut, code := cli("adapter", "check", "../projects/stack/stack.toml", "--adapter", bin+" "+tc.mode)
		for _, w := range tc.want {
			if !strings.Contains(out, w) {
				t.Errorf("%s: the report lacks %q:\n%s%s", tc.mode, w, out, errOut)
			}
		}
		if code != tc.code {
			t.Errorf("%s: exit %d, want %d:\n%s%s", tc.mode, code, tc.code, out, errOut)
		}
	}
}

// fakeAdapter is engine/adapter's misbehaving test adapter, built once for
// the tests of this package.
func fakeAdapter(t *testing.T) string {
	t.Helper()
	fakeOnce.Do(func() {
		dir, err := os.MkdirTemp("", "modex-app-fake")
		if err != nil {
			fakeErr = err
			return
		}
		fakeBin = filepath.Join(dir, "fakeadapter")
		if msg, err := exec.Command("go", "build", "-o", fakeBin, "../engine/adapter/testdata/fakeadapter").CombinedOutput(); err != nil {
			fakeErr = fmt.Errorf("%v\n%s", err, msg)
		}
	})
	if fakeErr != nil {
		t.Fatal(fakeErr)
	}
	return fakeBin
}

var (
	fakeOnce sync.Once
	fakeBin  string
	fakeErr  error
)
