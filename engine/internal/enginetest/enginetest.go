// Package enginetest holds helpers shared by the engine packages' tests.
package enginetest

import (
	"context"
	"testing"

	"github.com/modex/modex/engine/conform"
	"github.com/modex/modex/engine/explore"
	"github.com/modex/modex/engine/model"
)

// StackModel loads the bundled stack sample's model (the tests run in
// engine/<package>) with its default configuration.
func StackModel(t testing.TB) (*model.StarModel, *explore.Config) {
	t.Helper()
	m, err := model.LoadStarlark("../../projects/stack/stack.star")
	if err != nil {
		t.Fatal(err)
	}
	return m, explore.DefaultConfig(m)
}

// BenchOnline runs online tests of impl (10 runs of 1,000 steps each time)
// and reports steps per second.
func BenchOnline(b *testing.B, m model.Model, cfg *explore.Config, impl conform.Implementation) {
	steps := 0
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		res, err := conform.Test(context.Background(), m, cfg, impl, conform.TestConfig{Runs: 10, Steps: 1000, Seed: uint64(i)})
		if err != nil || !res.Passed() {
			b.Fatal(err, res.Runs)
		}
		steps += res.Steps
	}
	b.ReportMetric(float64(steps)/b.Elapsed().Seconds(), "steps/s")
}
