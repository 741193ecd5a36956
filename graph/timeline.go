package graph

import (
	"bufio"
	"fmt"
	"io"
	"sort"

	"github.com/modex/modex/engine/conform"
	"github.com/modex/modex/engine/model"
)

// MaxTimelineOps bounds the operations a timeline draws: a window around
// the failure (or the history's start), so that the picture stays small
// whatever the history's length (porcupine's HTML reaches 1.5 GB at
// 3,000 operations, porcupine#20).
const MaxTimelineOps = 300

// Timeline is a concurrent history drawn as lanes, one per process:
// operations as bars from invocation to completion, the linearization found
// (of the whole history, or of its longest linearizable prefix) as
// numbered marks joined in order.
type Timeline struct {
	Title   string
	Verdict string
	Lanes   []string // processes
	Bars    []TimelineBar
	Columns int // distinct event positions drawn
	// Cut is the column where the failing operation completes (-1: none).
	Cut  float64
	Note string // what is not drawn, what the colours mean
	// Failure says, for a history that is not linearizable, which
	// operation cannot be placed and why.
	Failure string
}

// Bar states.
const (
	BarPlaced   = "placed"   // linearized
	BarFailed   = "failed"   // cannot be placed
	BarPending  = "pending"  // invoked, not placed when the search gave up
	BarInfo     = "info"     // unknown completion, not placed
	BarUnplaced = "unplaced" // not reached
)

// TimelineBar is one operation.
type TimelineBar struct {
	Op         int // History.Ops index
	Lane       int
	Start, End float64 // columns; End is the right edge for an operation with no completion
	Open       bool    // no completion
	Unknown    bool    // an :info completion: it may take effect later
	Label      string
	Tip        string // the whole operation: lines, process, status
	State      string // BarPlaced, …
	Order      int    // its place in the linearization (1-based; 0: none)
	Mark       float64
	// Group is the part of the history it belongs to (its key, when the
	// history is checked key by key): marks are joined within a group.
	Group string
}

// HistoryTimeline draws a checked history.
func HistoryTimeline(title string, h *conform.History, res *conform.HistoryResult) *Timeline {
	tl := &Timeline{Title: title, Verdict: string(res.Verdict), Cut: -1}
	ops, of := timelineWindow(h, res)
	if len(ops) == 0 {
		tl.Note = "no operation to draw"
		return tl
	}
	// Columns: the distinct positions of the drawn invocations and
	// completions, in order.
	var pos []int
	for _, i := range ops {
		pos = append(pos, h.Ops[i].Call)
		if h.Ops[i].Return >= 0 {
			pos = append(pos, h.Ops[i].Return)
		}
	}
	sort.Ints(pos)
	col := map[int]float64{}
	for _, p := range pos {
		if _, ok := col[p]; !ok {
			col[p] = float64(len(col))
		}
	}
	tl.Columns = len(col) + 1
	order := map[int]int{}
	for k, i := range res.Order {
		order[i] = res.OrderFrom + k + 1
	}
	failed, pending := -1, map[int]bool{}
	if f := res.Failure; f != nil && res.Verdict == conform.Fail {
		failed = f.Op
		for _, i := range f.Pending {
			pending[i] = true
		}
		tl.Cut = col[h.Ops[f.Op].Return]
		o := &h.Ops[f.Op]
		tl.Failure = fmt.Sprintf("Line %d: %s by process %s cannot be placed. %s", o.ReturnLine, h.OpLabel(f.Op), o.Process, f.Message)
	}
	lanes := map[string]int{}
	for _, i := range ops {
		o := &h.Ops[i]
		lane, ok := lanes[o.Process]
		if !ok {
			lane = len(tl.Lanes)
			lanes[o.Process] = lane
			tl.Lanes = append(tl.Lanes, o.Process)
		}
		b := TimelineBar{Op: i, Lane: lane, Start: col[o.Call], Label: h.OpLabel(i), Order: order[i]}
		if v, ok := o.Attrs[res.KeyAttr]; ok && res.KeyAttr != "" {
			b.Group = model.Format(v)
		}
		if o.Return >= 0 {
			b.End = col[o.Return]
		} else {
			b.End, b.Open = float64(tl.Columns), true
		}
		b.Unknown = o.Status == conform.OpInfo
		b.State = barState(o, i, failed, pending, b.Order)
		b.Tip = fmt.Sprintf("%s by process %s, lines %d–%s, %s", b.Label, o.Process, o.CallLine, lineText(o.ReturnLine), o.Status)
		switch {
		case b.Order > 0:
			b.Tip += fmt.Sprintf("; placed %d in the linearization", b.Order)
		case b.State == BarFailed:
			b.Tip += "; it cannot be placed after the longest linearizable prefix"
		case b.State == BarPending:
			b.Tip += "; pending when the search gave up"
		}
		tl.Bars = append(tl.Bars, b)
	}
	tl.placeMarks()
	tl.Note = timelineNote(h, res, ops, of)
	return tl
}

