//go:build linux

package testview

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modex/modex/engine/conform"
)

// childRunning is the id of this process's child that runs the program at
// path, 0 when there is none.
func childRunning(path string) int {
	// Each thread's children: a Go process forks from any of them.
	files, _ := filepath.Glob("/proc/" + strconv.Itoa(os.Getpid()) + "/task/*/children")
	for _, file := range files {
		data, _ := os.ReadFile(file)
		for _, f := range strings.Fields(string(data)) {
			cmdline, _ := os.ReadFile("/proc/" + f + "/cmdline")
			if args := strings.Split(string(cmdline), "\x00"); args[0] == path {
				pid, _ := strconv.Atoi(f)
				return pid
			}
		}
	}
	return 0
}

// The chat server's adapter killed by SIGKILL in the middle of a long test
// in the Test tab: the headline, and the status line under the window,
// say first that the test stopped at that run, the implementation killed
// by signal SIGKILL.
func TestTestHeadlineNamesAKill(t *testing.T) {
	bin := buildChat(t)
	b := newDash(t, "../../projects/chat/chat.toml", "hi_bye")
	tv := b.tv
	tv.adapter.SetText(bin + " adapter --fixed")
	tv.runs.SetText("100000")
	tv.steps.SetText("10")
	killed := make(chan bool, 1)
	go func() {
		deadline := time.Now().Add(time.Minute)
		for time.Now().Before(deadline) {
			if pid := childRunning(bin); pid > 0 {
				time.Sleep(500 * time.Millisecond) // some runs first
				killed <- syscall.Kill(pid, syscall.SIGKILL) == nil
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
		killed <- false
	}()
	res := startAndWait(t, tv)
	if !<-killed {
		t.Fatal("the adapter was not killed")
	}
	if res == nil || res.Halt == nil {
		t.Fatalf("the test went on: %+v", res)
	}
	want := "Stopped at run " + strconv.Itoa(res.Halt.Run) + " of 100000: the implementation was killed by signal SIGKILL"
	if got := tv.verdicts.Text; !strings.HasPrefix(got, want) {
		t.Errorf("headline %q, want %q…", got, want)
	}
	if got := b.status; !strings.HasPrefix(got, want) {
		t.Errorf("status %q, want %q…", got, want)
	}
	t.Log(tv.verdicts.Text)
}

// A test that a crash stopped says how the implementation ended before its
// counts; one that ended with its last planned run says that run ended so.
func TestTestHeadlineNamesACrash(t *testing.T) {
	f := &conform.Failure{Kind: conform.FailCrash, Step: 4, Message: "Pop(): the implementation exited with status 3; its last output on stderr:\npanic: boom",
		Crash: &conform.Crash{Status: 3, Stderr: "listening\npanic: boom"}}
	res := &conform.TestResult{Runs: []conform.RunResult{{Run: 1, Verdict: conform.Pass}, {Run: 2, Seed: 8, Verdict: conform.Fail, Failure: f}}, Halt: &conform.Halt{Run: 2, Failure: f}}
	got := testHeadline(res, conform.ModelSize{}, false, 20)
	if !strings.HasPrefix(got, "Stopped at run 2 of 20: the implementation exited with status 3 (its stderr ends: listening | panic: boom): 1 pass, 1 fail") ||
		!strings.Contains(got, "\nrun 2 (seed 8): the implementation crashed at step 4: the implementation exited with status 3.\nits standard error ended with: listening | panic: boom") {
		t.Errorf("%s", got)
	}
	if got := testHeadline(res, conform.ModelSize{}, false, 2); !strings.HasPrefix(got, "2 runs, the last ended when the implementation exited with status 3") {
		t.Errorf("%s", got)
	}
}
