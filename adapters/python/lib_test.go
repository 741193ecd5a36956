package python

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/modex/modex/internal/langtest"
)

// TestLibrary runs the library's own tests, which start adapters written
// with it as child processes and speak the protocol to them.
func TestLibrary(t *testing.T) {
	t.Parallel()
	py := langtest.Need(t, "python3", "-c", "import sys; assert sys.version_info >= (3, 9), 'Python 3.9+ needed, not ' + sys.version.split()[0]")
	langtest.Watch(t, ".", "testdata")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, py, "-m", "unittest", "-v", "test_modex_adapter")
	cmd.Env = append(os.Environ(), "PYTHONDONTWRITEBYTECODE=1")
	cmd.WaitDelay = 5 * time.Second
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("python3 -m unittest -v test_modex_adapter: %v\n%s", err, out)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	t.Log(strings.Join(lines[max(0, len(lines)-3):], "\n"))
}
