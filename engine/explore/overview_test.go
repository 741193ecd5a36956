package explore_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modex/modex/engine/explore"
	"github.com/modex/modex/projects"
)

// The overview chosen from a model's structure: the readable projection
// with the fewest arcs between classes per class, properties and groupings
// before variables on ties, depth only when nothing else is readable;
// expressions that fail on a state are reported, not chosen.
func TestOverviewChoices(t *testing.T) {
	cases := []struct {
		project, config string
		best            string // Words of the first choice
		alsoHas         string // another choice's Words, or prefix
	}{
		{"webshop/webshop.toml", "more_items", "len(s.clients): 4 classes, 3 arcs", "depth: 19 classes, 86 arcs"},
		{"chat/chat.toml", "hi_bye", "mode(s): 3 classes, 2 arcs", "pending(s): 3 classes, 4 arcs"},
		{"threadpool/threadpool.toml", "small", "len(s.threads): 3 classes, 2 arcs", "s.threads: more than 30 classes"},
		{"conference/conference.toml", "agents-2", "depth: 3 classes, 5 arcs", "bot(s): fails on a state: "},
		{"stack/stack.toml", "all", "size(s): 4 classes, 6 arcs", "depth: 4 classes, 6 arcs"},
	}
	for _, c := range cases {
		t.Run(c.project+" "+c.config, func(t *testing.T) {
			p, err := projects.Load("../../projects/" + c.project)
			if err != nil {
				t.Fatal(err)
			}
			m, err := p.LoadModel()
			if err != nil {
				t.Fatal(err)
			}
			cfg, err := p.Build(m, c.config)
			if err != nil {
				t.Fatal(err)
			}
			x, err := explore.Explore(context.Background(), m, cfg)
			if err != nil {
				t.Fatal(err)
			}
			cs, err := x.OverviewChoices(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			var words []string
			found := false
			for _, ch := range cs {
				words = append(words, ch.Words())
				found = found || strings.HasPrefix(ch.Words(), c.alsoHas)
			}
			if words[0] != c.best || !found {
				t.Errorf("choices:\n%s\nwant first %q and one %q", strings.Join(words, "\n"), c.best, c.alsoHas)
			}
			// The chosen overview is the quotient by it, with as many classes.
			q, _, err := x.QuotientBy(explore.QuotientAuto, "test")
			if err != nil || len(q.States) != cs[0].Classes {
				t.Errorf("QuotientBy(auto): %v, %d classes, want %d", err, len(q.States), cs[0].Classes)
			}
			cancelled, cancel := context.WithCancel(context.Background())
			cancel()
			if _, err := x.OverviewChoices(cancelled); err == nil {
				t.Error("a cancelled search went on")
			}
		})
	}
}

// A chain of 41 states with a flag: a number with too many values is cut
// into about ten ranges (s.n // 5: 9 classes); the same chain counted in
// strings has no readable projection and no readable depth (more than 30
// classes, counting stops there — states of a depth already seen come
// after that), and auto falls back to the depth.
func TestOverviewChoicesRangesAndNoneReadable(t *testing.T) {
	explored := func(src string) *explore.Exploration {
		path := filepath.Join(t.TempDir(), "chain.star")
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		x, err := explore.Explore(context.Background(), mustLoad(t, path), nil)
		if err != nil {
			t.Fatal(err)
		}
		return x
	}
	x := explored("def init():\n    return {\"n\": 0, \"f\": 0}\ndef Inc(s):\n    require(s.n < 40)\n    s.n += 1\ndef Flip(s):\n    s.f = 1 - s.f\nactions = [Inc, Flip]\n")
	cs, err := x.OverviewChoices(context.Background())
	if err != nil || cs[0].Words() != "s.n // 5: 9 classes, 8 arcs" {
		t.Fatalf("%v: first choice %s", err, cs[0].Words())
	}
	if q, _, err := x.QuotientBy(explore.QuotientAuto, "test"); err != nil || len(q.States) != 9 || q.States[1].Label != "s.n // 5 = 1" {
		t.Errorf("auto: %v, %d classes", err, len(q.States))
	}
	x = explored("def init():\n    return {\"p\": \"0\", \"f\": 0}\ndef Inc(s):\n    require(int(s.p) < 40)\n    s.p = str(int(s.p) + 1)\ndef Flip(s):\n    s.f = 1 - s.f\nactions = [Inc, Flip]\n")
	if cs, err = x.OverviewChoices(context.Background()); err != nil {
		t.Fatal(err)
	}
	for _, c := range cs {
		if c.Readable() || c.By != "s.f" && c.By != "len(s.p)" && c.Classes != explore.MaxOverviewClasses+1 {
			t.Errorf("%s: readable %v", c.Words(), c.Readable())
		}
	}
	if q, _, err := x.QuotientBy(explore.QuotientAuto, "test"); err != nil || len(q.States) != 42 || q.States[1].Label != "depth 1" {
		t.Errorf("auto without a readable choice: %v, %d classes", err, len(q.States))
	}
}
