package explore_test

import (
	"context"
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
