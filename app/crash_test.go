//go:build unix

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// killWhenStarted kills, with sig, the process whose id pid finds, once it
// has been found for a while (the test runs); it returns what waits for
// the kill and reports whether it was sent.
func killWhenStarted(t *testing.T, pid func() int, sig syscall.Signal) func() bool {
	t.Helper()
	done := make(chan bool, 1)
	go func() {
		deadline := time.Now().Add(2 * time.Minute)
		for time.Now().Before(deadline) {
			if p := pid(); p > 0 {
				time.Sleep(500 * time.Millisecond) // some runs first
				done <- syscall.Kill(p, sig) == nil
				return
			}
			time.Sleep(20 * time.Millisecond)
		}
		done <- false
	}()
	return func() bool { return <-done }
}

// summaryLine is the line of a test's output that starts with prefix.
func summaryLine(out, prefix string) string {
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, prefix) {
			return l
		}
	}
	return ""
}

// modex test against an adapter killed by SIGKILL in the middle of a long
// test: the summary says the test stopped at that run, the implementation
// killed by signal SIGKILL, with its stderr's end; the run says so too; the
// exit code is a failure's (1), its error saying why.
func TestKilledAdapterSummary(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "fakeadapter")
	if msg, err := exec.Command("go", "build", "-o", bin, "../engine/adapter/testdata/fakeadapter").CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, msg)
	}
	pidfile := filepath.Join(dir, "pid")
	wait := killWhenStarted(t, func() int {
		data, _ := os.ReadFile(pidfile)
		pid, _ := strconv.Atoi(string(data))
		return pid
	}, syscall.SIGKILL)
	out, errOut, code := cli("test", "../projects/stack/stack.toml", "--adapter", bin+" noisy "+pidfile, "--runs", "1000000", "--steps", "20", "--seed", "5", "--save-failures", dir)
	if !wait() {
		t.Fatalf("not killed: exit %d\n%s", code, errOut)
	}
	re := regexp.MustCompile(`^stack \[all\]: stopped at run ([0-9]+) of 1000000: the implementation was killed by signal SIGKILL \(its stderr ends: reset [0-9]+ \| reset [0-9]+ \| reset ([0-9]+)\): ([0-9]+) pass, 1 fail, 0 inconclusive; `)
	line := summaryLine(out, "stack [all]: ")
	t.Log(line)
	m := re.FindStringSubmatch(line)
	if m == nil {
		t.Fatalf("summary %q\n%.2000s", line, out[max(0, len(out)-2000):])
	}
	// The last reset on its stderr is the killed run's, or the one
	// before when the kill came before the killed run's reset.
	if n, _ := strconv.Atoi(m[1]); m[2] != m[1] && m[2] != strconv.Itoa(n-1) || m[3] != strconv.Itoa(n-1) {
		t.Errorf("killed in run %s, its last reset %s, %s runs passed", m[1], m[2], m[3])
	}
	if code != 1 || !strings.Contains(errOut, "1 of "+m[1]+" runs failed; the test stopped at run "+m[1]+" of 1000000: the implementation was killed by signal SIGKILL") {
		t.Errorf("exit %d, %q", code, errOut)
	}
	if !strings.Contains(out, "  FAIL crash at step ") || !strings.Contains(out, "the implementation was killed by signal SIGKILL; its last output on stderr:\n    | ") {
		t.Errorf("the run's report:\n%.2000s", out[max(0, len(out)-2000):])
	}
}

