package ui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A configuration with check = true is checked, not explored into a graph:
// the status gives the check's summary and the first violation's path.
func TestCheckConfiguration(t *testing.T) {
	b := newBench(t)
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "m.star"), []byte(`
def init():
    return {"x": 0}

def Inc(s):
    require(s.x < 5)
    s.x += 1

def invariant(s):
    return s.x != 3 or "x is 3"

actions = [Inc]
`), 0o600)
	os.WriteFile(filepath.Join(dir, "m.toml"), []byte("name = \"m\"\nmodel = \"m.star\"\n[configs.big]\ncheck = true\ncheck_deadlock = false\n"), 0o600)
	b.open(filepath.Join(dir, "m.toml"))
	b.wait()
	want := "Checked big (check = true, no graph): 6 states, 5 transitions, 6 tried, depth 5,"
	if s := b.wb.Status(); !strings.HasPrefix(s, want) || !strings.Contains(s, "invariant violated: x is 3, in the state reached by Inc(), Inc(), Inc() x = 3") {
		t.Errorf("status %q", s)
	}
}
