package campaign

import (
	"os"
	"testing"
)

// TestMain gives the tests a cache folder of their own: the failures the
// coordinators keep and the workers' projects go there, not to the user's.
func TestMain(m *testing.M) {
	cache, err := os.MkdirTemp("", "modex-campaign-test-cache")
	if err == nil {
		os.Setenv("XDG_CACHE_HOME", cache)
	}
	code := m.Run()
	os.RemoveAll(cache)
	os.Exit(code)
}
