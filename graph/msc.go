package graph

import (
	"bufio"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/modex/modex/engine/conform"
	"github.com/modex/modex/engine/model"
	"github.com/modex/modex/internal/safetext"
)

// Chart is a run drawn as a message sequence chart: one lifeline for the
// tester (or, for a recorded trace, the environment) and one per object or
// thread the run names, controllable actions as arrows from the tester,
// observed events as arrows from the implementation's participants, timeouts
// as gaps and the failing step in red.
type Chart struct {
	Title     string
	Lifelines []string
	Messages  []Message
	// Dropped counts the first steps of the run not drawn (a chart keeps
	// the last MaxChartMessages).
	Dropped int
	// Verdict is the run's last line: "fail at step 9: …", "pass".
	Verdict string
	// Expected is what the model allowed where the run failed.
	Expected []string
}

// Message is one row of a chart.
type Message struct {
	From, To int    // lifelines; equal for a step that concerns one only
	Label    string // the step as logged; "timeout" for timeouts
	Kind     model.Kind
	Step     int  // the step's number in its run (0 for a timeout)
	Failed   bool // the failing step
	// State is the canonical key of the model state after the step ("" for
	// none): the workbench selects it in the graph when the message is
	// clicked.
	State string
}

// MaxChartMessages bounds a chart's rows: a longer run shows its last ones.
const MaxChartMessages = 400

// Names of the lifelines that are not participants of the model.
const (
	LifelineTester      = "Tester"
	LifelineImpl        = "Implementation"
	LifelineEnvironment = "Environment"
)

// chartBuilder assigns lifelines as participants appear.
type chartBuilder struct {
	c     *Chart
	index map[string]int
}

func newChartBuilder(title, first string) *chartBuilder {
	b := &chartBuilder{c: &Chart{Title: title}, index: map[string]int{}}
	b.line(first)
	return b
}

// line is the lifeline named name, added when new.
func (b *chartBuilder) line(name string) int {
	if i, ok := b.index[name]; ok {
		return i
	}
	b.index[name] = len(b.c.Lifelines)
	b.c.Lifelines = append(b.c.Lifelines, name)
	return len(b.c.Lifelines) - 1
}

// objects are the participants a step names: its object inputs (new()
// values, Client1, …), then an object output.
func objects(args []model.Value, out model.Value) []string {
	var names []string
	for _, a := range args {
		if o, ok := a.(model.Object); ok {
			names = append(names, o.String())
		}
	}
	if o, ok := out.(model.Object); ok && len(names) == 0 {
		names = append(names, o.String())
	}
	return names
}

// add places a step: a controllable one from the first lifeline (the
// tester) to the first participant it names (or the implementation); an
// observed one between the first and last participants it names, from a
// single participant to the tester, or from the implementation.
func (b *chartBuilder) add(kind model.Kind, label string, step int, args []model.Value, out model.Value, thread, state string, failed bool) {
	m := Message{Label: label, Kind: kind, Step: step, Failed: failed, State: state}
	parts := objects(args, out)
	if thread != "" {
		parts = append([]string{thread}, parts...)
	}
	switch {
	case kind == model.Timeout:
		m.From, m.To = 0, 0
	case kind == model.Controllable && len(parts) > 0:
		m.From, m.To = 0, b.line(parts[0])
	case kind == model.Controllable:
		m.From, m.To = 0, b.line(LifelineImpl)
	case len(parts) > 1:
		m.From, m.To = b.line(parts[0]), b.line(parts[len(parts)-1])
	case len(parts) == 1:
		m.From, m.To = b.line(parts[0]), 0
	default:
		m.From, m.To = b.line(LifelineImpl), 0
	}
	b.c.Messages = append(b.c.Messages, m)
}

// RunChart draws an online test run or suite case: its logged steps, then
// the failing step (in red) and the verdict.
func RunChart(title string, r conform.RunResult) *Chart {
	b := newChartBuilder(title, LifelineTester)
	for _, s := range r.Steps {
		state := ""
		if len(s.States) > 0 {
			state = s.States[0]
		}
		b.add(s.Kind, s.Label(), s.Step, s.Args, s.Output, "", state, false)
	}
	c := b.c
	c.Dropped = r.StepsDropped
	c.Verdict = string(r.Verdict)
	if f := r.Failure; f != nil {
		if f.Event != nil {
			b.add(f.Event.Kind, "✗ "+f.Event.Label(), f.Step, f.Event.Args, nil, "", "", true)
		}
		c.Verdict = fmt.Sprintf("%s at step %d: %s", r.Verdict, f.Step, f.Message)
		c.Expected = f.Expected
	} else if r.Reason != "" {
		c.Verdict += ": " + r.Reason
	}
	return c.trim()
}

