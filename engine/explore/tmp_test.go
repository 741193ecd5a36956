package explore_test

import (
	"context"
	"testing"

	"github.com/modex/modex/engine/explore"
	"github.com/modex/modex/engine/gcpolicy"
	"github.com/modex/modex/engine/model"
)

func BenchmarkTmpStack16(b *testing.B) {
	m, err := model.LoadStarlarkSource("stack16.star", []byte(stackSource(b, 16)))
	if err != nil {
		b.Fatal(err)
	}
	defer gcpolicy.Tune()()
	cfg := explore.DefaultConfig(m)
	cfg.Workers = 2
	for i := 0; i < b.N; i++ {
		explore.Explore(context.Background(), m, cfg)
	}
}