func lineText(n int) string {
	if n == 0 {
		return "(none)"
	}
	return fmt.Sprint(n)
}

func barState(o *conform.HistoryOp, i, failed int, pending map[int]bool, order int) string {
	switch {
	case i == failed:
		return BarFailed
	case order > 0:
		return BarPlaced
	case pending[i]:
		return BarPending
	case o.Status == conform.OpInfo:
		return BarInfo
	}
	return BarUnplaced
}

// placeMarks puts each placed operation's mark inside its bar, left to
// right in linearization order (possible: a linearization respects the
// real-time order of operations).
func (tl *Timeline) placeMarks() {
	idx := make([]int, 0, len(tl.Bars))
	for k := range tl.Bars {
		if tl.Bars[k].Order > 0 {
			idx = append(idx, k)
		}
	}
	sort.Slice(idx, func(a, b int) bool { return tl.Bars[idx[a]].Order < tl.Bars[idx[b]].Order })
	x, group := -1.0, ""
	for _, k := range idx {
		b := &tl.Bars[k]
		if b.Group != group {
			x, group = -1, b.Group // each key's order is its own
		}
		x = max(b.Start+0.3, x+0.25)
		if x > b.End-0.1 {
			x = max(b.Start+0.1, b.End-0.1)
		}
		b.Mark = x
	}
}

// timelineWindow picks the operations to draw: those of the failing key,
// the MaxTimelineOps up to a little after the failure (or from the start).
func timelineWindow(h *conform.History, res *conform.HistoryResult) (window []int, of int) {
	var ops []int
	for i := range h.Ops {
		if f := res.Failure; f != nil && f.Key != "" && res.KeyAttr != "" {
			if v, ok := h.Ops[i].Attrs[res.KeyAttr]; !ok || model.Format(v) != f.Key {
				continue
			}
		}
		ops = append(ops, i)
	}
	from := 0
	if f := res.Failure; f != nil && res.Verdict == conform.Fail {
		at := sort.SearchInts(ops, f.Op)
		from = max(0, min(at-MaxTimelineOps+MaxTimelineOps/6, len(ops)-MaxTimelineOps))
	}
	return ops[from:min(len(ops), from+MaxTimelineOps)], len(ops)
}

func timelineNote(h *conform.History, res *conform.HistoryResult, ops []int, of int) string {
	note := ""
	if f := res.Failure; f != nil && f.Key != "" && of < len(h.Ops) {
		note = fmt.Sprintf("The %d operations on key %s (of %d). ", of, f.Key, len(h.Ops))
	}
	if len(ops) < of {
		note += fmt.Sprintf("%d of them drawn, invoked at lines %d–%d. ", len(ops), h.Ops[ops[0]].CallLine, h.Ops[ops[len(ops)-1]].CallLine)
	}
	note += "? an unknown outcome (:info), ✗ completed :fail. "
	switch res.Verdict {
	case conform.Pass:
		if res.Partitions > 1 {
			note += "Numbers: a linearization of each key's operations, key after key."
		} else {
			note += "Numbers: a linearization."
		}
	case conform.Fail:
		note += "Numbers: the longest linearizable prefix; red: the operation that cannot be placed; orange: pending then; grey: not reached."
	default:
		note += "No verdict: " + res.Reason
	}
	return note
}

// Sizes of a timeline's drawing, in pixels.
const (
	tlColW   = 24.0
	tlLaneH  = 32.0
	tlBarH   = 18.0
	tlLeft   = 90.0
	tlTop    = 72.0
	tlMargin = 12.0
)

// TimelineGeometry gives where things go: X of a column, Y of a lane's
// bar top, and the whole size.
type TimelineGeometry struct{ Width, Height float64 }

// Geometry is the timeline's size in pixels.
func (tl *Timeline) Geometry() TimelineGeometry {
	return TimelineGeometry{Width: tlLeft + float64(tl.Columns+1)*tlColW + tlMargin, Height: tlTop + float64(len(tl.Lanes))*tlLaneH + tlMargin}
}

// X is a column's x.
func (tl *Timeline) X(col float64) float64 { return tlLeft + col*tlColW + tlColW/2 }

// Y is a lane's bar top.
func (tl *Timeline) Y(lane int) float64 { return tlTop + float64(lane)*tlLaneH + (tlLaneH-tlBarH)/2 }

// BarHeight is a bar's height.
func (tl *Timeline) BarHeight() float64 { return tlBarH }

// BarColors gives a bar's fill and stroke.
func BarColors(state string) (fill, stroke string) {
	switch state {
	case BarPlaced:
		return "#d4ecd4", "#2e7d32"
	case BarFailed:
		return "#f6b3b3", "#c62828"
	case BarPending:
		return "#ffe0b2", "#ef6c00"
	case BarInfo:
		return "#eeeeee", "#9e9e9e"
	}
	return "#f5f5f5", "#bdbdbd"
}

