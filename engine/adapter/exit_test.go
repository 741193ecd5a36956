//go:build unix

package adapter

import (
	"bytes"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/modex/modex/engine/conform"
)

// How a real process ended is read from its state, and from a launcher's
// last stderr line (go run exits with status 1 after saying how its child
// ended); its stderr's end is kept, its last lines within MaxStderrTail.
func TestExitCrash(t *testing.T) {
	long := strings.Repeat("y", 400)
	for _, tc := range []struct {
		script string
		want   conform.Crash
	}{
		{"echo boom >&2; exit 3", conform.Crash{Status: 3, Stderr: "boom"}},
		{"exit 0", conform.Crash{}},
		{"echo bye >&2; kill -KILL $$", conform.Crash{Signal: "SIGKILL", Stderr: "bye"}},
		{"kill -TERM $$", conform.Crash{Signal: "SIGTERM"}},
		{"echo started >&2; echo 'signal: killed' >&2; exit 1", conform.Crash{Signal: "SIGKILL", Launcher: 1, Stderr: "started\nsignal: killed"}},
		{"echo 'signal: segmentation fault (core dumped)' >&2; exit 1", conform.Crash{Signal: "SIGSEGV", Launcher: 1, Stderr: "signal: segmentation fault (core dumped)"}},
		{"echo 'exit status 3' >&2; exit 1", conform.Crash{Status: 3, Launcher: 1, Stderr: "exit status 3"}},
		// Not a launcher's report: another status, another line.
		{"echo 'signal: killed' >&2; exit 2", conform.Crash{Status: 2, Stderr: "signal: killed"}},
		{"echo 'signal: sneezed' >&2; exit 1", conform.Crash{Status: 1, Stderr: "signal: sneezed"}},
		// The last lines within the bound, whole; a last line longer than
		// it, its end.
		{"for i in $(seq 100); do echo line $i >&2; done; exit 4", conform.Crash{Status: 4, Stderr: lines(69, 100)}},
		{"echo first >&2; echo " + long + " >&2; exit 5", conform.Crash{Status: 5, Stderr: "…" + long[400-conform.MaxStderrTail:]}},
	} {
		cmd := exec.Command("sh", "-c", tc.script)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		cmd.Run()
		if cmd.ProcessState == nil {
			t.Fatalf("%s: did not run", tc.script)
		}
		if got := exitCrash(cmd.ProcessState, stderr.String()); *got != tc.want {
			t.Errorf("%s:\n got %+v\nwant %+v", tc.script, *got, tc.want)
		}
	}
}

// lines is "line from" to "line to", one a line.
func lines(from, to int) string {
	var l []string
	for i := from; i <= to; i++ {
		l = append(l, "line "+strconv.Itoa(i))
	}
	return strings.Join(l, "\n")
}
