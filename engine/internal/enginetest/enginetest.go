// Package enginetest holds helpers shared by the engine packages' tests.
package enginetest

import (
	"testing"

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
