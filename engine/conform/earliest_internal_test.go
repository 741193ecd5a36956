package conform

import (
	"math"
	"testing"
	"time"
)

// Durations in failure messages: tenths of milliseconds below a second,
// milliseconds above; seconds saturate and round to the nanosecond.
func TestMillisAndSeconds(t *testing.T) {
	for d, want := range map[time.Duration]string{
		0: "0 ms", 5 * time.Millisecond: "5 ms", 5230 * time.Microsecond: "5.2 ms", 300 * time.Microsecond: "300 µs", 25 * time.Nanosecond: "0 µs", 999 * time.Microsecond: "999 µs",
		100 * time.Millisecond: "100 ms", 2500 * time.Millisecond: "2.5 s", 61 * time.Second: "61 s",
	} {
		if got := millis(d); got != want {
			t.Errorf("millis(%v) = %q, want %q", d, got, want)
		}
	}
	unit, n := 0.000001, 100000.0 // variables: a constant product would be exact
	for f, want := range map[float64]time.Duration{
		0.1: 100 * time.Millisecond, n * unit: 100 * time.Millisecond, -0.005: -5 * time.Millisecond,
		1e300: math.MaxInt64, math.Inf(1): math.MaxInt64, -1e300: math.MinInt64,
	} {
		if got := seconds(f); got != want {
			t.Errorf("seconds(%g) = %v, want %v", f, got, want)
		}
	}
}
