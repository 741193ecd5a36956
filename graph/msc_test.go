package graph_test

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"strings"
	"testing"

	"go.starlark.net/starlark"

	"github.com/modex/modex/engine/conform"
	"github.com/modex/modex/engine/model"
	"github.com/modex/modex/graph"
)

// hiBye is the chat's out-of-order failure as a run: Client1 posts "bye"
// then "hi" to Client2, and the server delivers "hi" first.
func hiBye() conform.RunResult {
	c1, c2 := model.Object{Kind: "Client", N: 1}, model.Object{Kind: "Client", N: 2}
	str := func(s string) model.Value { return starlark.String(s) }
	steps := []conform.StepRecord{
		{Kind: model.Timeout},
		{Step: 1, Kind: model.Controllable, Action: "Create", Output: c1, States: []string{"k1"}},
		{Step: 2, Kind: model.Controllable, Action: "Create", Output: c2, States: []string{"k2"}},
		{Step: 3, Kind: model.Controllable, Action: "Enter", Args: []model.Value{c1}},
		{Step: 4, Kind: model.Controllable, Action: "Enter", Args: []model.Value{c2}},
		{Step: 5, Kind: model.Controllable, Action: "Post", Args: []model.Value{c1, str("bye")}},
		{Kind: model.Timeout},
		{Step: 6, Kind: model.Controllable, Action: "Post", Args: []model.Value{c1, str("hi")}, States: []string{"k6"}},
		{Step: 7, Kind: model.Observable, Action: "Tick"},
	}
	fail := &conform.Failure{Kind: conform.FailUnexpected, Step: 8, Message: `the implementation did ?Deliver(Client1, Client2, "hi"), which the model does not allow here`,
		Expected: []string{`?Deliver(Client1, Client2, "bye")`},
		Event:    &conform.StepRecord{Kind: model.Observable, Action: "Deliver", Args: []model.Value{c1, c2, str("hi")}}}
	return conform.RunResult{Run: 3, Seed: 7, Verdict: conform.Fail, Actions: 7, Steps: steps, Failure: fail}
}

// A run's sequence chart: the tester and one lifeline per object in order
// of appearance; controllable steps from the tester to the object they
// name (or create), an observed step between the objects it names (sender
// to receiver), from the implementation when it names none; the failing
// event last, in red, with what the model allowed.
func TestRunChart(t *testing.T) {
	c := graph.RunChart("chat [hi_bye] run 3", hiBye())
	if got := strings.Join(c.Lifelines, " "); got != "Tester Client1 Client2 Implementation" {
		t.Errorf("lifelines %q", got)
	}
	var rows []string
	for _, m := range c.Messages {
		rows = append(rows, fmt.Sprintf("%d:%s->%s:%s:%v", m.Step, c.Lifelines[m.From], c.Lifelines[m.To], m.Label, m.Failed))
	}
	want := []string{
		"0:Tester->Tester:timeout:false",
		"1:Tester->Client1:Create()/Client1:false",
		"2:Tester->Client2:Create()/Client2:false",
		"3:Tester->Client1:Enter(Client1):false",
		"4:Tester->Client2:Enter(Client2):false",
		`5:Tester->Client1:Post(Client1, "bye"):false`,
		"0:Tester->Tester:timeout:false",
		`6:Tester->Client1:Post(Client1, "hi"):false`,
		"7:Implementation->Tester:?Tick():false",
		`8:Client1->Client2:✗ ?Deliver(Client1, Client2, "hi"):true`,
	}
	if strings.Join(rows, "\n") != strings.Join(want, "\n") {
		t.Errorf("rows:\n%s\nwant:\n%s", strings.Join(rows, "\n"), strings.Join(want, "\n"))
	}
	if c.Messages[7].State != "k6" || !strings.HasPrefix(c.Verdict, "fail at step 8: ") || len(c.Expected) != 1 {
		t.Errorf("state %q, verdict %q, expected %v", c.Messages[7].State, c.Verdict, c.Expected)
	}
	svg := chartSVG(t, c)
	for _, s := range []string{`Client1`, `fill="#c62828"`, `the model allowed: ?Deliver(Client1, Client2, &#34;bye&#34;)`, `<title>Post(Client1, &#34;hi&#34;)</title>`} {
		if !strings.Contains(svg, s) {
			t.Errorf("SVG lacks %s", s)
		}
	}
	golden(t, "chat_hi_bye_chart.svg", []byte(svg))
}

