package scenario_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/modex/modex/engine/explore"
	"github.com/modex/modex/engine/model"
	"github.com/modex/modex/engine/scenario"
)

// counter: Inc(k) adds 1 or 2 up to 2 and returns the new value; Reset;
// Tick is observable and always enabled.
const counter = `
def init():
    return {"n": 0}

def Inc(s, k):
    require(s.n + k <= 2)
    s.n += k
    return s.n

def Reset(s):
    s.n = 0

def Tick(s):
    pass

def accepting(s):
    return s.n == 0

actions = [Inc, Reset]
observables = [Tick]
domains = {Inc: {"k": [1, 2]}}
`

func load(t *testing.T, dir, name, src string) *model.StarModel {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := model.LoadStarlark(path)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// product explores the model with the scenarios, without the timeout
// extension, and returns its edges as "n -Label-> n" (the model's n on
// both sides, the scenario's position appended) and its accepting states.
func product(t *testing.T, m *model.StarModel, scs ...model.Scenario) (edges []string, states []string, accepting []string) {
	t.Helper()
	m.Compose(scs...)
	cfg := explore.DefaultConfig(m)
	cfg.Timeouts = explore.TimeoutOff
	cfg.NoDeadlockCheck = true
	x, err := explore.Explore(context.Background(), m, cfg)
	if err != nil {
		t.Fatal(err)
	}
	w, err := m.NewWorker()
	if err != nil {
		t.Fatal(err)
	}
	name := func(i int) string {
		vars, err := x.StateVars(w, i)
		if err != nil {
			t.Fatal(err)
		}
		var parts []string
		for _, v := range vars {
			parts = append(parts, strings.Trim(model.Format(v.Value), `"`))
		}
		return strings.Join(parts, " @ ")
	}
	g := x.Graph()
	for i, s := range g.States {
		states = append(states, name(int(s.Model)))
		if s.Accepting {
			accepting = append(accepting, name(int(s.Model)))
		}
		_ = i
	}
	for _, tr := range g.Trans {
		edges = append(edges, name(int(g.States[tr.From].Model))+" -"+tr.Label()+"-> "+name(int(g.States[tr.To].Model)))
	}
	slices.Sort(edges)
	slices.Sort(states)
	slices.Sort(accepting)
	return edges, states, accepting
}

func regex(t *testing.T, m *model.StarModel, src string) *scenario.Regex {
	t.Helper()
	r, err := scenario.ParseRegex("s", src, model.Pos{File: "p.toml", Line: 3, Col: 14}, m.Info())
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestRegexProducts(t *testing.T) {
	for _, tc := range []struct {
		name, regex string
		edges       []string
		accepting   []string
	}{{
		// a sequence with _, a value and an output; Tick is outside the
		// vocabulary and passes freely everywhere; after Reset the scenario
		// has ended: Inc and Reset are suppressed
		name:  "sequence",
		regex: "Inc(1); Inc(_)/2; Reset",
		edges: []string{
			"0 @ ended -?Tick()-> 0 @ ended",
			"0 @ next Inc(1) -?Tick()-> 0 @ next Inc(1)",
			"0 @ next Inc(1) -Inc(1)/1-> 1 @ next Inc(_)/2",
			"1 @ next Inc(_)/2 -?Tick()-> 1 @ next Inc(_)/2",
			"1 @ next Inc(_)/2 -Inc(1)/2-> 2 @ next Reset",
			"2 @ next Reset -?Tick()-> 2 @ next Reset",
			"2 @ next Reset -Reset()-> 0 @ ended",
		},
		accepting: []string{"0 @ ended"},
	}, {
		// only Reset in the vocabulary: Inc and Tick interleave freely,
		// one Reset
		name:  "suppression",
		regex: "?Tick*; Reset",
		edges: nil, // counted below
	}, {
		// an output pattern picks the step by what the action returns
		name:  "output",
		regex: "(Inc/2 | Reset)*",
		edges: []string{
			"0 @ next Inc/2 | Reset (or end) -?Tick()-> 0 @ next Inc/2 | Reset (or end)",
			"0 @ next Inc/2 | Reset (or end) -Inc(2)/2-> 2 @ next Inc/2 | Reset (or end)",
			"0 @ next Inc/2 | Reset (or end) -Reset()-> 0 @ next Inc/2 | Reset (or end)",
			"2 @ next Inc/2 | Reset (or end) -?Tick()-> 2 @ next Inc/2 | Reset (or end)",
			"2 @ next Inc/2 | Reset (or end) -Reset()-> 0 @ next Inc/2 | Reset (or end)",
		},
		accepting: []string{"0 @ next Inc/2 | Reset (or end)"},
	}, {
		// bounded repetition: one or two Inc(1), then the end
		name:  "bounded",
		regex: "Inc(1){1,2}",
		edges: []string{
			"0 @ next Inc(1) -?Tick()-> 0 @ next Inc(1)",
			"0 @ next Inc(1) -Inc(1)/1-> 1 @ next Inc(1) (or end)",
			"0 @ next Inc(1) -Reset()-> 0 @ next Inc(1)",
			"1 @ next Inc(1) (or end) -?Tick()-> 1 @ next Inc(1) (or end)",
			"1 @ next Inc(1) (or end) -Inc(1)/2-> 2 @ ended",
			"1 @ next Inc(1) (or end) -Reset()-> 0 @ next Inc(1) (or end)",
			"2 @ ended -?Tick()-> 2 @ ended",
			"2 @ ended -Reset()-> 0 @ ended",
			"0 @ next Inc(1) (or end) -?Tick()-> 0 @ next Inc(1) (or end)",
			"0 @ next Inc(1) (or end) -Inc(1)/1-> 1 @ ended",
			"0 @ next Inc(1) (or end) -Reset()-> 0 @ next Inc(1) (or end)",
			"0 @ ended -?Tick()-> 0 @ ended",
			"0 @ ended -Reset()-> 0 @ ended",
			"1 @ ended -?Tick()-> 1 @ ended",
			"1 @ ended -Reset()-> 0 @ ended",
		},
		accepting: []string{"0 @ ended", "0 @ next Inc(1) (or end)"},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			m := load(t, t.TempDir(), "counter.star", counter)
			edges, states, acc := product(t, m, regex(t, m, tc.regex))
			if tc.name == "suppression" {
				// Tick is in the vocabulary as ?Tick: n in 0..2, before and
				// after the one Reset; 6 states
				if len(states) != 6 {
					t.Fatalf("states %v", states)
				}
				for _, e := range edges {
					if strings.HasPrefix(e, "0 @ ended") && strings.Contains(e, "Reset") || strings.Contains(e, "@ ended -?Tick") {
						t.Errorf("suppressed step taken: %s", e)
					}
				}
				return
			}
			want := slices.Clone(tc.edges)
			slices.Sort(want)
			if !slices.Equal(edges, want) {
				t.Errorf("edges:\n%s\nwant:\n%s", strings.Join(edges, "\n"), strings.Join(want, "\n"))
			}
			if !slices.Equal(acc, tc.accepting) {
				t.Errorf("accepting %v, want %v", acc, tc.accepting)
			}
		})
	}
}

// machine allows two Inc steps in all, and ends when both are done.
const machine = `
def init():
    return {"left": 2}

def Inc(s, k):
    require(s.left > 0, "no Inc left")
    s.left -= 1

def accepting(s):
    return s.left == 0

actions = [Inc]
`

func TestMachineProduct(t *testing.T) {
	dir := t.TempDir()
	m := load(t, dir, "counter.star", counter)
	path := filepath.Join(dir, "two.star")
	if err := os.WriteFile(path, []byte(machine), 0o644); err != nil {
		t.Fatal(err)
	}
	sc, err := scenario.LoadMachine(path, m.Info())
	if err != nil {
		t.Fatal(err)
	}
	_, states, acc := product(t, m, sc)
	// left = 2: n = 0; left = 1: n in 0..2 (Reset is free); left = 0: n in
	// 0..2. Accepting: the model's n = 0 and the machine's left = 0.
	want := []string{"0 @ left = 0", "0 @ left = 1", "0 @ left = 2", "1 @ left = 0", "1 @ left = 1", "2 @ left = 0", "2 @ left = 1"}
	if !slices.Equal(states, want) {
		t.Errorf("states %v, want %v", states, want)
	}
	if !slices.Equal(acc, []string{"0 @ left = 0"}) {
		t.Errorf("accepting %v", acc)
	}
}

func TestMachineOutputMustAgree(t *testing.T) {
	dir := t.TempDir()
	m := load(t, dir, "counter.star", counter)
	path := filepath.Join(dir, "out.star")
	src := "def init():\n    return {}\n\ndef Inc(s, k):\n    return 2\n\nactions = [Inc]\n"
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	sc, err := scenario.LoadMachine(path, m.Info())
	if err != nil {
		t.Fatal(err)
	}
	edges, _, _ := product(t, m, sc)
	for _, e := range edges {
		if strings.Contains(e, "Inc(") && !strings.Contains(e, "/2") {
			t.Errorf("an Inc whose output is not the machine's: %s", e)
		}
	}
	if !slices.ContainsFunc(edges, func(e string) bool { return strings.Contains(e, "Inc(2)/2") }) {
		t.Errorf("Inc(2)/2 missing: %v", edges)
	}
}

func TestRegexErrors(t *testing.T) {
	m := load(t, t.TempDir(), "counter.star", counter)
	for _, tc := range []struct{ src, want string }{
		{"Inc(1); Jump", "p.toml:3:22: scenario: unknown action Jump (the model has Inc, Reset, Tick)"},
		{"Inc(1, 2)", "p.toml:3:17: scenario: wrong arity: Inc takes 1 argument (k), the pattern gives 2"},
		{"Reset;\n  Inc(", "p.toml:4:6: scenario: the arguments of Inc are not closed"},
		{"(Inc", "p.toml:3:14: scenario: this ( is not closed"},
		{"Inc)", "p.toml:3:17: scenario: this ) closes nothing"},
		{"Inc Reset", "p.toml:3:18: scenario: expected ; or | between patterns, found 'R'"},
		{"?Inc", "p.toml:3:14: scenario: Inc is controllable, not observable: write it without ?"},
		{"Inc{3,1}", "p.toml:3:17: scenario: repetition {3,1}: the most is less than the least"},
		{"Inc{1001}", "p.toml:3:17: scenario: a repetition is {n}, {n,} or {n,m} with numbers up to 1000"},
		{"Inc(len(x))", "p.toml:3:18: scenario: len(x): only literals are allowed here"},
		{"", "p.toml:3:14: scenario: expected an action pattern, found the end"},
		{"Inc(1) |", "p.toml:3:22: scenario: expected an action pattern, found the end"},
		{"(Inc{1000}){1000}", "more than 100000 states"},
	} {
		_, err := scenario.ParseRegex("s", tc.src, model.Pos{File: "p.toml", Line: 3, Col: 14}, m.Info())
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want %q", tc.src, err, tc.want)
		}
	}
}

