package projects

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/modex/modex/engine/conform"
	"github.com/modex/modex/engine/explore"
	"github.com/modex/modex/engine/model"
	"github.com/modex/modex/engine/scenario"
)

// graphShape prints a graph as its states (id, model state without the
// scenario, kind, label, accepting) and its transitions (ids and labels).
func graphShape(t *testing.T, g *explore.Graph, m *model.StarModel, x *explore.Exploration) []string {
	t.Helper()
	var out []string
	for _, s := range g.States {
		k, err := m.BaseKey(x.StateKey(int(s.Model)))
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, strings.Join([]string{"state", s.ID, k, string(s.Kind), s.Label, boolText(s.Accepting)}, " "))
	}
	for _, tr := range g.Trans {
		out = append(out, "trans "+g.States[tr.From].ID+" "+tr.Label()+" "+g.States[tr.To].ID)
	}
	return out
}

func boolText(b bool) string {
	if b {
		return "accepting"
	}
	return "-"
}

// TestFigure1AsScenario: seed 000 §4.4's scenario written as a regular
// scenario, and as a scenario machine, instead of model code gives exactly
// Figure 1's graph: the same states (the model's part of their keys), the
// same labels, kinds and transitions, in the same order.
func TestFigure1AsScenario(t *testing.T) {
	var want []string
	for _, config := range []string{"figure1", "figure1_scenario", "figure1_machine"} {
		_, m, cfg := sample(t, "chat", config)
		x, err := explore.Explore(t.Context(), m, cfg)
		if err != nil {
			t.Fatal(err)
		}
		got := graphShape(t, x.Graph(), m, x)
		if want == nil {
			want = got
			if len(got) != 9+10 {
				t.Fatalf("figure1: %d states and transitions, want 19:\n%s", len(got), strings.Join(got, "\n"))
			}
			continue
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s:\n%s\nfigure1:\n%s", config, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
}

// TestScenarioShowsItsPosition: a state's details end with where the
// scenario is.
func TestScenarioShowsItsPosition(t *testing.T) {
	_, m, cfg := sample(t, "chat", "figure1_scenario")
	x, err := explore.Explore(t.Context(), m, cfg)
	if err != nil {
		t.Fatal(err)
	}
	w, err := m.NewWorker()
	if err != nil {
		t.Fatal(err)
	}
	vars, err := x.StateVars(w, 0)
	if err != nil {
		t.Fatal(err)
	}
	last := vars[len(vars)-1]
	if last.Name != model.ScenarioVar || model.Format(last.Value) != `"next Create"` {
		t.Errorf("initial state's last variable %s = %s", last.Name, model.Format(last.Value))
	}
}

func TestScenarioErrors(t *testing.T) {
	dir := t.TempDir()
	src, err := os.ReadFile(filepath.Join("chat", "chat.star"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "chat.star"), src, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "bad.star"), []byte("def init():\n    return {}\n\ndef Post(s, msg):\n    pass\n\nactions = [Post]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ config, want string }{
		{"[configs.a]\nscenarios = ['Create; Enter(_, 1)']\n", "p.toml:6:28: scenario: wrong arity: Enter takes 1 argument (c), the pattern gives 2"},
		{"[configs.a]\nscenarios = [\"Create\", \"Jump\"]\n", "p.toml:6:25: scenario: unknown action Jump"},
		{"[configs.a]\nscenarios = ['''\nCreate{2};\n  Enter{2; Post*''']\n", "p.toml:8:10: scenario: expected } to end the repetition"},
		{"[configs.a]\nscenario_machines = ['bad.star']\n", "bad.star:4:1: scenario machine: wrong arity: Post takes 2 parameters in the model (sender, msg), here 1"},
		{"[configs.a]\nscenario_machines = ['none.star']\n", "p.toml:6:22: scenario machine none.star:"},
		{"[configs.base]\nscenarios = ['Jump']\n[configs.a]\nextends = 'base'\n", "p.toml:6:15: scenario: unknown action Jump"},
	} {
		path := filepath.Join(dir, "p.toml")
		data := "name = \"p\"\nmodel = \"chat.star\"\ndefault = \"a\"\n\n" + tc.config
		if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		p, err := Load(path)
		if err != nil {
			t.Fatal(err)
		}
		_, err = p.LoadModelFor("a")
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want %q", tc.config, err, tc.want)
		}
	}
}

// TestWebshopSlice: the scenario slices MoreItemsInCart's 1,111 states to
// client a's visits, one to three flowers each.
func TestWebshopSlice(t *testing.T) {
	g, _, _ := graphOf(t, "webshop", "flowers_slice")
	var labels []string
	for _, tr := range g.Trans {
		labels = append(labels, tr.Label())
	}
	slices.Sort(labels)
	want := []string{`AddToCart("a", "Flowers")`, `AddToCart("a", "Flowers")`, `AddToCart("a", "Flowers")`, `Checkout("a")/30`, `Checkout("a")/60`, `Checkout("a")/90`, `Client("a")`, `EntersShop("a")`}
	if len(g.States) != 6 || !slices.Equal(labels, want) {
		t.Errorf("%d states, transitions %v", len(g.States), labels)
	}
}

// TestScenarioChecksObservables: in online testing against the real chat
// server, the tester chooses only what the scenario allows, and an
// observable action in the scenario's vocabulary that the scenario does not
// allow there fails the run.
func TestScenarioChecksObservables(t *testing.T) {
	bin := buildChatImpl(t)
	run := func(src string) *conform.TestResult {
		p, err := Load(filepath.Join("chat", "chat.toml"))
		if err != nil {
			t.Fatal(err)
		}
		m, err := p.LoadModelFor("ordered")
		if err != nil {
			t.Fatal(err)
		}
		r, err := scenario.ParseRegex("test", src, model.Pos{File: "test"}, m.Info())
		if err != nil {
			t.Fatal(err)
		}
		m.Compose(r)
		cfg, err := p.Build(m, "ordered")
		if err != nil {
			t.Fatal(err)
		}
		impl, err := p.Connect(t.Context(), m.Info(), bin+" adapter --fixed", "")
		if err != nil {
			t.Fatal(err)
		}
		defer impl.Close()
		res, err := conform.Test(t.Context(), m, cfg, impl, conform.TestConfig{Runs: 3, Steps: 12, Seed: 5})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	// only Client1 posts: every run passes, and every Post is Client1's
	res := run(`Create{2}; Enter{2}; Post(Client1, _)*`)
	for _, r := range res.Runs {
		if r.Failure != nil {
			t.Fatalf("run failed: %+v", r.Failure)
		}
		for _, s := range r.Steps {
			if s.Action == "Post" && !strings.HasPrefix(s.Label(), "Post(Client1,") {
				t.Errorf("the tester chose %s, outside the scenario", s.Label())
			}
		}
	}
	// Deliver is in this scenario's vocabulary, and it wants "bye"
	// delivered first: the server delivers "hi" first, which fails
	res = run(`Create{2}; Enter{2}; Post(Client1, "hi"); Post(Client1, "bye"); ?Deliver(Client1, Client2, "bye"); ?Deliver(Client1, Client2, "hi")`)
	r := res.Runs[0]
	if r.Failure == nil || !strings.Contains(r.Failure.Message, `?Deliver(Client1, Client2, "hi")`) {
		t.Fatalf("want a failure on the delivery of hi, got %+v", r.Failure)
	}
}
