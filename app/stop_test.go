//go:build unix

package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// syncBuffer is a bytes.Buffer a child process writes while the test reads.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// signalAt is a signal sent to the child once ready says so (given its
// output so far and how long it has run).
type signalAt struct {
	sig   syscall.Signal
	ready func(stdout string, ran time.Duration) bool
}

// onceSeen is ready once the output holds s, and then after some more.
func onceSeen(s string, after time.Duration) func(string, time.Duration) bool {
	var seen time.Time
	return func(out string, _ time.Duration) bool {
		if seen.IsZero() && strings.Contains(out, s) {
			seen = time.Now()
		}
		return !seen.IsZero() && time.Since(seen) >= after
	}
}

// ranFor is ready once the child ran for d.
func ranFor(d time.Duration) func(string, time.Duration) bool {
	return func(_ string, ran time.Duration) bool { return ran >= d }
}

// writing is ready once a temporary file of an atomic write is in dir.
func writing(dir string) func(string, time.Duration) bool {
	return func(string, time.Duration) bool { return len(temporaries(dir)) > 0 }
}

// temporaries are the files of atomic writes in dir (".NAME.tmp…",
// ".new-….tmp").
func temporaries(dir string) []string {
	var tmp []string
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") && strings.Contains(e.Name(), ".tmp") {
			tmp = append(tmp, e.Name())
		}
	}
	return tmp
}

// signalled runs modex (this test binary standing in for it) in a child
// process in dir, sends it the signals as they become ready, and returns
// its exit code and output.
func signalled(t *testing.T, dir string, args []string, signals ...signalAt) (code int, stdout, stderr string) {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for i, a := range args {
		if strings.HasPrefix(a, "../") { // relative to the package, for a child in dir
			args[i], _ = filepath.Abs(a)
		}
	}
	cmd := exec.Command(self, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "MODEX_TEST_AS_CLI=1")
	var out, errOut syncBuffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	deadline := time.After(120 * time.Second)
	for {
		select {
		case err := <-done:
			if len(signals) > 0 {
				t.Fatalf("modex ended (%v) before its signal %v was sent:\n%s%s", err, signals[0].sig, out.String(), errOut.String())
			}
			var ee *exec.ExitError
			if err != nil && !errors.As(err, &ee) {
				t.Fatal(err)
			}
			return cmd.ProcessState.ExitCode(), out.String(), errOut.String()
		case <-deadline:
			cmd.Process.Kill()
			t.Fatalf("modex did not end:\n%s%s", out.String(), errOut.String())
		case <-tick.C:
			if len(signals) > 0 && signals[0].ready(out.String(), time.Since(start)) {
				cmd.Process.Signal(signals[0].sig)
				signals = signals[1:]
			}
		}
	}
}