// ReplayChart draws a replayed trace: the matched events (their threads
// as lifelines when the trace names them), then the event that diverged.
func ReplayChart(title string, res *conform.ReplayResult) *Chart {
	b := newChartBuilder(title, LifelineEnvironment)
	for _, s := range res.Path {
		state := ""
		if len(s.States) > 0 {
			state = s.States[0]
		}
		b.add(s.Kind, s.Label, s.Index+1, s.Args, nil, s.Thread, state, false)
	}
	c := b.c
	c.Dropped = 0
	c.Verdict = string(res.Verdict)
	if f := res.Failure; f != nil {
		if s := f.Step; s != nil {
			b.add(s.Kind, "✗ "+s.Label, f.Index+1, s.Args, nil, s.Thread, "", true)
		}
		c.Verdict = fmt.Sprintf("%s at event %d (line %d): %s", res.Verdict, f.Index+1, f.Line, f.Message)
		c.Expected = f.Expected
	} else if res.Reason != "" {
		c.Verdict += ": " + res.Reason
	}
	if res.Matched > len(res.Path) {
		c.Verdict += fmt.Sprintf(" (the replay keeps the first %d of %d matched events)", len(res.Path), res.Matched)
	}
	return c.trim()
}

// ExpectedWords says what the model allowed: "the model allowed:
// ?Deliver(Client1, Client2, "bye")" (five at most, then how many more).
func ExpectedWords(exp []string) string {
	if len(exp) > 5 {
		return "the model allowed: " + strings.Join(exp[:5], ", ") + fmt.Sprintf(" and %d more", len(exp)-5)
	}
	return "the model allowed: " + strings.Join(exp, ", ")
}

// trim keeps the last MaxChartMessages rows.
func (c *Chart) trim() *Chart {
	if n := len(c.Messages) - MaxChartMessages; n > 0 {
		c.Messages = append([]Message(nil), c.Messages[n:]...)
		c.Dropped += n
	}
	return c
}

// ChartLayout places a chart: lifelines at X, one row per message at Y.
type ChartLayout struct {
	Width, Height float64
	X             []float64 // lifeline centres
	Y             []float64 // message rows (arrow heights)
	Top           float64   // where lifelines start (below their boxes)
	BoxWidth      float64
}

// Sizes of a chart's drawing, in pixels at scale 1.
const (
	chartCharW   = 7.0 // an average character at chartFont
	chartFont    = 12.0
	chartRow     = 30.0
	chartGap     = 14.0 // a timeout's row
	chartMargin  = 16.0
	chartHeader  = 30.0
	chartMinCol  = 120.0
	chartMaxCol  = 320.0
	chartStepCol = 36.0 // step numbers, left of the first lifeline
)

