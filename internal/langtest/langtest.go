// Package langtest helps the tests that run other languages' programs
// (the adapter kit's Python and JavaScript, generated skeletons): find the
// interpreter or skip, and make the go command's test cache see the
// files such a test reads through another program.
package langtest

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// Need returns the path of the program name, after checking it with the
// arguments check (none: found is enough). Without it, or when the check
// fails, the test is skipped — or fails when MODEX_REQUIRE_LANGS=1, as
// make test sets it (make deps installs python3 and nodejs).
func Need(t testing.TB, name string, check ...string) string {
	t.Helper()
	path, err := exec.LookPath(name)
	if err == nil && len(check) > 0 {
		if out, cerr := exec.Command(path, check...).CombinedOutput(); cerr != nil {
			lines := bytes.Split(bytes.TrimSpace(out), []byte("\n"))
			err = fmt.Errorf("%s will not do (%v): %s", path, cerr, lines[len(lines)-1])
		}
	}
	if err != nil {
		if os.Getenv("MODEX_REQUIRE_LANGS") == "1" {
			t.Fatalf("%s is needed: %v (MODEX_REQUIRE_LANGS=1; make deps installs it)", name, err)
		}
		t.Skipf("%s is not there: %v (MODEX_REQUIRE_LANGS=1 makes this a failure)", name, err)
	}
	return path
}

// Watch reads the files of dirs: the go command keys its cache of test
// results by the files a test opened, so that an edit of a file another
// program reads runs the test again.
func Watch(t testing.TB, dirs ...string) {
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
