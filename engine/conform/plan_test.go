package conform

import (
	"testing"

	"github.com/modex/modex/engine/explore"
)

// A plan that lists one wait twenty thousand times (a hostile suite file)
// is run with it once: each step of the run scanned every copy, and the
// run's bound grew with them (20,000 copies took 32 s).
func TestPlanWaitsDistinct(t *testing.T) {
	timeout := explore.SuiteStep{Kind: "timeout", Label: "", From: "S1", To: "S2", At: "S0"}
	deliver := explore.SuiteStep{Kind: "observable", Action: "Deliver", Args: []string{"1"}, Label: "?Deliver(1)", From: "S1", To: "S3"}
	p := &explore.Plan{Start: "S0", Ends: []string{"S0"}, Moves: []explore.SuiteStep{{Kind: "controllable", Action: "Post", Label: "Post", From: "S0", To: "S1"}}}
	for range 20_000 {
		p.Waits = append(p.Waits, timeout)
	}
	p.Waits = append(p.Waits, deliver, deliver)
	_, _, waits, _ := planTables(p)
	if got := len(waits["S0"]); got != 1 {
		t.Errorf("%d waits at S0, want the timeout once", got)
	}
	if got := len(waits["S1"]); got != 1 {
		t.Errorf("%d waits at S1, want the delivery once", got)
	}
	if got, want := maxPlanSteps(p), 100; got != want {
		t.Errorf("the run's bound is %d steps, want %d (its distinct steps)", got, want)
	}
	// Steps that differ in their arguments are distinct.
	other := deliver
	other.Args = []string{"2"}
	p.Waits = append(p.Waits, other)
	if _, _, waits, _ := planTables(p); len(waits["S1"]) != 2 {
		t.Errorf("%d waits at S1, want two deliveries", len(waits["S1"]))
	}
}
