package graphview

import (
	"testing"
	"time"

	"github.com/modex/modex/ui/widgets"
)

// uiq holds the UI callbacks of background work (the viewport's drawings);
// the test goroutine, the UI goroutine of Fyne's test driver, runs them in
// pump.
var uiq = make(chan func(), 1<<16)

func TestMain(m *testing.M) {
	widgets.Post = func(f func()) { uiq <- f }
	m.Run()
}

// pump runs queued UI callbacks on the calling goroutine until cond holds or
// the timeout passes, and reports whether cond held.
func pump(timeout time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(timeout)
	for !cond() {
		left := time.Until(deadline)
		if left <= 0 {
			return false
		}
		t := time.NewTimer(min(left, 20*time.Millisecond))
		select {
		case f := <-uiq:
			f()
		case <-t.C:
		}
		t.Stop()
	}
	return true
}

// idle runs the UI callbacks that arrive during d.
func idle(d time.Duration) { pump(d, func() bool { return false }) }
