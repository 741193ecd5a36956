package graph_test

import (
	"strings"
	"testing"

	"github.com/modex/modex/graph"
)

// A path view: the chain of the path's states, and at each one the moves
// it does not take folded into one dashed node whose tooltip lists them.
func TestPathView(t *testing.T) {
	d := &graph.Doc{
		States: []graph.State{{ID: "S0", Initial: true}, {ID: "S1"}, {ID: "S2"}, {ID: "S3", Error: "bad"}, {ID: "S4"}},
		Transitions: []graph.Transition{
			{From: "S0", To: "S1", Label: "a"}, {From: "S0", To: "S4", Label: "b"}, {From: "S1", To: "S2", Label: "c"},
			{From: "S1", To: "S0", Label: "d"}, {From: "S1", To: "S4", Label: "e"}, {From: "S2", To: "S3", Label: "f"}, {From: "S4", To: "S3", Label: "g"},
		},
	}
	path, ok := d.ShortestPath("S0", func(s *graph.State) bool { return s.Error != "" })
	if !ok || len(path) != 2 || d.Transitions[path[0]].Label != "b" || d.Transitions[path[1]].Label != "g" {
		t.Fatalf("shortest path to the error: %v %v", path, ok)
	}
	if _, ok := d.ShortestPath("S3", func(s *graph.State) bool { return s.ID == "S0" }); ok {
		t.Error("found a path out of a state with no moves")
	}
	if p, ok := d.ShortestPath("S2", func(s *graph.State) bool { return s.ID == "S2" }); !ok || len(p) != 0 {
		t.Errorf("the start is its own goal: %v %v", p, ok)
	}
	path, _ = d.ShortestPath("S0", func(s *graph.State) bool { return s.ID == "S2" })
	v := d.PathView("S0", path)
	var ids []string
	for _, s := range v.States {
		ids = append(ids, s.ID+"="+s.Label)
	}
	if got := strings.Join(ids, " "); got != "S0= S1= S2= fold_S0=1 other move fold_S1=2 other moves fold_S2=1 other move" {
		t.Errorf("states %s", got)
	}
	fold := v.States[v.StateIndex("fold_S1")]
	if !fold.Rim || fold.Frontier || len(fold.Vars) != 2 || fold.Vars[0].Value != "d → S0" || fold.Vars[1].Value != "e → S4" {
		t.Errorf("fold of S1: %+v", fold)
	}
	if len(v.Transitions) != 5 || v.Transitions[0].Label != "a" || v.Transitions[1].Label != "c" || v.Transitions[3].Label != "+2" {
		t.Errorf("transitions %+v", v.Transitions)
	}
}