// Ctrl-C, SIGTERM or SIGHUP end test, run, replay and explore's exports
// with exit 4 and a summary that says what was done — never a pass, never a
// bare "context canceled" — and leave no temporary file in the output
// folder; a second signal (or the grace period) ends modex at once (130),
// still leaving none. The tests run the chat project against its own
// implementation (a TCP server its adapter starts) and porcupine's etcd
// histories.
func TestSignalsStopCommands(t *testing.T) {
	if testing.Short() {
		t.Skip("child processes, the chat server built by go run")
	}
	const adapter = "go run impl/main.go impl/server.go impl/adapter.go impl/modexadapter.go adapter --fixed"
	bigModel := func(dir string, states, work int) string {
		src := `
N = ` + strconv.Itoa(states) + `

def init():
    return {"n": 0, "tag": "a string to make each state larger in the JSON export, ` + strings.Repeat("x", 200) + `"}

def Inc(s):
    require(s.n < N, "at the top")
    x = 0
    for i in range(` + strconv.Itoa(work) + `):
        x = x + 1
    s.n = s.n + x - ` + strconv.Itoa(work-1) + `

actions = [Inc]
`
		path := filepath.Join(dir, "big.star")
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	for _, tc := range []struct {
		name    string
		args    func(dir string) []string
		signals func(dir string) []signalAt
		code    int
		want    []*regexp.Regexp // in the output, stdout then stderr
		check   func(t *testing.T, dir, out string)
	}{
		{
			name: "test",
			args: func(dir string) []string {
				return []string{"test", "../projects/chat/chat.toml", "--runs", "1000000", "--steps", "30", "--seed", "1",
					"--junit", filepath.Join(dir, "junit.xml"), "--chart", filepath.Join(dir, "run.svg"), "--save-failures", dir}
			},
			signals: func(string) []signalAt {
				return []signalAt{{syscall.SIGINT, onceSeen("testing chat", 300*time.Millisecond)}}
			},
			code: 4,
			want: []*regexp.Regexp{
				regexp.MustCompile(`(?m)^chat \[figure1\]: stopped after \d+ of 1000000 runs \(Ctrl-C\)(, the last one cut short)?: \d+ pass, 0 fail, [01] inconclusive; `),
				regexp.MustCompile(`modex: test stopped by Ctrl-C after \d+ of 1000000 runs \(exit 4\)`),
			},
			check: func(t *testing.T, dir, out string) {
				// A run cut by the stop is inconclusive, and the only one.
				var pass, done, inconclusive int
				m := regexp.MustCompile(`stopped after (\d+) of 1000000 runs \(Ctrl-C\)(, the last one cut short)?: (\d+) pass, 0 fail, (\d) inconclusive`).FindStringSubmatch(out)
				done, _ = strconv.Atoi(m[1])
				pass, _ = strconv.Atoi(m[3])
				inconclusive, _ = strconv.Atoi(m[4])
				cut := m[2] != ""
				if done == 0 || pass+inconclusive != done || cut != (inconclusive == 1) {
					t.Errorf("%d runs done, %d pass, %d inconclusive, cut %v", done, pass, inconclusive, cut)
				}
				if cut && !regexp.MustCompile(`run \d+/1000000 \(seed \d+\): inconclusive, \d+ steps? \(cancelled\)\n[^\n]*stopped after`).MatchString(out) {
					t.Errorf("the run cut short is not reported inconclusive:\n%s", out[max(0, len(out)-600):])
				}
				if data, err := os.ReadFile(filepath.Join(dir, "junit.xml")); err != nil || !strings.Contains(string(data), `tests="`+m[1]+`" failures="0"`) {
					t.Errorf("the JUnit report of the runs done: %v\n%.300s", err, data)
				}
			},
		},
		{
			name: "run",
			args: func(dir string) []string {
				// The chat's offline suite, its passing case 30,000 times.
				suite := filepath.Join(dir, "suite.json")
				if _, errOut, code := cli("gen", "../projects/chat/chat.toml", "--config", "offline", "--out", suite); code != 0 {
					t.Fatalf("gen: exit %d %s", code, errOut)
				}
				var s map[string]any
				if err := json.Unmarshal(readFile(t, suite), &s); err != nil {
					t.Fatal(err)
				}
				first := s["cases"].([]any)[0].(map[string]any)
				var cases []any
				for i := range 30000 {
					c := map[string]any{}
					for k, v := range first {
						c[k] = v
					}
					c["name"] = "case " + strconv.Itoa(i+1)
					cases = append(cases, c)
				}
				s["cases"] = cases
				data, _ := json.Marshal(s)
				os.WriteFile(suite, data, 0o644)
				return []string{"run", "../projects/chat/chat.toml", suite, "--adapter", adapter, "--junit", filepath.Join(dir, "junit.xml")}
			},
			signals: func(string) []signalAt {
				return []signalAt{{syscall.SIGTERM, onceSeen("running ", 300*time.Millisecond)}}
			},
			code: 4,
			want: []*regexp.Regexp{
				regexp.MustCompile(`(?m)^chat \[offline\] \S+suite.json: stopped after \d+ of 30000 cases \(SIGTERM\)(, the last one cut short)?: \d+ pass, 0 fail, [01] inconclusive; `),
				regexp.MustCompile(`modex: run stopped by SIGTERM after \d+ of 30000 cases \(exit 4\)`),
			},
		},
		{
			name: "replay histories",
			args: func(dir string) []string {
				return []string{"replay", "../projects/register/register.toml", "../projects/register/histories", "--timeline", filepath.Join(dir, "t.svg")}
			},
			signals: func(string) []signalAt { return []signalAt{{syscall.SIGINT, onceSeen("etcd_003.log", 0)}} },
			code:    4,
			want: []*regexp.Regexp{
				regexp.MustCompile(`(?m)^register \[all\]: stopped after \d+ of 10\d histories \(Ctrl-C\)(, the last one cut short)?: \d+ pass, \d+ fail, [01] inconclusive$`),
				regexp.MustCompile(`modex: replay stopped by Ctrl-C after \d+ of 10\d histories; \d+ failed before the stop \(exit 4\)`),
			},
		},
		{
			name: "explore export",
			args: func(dir string) []string {
				return []string{"explore", bigModel(dir, 200000, 1), "--out", filepath.Join(dir, "big.json")}
			},
			signals: func(dir string) []signalAt { return []signalAt{{syscall.SIGINT, writing(dir)}} },
			code:    4,
			want:    []*regexp.Regexp{regexp.MustCompile(`modex: explore stopped by Ctrl-C while writing \S+big.json: nothing written`)},
			check: func(t *testing.T, dir, _ string) {
				if _, err := os.Stat(filepath.Join(dir, "big.json")); err == nil {
					t.Errorf("the export stopped was written")
				}
			},
		},
		{
			// The first signal stops the exploration, whose graph is then
			// written whole; the second ends modex during the write.
			name: "explore, twice",
			args: func(dir string) []string {
				return []string{"explore", bigModel(dir, 100000000, 300), "--out", filepath.Join(dir, "big.json")}
			},
			signals: func(dir string) []signalAt {
				return []signalAt{{syscall.SIGINT, ranFor(1500 * time.Millisecond)}, {syscall.SIGINT, writing(dir)}}
			},
			code: 130,
			want: []*regexp.Regexp{regexp.MustCompile(`(?m)^modex: stopped$`)},
			check: func(t *testing.T, dir, _ string) {
				if _, err := os.Stat(filepath.Join(dir, "big.json")); err == nil {
					t.Errorf("the export cut by the exit was written")
				}
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			code, out, errOut := signalled(t, dir, tc.args(dir), tc.signals(dir)...)
			all := out + errOut
			if code != tc.code {
				t.Errorf("exit %d, want %d", code, tc.code)
			}
			for _, re := range tc.want {
				if !re.MatchString(all) {
					t.Errorf("no %q in the output", re)
				}
			}
			if strings.Contains(all, "context canceled") {
				t.Errorf("a bare \"context canceled\"")
			}
			if tmp := temporaries(dir); len(tmp) > 0 {
				t.Errorf("temporary files left behind: %v", tmp)
			}
			if tc.check != nil {
				tc.check(t, dir, out)
			}
			if t.Failed() {
				t.Logf("output (end):\n%s\n%s", out[max(0, len(out)-1500):], errOut)
			}
		})
	}
}
