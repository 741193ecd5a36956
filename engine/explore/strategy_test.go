package explore_test

import (
	"strings"
	"testing"

	"github.com/modex/modex/engine/explore"
	"github.com/modex/modex/engine/model"
)

// game builds a graph from "from kind label to" lines: kind c
// (controllable), o (observable) or t (timeout); states S0… (S0 initial,
// all accepting unless named in notAccepting).
func game(n int, notAccepting []int, arcs ...string) *explore.Graph {
	g := &explore.Graph{}
	for i := 0; i < n; i++ {
		g.States = append(g.States, explore.GState{ID: "S" + string(rune('0'+i)), Model: int32(i), Kind: explore.Active, Accepting: true, Initial: i == 0})
	}
	for _, i := range notAccepting {
		g.States[i].Accepting = false
	}
	kinds := map[string]model.Kind{"c": model.Controllable, "o": model.Observable, "t": model.Timeout}
	for _, a := range arcs {
		f := strings.Fields(a)
		t := explore.GTrans{From: int(f[0][1] - '0'), To: int(f[3][1] - '0'), Action: f[2], Kind: kinds[f[1]], ModelTrans: -1}
		if t.Kind == model.Timeout {
			t.Action = ""
		}
		g.Trans = append(g.Trans, t)
	}
	return g
}

// The attractor on small games with known answers: the tester forces a
// state through the implementation's choice when every choice leads on
// (worst case counted), not when one choice leads to a dead end; a
// self-loop of the implementation is waited through; the tester takes its
// shortest way.
func TestAttractor(t *testing.T) {
	cases := []struct {
		name  string
		g     *explore.Graph
		goal  int
		ranks []int
	}{
		{"both choices lead to the goal", game(5, nil,
			"S0 c a S1", "S1 o x S2", "S1 o y S3", "S2 c b S4", "S3 c c S2"), 4,
			[]int{4, 3, 1, 2, 0}},
		{"one choice is a dead end", game(5, nil,
			"S0 c a S1", "S1 o x S2", "S1 o y S3", "S2 c b S4"), 4,
			[]int{-1, -1, 1, -1, 0}},
		{"the tester avoids the implementation's state", game(5, nil,
			"S0 c a S1", "S0 c d S2", "S1 o x S3", "S1 o y S4", "S2 c b S4"), 4,
			[]int{2, -1, 1, -1, 0}},
		{"a self-loop is waited through, a timeout is a choice", game(4, nil,
			"S0 c a S1", "S1 o z S1", "S1 t - S2", "S1 o x S3", "S2 c b S3"), 3,
			[]int{3, 2, 1, 0}},
		{"the implementation moves where the tester cannot", game(3, nil,
			"S0 o x S1", "S1 o y S2"), 2,
			[]int{2, 1, 0}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a := c.g.Game().Attractor(func(i int) bool { return i == c.goal })
			for i, want := range c.ranks {
				if a.Rank[i] != want {
					t.Errorf("S%d: rank %d, want %d (all %v)", i, a.Rank[i], want, a.Rank)
				}
				if gm := c.g.Game(); want > 0 && !gm.Impl[i] && (a.Move[i] < 0 || gm.Edges[a.Move[i]].Trans < 0 || c.g.Trans[gm.Edges[a.Move[i]].Trans].Kind != model.Controllable) {
					t.Errorf("S%d: the tester has no move (%d)", i, a.Move[i])
				}
			}
		})
	}
}

// The fair attractor: an implementation that may cycle between its
// states but does not avoid a choice forever cannot keep the tester from a
// goal the plain attractor gives up on; a dead end still can.
func TestFairAttractor(t *testing.T) {
	// S1 and S2 are the implementation's: it may go back and forth (join,
	// leave) or time out to S3, where the tester reaches the goal S4.
	g := game(5, nil, "S0 c a S1", "S1 o j S2", "S2 o l S1", "S1 t - S3", "S2 t - S3", "S3 c b S4")
	if a := g.Game().Attractor(func(i int) bool { return i == 4 }); a.Forced(0) {
		t.Errorf("plain attractor forces the goal through a cycle: %v", a.Rank)
	}
	gm := g.Game()
	a := gm.FairAttractor(func(i int) bool { return i == 4 })
	if !a.Forced(0) || a.Rank[0] != 3 || g.Trans[gm.Edges[a.Move[0]].Trans].Action != "a" {
		t.Errorf("fair attractor: ranks %v, move at S0 %d", a.Rank, a.Move[0])
	}
	// A choice into a dead end (S5: nothing more happens) is one the
	// implementation may make.
	dead := game(6, nil, "S0 c a S1", "S1 o j S2", "S2 o l S1", "S1 t - S3", "S3 c b S4", "S2 o d S5")
	if a := dead.Game().FairAttractor(func(i int) bool { return i == 4 }); a.Forced(0) || a.Forced(1) || a.Forced(2) || !a.Forced(3) {
		t.Errorf("a dead end the implementation may choose: ranks %v", a.Rank)
	}
}

