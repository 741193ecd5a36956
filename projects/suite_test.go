package projects

import (
	"bytes"
	"context"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modex/modex/engine/adapter"
	"github.com/modex/modex/engine/conform"
	"github.com/modex/modex/engine/explore"
	"github.com/modex/modex/engine/model"
)

// sample loads a bundled sample's project, model and configuration ("" for
// the default).
func sample(t testing.TB, name, config string) (*Project, *model.StarModel, *explore.Config) {
	t.Helper()
	p, err := Load(filepath.Join(name, name+".toml"))
	if err != nil {
		t.Fatal(err)
	}
	m, err := p.LoadModelFor(config)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := p.Build(m, config)
	if err != nil {
		t.Fatal(err)
	}
	return p, m, cfg
}

var update = flag.Bool("update", false, "rewrite golden files in testdata/")

func graphOf(t *testing.T, name, config string) (*explore.Graph, *model.StarModel, *explore.Config) {
	t.Helper()
	_, m, cfg := sample(t, name, config)
	x, err := explore.Explore(context.Background(), m, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return x.Graph(), m, cfg
}

// checkTour verifies the shape of a transition-coverage suite.
func checkTour(t *testing.T, g *explore.Graph, s *explore.Suite) {
	t.Helper()
	ids := map[string]int{}
	for i, st := range g.States {
		ids[st.ID] = i
	}
	covered := map[string]bool{}
	for _, c := range s.Cases {
		if len(c.Steps) == 0 {
			t.Fatalf("%s is empty", c.Name)
		}
		if !g.States[ids[c.Steps[0].From]].Initial {
			t.Errorf("%s starts in %s, not the initial state", c.Name, c.Steps[0].From)
		}
		for i := 1; i < len(c.Steps); i++ {
			if c.Steps[i].From != c.Steps[i-1].To {
				t.Errorf("%s: step %d leaves %s but step %d ended in %s", c.Name, i, c.Steps[i].From, i-1, c.Steps[i-1].To)
			}
		}
		if last := c.Steps[len(c.Steps)-1]; !g.States[ids[last.To]].Accepting {
			t.Errorf("%s ends in %s, which is not accepting", c.Name, last.To)
		}
		for _, st := range c.Steps {
			covered[st.From+"|"+st.Label+"|"+st.To] = true
		}
	}
	dead := map[string]bool{}
	for _, d := range s.Dead {
		dead[d] = true
	}
	for _, tr := range g.Trans {
		from, to := g.States[tr.From].ID, g.States[tr.To].ID
		if !dead[to] && !dead[from] && !covered[from+"|"+tr.Label()+"|"+to] {
			t.Errorf("live transition %s -%s-> %s not covered", from, tr.Label(), to)
		}
	}
	if s.Length < s.LowerBound {
		t.Errorf("length %d below the lower bound %d", s.Length, s.LowerBound)
	}
}

func suiteGolden(t *testing.T, name string, s *explore.Suite) {
	t.Helper()
	var b bytes.Buffer
	s.WriteJSON(&b)
	path := filepath.Join("testdata", name)
	if *update {
		os.WriteFile(path, b.Bytes(), 0o644)
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test ./projects -update)", err)
	}
	if !bytes.Equal(b.Bytes(), want) {
		t.Errorf("%s differs from the golden file (go test ./projects -update, then review the diff)", name)
	}
	back, err := explore.ReadSuite(bytes.NewReader(b.Bytes()))
	if err != nil || len(back.Cases) != len(s.Cases) {
		t.Errorf("round trip: %v", err)
	}
}

func TestTours(t *testing.T) {
	for _, tc := range []struct {
		sample, config string
		cases, length  int
		dead           []string
	}{
		// Seed 001: "for the shown FSM we get a single traversal with 19
		// steps". The SomeItemsInCart graph has the paper's 6 states and 13
		// transitions; its single tour takes 19 steps (13 transitions, plus
		// 6 to get back to the ones that need it).
		{"webshop", "paper_fsm", 1, 19, nil},
		{"webshop", "some_items", 1, 19, nil},
		// Figure 1: the two terminal twins after a timeout are dead (no
		// accepting state is reachable from them).
		{"chat", "figure1", 1, 8, []string{"S6", "S8"}},
		// The same from the model with a scenario, and with a machine.
		{"chat", "figure1_scenario", 1, 8, []string{"S6", "S8"}},
		{"chat", "figure1_machine", 1, 8, []string{"S6", "S8"}},
		{"chat", "offline", 2, 20, nil},
		{"stack", "all", 1, 28, nil}, // exactly the lower bound
	} {
		t.Run(tc.sample+"/"+tc.config, func(t *testing.T) {
			g, _, _ := graphOf(t, tc.sample, tc.config)
			s, err := g.TransitionTour()
			if err != nil {
				t.Fatal(err)
			}
			s.Model, s.Config = tc.sample, tc.config
			checkTour(t, g, s)
			if len(s.Cases) != tc.cases || s.Length != tc.length || strings.Join(s.Dead, " ") != strings.Join(tc.dead, " ") {
				t.Errorf("%d cases, length %d (lower bound %d), dead %v; want %d, %d, %v", len(s.Cases), s.Length, s.LowerBound, s.Dead, tc.cases, tc.length, tc.dead)
			}
			suiteGolden(t, "tour_"+tc.sample+"_"+tc.config+".json", s)
		})
	}
}

