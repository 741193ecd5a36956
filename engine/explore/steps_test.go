package explore

import "testing"

// dropped.step gives, for every step, an index whose step it is: the same
// index again for a step among the first maxStepIDs distinct ones, and a
// new one (no map entry) for a step past them; the one-entry cache never
// hands out another step's index.
func TestDroppedStepsInterned(t *testing.T) {
	var d dropped
	n := maxStepIDs + 100
	ids := make([]int32, n)
	for i := range n {
		s := predStep{Action: int32(i % 7), Args: int32(i), Out: int32(i % 3)}
		ids[i] = d.step(s)
		if d.steps[ids[i]] != s {
			t.Fatalf("step %d: index %d holds %+v", i, ids[i], d.steps[ids[i]])
		}
	}
	if len(d.stepIDs) != maxStepIDs || len(d.steps) != n {
		t.Fatalf("%d interned, %d kept; want %d and %d", len(d.stepIDs), len(d.steps), maxStepIDs, n)
	}
	for _, i := range []int{0, 1, maxStepIDs - 1, 5, 5} {
		s := predStep{Action: int32(i % 7), Args: int32(i), Out: int32(i % 3)}
		if id := d.step(s); id != ids[i] {
			t.Errorf("step %d again: index %d, first %d", i, id, ids[i])
		}
	}
	for _, i := range []int{maxStepIDs, maxStepIDs + 50, maxStepIDs + 50} {
		s := predStep{Action: int32(i % 7), Args: int32(i), Out: int32(i % 3)}
		if id := d.step(s); d.steps[id] != s {
			t.Errorf("step %d again: index %d holds %+v", i, id, d.steps[id])
		}
	}
	if len(d.steps) != n+2 { // maxStepIDs and maxStepIDs+50 added again, the second +50 from the cache
		t.Errorf("%d steps kept, want %d", len(d.steps), n+2)
	}
}
