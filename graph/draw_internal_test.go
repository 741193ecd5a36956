package graph

import (
	"testing"

	"github.com/golang/freetype/truetype"
	"golang.org/x/image/font/gofont/goregular"
)

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

// The failure mark, which the drawing font lacks, is drawn as one it has.
func TestDrawable(t *testing.T) {
	fontOnce.Do(func() { ttFont, _ = truetype.Parse(goregular.TTF) })
	for _, c := range []struct{ in, want string }{
		{"✗ crash", "× crash"},
		{"Post(1)", "Post(1)"},
	} {
		got := drawable(c.in)
		if got != c.want {
			t.Errorf("drawable(%q) = %q, want %q", c.in, got, c.want)
		}
		for _, r := range got {
			if r != ' ' && ttFont.Index(r) == 0 {
				t.Errorf("%q: the font has no glyph for %q", got, r)
			}
		}
	}
	if ttFont.Index('✗') != 0 {
		t.Log("the font has ✗ now: drawable may go")
	}
}
