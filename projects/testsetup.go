package projects

import (
	"fmt"
	"time"

	"github.com/modex/modex/engine/conform"
)

// Defaults of online testing when neither the user nor the project's [test]
// table says otherwise. They are written here once: the command line and the
// workbench both set up runs through TestSetup.
const (
	DefaultRuns  = 10
	DefaultSteps = 100
)

// TestOverrides are what the user chose for one test run, on the command
// line or in the workbench; a zero field (Seed: negative) takes the
// project's [test] value, else the default.
type TestOverrides struct {
	Runs, Steps, TotalSteps int
	Seed                    int64 // < 0: the project's seed, else from the clock
	Strategy                string
	EndWait                 float64 // seconds
}

// NoOverrides takes every setting from the project.
func NoOverrides() TestOverrides { return TestOverrides{Seed: -1} }

// TestSetup is the one place where a test run's settings are assembled: the
// user's overrides, then the project's [test] table (runs, steps,
// total_steps, seed, strategy, end_wait), then the defaults. SeedFromClock
// tells whether the seed was drawn from the clock (the run must print it).
func (p *Project) TestSetup(o TestOverrides) (tc conform.TestConfig, seedFromClock bool, err error) {
	ts := p.Test
	if ts == nil {
		ts = &TestSpec{}
	}
	tc.Runs = firstPositive(o.Runs, ts.Runs, DefaultRuns)
	tc.Steps = firstPositive(o.Steps, ts.Steps, DefaultSteps)
	tc.TotalSteps = firstPositive(o.TotalSteps, ts.TotalSteps)
	name := o.Strategy
	if name == "" {
		name = ts.Strategy
	}
	if tc.Strategy, err = conform.ParseStrategy(name); err != nil {
		return tc, false, err
	}
	wait := o.EndWait
	if wait <= 0 {
		wait = ts.EndWait
	}
	if wait < 0 {
		return tc, false, fmt.Errorf("end_wait must not be negative")
	}
	tc.EndWait = time.Duration(wait * float64(time.Second))
	switch {
	case o.Seed >= 0:
		tc.Seed = uint64(o.Seed)
	case ts.Seed > 0:
		tc.Seed = uint64(ts.Seed)
	default:
		tc.Seed, seedFromClock = uint64(time.Now().UnixNano()%1_000_000_000), true
	}
	return tc, seedFromClock, nil
}

func firstPositive(vals ...int) int {
	for _, v := range vals {
		if v > 0 {
			return v
		}
	}
	return 0
}
