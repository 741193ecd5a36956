// Package uitest helps the workbench's headless tests: the UI callbacks
// that background work posts (widgets.Post) wait in a queue that the test
// goroutine — the UI goroutine of Fyne's test driver — runs, as the real
// driver runs fyne.Do callbacks on its main goroutine.
package uitest

import (
	"os"
	"testing"
	"time"

	"github.com/modex/modex/ui/widgets"
)

// queue holds the posted UI callbacks.
var queue = make(chan func(), 1<<16)

// Main runs a package's tests with posted callbacks queued for Pump and,
// when cache is not "", the user's cache folder (saved failures and the
// like) in a fresh temporary folder of that name, removed afterwards.
func Main(m *testing.M, cache string) {
	widgets.Post = func(f func()) { queue <- f }
	dir := ""
	if cache != "" {
		var err error
		if dir, err = os.MkdirTemp("", cache); err == nil {
			os.Setenv("XDG_CACHE_HOME", dir)
		}
	}
	code := m.Run()
	if dir != "" {
		os.RemoveAll(dir)
	}
	os.Exit(code)
}

// Pump runs queued UI callbacks on the calling goroutine until cond holds
// or the timeout passes, and reports whether cond held.
func Pump(timeout time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(timeout)
	for !cond() {
		left := time.Until(deadline)
		if left <= 0 {
			return false
		}
		t := time.NewTimer(min(left, 20*time.Millisecond))
		select {
		case f := <-queue:
			f()
		case <-t.C:
		}
		t.Stop()
	}
	return true
}

// Idle runs the UI callbacks that arrive during d.
func Idle(d time.Duration) { Pump(d, func() bool { return false }) }

// RunAndWait sets *onDone, calls start and pumps the UI queue until the
// run reports its result (an error fails the test); what names the run.
func RunAndWait[R any](t *testing.T, onDone *func(R, error), start func(), what string, limit time.Duration) R {
	t.Helper()
	var res R
	finished := false
	*onDone = func(r R, err error) {
		if err != nil {
			t.Error(err)
		}
		res, finished = r, true
	}
	start()
	if !Pump(limit, func() bool { return finished }) {
		t.Fatalf("the %s never finished", what)
	}
	return res
}