// chartSVG writes a chart and checks that it is well-formed XML.
func chartSVG(t *testing.T, c *graph.Chart) string {
	t.Helper()
	var b bytes.Buffer
	if err := c.WriteSVG(&b); err != nil {
		t.Fatal(err)
	}
	dec := xml.NewDecoder(bytes.NewReader(b.Bytes()))
	for {
		if _, err := dec.Token(); err == io.EOF {
			break
		} else if err != nil {
			t.Fatalf("SVG is not well-formed: %v", err)
		}
	}
	return b.String()
}

// A replay's chart has the trace's threads as lifelines; a run longer than
// MaxChartMessages keeps its last rows and says how many it left out.
func TestReplayChartAndBound(t *testing.T) {
	res := &conform.ReplayResult{Verdict: conform.Fail, Matched: 2, Total: 3, Path: []conform.ReplayStep{
		{Index: 0, Line: 1, Label: "Put(1)", Action: "Put", Args: []model.Value{starlark.MakeInt(1)}, Kind: model.Controllable, Thread: "t1", States: []string{"a"}},
		{Index: 1, Line: 2, Label: "?Got(1)", Action: "Got", Args: []model.Value{starlark.MakeInt(1)}, Kind: model.Observable, Thread: "t2", States: []string{"b"}},
	}, Failure: &conform.ReplayFailure{Index: 2, Line: 3, Event: "Got 2", Message: "no state accepts ?Got(2)",
		Step: &conform.ReplayStep{Label: "?Got(2)", Action: "Got", Kind: model.Observable, Thread: "t2"}}}
	c := graph.ReplayChart("bag", res)
	if got := strings.Join(c.Lifelines, " "); got != "Environment t1 t2" {
		t.Errorf("lifelines %q", got)
	}
	last := c.Messages[len(c.Messages)-1]
	if len(c.Messages) != 3 || !last.Failed || c.Lifelines[last.From] != "t2" || c.Lifelines[last.To] != "Environment" || !strings.Contains(c.Verdict, "event 3 (line 3)") {
		t.Errorf("messages %+v, verdict %q", c.Messages, c.Verdict)
	}
	chartSVG(t, c)

	long := conform.RunResult{Verdict: conform.Pass}
	for i := 1; i <= graph.MaxChartMessages+50; i++ {
		long.Steps = append(long.Steps, conform.StepRecord{Step: i, Kind: model.Controllable, Action: "Push"})
	}
	c = graph.RunChart("long", long)
	if len(c.Messages) != graph.MaxChartMessages || c.Dropped != 50 || c.Messages[0].Step != 51 {
		t.Errorf("%d rows, %d dropped, first step %d", len(c.Messages), c.Dropped, c.Messages[0].Step)
	}
	if svg := chartSVG(t, c); !strings.Contains(svg, "the first 50 steps are not drawn") {
		t.Error("the SVG does not say what it left out")
	}
}

// A saved run (a campaign's failure) draws as the run it was: objects read
// back from their printed names, the failure as the last line.
func TestSavedChart(t *testing.T) {
	saved := conform.SaveRun("chat", "hi_bye", conform.TestConfig{}, hiBye())
	c := graph.SavedChart("seed 7", saved)
	if got := strings.Join(c.Lifelines, " "); got != "Tester Client1 Client2 Implementation" {
		t.Errorf("lifelines %q", got)
	}
	// The saved trace ends with the step the run failed at, drawn failed.
	last := c.Messages[len(c.Messages)-1]
	if len(c.Messages) != 8 || c.Messages[6].Label != "?Tick()" || c.Messages[4].Label != `Post(Client1, "bye")` || c.Lifelines[c.Messages[4].To] != "Client1" ||
		last.Label != `?Deliver(Client1, Client2, "hi")` || !last.Failed || c.Messages[6].Failed {
		t.Errorf("messages %+v", c.Messages)
	}
	if !strings.HasPrefix(c.Verdict, "fail at step 8: ") {
		t.Errorf("verdict %q", c.Verdict)
	}
	chartSVG(t, c)
}
