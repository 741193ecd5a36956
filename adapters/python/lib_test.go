package python

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestLibrary runs the library's own tests, which start adapters written
// with it as child processes and speak the protocol to them.
func TestLibrary(t *testing.T) {
	t.Parallel()
	py := need(t, "python3", "-c", "import sys; assert sys.version_info >= (3, 9), 'Python 3.9+ needed, not ' + sys.version.split()[0]")
	watch(t, ".", "testdata")
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

// need returns the path of the program name, after checking it with the
// arguments check. Without it the test is skipped, or fails when
// MODEX_REQUIRE_LANGS=1 (make test sets it: make deps installs python3).
func need(t *testing.T, name string, check ...string) string {
	t.Helper()
	path, err := exec.LookPath(name)
	if err == nil {
		if out, cerr := exec.Command(path, check...).CombinedOutput(); cerr != nil {
			lines := bytes.Split(bytes.TrimSpace(out), []byte("\n"))
			err = fmt.Errorf("%s will not do (%v): %s", path, cerr, lines[len(lines)-1])
		}
	}
	if err != nil {
		if os.Getenv("MODEX_REQUIRE_LANGS") == "1" {
			t.Fatalf("the Python adapter kit cannot be tested: %v (MODEX_REQUIRE_LANGS=1; make deps installs python3)", err)
		}
		t.Skipf("the Python adapter kit is not tested: %v (MODEX_REQUIRE_LANGS=1 makes this a failure)", err)
	}
	return path
}

// watch reads the files of dirs: the go command keys its cache of test
// results by the files a test opened, so that an edit of the library or of
// its tests runs the test again.
func watch(t *testing.T, dirs ...string) {
	t.Helper()
	for _, dir := range dirs {
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			if e.Type().IsRegular() {
				if _, err := os.ReadFile(filepath.Join(dir, e.Name())); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
}