// A strategy suite on the cycling game: every transition covered, each
// case with a plan (the tester's moves, the implementation's choices) and
// the forced ones marked; the observable ones are best efforts.
func TestStrategySuite(t *testing.T) {
	g := game(5, nil, "S0 c a S1", "S1 o j S2", "S2 o l S1", "S1 t - S3", "S2 t - S3", "S3 c b S4")
	s, err := g.StrategySuite()
	if err != nil {
		t.Fatal(err)
	}
	if s.Format != explore.SuiteFormat2 || s.Covered != 6 || s.LowerBound != 6 {
		t.Fatalf("%s", s.Summary())
	}
	var forB *explore.SuiteCase
	for i := range s.Cases {
		c := &s.Cases[i]
		if c.Plan == nil || len(c.Plan.Ends) == 0 {
			t.Fatalf("%s has no plan", c.Name)
		}
		if strings.HasPrefix(c.Goal, "b() at S3") {
			forB = c
		}
		if strings.HasPrefix(c.Goal, "?j() at S1") && c.Forced {
			t.Errorf("?j is marked forced")
		}
	}
	if forB == nil || !forB.Forced {
		t.Fatalf("no forced case for b: %+v", s.Cases)
	}
	p := forB.Plan
	waits := map[string]bool{}
	for _, w := range p.Waits {
		waits[w.From+" "+w.Label] = true
	}
	if p.Start != "S0" || len(p.Moves) != 1 || p.Moves[0].Label != "a()" || p.Goal.Label != "b()" || !waits["S1 ?j()"] || !waits["S2 ?l()"] || !waits["S1 "] || !waits["S2 "] {
		t.Errorf("plan for b: %+v", p)
	}
	if st := forB.Steps; len(st) != 3 || st[0].Label != "a()" || st[1].Kind != "timeout" || st[2].Label != "b()" {
		t.Errorf("main line %+v", st)
	}
	if s.Forced+s.BestEffort != len(s.Cases) || s.BestEffort == 0 {
		t.Errorf("forced %d, best effort %d of %d", s.Forced, s.BestEffort, len(s.Cases))
	}
}

// State coverage by strategies: a case per state other than the initial
// one, forced through the implementation's cycle.
func TestStrategyStates(t *testing.T) {
	g := game(5, nil, "S0 c a S1", "S1 o j S2", "S2 o l S1", "S1 t - S3", "S2 t - S3", "S3 c b S4")
	s, err := g.StrategyStates(nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Cases) != 4 || s.Covered != 5 || s.Forced != 4 || s.Coverage != "states" {
		t.Fatalf("%s", s.Summary())
	}
	for _, c := range s.Cases {
		if c.Plan == nil || c.Plan.GoalState != c.Goal || len(c.Steps) == 0 {
			t.Errorf("%s: %+v", c.Name, c)
		}
	}
}

// A strategy suite's file is sized as its cases are made: the estimate is
// no less than the file WriteJSON writes, and a suite that would pass the
// bound `modex run` reads is refused when it is made, not when it is run.
func TestStrategySuiteSize(t *testing.T) {
	g := game(5, nil, "S0 c a S1", "S1 o j S2", "S2 o l S1", "S1 t - S3", "S2 t - S3", "S3 c b S4")
	s, err := g.StrategySuite()
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := s.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	if est := explore.SuiteSize(s); est < int64(b.Len()) || est > 4*int64(b.Len()) {
		t.Errorf("estimated %d bytes for a file of %d", est, b.Len())
	}
	defer explore.SetMaxSuiteBytes(int64(b.Len()) / 2)()
	if _, err := g.StrategySuite(); err == nil || !strings.Contains(err.Error(), "narrow the configuration") {
		t.Errorf("got %v, want the suite refused as too big", err)
	}
	if _, err := g.StrategyStates(nil); err == nil || !strings.Contains(err.Error(), "narrow the configuration") {
		t.Errorf("states: got %v, want the suite refused as too big", err)
	}
}

// A suite's summary counts in words that agree with their numbers: "1
// timeout", "1 step", and no "at least 0 needed".
func TestSuiteSummaryWords(t *testing.T) {
	for _, c := range []struct {
		s          explore.Suite
		want, nope string
	}{
		{explore.Suite{Format: explore.SuiteFormat, Steps: 1, Timeouts: 1, Length: 2, LowerBound: 2, Covered: 2, Trans: 2, Cases: make([]explore.SuiteCase, 1)},
			"1 test case, 1 step and 1 timeout (2 transitions walked, at least 2 needed), covering 2 of 2 transitions", "timeouts"},
		{explore.Suite{Format: explore.SuiteFormat, Steps: 3, Length: 3, Cases: make([]explore.SuiteCase, 2)},
			"2 test cases, 3 steps and no timeouts (3 transitions walked), covering 0 of 0 transitions", "at least 0"},
	} {
		got := c.s.Summary()
		if got != c.want || strings.Contains(got, c.nope) {
			t.Errorf("got  %q\nwant %q", got, c.want)
		}
	}
}
