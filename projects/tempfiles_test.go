package projects

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// Every way out of the atomic writers leaves no temporary file, and a
// process exiting in the middle of a write (RemoveTemps, as modex does when
// a second Ctrl-C or the grace period ends it) removes the one being
// written and keeps the target as it was.
func TestTemporaryFilesNeverStay(t *testing.T) {
	defer func() { temps.Lock(); temps.closed = false; temps.Unlock() }()
	dir := t.TempDir()
	target := filepath.Join(dir, "out.json")
	os.WriteFile(target, []byte("old"), 0o644)
	leftovers := func(t *testing.T) {
		t.Helper()
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			if ok, _ := filepath.Match("run-*.json", e.Name()); !ok && e.Name() != "out.json" {
				t.Errorf("left behind: %s", e.Name())
			}
		}
		if n := TempCount(); n != 0 {
			t.Errorf("%d temporary files still registered", n)
		}
	}
	for _, tc := range []struct {
		name  string
		write func(io.Writer) error
		want  string // the target afterwards
	}{
		{"written", func(w io.Writer) error { _, err := io.WriteString(w, "new"); return err }, "new"},
		{"the write fails", func(w io.Writer) error { io.WriteString(w, "half"); return errors.New("disk full") }, "new"},
		{"the write panics", func(w io.Writer) error { io.WriteString(w, "half"); panic("boom") }, "new"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			func() {
				defer func() { recover() }()
				WriteAtomic(target, tc.write)
			}()
			if data, _ := os.ReadFile(target); string(data) != tc.want {
				t.Errorf("target %q, want %q", data, tc.want)
			}
			leftovers(t)
		})
	}
	if _, err := WriteNew(dir, "run", ".json", []byte("{}")); err != nil {
		t.Fatal(err)
	}
	leftovers(t)
	// The process exits during a write: RemoveTemps takes the file being
	// written away; the writer's rename then fails and the target stays.
	err := WriteAtomic(target, func(w io.Writer) error {
		io.WriteString(w, "partial")
		if TempCount() != 1 {
			t.Errorf("the file being written is not registered")
		}
		RemoveTemps()
		return nil
	})
	if err == nil {
		t.Errorf("the write went on after RemoveTemps")
	}
	if data, _ := os.ReadFile(target); string(data) != "new" {
		t.Errorf("target %q after an exit during its write", data)
	}
	leftovers(t)
	// Nothing new is begun once the process is exiting.
	if err := WriteFileAtomic(target, []byte("later")); err == nil {
		t.Errorf("a write began after RemoveTemps")
	}
	leftovers(t)
}
