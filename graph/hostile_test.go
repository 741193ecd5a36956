package graph_test

import (
	"bytes"
	"context"
	"encoding/xml"
	"io"
	"strings"
	"testing"

	"github.com/modex/modex/graph"
)

// hostile are names and values with what a trace, a history or a model may
// hold and an SVG or Graphviz must not take as it is: control characters
// (invalid in XML 1.0), an escape sequence, a bidi override, bytes that
// are not UTF-8, U+FFFF, markup, and entities Graphviz would decode.
var hostile = []string{
	"thread\x01one",
	"proc\x1b[31mred\x1b[0m",
	"rlo\u202egnp.exe",
	"bad\xff\xfeutf8",
	"non\uffffchar",
	"<script>alert(1)</script>",
	"&lt;script&gt;",
	"nul\x00bell\x07",
	"c1\u009b31m",
}

// parseXML parses an XML document with encoding/xml to its end and
// returns its character data.
func parseXML(t *testing.T, name string, doc []byte) string {
	t.Helper()
	d := xml.NewDecoder(bytes.NewReader(doc))
	var text strings.Builder
	for {
		tok, err := d.Token()
		if err == io.EOF {
			return text.String()
		}
		if err != nil {
			t.Fatalf("%s is not XML: %v", name, err)
		}
		if cd, ok := tok.(xml.CharData); ok {
			text.Write(cd)
		}
	}
}

// Sequence charts and history timelines of hostile names are valid XML,
// and show the names' characters as escapes (nothing raw in the picture).
func TestHostileSVGText(t *testing.T) {
	for _, name := range hostile {
		c := &graph.Chart{Title: name, Lifelines: []string{graph.LifelineEnvironment, name, "b"},
			Messages: []graph.Message{{From: 1, To: 2, Label: "Call(" + name + ")", Step: 1}, {From: 2, To: 0, Label: "✗ " + name, Step: 2, Failed: true}},
			Verdict:  "fail at event 2: " + name, Expected: []string{name}}
		tl := &graph.Timeline{Title: name, Verdict: "fail", Lanes: []string{name, "2"}, Columns: 3, Cut: 1, Note: name, Failure: name,
			Bars: []graph.TimelineBar{{Lane: 0, Start: 0, End: 2, Label: name, Tip: name + "\nline 2", State: graph.BarFailed}}}
		for what, write := range map[string]func(io.Writer) error{"chart": c.WriteSVG, "timeline": tl.WriteSVG} {
			var b bytes.Buffer
			if err := write(&b); err != nil {
				t.Fatal(err)
			}
			text := parseXML(t, what+" of "+name, b.Bytes())
			for _, r := range text {
				if r < 0x20 && r != '\n' && r != '\t' || r == 0x7f || r >= 0x80 && r <= 0x9f || r == 0x202e || r == 0xffff {
					t.Errorf("%s of %q draws %U raw", what, name, r)
				}
			}
			if strings.Contains(name, "<script>") && !strings.Contains(text, "<script>") {
				t.Errorf("%s of %q does not draw the markup as text", what, name)
			}
			if strings.HasPrefix(name, "&lt;") && !strings.Contains(text, "&lt;script&gt;") {
				t.Errorf("%s of %q does not draw the entity as text", what, name)
			}
		}
	}
}

// A label Graphviz draws is drawn as it is: an entity in a value is not
// decoded (&lt;script&gt; stays those characters), control characters
// are escapes, and the SVG Graphviz writes is valid XML.
func TestHostileDOTLabels(t *testing.T) {
	d := &graph.Doc{}
	for i, name := range hostile {
		id := string(rune('a' + i))
		d.States = append(d.States, graph.State{ID: id, Label: name, Kind: "active", Error: name, Vars: graph.Vars{{Name: "v", Value: name}}})
		if i > 0 {
			d.Transitions = append(d.Transitions, graph.Transition{From: d.States[i-1].ID, To: id, Action: "Go", Kind: "controllable", Label: "Go(" + name + ")"})
		}
	}
	d.States[0].Initial = true
	var dot bytes.Buffer
	if err := d.WriteDOT(&dot); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`label="&amp;lt;script&amp;gt;"`, `label="proc\\x1b[31mred\\x1b[0m"`, `label="<script>alert(1)</script>"`, `label="bad\\xff\\xfeutf8"`, `label="rlo\\u202egnp.exe"`} {
		if !strings.Contains(dot.String(), want) {
			t.Errorf("the DOT has no %s:\n%s", want, dot.String())
		}
	}
	if strings.ContainsAny(dot.String(), "\x00\x01\x07\x1b\u009b\u202e") || !strings.Contains(dot.String(), `tooltip="error: &amp;lt;script&amp;gt;\nv = &amp;lt;script&amp;gt;"`) {
		t.Errorf("the DOT holds raw control characters or decodable entities:\n%s", dot.String())
	}
	var svg bytes.Buffer
	if err := d.Render(context.Background(), graph.SVG, "dot", &svg); err != nil {
		t.Fatal(err)
	}
	text := parseXML(t, "the graph's SVG", svg.Bytes())
	for _, want := range []string{"&lt;script&gt;", "<script>alert(1)</script>", `proc\x1b[31mred\x1b[0m`, `nul\x00bell\x07`, `rlo\u202egnp.exe`} {
		if !strings.Contains(text, want) {
			t.Errorf("the SVG does not draw %q:\n%s", want, svg.String())
		}
	}
	if !bytes.Contains(svg.Bytes(), []byte("&amp;lt;script&amp;gt;")) {
		t.Errorf("the SVG does not hold &amp;lt;script&amp;gt;:\n%s", svg.String())
	}
}
