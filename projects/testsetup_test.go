package projects

import (
	"strings"
	"testing"
	"time"

	"github.com/modex/modex/engine/conform"
)

// The run setup: the user's overrides, then the project's [test], then the
// defaults; total_steps and end_wait come from the project.
func TestTestSetup(t *testing.T) {
	full := &TestSpec{Runs: 3, Steps: 12, TotalSteps: 30, Seed: 42, Strategy: "coverage", EndWait: 0.25}
	for _, tc := range []struct {
		name string
		spec *TestSpec
		o    TestOverrides
		want conform.TestConfig
		// clock: the seed comes from the clock
		clock bool
		err   string
	}{
		{"defaults", nil, NoOverrides(), conform.TestConfig{Runs: DefaultRuns, Steps: DefaultSteps, Strategy: conform.StrategyRandom}, true, ""},
		{"project", full, NoOverrides(), conform.TestConfig{Runs: 3, Steps: 12, TotalSteps: 30, Seed: 42, Strategy: conform.StrategyCoverage, EndWait: 250 * time.Millisecond}, false, ""},
		{"overrides", full, TestOverrides{Runs: 5, Steps: 7, TotalSteps: 9, Seed: 0, Strategy: "random", EndWait: 2},
			conform.TestConfig{Runs: 5, Steps: 7, TotalSteps: 9, Seed: 0, Strategy: conform.StrategyRandom, EndWait: 2 * time.Second}, false, ""},
		{"partial", full, TestOverrides{Steps: 8, Seed: -1},
			conform.TestConfig{Runs: 3, Steps: 8, TotalSteps: 30, Seed: 42, Strategy: conform.StrategyCoverage, EndWait: 250 * time.Millisecond}, false, ""},
		{"bad strategy", &TestSpec{Strategy: "greedy"}, NoOverrides(), conform.TestConfig{}, false, `unknown strategy "greedy"`},
		{"negative wait", &TestSpec{EndWait: -1}, NoOverrides(), conform.TestConfig{}, false, "end_wait must not be negative"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := &Project{Test: tc.spec}
			got, clock, err := p.TestSetup(tc.o)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if clock != tc.clock {
				t.Errorf("seed from the clock: %v, want %v", clock, tc.clock)
			}
			if clock {
				got.Seed = 0
			}
			if got.Runs != tc.want.Runs || got.Steps != tc.want.Steps || got.TotalSteps != tc.want.TotalSteps ||
				got.Seed != tc.want.Seed || got.Strategy != tc.want.Strategy || got.EndWait != tc.want.EndWait {
				t.Errorf("got %+v\nwant %+v", got, tc.want)
			}
		})
	}
}