func TestStateCases(t *testing.T) {
	g, _, _ := graphOf(t, "chat", "figure1")
	s, err := g.StateCases(nil)
	if err != nil {
		t.Fatal(err)
	}
	// The 9 states less the two dead ones and the initial state, which is
	// accepting: a case to it would have no steps, which a suite may not hold.
	if len(s.Cases) != 6 {
		t.Errorf("%d cases", len(s.Cases))
	}
	var buf bytes.Buffer
	if err := s.WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	if _, err := explore.ReadSuite(bytes.NewReader(buf.Bytes())); err != nil {
		t.Errorf("the generated suite does not read back: %v", err)
	}
	one, err := g.StateCases([]int{5})
	if err != nil || len(one.Cases) != 1 || one.Coverage != "state:S5" {
		t.Fatalf("%v %+v", err, one)
	}
	steps := one.Cases[0].Steps
	hit := false
	for _, st := range steps {
		hit = hit || st.To == "S5"
	}
	if !hit {
		t.Errorf("the case to S5 does not pass S5: %+v", steps)
	}
	if _, err := g.StateCases([]int{6}); err == nil {
		t.Error("a test case to a dead state was generated")
	}
}

// Suite files are untrusted input: errors say what and where (line and
// column), trailing data and empty suites are refused.
func TestReadSuiteErrors(t *testing.T) {
	step := `{"kind":"controllable","action":"Push","args":["1"],"label":"Push(1)","from":"S0","to":"S1"}`
	for _, tc := range []struct{ in, want string }{
		{`{"format":"other/1","cases":[]}`, `format "other/1"`},
		{`{"format":"modex-suite/1","cases":[{"name":"a","steps":[{"kind":"jump","label":"x","from":"S0","to":"S1"}]}]}`, `case 1 step 1: unknown kind "jump"`},
		{`{"format":"modex-suite/1",` + "\n" + `"surprise":1}`, `line 2, column`},
		{`not json`, "line 1, column 2"},
		{"{\"format\":\"modex-suite/1\",\n\"cases\": [\n  {\"name\": 7}]}", "line 3, column"},
		{`{"format":"modex-suite/1","cases":[]}`, "no test cases"},
		{`{"format":"modex-suite/1","cases":[{"name":"a","steps":[]}]}`, "case 1 (a) has no steps"},
		{`{"format":"modex-suite/1","cases":[{"name":"a","steps":[` + step + `]}]} trailing`, "data after the suite"},
	} {
		if _, err := explore.ReadSuite(strings.NewReader(tc.in)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.in, err, tc.want)
		}
	}
	ok := `{"format":"modex-suite/1","cases":[{"name":"a","steps":[` + step + `]}]}` + "\n"
	if _, err := explore.ReadSuite(strings.NewReader(ok)); err != nil {
		t.Errorf("a valid suite: %v", err)
	}
}

