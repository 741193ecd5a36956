package projects

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/modex/modex/engine/conform"
	"github.com/modex/modex/engine/explore"
	"github.com/modex/modex/engine/model"
)

// Every configuration of every bundled sample builds and explores to a
// complete graph without model errors, and the graph has no false
// transitions (seed 001 §6.2: the FSM may miss transitions but has no false
// ones): every transition's target is a state its action produces from its
// source, with the output it records. One worker (which settles each
// transition as it finds it) and two (which expand and then merge) find the
// same graph, and so do compiled guards and the interpreter alone.
func TestSamplesExplore(t *testing.T) {
	for _, name := range SampleNames() {
		p, err := Load(filepath.Join(name, name+".toml"))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, cn := range p.ConfigNames() {
			t.Run(name+"/"+cn, func(t *testing.T) {
				m, err := p.LoadModelFor(cn)
				if err != nil {
					t.Fatal(err)
				}
				cfg, err := p.Build(m, cn)
				if err != nil {
					t.Fatal(err)
				}
				cfg.Workers = 2
				x, err := explore.Explore(context.Background(), m, cfg)
				if err != nil {
					t.Fatal(err)
				}
				one := *cfg
				one.Workers = 1
				x1, err := explore.Explore(context.Background(), m, &one)
				if err != nil {
					t.Fatal(err)
				}
				sameExploration(t, x1, x)
				// Without compiled guards (every try in the interpreter)
				// and without thaw plans (every run given deep copies):
				// the same graph.
				mi, err := p.LoadModelFor(cn)
				if err != nil {
					t.Fatal(err)
				}
				mi.SetCompiledGuards(false)
				mi.SetThawPlans(false)
				ci, err := p.Build(mi, cn)
				if err != nil {
					t.Fatal(err)
				}
				xi, err := explore.Explore(context.Background(), mi, ci)
				if err != nil {
					t.Fatal(err)
				}
				sameExploration(t, xi, x)
				if !x.Stats.Complete {
					t.Errorf("incomplete: %s", x.Stats.StoppedBy)
				}
				for i := range x.States {
					if e := x.StateError(i); e != "" {
						t.Errorf("error state: %s", e)
					}
				}
				checkTransitions(t, m, x)
				g := x.Graph()
				t.Logf("%d model states, %d graph states, %d transitions, %d tried", len(x.States), len(g.States), len(g.Trans), x.Stats.Tried)
				if len(g.States) < 2 || len(g.Trans) < 1 {
					t.Errorf("suspiciously small graph")
				}
			})
		}
	}
}

// sameExploration fails t unless a and b hold the same states (keys, depths,
// labels, errors, flags) in the same order and the same transitions.
func sameExploration(t *testing.T, a, b *explore.Exploration) {
	t.Helper()
	if len(a.States) != len(b.States) || len(a.Trans) != len(b.Trans) || a.Stats.Tried != b.Stats.Tried {
		t.Fatalf("one worker: %d states, %d transitions, %d tried; two: %d, %d, %d",
			len(a.States), len(a.Trans), a.Stats.Tried, len(b.States), len(b.Trans), b.Stats.Tried)
	}
	for i := range a.States {
		sa, sb := a.States[i], b.States[i]
		if a.StateKey(i) != b.StateKey(i) || a.StateLabel(i) != b.StateLabel(i) || a.StateError(i) != b.StateError(i) ||
			sa.Depth != sb.Depth || sa.Accepting != sb.Accepting || sa.Expanded != sb.Expanded || sa.Frontier != sb.Frontier {
			t.Fatalf("state %d differs: one worker %q %+v, two %q %+v", i, a.StateLabel(i), sa, b.StateLabel(i), sb)
		}
	}
	for i := range a.Trans {
		ta, tb := a.Trans[i], b.Trans[i]
		if ta.From != tb.From || ta.To != tb.To || ta.Action != tb.Action ||
			model.Format(model.Tuple(a.ArgsOf(&ta)...)) != model.Format(model.Tuple(b.ArgsOf(&tb)...)) ||
			model.Format(a.OutputOf(&ta)) != model.Format(b.OutputOf(&tb)) {
			t.Fatalf("transition %d differs: one worker %+v, two %+v", i, ta, tb)
		}
	}
}

// A sample copied out of the source tree still runs its implementation: the
// chat sample's adapter starts from the copy.
func TestExtractedSampleRuns(t *testing.T) {
	dir := t.TempDir()
	path, err := ExtractSample("chat", dir)
	if err != nil {
		t.Fatal(err)
	}
	p, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	m, err := p.LoadModel()
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := p.Build(m, "ordered")
	if err != nil {
		t.Fatal(err)
	}
	impl, err := p.Connect(context.Background(), m.Info(), "", "")
	if err != nil {
		t.Fatal(err)
	}
	defer impl.Close()
	res, err := conform.Test(context.Background(), m, cfg, impl, conform.TestConfig{Runs: 2, Steps: 15, Seed: 1})
	if err != nil || !res.Passed() {
		t.Fatalf("%v %+v", err, res)
	}
	for _, name := range SampleNames() {
		if _, err := ExtractSample(name, dir); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// checkTransitions re-runs every transition of an exploration from its
// source state and checks that one outcome is its target with its output.
func checkTransitions(t *testing.T, m model.Model, x *explore.Exploration) {
	t.Helper()
	w, err := m.NewWorker()
	if err != nil {
		t.Fatal(err)
	}
	false_ := 0
	for i := range x.Trans {
		tr := &x.Trans[i]
		from, to := &x.States[tr.From], &x.States[tr.To]
		if from.ModelErr || to.ModelErr {
			continue
		}
		st, err := w.Decode(x.StateKey(int(tr.From)))
		if err != nil {
			t.Fatal(err)
		}
		outs, _, err := w.Step(st, int(tr.Action), x.ArgsOf(tr))
		if err != nil {
			t.Fatal(err)
		}
		wantOut, _ := model.Key(orNone(x.OutputOf(tr)))
		found := false
		for _, o := range outs {
			gotOut, _ := model.Key(orNone(o.Output))
			found = found || (o.Err == nil && o.Next.Key() == x.StateKey(int(tr.To)) && gotOut == wantOut)
		}
		if !found {
			false_++
			if false_ <= 3 {
				t.Errorf("false transition %s %s(%s) → %s: the action does not lead there", x.StateLabel(int(tr.From)), m.Info().Actions[tr.Action].Name, model.FormatArgs(x.ArgsOf(tr)), x.StateLabel(int(tr.To)))
			}
		}
	}
	if false_ > 0 {
		t.Errorf("%d of %d transitions are false", false_, len(x.Trans))
	}
}

func orNone(v model.Value) model.Value {
	if v == nil {
		return model.None
	}
	return v
}
