package adapter_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/modex/modex/engine/adapter"
	"github.com/modex/modex/engine/conform"
	"github.com/modex/modex/engine/explore"
	"github.com/modex/modex/engine/internal/enginetest"
	"github.com/modex/modex/engine/model"
)

// buildTool builds a Go program into a temporary folder once per test binary.
func buildTool(t testing.TB, pkg string) string {
	t.Helper()
	dir := filepath.Join(os.TempDir(), "modex-test-tools")
	os.MkdirAll(dir, 0o755)
	out := filepath.Join(dir, filepath.Base(pkg))
	cmd := exec.Command("go", "build", "-o", out, pkg)
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building %s: %v\n%s", pkg, err, msg)
	}
	return out
}

// Every way a child-process implementation can fail ends the run with a
// verdict of the right kind within the timeout, and the child is cleaned up.
func TestAdapterFailures(t *testing.T) {
	bin := buildTool(t, "./testdata/fakeadapter")
	m, cfg := stackModelForTest(t)
	for _, tc := range []struct {
		args []string
		kind conform.FailureKind
		msg  string
	}{
		{[]string{"good"}, "", ""},
		{[]string{"crash-after", "5"}, conform.FailCrash, "the fake implementation crashed"},
		{[]string{"hang-after", "5"}, conform.FailTimeout, "no answer to invoke within 500ms"},
		{[]string{"garbage-after", "5"}, conform.FailProtocol, "not a JSON object"},
		{[]string{"stray-answer", "5"}, conform.FailProtocol, "answers no pending request"},
		{[]string{"refuse-push"}, conform.FailRefused, "refused Push"},
		{[]string{"wrong-pop"}, conform.FailOutput, "returned 42"},
		// Misbehaviours named for what they are.
		{[]string{"close-stdout-after", "5"}, conform.FailProtocol, "closed its output but is still running"},
		{[]string{"long-line-after", "5"}, conform.FailProtocol, "is longer than 16 MiB"},
		{[]string{"flood-after", "5"}, conform.FailProtocol, "more than 100000 events that were not read yet"},
		{[]string{"big-events-after", "5"}, conform.FailProtocol, "more than 64 MiB of events that were not read yet"},
		// A grandchild that escaped the process group with our stderr does
		// not keep the run (or Close) waiting.
		{[]string{"escape"}, "", ""},
	} {
		t.Run(tc.args[0], func(t *testing.T) {
			start := time.Now()
			timeout := 500 * time.Millisecond // short, for the hang
			if tc.args[0] == "long-line-after" || tc.args[0] == "close-stdout-after" || tc.args[0] == "flood-after" || tc.args[0] == "big-events-after" {
				timeout = 10 * time.Second // reading 17 MiB or 100,000 events, seeing it still runs
			}
			impl, err := adapter.StartProcess(context.Background(), adapter.Hello{Model: "stack"}, append([]string{bin}, tc.args...), ".", timeout)
			if err != nil {
				t.Fatal(err)
			}
			res, err := conform.Test(context.Background(), m, cfg, impl, conform.TestConfig{Runs: 3, Steps: 30, Seed: 2})
			impl.Close()
			if err != nil {
				t.Fatal(err)
			}
			if time.Since(start) > 20*time.Second {
				t.Errorf("took %s", time.Since(start))
			}
			last := res.Runs[len(res.Runs)-1]
			if tc.kind == "" {
				if !res.Passed() {
					t.Fatalf("a good implementation failed: %+v", last.Failure)
				}
				return
			}
			if last.Failure == nil || last.Failure.Kind != tc.kind || !strings.Contains(last.Failure.Message, tc.msg) {
				t.Fatalf("want %s mentioning %q, got %+v", tc.kind, tc.msg, last.Failure)
			}
			if tc.kind.Fatal() != (res.Halt != nil) || res.Halt != nil && (res.Halt.Run != last.Run || res.Halt.Failure != last.Failure) {
				t.Errorf("a %s stops the test: halt %+v, last run %d", tc.kind, res.Halt, last.Run)
			}
			if tc.args[0] != "crash-after" {
				return
			}
			// A plain exit: its status and its stderr, in the failure and
			// in the headline of the test it stopped.
			c := last.Failure.Crash
			if c == nil || c.Signal != "" || c.Status != 3 || c.Launcher != 0 || c.Stderr != "panic: the fake implementation crashed" {
				t.Fatalf("crash %+v", c)
			}
			if !strings.Contains(last.Failure.Message, "the implementation exited with status 3; its last output on stderr:\npanic: the fake implementation crashed") {
				t.Errorf("message %q", last.Failure.Message)
			}
			if got, want := res.Halt.Stopped(3, "run"), "stopped at run 1 of 3: the implementation exited with status 3 (its stderr ends: panic: the fake implementation crashed)"; got != want {
				t.Errorf("headline %q, want %q", got, want)
			}
		})
	}
}

