package ui

import (
	"testing"
	"time"

	"github.com/modex/modex/ui/internal/uitest"
)

func TestMain(m *testing.M) { uitest.Main(m, "modex-ui-test-cache") }

// pump runs queued UI callbacks until cond holds or the timeout passes
// (uitest.Pump).
func pump(timeout time.Duration, cond func() bool) bool { return uitest.Pump(timeout, cond) }

// idle runs the UI callbacks that arrive during d.
func idle(d time.Duration) { uitest.Idle(d) }
