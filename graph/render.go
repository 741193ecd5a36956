package graph

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"
	"unicode/utf8"

	"github.com/goccy/go-graphviz"

	"github.com/modex/modex/graph/internal/gvcache"
)

// loadGraphviz gives go-graphviz its cache directory (package gvcache)
// before the first layout loads Graphviz.
var loadGraphviz = sync.OnceFunc(func() { graphviz.SetCompilationCacheDir(gvcache.Dir()) })

// Format is an image format for Render.
type Format string

// Image formats.
const (
	SVG Format = "svg"
	PNG Format = "png"
)

// DotLimit is the largest graph (in states) laid out with dot by default;
// DotFastLimit and DotFastArcs bound the graphs laid out with DotFast;
// larger graphs use sfdp, which is much faster on state graphs. The limits
// come from the measurements in docs/performance.md (scripts/layout-times.sh):
// dot takes 3.2 s on the thread pool's 223 states and 393 arcs where
// dot-fast takes 0.4 s; dot-fast takes 3.9 s on the bag's 291 states and
// 648 arcs, sfdp 0.34 s.
const (
	DotLimit     = 60
	DotFastLimit = 250
	DotFastArcs  = 450
)

// PictureLimit is the largest graph (in states) drawn as SVG or PNG: above
// it no layout is readable (the 1,111-state web shop graph gave an 8,676 ×
// 4,613 PNG, 28 s and 1.1 GB, with no legible label); its overview is.
const PictureLimit = 500

// MaxPictureDOT bounds the Graphviz text of a picture, in bytes: a
// bound in states alone let 450 states of 2 MB values take ten minutes
// and 5 GB to lay out.
const MaxPictureDOT = 16 << 20

// MaxPictureValue bounds a variable's value in a picture's tooltips, in
// characters; a longer one is cut, saying how much is left out (the .dot
// and .json exports keep it whole).
const MaxPictureValue = 1000

// errPictureTooBig is a picture's DOT past MaxPictureDOT.
var errPictureTooBig = errors.New("picture too big")

// capped is a writer that fails past its bytes.
type capped struct {
	w    io.Writer
	left int
}

func (c *capped) Write(p []byte) (int, error) {
	if len(p) > c.left {
		return 0, errPictureTooBig
	}
	c.left -= len(p)
	return c.w.Write(p)
}

// pictureDOT is the DOT text to lay out d as a picture: values cut to
// MaxPictureValue, at most MaxPictureDOT bytes.
func (d *Doc) pictureDOT() ([]byte, error) {
	var dot bytes.Buffer
	if err := d.forPicture().WriteDOT(&capped{w: &dot, left: MaxPictureDOT}); err != nil {
		if errors.Is(err, errPictureTooBig) {
			return nil, fmt.Errorf("the graph's Graphviz text passes %d MiB (%d states, their labels and variables): too much to lay out as a picture; write .dot or .json, or draw its overview (--quotient)", MaxPictureDOT>>20, len(d.States))
		}
		return nil, err
	}
	return dot.Bytes(), nil
}

// forPicture is d with its variables' values cut to MaxPictureValue
// characters (d itself when none is longer).
func (d *Doc) forPicture() *Doc {
	var states []State
	for i, s := range d.States {
		if !slices.ContainsFunc(s.Vars, func(v Var) bool { return len(v.Value) > MaxPictureValue }) {
			continue
		}
		if states == nil {
			states = slices.Clone(d.States)
		}
		vars := slices.Clone(s.Vars)
		for j := range vars {
			if len(vars[j].Value) > MaxPictureValue {
				vars[j].Value = cutValue(vars[j].Value, MaxPictureValue)
			}
		}
		states[i].Vars = vars
	}
	if states == nil {
		return d
	}
	c := *d
	c.States = states
	return &c
}

// cutValue cuts s to n bytes at a character's start, saying how many
// bytes are left out.
func cutValue(s string, n int) string {
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return fmt.Sprintf("%s… (%d more bytes)", s[:n], len(s)-n)
}

// DotFast is dot with options that trade edge routing and crossing
// minimisation for speed: straight arcs (routing splines is most of dot's
// time on state graphs), fewer network-simplex and crossing-minimisation
// iterations (eight times faster on the thread pool's graph).
const DotFast = "dot-fast"

const dotFastAttrs = "splines=false; nslimit=2; mclimit=0.5;"

// LayoutFor picks the Graphviz layout engine for a graph of n states and
// the given number of arcs (see Doc.Arcs).
func LayoutFor(n, arcs int) string {
	switch {
	case n <= DotLimit:
		return "dot"
	case n <= DotFastLimit && arcs <= DotFastArcs:
		return DotFast
	}
	return "sfdp"
}

// Render lays out the document with Graphviz (through go-graphviz, no
// installed Graphviz needed) and writes it as SVG or PNG. layout "" picks
// one by size. Graphviz cannot be interrupted mid-layout: callers that need
// to stay responsive run Render in a goroutine and drop superseded results.
func (d *Doc) Render(ctx context.Context, format Format, layout string, w io.Writer) error {
	if format == PNG {
		// go-graphviz's own PNG renderer draws no node shapes; draw the
		// layout ourselves.
		l, err := LayoutDoc(ctx, d, layout)
		if err != nil {
			return err
		}
		return l.WritePNG(w, 1.5)
	}
	dot, err := d.pictureDOT()
	if err != nil {
		return err
	}
	if layout == "" {
		layout = LayoutFor(len(d.States), len(d.Arcs()))
	}
	return RenderDOT(ctx, dot, format, layout, w)
}

// graphvizMu serializes go-graphviz in this process: creating instances
// registers render plugins in package-level maps of its WASM bindings,
// which race when two goroutines do it at once (the workbench lays graphs
// out in child processes; the command line and tests do it in process).
var graphvizMu sync.Mutex

// RenderDOT lays out DOT text and writes the image.
func RenderDOT(ctx context.Context, dot []byte, format Format, layout string, w io.Writer) error {
	graphvizMu.Lock()
	defer graphvizMu.Unlock()
	if layout == DotFast {
		dot = bytes.Replace(dot, []byte("{\n"), []byte("{\n  "+dotFastAttrs+"\n"), 1)
		layout = "dot"
	}
	loadGraphviz()
	gv, err := graphviz.New(ctx)
	if err != nil {
		return fmt.Errorf("starting graphviz: %w", err)
	}
	defer gv.Close()
	g, err := graphviz.ParseBytes(dot)
	if err != nil {
		return fmt.Errorf("parsing DOT: %w", err)
	}
	defer g.Close()
	gv.SetLayout(graphviz.Layout(layout))
	var f graphviz.Format
	switch format {
	case SVG:
		f = graphviz.SVG
	case "json":
		f = graphviz.Format("json")
	default:
		return fmt.Errorf("unknown image format %q (use svg or png)", format)
	}
	return gv.Render(ctx, g, f, w)
}
