package area

import (
	"testing"

	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"
)

// A result opens beside the graph when the graph is on screen, alone when
// the user reads another result; a new project's view takes the place of
// the old one's.
func TestOpenBesideTheGraph(t *testing.T) {
	test.NewTempApp(t)
	g := Pane{Name: "Graph", Body: widget.NewLabel("graph")}
	run := Pane{Name: "Test run", Body: widget.NewLabel("run")}
	suite := Pane{Name: "Suite", Body: widget.NewLabel("suite")}
	a := New(g, run, suite)
	if a.Current().Title() != "Graph" || a.Beside() || !a.GraphShown() {
		t.Fatalf("at first: %s, beside %v", a.Current().Title(), a.Beside())
	}
	a.Open(run)
	if a.Current().Title() != "Test run" || !a.Beside() || a.body.Objects[0] != a.split {
		t.Errorf("a run opened from the graph: %s, beside %v", a.Current().Title(), a.Beside())
	}
	a.Show(suite, false)
	a.Open(run)
	if a.Current().Title() != "Test run" || a.Beside() || a.GraphShown() {
		t.Errorf("a run opened from the suite: %s, beside %v", a.Current().Title(), a.Beside())
	}
	again := Pane{Name: "Test run", Body: widget.NewLabel("another run")}
	a.Set(again)
	if a.holders[1].Objects[0] != again.Body || a.Current().Content() != again.Body {
		t.Error("Set did not replace the run's view")
	}
	a.Show(g, true)
	if a.Beside() {
		t.Error("the graph beside itself")
	}
}