func TestAdapterHandshake(t *testing.T) {
	bin := buildTool(t, "./testdata/fakeadapter")
	_, err := adapter.StartProcess(context.Background(), adapter.Hello{Model: "stack"}, []string{bin, "bad-hello"}, ".", time.Second)
	if err == nil || !strings.Contains(err.Error(), "speaks \"something-else/9\"") {
		t.Errorf("bad handshake: %v", err)
	}
	_, err = adapter.StartProcess(context.Background(), adapter.Hello{Model: "stack"}, []string{"/no/such/adapter"}, ".", time.Second)
	if err == nil || !strings.Contains(err.Error(), "starting the adapter") {
		t.Errorf("missing adapter: %v", err)
	}
	// A silent program that never answers the handshake.
	start := time.Now()
	_, err = adapter.StartProcess(context.Background(), adapter.Hello{Model: "stack"}, []string{"sleep", "30"}, ".", 300*time.Millisecond)
	if err == nil || !strings.Contains(err.Error(), "timeout") || time.Since(start) > 5*time.Second {
		t.Errorf("silent adapter: %v after %s", err, time.Since(start))
	}
}

// BenchmarkOnlineChildProcess measures test steps per second against an
// adapter in a child process, over its standard input and output.
func BenchmarkOnlineChildProcess(b *testing.B) {
	bin := buildTool(b, "./testdata/fakeadapter")
	m, cfg := stackModelForTest(b)
	impl, err := adapter.StartProcess(context.Background(), adapter.Hello{Model: "stack"}, []string{bin, "good"}, ".", 5*time.Second)
	if err != nil {
		b.Fatal(err)
	}
	defer impl.Close()
	enginetest.BenchOnline(b, m, cfg, impl)
}