// Layout computes where lifelines and rows go. A column is as wide as the
// longest label drawn between neighbouring lifelines needs, within bounds.
func (c *Chart) Layout() *ChartLayout {
	n := len(c.Lifelines)
	col := chartMinCol
	for _, name := range c.Lifelines {
		col = max(col, float64(utf8.RuneCountInString(name))*chartCharW+24)
	}
	for _, m := range c.Messages {
		span := abs(m.To - m.From)
		if span == 0 {
			span = 1
		}
		col = max(col, float64(utf8.RuneCountInString(m.Label))*chartCharW/float64(span)+24)
	}
	col = min(col, chartMaxCol)
	l := &ChartLayout{BoxWidth: col - 16, X: make([]float64, n), Y: make([]float64, len(c.Messages))}
	for i := range l.X {
		l.X[i] = chartMargin + chartStepCol + col/2 + float64(i)*col
	}
	l.Top = chartMargin + chartHeader + 12
	if c.Dropped > 0 {
		l.Top += chartRow
	}
	y := l.Top + chartRow/2
	for i, m := range c.Messages {
		if m.Kind == model.Timeout {
			y += chartGap - chartRow
		}
		y += chartRow
		l.Y[i] = y
	}
	l.Width = chartMargin*2 + chartStepCol + col*float64(n)
	if c.Messages != nil && c.Messages[len(c.Messages)-1].From == c.Messages[len(c.Messages)-1].To {
		l.Width += 60
	}
	l.Height = y + chartRow*2 + chartMargin
	if len(c.Expected) > 0 {
		l.Height += 18
	}
	return l
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// Colours of a chart.
const (
	chartInk     = "#222222"
	chartEvent   = "#1f5fa8"
	chartFail    = "#c62828"
	chartTimeout = "#9e9e9e"
)

// MessageColor is the colour of a message's arrow and label.
func MessageColor(m *Message) string {
	switch {
	case m.Failed:
		return chartFail
	case m.Kind == model.Timeout:
		return chartTimeout
	case m.Kind != model.Controllable:
		return chartEvent
	}
	return chartInk
}

// FitLabel cuts a label to the characters that fit in width pixels.
func FitLabel(label string, width float64) string {
	n := int(width / chartCharW)
	if n < 4 || utf8.RuneCountInString(label) <= n {
		return label
	}
	r := []rune(label)
	return string(r[:n-1]) + "…"
}

// WriteSVG writes the chart as a standalone SVG picture; each message has
// a <title> with its full label (a tooltip in browsers).
func (c *Chart) WriteSVG(w io.Writer) error {
	l := c.Layout()
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, `<svg xmlns="http://www.w3.org/2000/svg" width="%.0f" height="%.0f" viewBox="0 0 %.0f %.0f" font-family="Helvetica, Arial, sans-serif" font-size="%.0f">`+"\n",
		l.Width, l.Height, l.Width, l.Height, chartFont)
	fmt.Fprintf(bw, `<rect width="100%%" height="100%%" fill="white"/>`+"\n")
	fmt.Fprintf(bw, `<text x="%.0f" y="%.0f" font-weight="bold">%s</text>`+"\n", chartMargin, chartMargin, esc(c.Title))
	bottom := l.Height - chartMargin - chartRow
	for i, name := range c.Lifelines {
		x := l.X[i]
		fmt.Fprintf(bw, `<rect x="%.1f" y="%.1f" width="%.1f" height="22" rx="4" fill="#eef3fa" stroke="%s"/>`, x-l.BoxWidth/2, l.Top-26, l.BoxWidth, chartInk)
		fmt.Fprintf(bw, `<text x="%.1f" y="%.1f" text-anchor="middle">%s</text>`, x, l.Top-11, esc(FitLabel(name, l.BoxWidth)))
		fmt.Fprintf(bw, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#bbbbbb" stroke-dasharray="4 3"/>`+"\n", x, l.Top-4, x, bottom)
	}
	if c.Dropped > 0 {
		fmt.Fprintf(bw, `<text x="%.0f" y="%.0f" fill="%s">… the first %d steps are not drawn</text>`+"\n", chartMargin, l.Top+12, chartTimeout, c.Dropped)
	}
	for i := range c.Messages {
		c.writeMessage(bw, l, i)
	}
	if c.Verdict != "" {
		color := chartInk
		if strings.HasPrefix(c.Verdict, string(conform.Fail)) {
			color = chartFail
		}
		fmt.Fprintf(bw, `<text x="%.0f" y="%.0f" fill="%s" font-weight="bold">%s</text>`+"\n", chartMargin, bottom+chartRow/2+6, color, esc(FitLabel(c.Verdict, l.Width-2*chartMargin)))
	}
	if len(c.Expected) > 0 {
		fmt.Fprintf(bw, `<text x="%.0f" y="%.0f">%s</text>`+"\n", chartMargin, bottom+chartRow/2+24, esc(FitLabel(ExpectedWords(c.Expected), l.Width-2*chartMargin)))
	}
	bw.WriteString("</svg>\n")
	return bw.Flush()
}

// writeMessage draws row i: an arrow with its label above, a loop for a
// step on one lifeline, a grey mark for a timeout.
func (c *Chart) writeMessage(bw *bufio.Writer, l *ChartLayout, i int) {
	m := &c.Messages[i]
	y, color := l.Y[i], MessageColor(m)
	fmt.Fprintf(bw, `<g><title>%s</title>`, esc(m.Label))
	if m.Step > 0 {
		fmt.Fprintf(bw, `<text x="%.0f" y="%.1f" fill="%s" font-size="10" text-anchor="end">%d</text>`, chartMargin+chartStepCol-4, y+4, chartTimeout, m.Step)
	}
	x1, x2 := l.X[m.From], l.X[m.To]
	width := "1.4"
	if m.Failed {
		width = "2.4"
	}
	switch {
	case m.Kind == model.Timeout:
		fmt.Fprintf(bw, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s" stroke-width="3"/><text x="%.1f" y="%.1f" fill="%s" font-size="10">timeout</text>`,
			x1, y-5, x1, y+5, color, x1+6, y+3, color)
	case m.From == m.To:
		fmt.Fprintf(bw, `<path d="M%.1f,%.1f h28 v12 h-22" fill="none" stroke="%s" stroke-width="%s"/>%s<text x="%.1f" y="%.1f" fill="%s">%s</text>`,
			x1, y-6, color, width, arrowHead(x1+6, x1, y+6, color), x1+34, y+4, color, esc(FitLabel(m.Label, l.Width-x1-40)))
	default:
		dash := ""
		if m.Kind != model.Controllable {
			dash = ` stroke-dasharray="6 3"`
		}
		fmt.Fprintf(bw, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s" stroke-width="%s"%s/>%s`, x1, y, x2, y, color, width, dash, arrowHead(x1, x2, y, color))
		span := max(x1, x2) - min(x1, x2)
		fmt.Fprintf(bw, `<text x="%.1f" y="%.1f" fill="%s" text-anchor="middle">%s</text>`, (x1+x2)/2, y-5, color, esc(FitLabel(m.Label, span-8)))
	}
	bw.WriteString("</g>\n")
}

// arrowHead is a filled triangle at x2 pointing away from x1.
func arrowHead(x1, x2, y float64, color string) string {
	d := 9.0
	if x2 < x1 {
		d = -9
	}
	return fmt.Sprintf(`<path d="M%.1f,%.1f L%.1f,%.1f L%.1f,%.1f z" fill="%s"/>`, x2, y, x2-d, y-4.5, x2-d, y+4.5, color)
}

// esc escapes text for the charts' and timelines' SVG: markup as
// entities, characters XML 1.0 does not allow as visible escapes, bytes
// that are not UTF-8 as U+FFFD (safetext.XML): a thread or process named
// with control characters still gives a picture every XML reader takes.
func esc(s string) string { return safetext.XML(s) }

// SavedChart draws a saved run (a campaign's failure, a --rerun file): its
// steps as RunChart draws them, the inputs read back as printed — an
// unquoted name ending in a number (Client1) is an object — and its
// failure as the last line (a saved run does not keep the failing event).
func SavedChart(title string, s *conform.SavedRun) *Chart {
	b := newChartBuilder(title, LifelineTester)
	for i, st := range s.Trace {
		kind, _ := model.ParseKind(st.Kind)
		label := st.Action + "(" + strings.Join(st.Args, ", ") + ")"
		if kind != model.Controllable {
			label = "?" + label
		}
		if st.Output != "" {
			label += "/" + st.Output
		}
		var parts []model.Value
		for _, a := range st.Args {
			if printedObject(a) {
				parts = append(parts, namedObject(a))
			}
		}
		var out model.Value
		if printedObject(st.Output) {
			out = namedObject(st.Output)
		}
		b.add(kind, label, s.Dropped+i+1, parts, out, "", "", st.Failing)
	}
	c := b.c
	c.Dropped = s.Dropped
	c.Verdict = string(s.Verdict)
	if f := s.Failure; f != nil {
		c.Verdict = fmt.Sprintf("%s at step %d: %s", s.Verdict, f.Step, f.Message)
	}
	return c.trim()
}

// printedObject says whether a printed value is an object (Client1): a
// name ending in digits, not quoted.
func printedObject(s string) bool {
	n := len(s)
	if n < 2 || s[n-1] < '0' || s[n-1] > '9' {
		return false
	}
	for i, r := range s {
		letter := r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z'
		if !letter && (i == 0 || r < '0' || r > '9') {
			return false
		}
	}
	return true
}

// namedObject is the object a printed name stands for.
func namedObject(s string) model.Value {
	kind := strings.TrimRight(s, "0123456789")
	var n int
	fmt.Sscan(s[len(kind):], &n)
	return model.Object{Kind: kind, N: n}
}