func FuzzReadSuite(f *testing.F) {
	f.Add([]byte(`{"format":"modex-suite/1","cases":[{"name":"a","steps":[{"kind":"timeout","label":"","from":"S0","to":"S1"}]}]}`))
	f.Add([]byte(`{"format":"modex-suite/1",` + "\n" + `"cases": 3}`))
	f.Add([]byte(`{"format":"modex-suite/2","cases":[{"name":"a","steps":[{"kind":"controllable","action":"a","label":"a()","from":"S0","to":"S1"}],` +
		`"plan":{"start":"S0","goal":{"kind":"controllable","action":"a","label":"a()","from":"S0","to":"S1"},"waits":[{"kind":"timeout","label":"","from":"S1","to":"S2"}],"ends":["S1"]}}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := explore.ReadSuite(bytes.NewReader(data))
		if err != nil {
			return
		}
		var b bytes.Buffer
		if err := s.WriteJSON(&b); err != nil {
			t.Fatal(err)
		}
		if _, err := explore.ReadSuite(&b); err != nil {
			t.Fatalf("a suite does not read back: %v", err)
		}
	})
}

// Every generated suite passes against the fixed chat server and fails
// against the buggy one.
func TestSuiteAgainstChatServer(t *testing.T) {
	bin := buildChatImpl(t)
	g, m, cfg := graphOf(t, "chat", "offline")
	suite, err := g.TransitionTour()
	if err != nil {
		t.Fatal(err)
	}
	states, err := g.StateCases(nil)
	if err != nil {
		t.Fatal(err)
	}
	run := func(s *explore.Suite, fixed bool) *conform.SuiteResult {
		args := []string{bin, "adapter"}
		if fixed {
			args = append(args, "--fixed")
		}
		impl, err := adapter.StartProcess(context.Background(), adapter.Hello{Model: "chat"}, args, ".", 10*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		defer impl.Close()
		res, err := conform.RunSuite(context.Background(), m, cfg, impl, s, conform.TestConfig{})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	for _, s := range []*explore.Suite{suite, states} {
		for i := 0; i < 3; i++ {
			res := run(s, true)
			if !res.Passed() {
				t.Fatalf("the fixed server did not pass the %s suite: %+v", s.Coverage, res.Cases)
			}
			// Each case's log has its steps, as an online run's.
			for ci, c := range res.Cases {
				if len(c.Log) != len(s.Cases[ci].Steps) || c.Log[len(c.Log)-1].Step != c.Steps {
					t.Fatalf("case %s: %d log entries for %d suite steps (%d actions)", c.Name, len(c.Log), len(s.Cases[ci].Steps), c.Steps)
				}
				for j, rec := range c.Log {
					if want := s.Cases[ci].Steps[j]; rec.Kind.String() != want.Kind || rec.Kind != model.Timeout && rec.Label() != want.Label {
						t.Fatalf("case %s step %d logged %s (%v), the suite has %s (%s)", c.Name, j, rec.Label(), rec.Kind, want.Label, want.Kind)
					}
				}
			}
		}
	}
	var fail *conform.Failure
	for i := 0; i < 60 && fail == nil; i++ {
		for _, c := range run(suite, false).Cases {
			if c.Failure != nil {
				fail = c.Failure
			}
		}
	}
	if fail != nil && (fail.Event == nil || fail.Event.Action != "Deliver") {
		t.Errorf("the failing event is not kept: %+v", fail.Event)
	}
	if fail == nil || fail.Kind != conform.FailUnexpected || !strings.Contains(fail.Message, "?Deliver(") {
		t.Fatalf("the buggy server: %+v", fail)
	}
}

// Every transition tour of every bundled configuration whose sample has an
// implementation runs against the fixed implementation with no case
// inconclusive because of the graph: groupings prune and never redirect, so
// every step of a tour is one the model takes in the state the case is in.
// (Cases may still end inconclusive for timing: an allowed event where a
// timeout was expected.)
func TestToursFitTheImplementations(t *testing.T) {
	bins := map[string]string{"chat": buildChatImpl(t)}
	bins["bag"] = filepath.Join(t.TempDir(), "bagimpl")
	if msg, err := exec.Command("go", "build", "-o", bins["bag"], "./bag/impl").CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, msg)
	}
	flags := map[string]string{"chat": " adapter --fixed", "bag": " adapter --capacity {CAPACITY} --fixed"}
	for _, name := range []string{"chat", "bag"} {
		p, err := Load(filepath.Join(name, name+".toml"))
		if err != nil {
			t.Fatal(err)
		}
		for _, cn := range p.ConfigNames() {
			name, cn := name, cn
			t.Run(name+"/"+cn, func(t *testing.T) {
				t.Parallel()
				_, m, cfg := sample(t, name, cn)
				x, err := explore.Explore(context.Background(), m, cfg)
				if err != nil {
					t.Fatal(err)
				}
				suite, err := x.Graph().TransitionTour()
				if err != nil {
					t.Fatal(err)
				}
				impl, err := p.Connect(context.Background(), m.Info(), bins[name]+flags[name], "")
				if err != nil {
					t.Fatal(err)
				}
				defer impl.Close()
				res, err := conform.RunSuite(context.Background(), m, cfg, impl, suite, conform.TestConfig{})
				if err != nil {
					t.Fatal(err)
				}
				for _, c := range res.Cases {
					if strings.Contains(c.Reason, "is not possible in the model's state") || c.Verdict == conform.Fail || c.Verdict == conform.ModelError {
						t.Errorf("%s: %s after %d steps: %s %+v", c.Name, c.Verdict, c.Steps, c.Reason, c.Failure)
					}
				}
				t.Logf("%s: %d cases, %s", suite.Summary(), len(res.Cases), verdictsOf(res))
				for _, c := range res.Cases {
					if c.Reason != "" {
						t.Logf("  %s: %s", c.Name, c.Reason)
					}
				}
			})
		}
	}
}

func verdictsOf(res *conform.SuiteResult) conform.Tally {
	t := conform.Tally{}
	for _, c := range res.Cases {
		t[c.Verdict]++
	}
	return t
}

// Strategy suites (modex gen --strategies) against the correct
// implementations of the chat, the bag and the conference protocol end
// with no inconclusive case and no failure — the plan follows whatever
// the implementation chooses — and the conference's three mutants and the
// buggy chat server are caught (seed 002's Table II, offline column).
func TestStrategySuitesAgainstImplementations(t *testing.T) {
	bins := map[string]string{"chat": buildChatImpl(t)}
	for _, name := range []string{"bag", "conference"} {
		bins[name] = filepath.Join(t.TempDir(), name+"impl")
		if msg, err := exec.Command("go", "build", "-o", bins[name], "./"+name+"/impl").CombinedOutput(); err != nil {
			t.Fatalf("%v\n%s", err, msg)
		}
	}
	cases := []struct {
		name, config, flags string
		wantFail            bool
	}{
		{"chat", "offline", " adapter --fixed", false},
		{"chat", "offline", " adapter", true},
		{"bag", "two_threads", " adapter --capacity {CAPACITY} --fixed", false},
		{"conference", "agents-1", " adapter --agents 1", false},
		{"conference", "agents-1", " adapter --agents 1 --mutant 1", true},
		{"conference", "agents-1", " adapter --agents 1 --mutant 2", true},
		{"conference", "agents-1", " adapter --agents 1 --mutant 3", true},
	}
	for _, c := range cases {
		c := c
		t.Run(c.name+c.flags, func(t *testing.T) {
			p, m, cfg := sample(t, c.name, c.config)
			x, err := explore.Explore(context.Background(), m, cfg)
			if err != nil {
				t.Fatal(err)
			}
			suite, err := x.Graph().StrategySuite()
			if err != nil {
				t.Fatal(err)
			}
			if suite.Covered != suite.LowerBound || suite.Forced == 0 {
				t.Errorf("%s", suite.Summary())
			}
			// The suite reads back as written (format 2).
			var b strings.Builder
			if err := suite.WriteJSON(&b); err != nil {
				t.Fatal(err)
			}
			if suite, err = explore.ReadSuite(strings.NewReader(b.String())); err != nil {
				t.Fatal(err)
			}
			impl, err := p.Connect(context.Background(), m.Info(), bins[c.name]+c.flags, "")
			if err != nil {
				t.Fatal(err)
			}
			defer impl.Close()
			// A bug that shows only when the implementation's timing lets it
			// (the conference's mutant 3: about 7 runs in 10) gets a few runs;
			// so does a correct implementation whose timing, on a loaded
			// machine, kept a case from concluding (the bag's random delays:
			// once in a run of `make test` with other tests beside it). A
			// failure of a correct implementation is never run again.
			var res *conform.SuiteResult
			var tally conform.Tally
			for try := 0; try < 8; try++ {
				if res, err = conform.RunSuite(context.Background(), m, cfg, impl, suite, conform.TestConfig{}); err != nil {
					t.Fatal(err)
				}
				tally = verdictsOf(res)
				if c.wantFail && tally[conform.Fail] > 0 || !c.wantFail && (tally[conform.Inconclusive] == 0 || tally[conform.Fail] > 0) {
					break
				}
				if !c.wantFail {
					t.Logf("try %d: %s; running the suite again", try+1, tally)
				}
			}
			if tally[conform.Inconclusive] > 0 && !c.wantFail || tally[conform.ModelError] > 0 || (tally[conform.Fail] > 0) != c.wantFail {
				for _, r := range res.Cases {
					if r.Verdict != conform.Pass {
						t.Logf("%s: %s %s %+v", r.Name, r.Verdict, r.Reason, r.Failure)
					}
				}
				t.Errorf("%s: %s", suite.Summary(), tally)
			}
		})
	}
}

// The chat's offline strategy suite, as a golden file (format 2: goals,
// plans, main lines); generating it again gives the same bytes.
func TestStrategySuiteGolden(t *testing.T) {
	_, m, cfg := sample(t, "chat", "offline")
	x, err := explore.Explore(context.Background(), m, cfg)
	if err != nil {
		t.Fatal(err)
	}
	s, err := x.Graph().StrategySuite()
	if err != nil {
		t.Fatal(err)
	}
	s.Model, s.Config = "chat", "offline"
	suiteGolden(t, "strategies_chat_offline.json", s)
	states, err := x.Graph().StrategyStates(nil)
	if err != nil {
		t.Fatal(err)
	}
	states.Model, states.Config = "chat", "offline"
	suiteGolden(t, "strategies_states_chat_offline.json", states)
}