// The trivial adapter of the speed benchmark is a correct stack: online
// testing passes against it.
func TestTrivialAdapterConforms(t *testing.T) {
	bin := buildTool(t, "./testdata/trivialadapter")
	m, cfg := stackModelForTest(t)
	impl, err := adapter.StartProcess(context.Background(), adapter.Hello{Model: "stack"}, []string{bin}, ".", 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer impl.Close()
	res, err := conform.Test(context.Background(), m, cfg, impl, conform.TestConfig{Runs: 5, Steps: 200, Seed: 3})
	if err != nil || !res.Passed() || res.Steps < 1000 {
		t.Fatalf("%v: %+v", err, res.Runs)
	}
}

// BenchmarkOnlineTrivialAdapter is BenchmarkOnlineChildProcess against
// the smallest correct adapter (testdata/trivialadapter: a struct decoded,
// answers written by hand): Modex's and the pipe's share of a step. Run it
// with -cpu 1, as modex test runs (docs/performance.md).
func BenchmarkOnlineTrivialAdapter(b *testing.B) {
	benchTrivial(b, false)
}

// BenchmarkOnlineTrivialAdapterOneCPU is the same with the benchmark and
// the adapter on one CPU (modex test --one-cpu).
func BenchmarkOnlineTrivialAdapterOneCPU(b *testing.B) {
	benchTrivial(b, true)
}

func benchTrivial(b *testing.B, oneCPU bool) {
	if oneCPU {
		restore, err := adapter.ShareOneCPU()
		if err != nil {
			b.Skip(err)
		}
		defer restore()
	}
	bin := buildTool(b, "./testdata/trivialadapter")
	m, cfg := stackModelForTest(b)
	impl, err := adapter.StartProcess(context.Background(), adapter.Hello{Model: "stack"}, []string{bin}, ".", 5*time.Second)
	if err != nil {
		b.Fatal(err)
	}
	defer impl.Close()
	enginetest.BenchOnline(b, m, cfg, impl)
}

func stackModelForTest(t testing.TB) (*model.StarModel, *explore.Config) {
	t.Helper()
	return enginetest.StackModel(t)
}

// An implementation that stops reading its input, sent a request larger
// than the pipe's buffer: the write is bounded by the timeout and by a
// cancel, never blocking for ever; one that closed its input is said to
// have; an answer with a fractional id answers no request.
func TestAdapterWrites(t *testing.T) {
	bin := buildTool(t, "./testdata/fakeadapter")
	big := strings.Repeat("x", 1<<20)
	for _, tc := range []struct {
		mode    string
		cancel  bool
		kind    conform.FailureKind
		message string
	}{
		{"deaf-after", false, conform.FailTimeout, "did not read its input within 500ms"},
		{"deaf-after", true, "", "context canceled"},
		{"close-stdin-after", false, conform.FailCrash, "closed its input"},
		{"fractional-id", false, conform.FailProtocol, "answers no pending request"},
	} {
		impl, err := adapter.StartProcess(context.Background(), adapter.Hello{Model: "stack"}, []string{bin, tc.mode, "0"}, ".", 500*time.Millisecond)
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		if tc.cancel {
			time.AfterFunc(100*time.Millisecond, cancel)
		}
		start := time.Now()
		var err2 error
		for i := 0; i < 3 && err2 == nil; i++ { // closing stdin may take a request to be seen
			_, err2 = impl.Invoke(ctx, "Push", []any{big})
		}
		took := time.Since(start)
		cancel()
		impl.Close()
		var ie *conform.ImplError
		switch {
		case err2 == nil:
			t.Errorf("%s: no error", tc.mode)
		case tc.kind == "" && !strings.Contains(err2.Error(), tc.message):
			t.Errorf("%s, cancelled: %v", tc.mode, err2)
		case tc.kind != "" && (!errors.As(err2, &ie) || ie.Kind != tc.kind || !strings.Contains(ie.Msg, tc.message)):
			t.Errorf("%s: %v", tc.mode, err2)
		}
		if took > 5*time.Second {
			t.Errorf("%s: the write took %s", tc.mode, took)
		}
	}
}

// BenchmarkAdapterRoundTrip measures one request and its answer over a
// child process's standard input and output (the floor under a test step):
// 53-59 µs on two cores, 20-27 µs with GOMAXPROCS=1 (docs/performance.md).
func BenchmarkAdapterRoundTrip(b *testing.B) {
	bin := buildTool(b, "./testdata/fakeadapter")
	impl, err := adapter.StartProcess(context.Background(), adapter.Hello{Model: "stack"}, []string{bin, "good"}, ".", 5*time.Second)
	if err != nil {
		b.Fatal(err)
	}
	defer impl.Close()
	ctx := context.Background()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		action, args := "Push", []any{1.0}
		if i%2 == 1 {
			action, args = "Pop", nil
		}
		if _, err := impl.Invoke(ctx, action, args); err != nil {
			b.Fatal(err)
		}
	}
}

// ShareOneCPU puts every thread of this process, and a child started
// after it, on one CPU; its restore gives the threads their CPUs back.
func TestShareOneCPU(t *testing.T) {
	if runtime.GOOS != "linux" {
		if _, err := adapter.ShareOneCPU(); err == nil {
			t.Fatal("no error where it is not supported")
		}
		return
	}
	before := threadCPUs(t)
	restore, err := adapter.ShareOneCPU()
	if err != nil {
		t.Fatal(err)
	}
	pinned := threadCPUs(t)
	out, err := exec.Command("grep", "Cpus_allowed_list", "/proc/self/status").Output()
	restore()
	after := threadCPUs(t)
	if err != nil {
		t.Fatal(err)
	}
	if len(pinned) != 1 {
		t.Errorf("pinned threads on %v", pinned)
	}
	for cpus := range pinned {
		if child := strings.TrimSpace(strings.TrimPrefix(string(out), "Cpus_allowed_list:")); child != cpus || strings.ContainsAny(cpus, ",-") {
			t.Errorf("the threads on %q, the child on %q", cpus, child)
		}
	}
	if fmt.Sprint(after) != fmt.Sprint(before) {
		t.Errorf("before %v, after restoring %v", before, after)
	}
}

// threadCPUs is the CPU lists this process's threads may run on.
func threadCPUs(t *testing.T) map[string]bool {
	t.Helper()
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		t.Fatal(err)
	}
	sets := map[string]bool{}
	for _, task := range tasks {
		data, err := os.ReadFile(filepath.Join("/proc/self/task", task.Name(), "status"))
		if err != nil {
			continue // the thread ended
		}
		for _, l := range strings.Split(string(data), "\n") {
			if v, ok := strings.CutPrefix(l, "Cpus_allowed_list:"); ok {
				sets[strings.TrimSpace(v)] = true
			}
		}
	}
	return sets
}
