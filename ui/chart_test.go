package ui

import (
	"fmt"
	"strconv"
	"testing"
)

// The chart keeps at most MaxChartPoints points however long the run, each
// the value after its stride-th step, and says the latest value and the
// number of steps.
func TestCoverageChartBounded(t *testing.T) {
	for _, n := range []int{1, 7, MaxChartPoints - 1, MaxChartPoints, 100_000, 1_000_003} {
		c := NewCoverageChart()
		c.Reset()
		for step := 1; step <= n; step += 1000 {
			batch := make([]ChartPoint, 0, 1000)
			for v := step; v < step+1000 && v <= n; v++ {
				batch = append(batch, ChartPoint{v, 2 * v}) // the values are the step's number
			}
			c.add(batch...)
		}
		if c.total != n || c.last != (ChartPoint{n, 2 * n}) {
			t.Errorf("%d steps: total %d, last %d", n, c.total, c.last)
		}
		if len(c.points) >= MaxChartPoints || len(c.points) == 0 {
			t.Errorf("%d steps: %d points kept", n, len(c.points))
		}
		for i, v := range c.points {
			if v.States != (i+1)*c.stride || v.Trans != 2*v.States {
				t.Fatalf("%d steps: point %d is %d, want step %d (stride %d)", n, i, v, (i+1)*c.stride, c.stride)
			}
		}
		if end := len(c.points) * c.stride; n-end >= c.stride {
			t.Errorf("%d steps: the points end at step %d, stride %d", n, end, c.stride)
		}
	}
}

// The step log keeps at most MaxLogLines lines: the newest, behind one line
// that counts those let go.
func TestStepLogBounded(t *testing.T) {
	tv := &TestView{}
	n := 0
	for batch := 0; batch < 400; batch++ {
		lines := make([]logLine, 0, 100)
		for i := 0; i < 100; i++ {
			n++
			lines = append(lines, logLine{text: strconv.Itoa(n)})
		}
		tv.appendLines(lines...)
		if len(tv.lines) > MaxLogLines {
			t.Fatalf("after %d lines the log holds %d", n, len(tv.lines))
		}
	}
	body := tv.lines[1:]
	if tv.lines[0].text != fmt.Sprintf("… %d earlier lines not kept (the log keeps the last %d)", n-len(body), MaxLogLines*9/10) || !tv.lines[0].title {
		t.Errorf("first line %q with %d lines kept of %d", tv.lines[0].text, len(body), n)
	}
	for i, l := range body {
		if want := strconv.Itoa(n - len(body) + 1 + i); l.text != want {
			t.Fatalf("line %d is %q, want %q: not the newest lines in order", i, l.text, want)
		}
	}
}
