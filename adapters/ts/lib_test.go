package ts

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/modex/modex/internal/langtest"
)

// TestLibrary runs the library's own tests (node --test), which start
// adapters written with it as child processes and speak the protocol to them.
func TestLibrary(t *testing.T) {
	t.Parallel()
	node := langtest.Need(t, "node", "-e", nodeCheck)
	langtest.Watch(t, ".", "testdata")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "--test", "modex_adapter.test.js")
	cmd.WaitDelay = 5 * time.Second
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("node --test modex_adapter.test.js: %v\n%s", err, out)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	t.Log(strings.Join(lines[max(0, len(lines)-8):], "\n"))
}

// TestTypeScriptExample compiles example.ts with tsc (strict, against
// modex_adapter.d.ts: the typings must accept it and reject its wrong calls)
// and speaks the protocol to the compiled adapter. Without a tsc in
// .tools/node_modules/.bin (make deps installs it there) or on PATH, it is
// skipped.
func TestTypeScriptExample(t *testing.T) {
	t.Parallel()
	node := langtest.Need(t, "node", "-e", nodeCheck)
	tsc, err := filepath.Abs(filepath.Join(".tools", "node_modules", ".bin", "tsc"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(tsc); err != nil {
		if tsc, err = exec.LookPath("tsc"); err != nil {
			t.Skip("no tsc in .tools/node_modules/.bin or on PATH (make deps installs one): example.ts is not checked")
		}
	}
	dir := t.TempDir()
	for _, f := range []string{"example.ts", "modex_adapter.d.ts", "modex_adapter.js"} {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, to := range []string{dir, filepath.Join(dir, "out")} {
			if err := os.MkdirAll(to, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(to, f), data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	compile := exec.CommandContext(ctx, tsc, "--strict", "--noEmitOnError", "--target", "es2020",
		"--module", "commonjs", "--lib", "es2020", "--outDir", "out", "example.ts")
	compile.Dir = dir
	if out, err := compile.CombinedOutput(); err != nil {
		t.Fatalf("tsc example.ts: %v\n%s", err, out)
	}
	talk(t, exec.CommandContext(ctx, node, filepath.Join(dir, "out", "example.js")), exampleExchange)
}

// exampleExchange is what Modex sends the compiled example.ts, each request
// followed by the lines it must answer, in order.
var exampleExchange = []struct{ send, want string }{
	{`{"type":"hello","id":1,"protocol":"modex-adapter/1","model":"stack","actions":["Push","Pop","Peek","Size"]}`,
		`{"type":"hello","id":1,"protocol":"modex-adapter/1","name":"stack (ts)","features":["coverage"],"unimplemented":["Size"]}`},
	{`{"type":"reset","id":2}`, `{"type":"ok","id":2}`},
	{`{"type":"invoke","id":3,"action":"Push","args":[2]}`, `{"type":"result","id":3,"output":null}`},
	{`{"type":"invoke","id":4,"action":"Push","args":[1]}`, `{"type":"result","id":4,"output":null}`},
	{`{"type":"invoke","id":5,"action":"Contents","args":[]}`, `{"type":"result","id":5,"output":{"set":[1,2]}}`},
	{`{"type":"invoke","id":6,"action":"Pop","args":[]}`,
		`{"type":"event","action":"Popped","args":[1,{"set":[2]}]}` + "\n" + `{"type":"result","id":6,"output":1}`},
	{`{"type":"invoke","id":7,"action":"Label","args":[{"dict":[["a",1]]},{"bytes":"héllo"}]}`,
		`{"type":"result","id":7,"output":[1,6]}`},
	{`{"type":"invoke","id":8,"action":"Peek","args":[]}`, `{"type":"unimplemented","id":8,"reason":"Peek comes later"}`},
	{`{"type":"reset","id":9}`, `{"type":"ok","id":9}`},
	{`{"type":"invoke","id":10,"action":"Pop","args":[]}`, `{"type":"refused","id":10,"reason":"the stack is empty"}`},
	{`{"type":"shutdown"}`, ``},
}

// talk starts cmd, sends it the requests of exchange and compares its
// answers (as JSON values), then expects it to exit with status 0.
func talk(t *testing.T, cmd *exec.Cmd, exchange []struct{ send, want string }) {
	t.Helper()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	cmd.WaitDelay = 5 * time.Second
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	outPipe, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	lines := make(chan string)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(outPipe)
		for sc.Scan() {
			lines <- sc.Text()
		}
		io.Copy(io.Discard, outPipe)
	}()
	for _, step := range exchange {
		if _, err := io.WriteString(in, step.send+"\n"); err != nil {
			t.Fatalf("sending %s: %v", step.send, err)
		}
		for _, want := range strings.Split(step.want, "\n") {
			if want == "" {
				continue
			}
			select {
			case got, ok := <-lines:
				if !ok || !sameJSON(got, want) {
					t.Fatalf("after %s\n got: %s\nwant: %s\nstderr: %s", step.send, got, want, &stderr)
				}
			case <-time.After(10 * time.Second):
				t.Fatalf("after %s: no answer within 10 s\nstderr: %s", step.send, &stderr)
			}
		}
	}
	if extra, ok := <-lines; ok {
		t.Fatalf("more on stdout after shutdown: %s", extra)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("the adapter ended with %v after shutdown\nstderr: %s", err, &stderr)
	}
}

func sameJSON(a, b string) bool {
	var x, y any
	return json.Unmarshal([]byte(a), &x) == nil && json.Unmarshal([]byte(b), &y) == nil && reflect.DeepEqual(x, y)
}

// nodeCheck refuses a Node older than 18.
const nodeCheck = `const v = process.versions.node; if (+v.split(".")[0] < 18) { console.log("Node 18+ needed, not " + v); process.exit(1); }`