// WriteSVG writes the timeline as a standalone SVG picture; every bar has
// a <title> (a tooltip in browsers).
func (tl *Timeline) WriteSVG(w io.Writer) error {
	g := tl.Geometry()
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, `<svg xmlns="http://www.w3.org/2000/svg" width="%.0f" height="%.0f" font-family="sans-serif" font-size="11">`+"\n", g.Width, g.Height)
	fmt.Fprintf(bw, `<rect width="100%%" height="100%%" fill="white"/>`+"\n")
	fmt.Fprintf(bw, `<text x="%.0f" y="20" font-size="14" font-weight="bold">%s — %s</text>`+"\n", tlMargin, esc(tl.Title), esc(tl.Verdict))
	fmt.Fprintf(bw, `<text x="%.0f" y="38" fill="#555">%s</text>`+"\n", tlMargin, esc(tl.Note))
	if tl.Failure != "" {
		fmt.Fprintf(bw, `<text x="%.0f" y="56" fill="#c62828">%s</text>`+"\n", tlMargin, esc(tl.Failure))
	}
	for i, name := range tl.Lanes {
		y := tl.Y(i) + tlBarH/2
		fmt.Fprintf(bw, `<text x="%.0f" y="%.1f" fill="#333">process %s</text>`+"\n", tlMargin, y+4, esc(FitLabel(name, tlLeft-60)))
		fmt.Fprintf(bw, `<line x1="%.0f" y1="%.1f" x2="%.0f" y2="%.1f" stroke="#eeeeee"/>`+"\n", tlLeft, y, g.Width-tlMargin, y)
	}
	if tl.Cut >= 0 {
		x := tl.X(tl.Cut)
		fmt.Fprintf(bw, `<line x1="%.1f" y1="%.0f" x2="%.1f" y2="%.0f" stroke="#c62828" stroke-dasharray="4 3"/>`+"\n", x, tlTop-6, x, g.Height-tlMargin)
	}
	for _, b := range tl.Bars {
		fill, stroke := BarColors(b.State)
		x1, x2, y := tl.X(b.Start)-tlColW/2+2, tl.X(b.End)+tlColW/2-2, tl.Y(b.Lane)
		dash := ""
		if b.Open {
			dash = ` stroke-dasharray="3 2"`
		}
		fmt.Fprintf(bw, `<g><title>%s</title>`, esc(b.Tip))
		if b.Unknown && !b.Open {
			// It may take effect later: a dashed tail to the right edge.
			fmt.Fprintf(bw, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#9e9e9e" stroke-dasharray="2 3"/>`, x2, y+tlBarH/2, g.Width-tlMargin, y+tlBarH/2)
		}
		fmt.Fprintf(bw, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.0f" rx="4" fill="%s" stroke="%s"%s/>`, x1, y, x2-x1, tlBarH, fill, stroke, dash)
		if label := FitLabel(b.Label, (x2-x1-6)*7/6); len(label) > 0 && x2-x1 > 24 {
			fmt.Fprintf(bw, `<text x="%.1f" y="%.1f" font-size="10" fill="#222">%s</text>`, x1+3, y+tlBarH-5, esc(label))
		}
		fmt.Fprintln(bw, "</g>")
	}
	tl.writeMarks(bw)
	fmt.Fprintln(bw, "</svg>")
	return bw.Flush()
}

// writeMarks draws the linearization: a dot per placed operation, joined
// in order, with its number.
func (tl *Timeline) writeMarks(bw *bufio.Writer) {
	var pts []TimelineBar
	for _, b := range tl.Bars {
		if b.Order > 0 {
			pts = append(pts, b)
		}
	}
	sort.Slice(pts, func(i, j int) bool { return pts[i].Order < pts[j].Order })
	for i := 0; i < len(pts); {
		j := i + 1
		for j < len(pts) && pts[j].Group == pts[i].Group {
			j++
		}
		if j-i > 1 { // one line per key
			fmt.Fprint(bw, `<polyline fill="none" stroke="#1f5fa8" stroke-opacity="0.5" points="`)
			for _, b := range pts[i:j] {
				fmt.Fprintf(bw, "%.1f,%.1f ", tl.X(b.Mark), tl.Y(b.Lane)+tlBarH)
			}
			fmt.Fprintln(bw, `"/>`)
		}
		i = j
	}
	for _, b := range pts {
		x, y := tl.X(b.Mark), tl.Y(b.Lane)+tlBarH
		fmt.Fprintf(bw, `<circle cx="%.1f" cy="%.1f" r="3" fill="#1f5fa8"/><text x="%.1f" y="%.1f" font-size="9" fill="#1f5fa8">%d</text>`+"\n", x, y, x+4, y+9, b.Order)
	}
}
