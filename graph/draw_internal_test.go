package graph

import "testing"

// A state's short form at the picture's edge is moved inside it whole; one
// whose state is outside the picture, or that cannot fit, is left.
func TestKeepInside(t *testing.T) {
	for _, c := range []struct{ x, half, w, want float64 }{
		{100, 20, 200, 100}, // inside already
		{5, 20, 200, 20},    // cut at the left edge
		{195, 20, 200, 180}, // cut at the right edge
		{-5, 20, 200, -5},   // the state is outside: left where it is
		{205, 20, 200, 205},
		{5, 120, 200, 5}, // wider than the picture
	} {
		if got := keepInside(c.x, c.half, c.w); got != c.want {
			t.Errorf("keepInside(%g, %g, %g) = %g, want %g", c.x, c.half, c.w, got, c.want)
		}
	}
}
