package explore_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modex/modex/engine/explore"
	"github.com/modex/modex/engine/model"
	"github.com/modex/modex/projects"
)

// exploreFigures are the counts of an exploration that a check must give.
func exploreFigures(x *explore.Exploration) string {
	st := x.Stats
	depth := 0
	for i := range x.States {
		depth = max(depth, int(x.States[i].Depth))
	}
	states, trans := x.GraphSize()
	return fmt.Sprintf("%d model states (%d initial), %d transitions, %d tried, depth %d, %d deadlocks, %d error states, graph %d states %d transitions, %s",
		st.ModelStates, st.InitialStates, st.Transitions, st.Tried, depth, st.Deadlocks, st.ErrorStates, states, trans, st.Ending())
}

// checkFigures are the same counts of a check.
func checkFigures(r *explore.CheckResult) string {
	st := r.Stats
	return fmt.Sprintf("%d model states (%d initial), %d transitions, %d tried, depth %d, %d deadlocks, %d error states, graph %d states %d transitions, %s",
		st.ModelStates, st.InitialStates, st.Transitions, st.Tried, r.Depth, st.Deadlocks, st.ErrorStates,
		st.States+st.Passive, st.Transitions+st.Timeouts, st.Ending())
}

// tinyDisk makes a check keep almost nothing in memory: a fingerprint
// table of 64 slots, files merged past 2, queues of a kilobyte.
var tinyDisk = explore.CheckOptions{MemoryBytes: 64 * 8, PendingBytes: 128, QueueBytes: 1 << 10, MaxFiles: 2}

// runCheck checks with opts in a folder of the test's, and fails when the
// check leaves a file behind.
func runCheck(t *testing.T, m model.Model, cfg *explore.Config, opts explore.CheckOptions) *explore.CheckResult {
	t.Helper()
	opts.Dir = t.TempDir()
	r, err := explore.Check(context.Background(), m, cfg, opts)
	if err != nil {
		t.Fatal(err)
	}
	if es, _ := os.ReadDir(opts.Dir); len(es) != 0 {
		t.Errorf("the check left %d files in its folder", len(es))
	}
	return r
}

// checkCase is a model and a configuration to check.
type checkCase struct {
	name string
	m    model.Model
	cfg  func() *explore.Config
}

// projectCases are the configurations of the bundled projects (those
// with groupings, which a check refuses, left out) and of the TLA+ ports.
func projectCases(t *testing.T) []checkCase {
	files, _ := filepath.Glob("../../projects/*/*.toml")
	tla, _ := filepath.Glob("testdata/tla/*.toml")
	var cases []checkCase
	for _, f := range append(files, tla...) {
		if strings.Contains(f, "paxoscommit") {
			continue // 1.3 M states: TestTLAPorts explores them; bakery and lamport are the large cases here
		}
		p, err := projects.Load(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range p.Order {
			if long := strings.Contains(f, "bakery") || strings.Contains(f, "lamport") || name == "coffee1000"; long && (testing.Short() || raceEnabled) {
				continue
			}
			m, err := p.LoadModelFor(name)
			if err != nil {
				t.Fatal(err)
			}
			cfg, err := p.Build(m, name)
			if err != nil {
				t.Fatal(err)
			}
			if len(cfg.Groupings) > 0 {
				continue
			}
			cases = append(cases, checkCase{p.Name + "/" + name, m, func() *explore.Config { c := *cfg; return &c }})
		}
	}
	return cases
}

// A check counts what an exploration counts — states, initial states,
// transitions, tries, depth, deadlocks, error states, the passive twins
// and their timeouts — on every bundled project's configurations and the
// TLA+ ports, with one worker and two, with the fingerprints in memory
// and with a table of 64 slots that spills to disk all the time.
func TestCheckCountsAsExplore(t *testing.T) {
	stack, err := model.LoadStarlarkSource("stack10.star", []byte(strings.Replace(mustRead(t, "testdata/bigstack.star"), "CAPACITY = 14", "CAPACITY = 10", 1)))
	if err != nil {
		t.Fatal(err)
	}
	v := loadSource(t, "violations.star", violations)
	vcfg := func(stopOnError, deadlocks bool) func() *explore.Config {
		return func() *explore.Config {
			c := explore.DefaultConfig(v)
			c.StopOnError = stopOnError
			if deadlocks {
				c.Accepting = compile(t, v, "s.x == 0")
			}
			return c
		}
	}
	cases := append(projectCases(t),
		checkCase{"stack10", stack, func() *explore.Config { return explore.DefaultConfig(stack) }},
		checkCase{"choose", mustLoad(t, "testdata/choose.star"), nil},
		checkCase{"manyinits", mustLoad(t, "testdata/manyinits.star"), nil},
		checkCase{"violations", v, vcfg(false, false)},
		checkCase{"violations, stop on error, deadlocks", v, vcfg(true, true)},
	)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg := func() *explore.Config {
				if tc.cfg == nil {
					return explore.DefaultConfig(tc.m)
				}
				return tc.cfg()
			}
			c := cfg()
			c.DropTransitions = true
			x, err := explore.Explore(context.Background(), tc.m, c)
			if err != nil {
				t.Fatal(err)
			}
			want := exploreFigures(x)
			for _, workers := range []int{1, 2} {
				for _, disk := range []bool{false, true} {
					if disk && x.Stats.States > 200_000 {
						continue // thousands of spills
					}
					c := cfg()
					c.Workers = workers
					opts := explore.CheckOptions{}
					if disk {
						opts = tinyDisk
					}
					r := runCheck(t, tc.m, c, opts)
					if got := checkFigures(r); got != want {
						t.Errorf("%d workers, disk %v:\n check   %s\n explore %s", workers, disk, got, want)
					}
					if disk && x.Stats.States > 200 && r.Spills == 0 {
						t.Errorf("%d states and no spill", x.Stats.States)
					}
				}
			}
		})
	}
}

func mustRead(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
