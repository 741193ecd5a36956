//go:build unix

package adapter_test

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/modex/modex/engine/adapter"
	"github.com/modex/modex/engine/conform"
)

// An implementation killed by a signal in the middle of a long test — the
// process Modex started, or the child of a launcher (go run) — ends the
// run in progress with a crash that names the signal and carries the end
// of its stderr, at once (not after a timeout), and stops the test there,
// its headline saying so.
func TestKilledImplementation(t *testing.T) {
	bin := buildTool(t, "./testdata/fakeadapter")
	m, cfg := stackModelForTest(t)
	for _, tc := range []struct {
		name     string
		command  []string // PIDFILE stands for the file the adapter writes its pid to
		sig      syscall.Signal
		want     string // Crash.Signal
		launcher int
	}{
		{"SIGKILL", []string{bin, "noisy", "PIDFILE"}, syscall.SIGKILL, "SIGKILL", 0},
		{"SIGTERM", []string{bin, "noisy", "PIDFILE"}, syscall.SIGTERM, "SIGTERM", 0},
		{"go run, SIGKILL", []string{"go", "run", "./testdata/fakeadapter", "noisy", "PIDFILE"}, syscall.SIGKILL, "SIGKILL", 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.launcher > 0 && testing.Short() {
				t.Skip("go run builds the adapter")
			}
			pidfile := filepath.Join(t.TempDir(), "pid")
			command := append([]string(nil), tc.command...)
			command[len(command)-1] = pidfile
			// A long timeout: go run builds first, and a crash must not
			// wait for it.
			impl, err := adapter.StartProcess(context.Background(), adapter.Hello{Model: "stack"}, command, ".", time.Minute)
			if err != nil {
				t.Fatal(err)
			}
			defer impl.Close()
			var steps atomic.Int64
			var killed time.Time
			const runs = 1_000_000
			res, err := conform.Test(context.Background(), m, cfg, impl, conform.TestConfig{Runs: runs, Steps: 20, Seed: 1, OnStep: func(conform.StepRecord) {
				if steps.Add(1) != 500 {
					return
				}
				data, err := os.ReadFile(pidfile)
				pid, _ := strconv.Atoi(string(data))
				if err != nil || pid <= 0 {
					t.Errorf("no pid: %q, %v", data, err)
					return
				}
				killed = time.Now()
				if err := syscall.Kill(pid, tc.sig); err != nil {
					t.Error(err)
				}
			}})
			if err != nil {
				t.Fatal(err)
			}
			if killed.IsZero() {
				t.Fatalf("the test ended before the kill: %d runs", len(res.Runs))
			}
			if d := time.Since(killed); d > 10*time.Second {
				t.Errorf("the crash was seen %s after the kill", d)
			}
			last := res.Runs[len(res.Runs)-1]
			f := last.Failure
			if f == nil || f.Kind != conform.FailCrash || f.Crash == nil {
				t.Fatalf("the last run, %d: %s, %+v", last.Run, last.Verdict, f)
			}
			c := f.Crash
			if c.Signal != tc.want || c.Launcher != tc.launcher || len(c.Stderr) > conform.MaxStderrTail {
				t.Errorf("crash %+v", c)
			}
			// Its stderr's end: the fake's resets, the last one this run's
			// or, killed before this run's reset, the run before's (go
			// run's report of the kill after it).
			reset := "reset " + strconv.Itoa(last.Run-1)
			if !strings.Contains(c.Stderr, reset) || !strings.Contains(f.Message, "killed by signal "+tc.want+"") || !strings.Contains(f.Message, "; its last output on stderr:\n") {
				t.Errorf("message %q, stderr %q", f.Message, c.Stderr)
			}
			if res.Halt == nil || res.Halt.Run != last.Run || len(res.Runs) >= runs {
				t.Fatalf("the test went on: halt %+v, %d runs", res.Halt, len(res.Runs))
			}
			headline := res.Halt.Stopped(runs, "run")
			want := "stopped at run " + strconv.Itoa(last.Run) + " of 1000000: the implementation was killed by signal " + tc.want
			if !strings.HasPrefix(headline, want) || !strings.Contains(headline, "(its stderr ends: ") || !strings.Contains(headline, reset) {
				t.Errorf("headline %q, want %q… with its stderr", headline, want)
			}
			t.Log(headline)
			if tc.launcher > 0 && !strings.Contains(headline, "as its launcher reported, exiting with status 1") {
				t.Errorf("headline %q: no word of the launcher", headline)
			}
			if rep := conform.FailureReport(last, "  "); !strings.Contains(rep, "killed by signal "+tc.want) {
				t.Errorf("report:\n%s", rep)
			}
		})
	}
}
