package graphview

import (
	"image"
	"math"
	"time"

	"github.com/modex/modex/graph"
	"github.com/modex/modex/ui/widgets"
)

// viewportDelay is how long zoom and pan must rest before the visible part
// of the graph is redrawn at screen resolution.
const viewportDelay = 120 * time.Millisecond

// viewport is the visible part of a graph drawn at the screen's resolution:
// the picture stays crisp at every zoom (text included, with the level of
// detail of graph.DrawRegion) while the image never exceeds the screen.
type viewport struct {
	lay    *graph.Layout // the layout img was drawn from
	img    image.Image
	origin graph.Point // top-left corner of img, layout points
	w, h   float64     // extent of img, layout points
	gen    int         // drawings older than the latest request are dropped
	timer  *time.Timer
	// viewW and viewH are the view size the last request was made for.
	viewW, viewH float32
	// Drawn counts the viewport drawings shown (tests).
	drawn int
}

// scheduleViewport redraws the visible region after zoom and pan have
// rested for viewportDelay, in the background. Nothing is drawn when the
// whole-graph image already has the screen's resolution.
func (g *View) scheduleViewport() {
	vp := &g.vp
	vp.gen++
	if vp.timer != nil {
		vp.timer.Stop()
	}
	if g.lay == nil {
		return
	}
	origin, w, h, px := g.visibleRegion()
	if w <= 0 || h <= 0 {
		return
	}
	if g.imgScale > 0 && math.Abs(px/g.imgScale-1) < 0.02 {
		vp.img = nil // the whole-graph image is sharp at this zoom
		return
	}
	gen, lay := vp.gen, g.lay
	wpx, hpx := int(math.Ceil(w*px)), int(math.Ceil(h*px))
	vp.timer = time.AfterFunc(viewportDelay, func() {
		img := lay.DrawRegion(origin, wpx, hpx, px, nil)
		widgets.Post(func() {
			if gen != vp.gen || g.lay != lay {
				return
			}
			vp.lay, vp.img, vp.origin = lay, img, origin
			vp.w, vp.h = float64(wpx)/px, float64(hpx)/px
			vp.drawn++
			g.Refresh()
		})
	})
}

// visibleRegion returns the part of the layout on screen (origin and size
// in layout points) and the pixels per layout point of the screen.
func (g *View) visibleRegion() (graph.Point, float64, float64, float64) {
	view, off := g.scroll.Size(), g.scroll.Offset
	z := float64(g.zoom)
	px := z * float64(g.canvasScaleNow())
	left := g.left()
	x0 := max(0, float64(off.X-left)/z)
	y0 := max(0, float64(off.Y-graphPad)/z)
	x1 := min(g.lay.Width, float64(off.X+view.Width-left)/z)
	y1 := min(g.lay.Height, float64(off.Y+view.Height-graphPad)/z)
	return graph.Point{X: x0, Y: y0}, x1 - x0, y1 - y0, px
}

// canvasScaleNow is the scale of the canvas showing the view, as its last
// layout found it (1 before).
func (g *View) canvasScaleNow() float32 {
	if cs := math.Float32frombits(g.canvasScale.Load()); cs > 0 {
		return cs
	}
	return 1
}
