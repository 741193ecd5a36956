package chart

import (
	"testing"

	"fyne.io/fyne/v2/test"
)

// The chart keeps at most MaxPoints points however long the run, each
// the value after its stride-th step, and says the latest value and the
// number of steps.
func TestCoverageChartBounded(t *testing.T) {
	test.NewTempApp(t)
	for _, n := range []int{1, 7, MaxPoints - 1, MaxPoints, 100_000, 1_000_003} {
		c := NewCoverage()
		c.Reset()
		for step := 1; step <= n; step += 1000 {
			batch := make([]Point, 0, 1000)
			for v := step; v < step+1000 && v <= n; v++ {
				batch = append(batch, Point{States: v, Trans: 2 * v}) // the values are the step's number
			}
			c.add(batch...)
		}
		if c.total != n || c.last != (Point{States: n, Trans: 2 * n}) {
			t.Errorf("%d steps: total %d, last %v", n, c.total, c.last)
		}
		if len(c.points) >= MaxPoints || len(c.points) == 0 {
			t.Errorf("%d steps: %d points kept", n, len(c.points))
		}
		for i, v := range c.points {
			if v.States != (i+1)*c.stride || v.Trans != 2*v.States {
				t.Fatalf("%d steps: point %d is %v, want step %d (stride %d)", n, i, v, (i+1)*c.stride, c.stride)
			}
		}
		if end := len(c.points) * c.stride; n-end >= c.stride {
			t.Errorf("%d steps: the points end at step %d, stride %d", n, end, c.stride)
		}
	}
}