func TestMachineErrors(t *testing.T) {
	dir := t.TempDir()
	m := load(t, dir, "counter.star", counter)
	for _, tc := range []struct{ src, want string }{
		{"def init():\n    return {}\n\ndef Jump(s):\n    pass\n\nactions = [Jump]\n", "bad.star:4:1: scenario machine: Jump is not an action of the model"},
		{"def init():\n    return {}\n\ndef Inc(s):\n    pass\n\nactions = [Inc]\n", "bad.star:4:1: scenario machine: wrong arity: Inc takes 1 parameter in the model (k), here 0"},
	} {
		path := filepath.Join(dir, "bad.star")
		if err := os.WriteFile(path, []byte(tc.src), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := scenario.LoadMachine(path, m.Info())
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("error %v, want %q", err, tc.want)
		}
	}
}

// TestMinimalAutomatonIsExact compares the product made with the minimal
// automaton with the one made with sets of positions: the same steps
// between the same model states, and no more states.
func TestMinimalAutomatonIsExact(t *testing.T) {
	for _, src := range []string{
		"Inc(1); Inc(_)/2; Reset",
		"(Inc/2 | Reset)*",
		"(Inc(1) | Inc(_)/2 | Inc(_))*; Reset{1,3}",
		"((Inc(1); Reset)* | (Inc(2); Tick; Reset)+)?",
		"Inc(1)+; Inc(_)*; ?Tick?; Reset",
	} {
		m := load(t, t.TempDir(), "counter.star", counter)
		edges, states, _ := product(t, m, regex(t, m, src))
		scenario.SetPositionsOnly(true)
		m2 := load(t, t.TempDir(), "counter.star", counter)
		edges2, states2, _ := product(t, m2, regex(t, m2, src))
		scenario.SetPositionsOnly(false)
		if len(states) > len(states2) {
			t.Errorf("%s: %d states, %d with sets of positions", src, len(states), len(states2))
		}
		if a, b := modelSteps(edges), modelSteps(edges2); !slices.Equal(a, b) {
			t.Errorf("%s: steps\n%v\nwith sets of positions\n%v", src, a, b)
		}
	}
}

// modelSteps drops the scenario's positions from edges.
func modelSteps(edges []string) []string {
	var out []string
	for _, e := range edges {
		from, rest, _ := strings.Cut(e, " @ ")
		_, rest, _ = strings.Cut(rest, " -")
		label, rest, _ := strings.Cut(rest, "-> ")
		to, _, _ := strings.Cut(rest, " @ ")
		if s := from + " " + label + " " + to; !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	slices.Sort(out)
	return out
}
