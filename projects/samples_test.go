package projects

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/modex/modex/engine/conform"
	"github.com/modex/modex/engine/explore"
)

// Every configuration of every bundled sample builds and explores to a
// complete graph without model errors.
func TestSamplesExplore(t *testing.T) {
	for _, name := range SampleNames() {
		p, err := Load(filepath.Join(name, name+".toml"))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		m, err := p.LoadModel()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, cn := range p.ConfigNames() {
			t.Run(name+"/"+cn, func(t *testing.T) {
				cfg, err := p.Build(m, cn)
				if err != nil {
					t.Fatal(err)
				}
				x, err := explore.Explore(context.Background(), m, cfg)
				if err != nil {
					t.Fatal(err)
				}
				if !x.Stats.Complete {
					t.Errorf("incomplete: %s", x.Stats.StoppedBy)
				}
				for _, s := range x.States {
					if s.Error != "" {
						t.Errorf("error state: %s", s.Error)
					}
				}
				g := x.Graph()
				t.Logf("%d model states, %d graph states, %d transitions, %d tried", len(x.States), len(g.States), len(g.Trans), x.Stats.Tried)
				if len(g.States) < 2 || len(g.Trans) < 1 {
					t.Errorf("suspiciously small graph")
				}
			})
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
	impl, err := p.Connect(context.Background(), "chat", "", "")
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
