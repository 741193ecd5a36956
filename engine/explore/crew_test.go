package explore

import (
	"sync/atomic"
	"testing"
	"time"
)

// TestCrew posts jobs to a crew, some right after the last (the helpers
// still spinning), some after a pause longer than spinFor (the helpers
// asleep), with every number of helpers used, and checks that each job
// runs once on each helper it uses and on no other, that wait returns only
// once they are done, and that stop ends the helpers.
func TestCrew(t *testing.T) {
	tests := []struct {
		name    string
		helpers int
		uses    []int
		pause   time.Duration // between jobs
		spins   bool
	}{
		{"one helper, back to back", 1, []int{1, 1, 0, 1, 1}, 0, true},
		{"one helper, asleep between jobs", 1, []int{1, 0, 1}, 3 * spinFor, true},
		{"three helpers, some used", 3, []int{3, 1, 2, 0, 3, 2, 1, 3}, 0, true},
		{"three helpers, asleep between jobs", 3, []int{2, 3, 1, 3}, 3 * spinFor, true},
		{"three helpers that never spin", 3, []int{3, 1, 0, 2, 3}, 0, false},
		{"one helper that never spins, with pauses", 1, []int{1, 0, 1, 1}, time.Millisecond, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := newCrew(tc.helpers, tc.spins)
			for k, use := range tc.uses {
				ran := make([]atomic.Int32, tc.helpers)
				var running atomic.Int32
				c.post(use, func(i int) {
					running.Add(1)
					time.Sleep(time.Duration(i) * time.Millisecond) // helpers finish at different times
					ran[i].Add(1)
					running.Add(-1)
				})
				c.wait()
				if n := running.Load(); n != 0 {
					t.Fatalf("job %d: wait returned with %d helpers still running", k, n)
				}
				for i := range ran {
					want := int32(0)
					if i < use {
						want = 1
					}
					if got := ran[i].Load(); got != want {
						t.Fatalf("job %d (use %d): helper %d ran it %d times, want %d", k, use, i, got, want)
					}
				}
				time.Sleep(tc.pause)
			}
			done := make(chan struct{})
			go func() {
				c.stop()
				close(done)
			}()
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				t.Fatal("stop did not end the helpers")
			}
		})
	}
}

// TestCrewWaitWithNone: a job that uses no helper is done at once.
func TestCrewWaitWithNone(t *testing.T) {
	c := newCrew(2, true)
	defer c.stop()
	c.post(0, func(int) { t.Error("a helper ran a job that uses none") })
	c.wait()
}