// modex run against an adapter that exits with status 3, saying why on its
// stderr, in its second case: the suite stops there, and its summary and
// error say how the implementation ended.
func TestCrashedAdapterSuiteSummary(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "fakeadapter")
	if msg, err := exec.Command("go", "build", "-o", bin, "../engine/adapter/testdata/fakeadapter").CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, msg)
	}
	suite := filepath.Join(dir, "suite.json")
	if out, errOut, code := cli("gen", "../projects/stack/stack.toml", "--coverage", "states", "--out", suite); code != 0 {
		t.Fatalf("gen: exit %d\n%s%s", code, out, errOut)
	}
	out, errOut, code := cli("run", "../projects/stack/stack.toml", suite, "--adapter", bin+" crash-after 3")
	re := regexp.MustCompile(`(?m)^stack \[all\] .*suite\.json: stopped at case ([0-9]+) of ([0-9]+): the implementation exited with status 3 \(its stderr ends: panic: the fake implementation crashed\): [0-9]+ pass, 1 fail, 0 inconclusive; `)
	m := re.FindStringSubmatch(out)
	if m == nil || m[1] == m[2] {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	if code != 1 || !strings.Contains(errOut, "; the suite stopped at case "+m[1]+" of "+m[2]+": the implementation exited with status 3") {
		t.Errorf("exit %d, %q", code, errOut)
	}
}

// The chat sample as issue 52 ran it: its adapter under go run, the
// compiled child killed with SIGKILL mid-test (then SIGHUP; SIGTERM would
// not do: the adapter kit ends cleanly on it): the summary names the
// signal, as go run reported it, not a bare "signal: killed".
func TestKilledChatSummary(t *testing.T) {
	if testing.Short() {
		t.Skip("go run builds the chat server")
	}
	for _, sig := range []syscall.Signal{syscall.SIGKILL, syscall.SIGHUP} {
		name := map[syscall.Signal]string{syscall.SIGKILL: "SIGKILL", syscall.SIGHUP: "SIGHUP"}[sig]
		wait := killWhenStarted(t, func() int { return grandchild("go run impl/main.go") }, sig)
		out, errOut, code := cli("test", "../projects/chat/chat.toml", "--config", "hi_bye", "--runs", "20000", "--save-failures", t.TempDir())
		if !wait() {
			t.Fatalf("%s: not killed: exit %d\n%s", name, code, errOut)
		}
		line := summaryLine(out, "chat [hi_bye]: ")
		re := regexp.MustCompile(`^chat \[hi_bye\]: stopped at run ([0-9]+) of 20000: the implementation was killed by signal ` + name + `, as its launcher reported, exiting with status 1 \(its stderr ends: .*signal: (killed|hangup)\): [0-9]+ pass, [0-9]+ fail`)
		t.Log(line)
		if !re.MatchString(line) || code != 1 || !strings.Contains(errOut, "the implementation was killed by signal "+name) {
			t.Errorf("%s: exit %d, %q\n%s", name, code, line, errOut)
		}
	}
}

// grandchild is the id of the program go run built and runs ("…/main"),
// the child of this process's child whose command line starts with parent
// ("go run …"); 0 when there is none yet.
func grandchild(parent string) int {
	children := func(pid int) []int {
		// Each thread's children: a Go process forks from any of them.
		files, _ := filepath.Glob("/proc/" + strconv.Itoa(pid) + "/task/*/children")
		var ids []int
		for _, file := range files {
			data, _ := os.ReadFile(file)
			for _, f := range strings.Fields(string(data)) {
				if id, err := strconv.Atoi(f); err == nil {
					ids = append(ids, id)
				}
			}
		}
		return ids
	}
	for _, c := range children(os.Getpid()) {
		cmdline, _ := os.ReadFile("/proc/" + strconv.Itoa(c) + "/cmdline")
		if !strings.HasPrefix(strings.ReplaceAll(string(cmdline), "\x00", " "), parent) {
			continue
		}
		for _, g := range children(c) {
			// The program built, not a step of its build.
			cmdline, _ := os.ReadFile("/proc/" + strconv.Itoa(g) + "/cmdline")
			if args := strings.Split(strings.TrimRight(string(cmdline), "\x00"), "\x00"); filepath.Base(args[0]) == "main" {
				return g
			}
		}
	}
	return 0
}
