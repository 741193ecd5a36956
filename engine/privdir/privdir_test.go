package privdir

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestMake(t *testing.T) {
	cases := []struct {
		name    string
		prepare func(t *testing.T, base string) string // returns the directory asked for
		wantErr string                                 // "" for accepted
	}{
		{"made fresh", func(t *testing.T, base string) string {
			return filepath.Join(base, "modex", "graphviz")
		}, ""},
		{"existing, others may read", func(t *testing.T, base string) string {
			d := filepath.Join(base, "modex", "graphviz")
			mustMkdir(t, d, 0o755)
			return d
		}, ""},
		{"ours, writable by others: tightened", func(t *testing.T, base string) string {
			d := filepath.Join(base, "modex", "graphviz")
			mustMkdir(t, d, 0o777)
			chmod(t, filepath.Dir(d), 0o775)
			return d
		}, ""},
		{"a folder above writable by others", func(t *testing.T, base string) string {
			chmod(t, base, 0o777)
			return filepath.Join(base, "modex", "graphviz")
		}, "can be written by other accounts"},
		{"its parent writable by others", func(t *testing.T, base string) string {
			d := filepath.Join(base, "modex", "graphviz")
			mustMkdir(t, d, 0o700)
			chmod(t, filepath.Dir(d), 0o777)
			return d
		}, "can be written by other accounts"},
		{"a folder above writable by others, sticky", func(t *testing.T, base string) string {
			chmod(t, base, 0o777|os.ModeSticky)
			return filepath.Join(base, "modex", "graphviz")
		}, ""},
		{"a folder above writable by its group, ours", func(t *testing.T, base string) string {
			chmod(t, base, 0o770)
			return filepath.Join(base, "modex", "graphviz")
		}, ""},
		{"a symbolic link", func(t *testing.T, base string) string {
			other := filepath.Join(base, "elsewhere")
			mustMkdir(t, other, 0o700)
			mustMkdir(t, filepath.Join(base, "modex"), 0o700)
			d := filepath.Join(base, "modex", "graphviz")
			if err := os.Symlink(other, d); err != nil {
				t.Fatal(err)
			}
			return d
		}, "is a symbolic link"},
		{"a file", func(t *testing.T, base string) string {
			mustMkdir(t, filepath.Join(base, "modex"), 0o700)
			d := filepath.Join(base, "modex", "graphviz")
			if err := os.WriteFile(d, nil, 0o600); err != nil {
				t.Fatal(err)
			}
			return d
		}, "mkdir"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := c.prepare(t, t.TempDir())
			err := Make(d)
			if c.wantErr == "" {
				if err != nil {
					t.Fatalf("Make(%s) = %v; want it accepted", d, err)
				}
				for _, p := range []string{d} {
					if fi, err := os.Lstat(p); err != nil || !fi.IsDir() || fi.Mode().Perm()&0o022 != 0 {
						t.Fatalf("Make(%s) left %s not a private directory: %v, %v", d, p, fi.Mode(), err)
					}
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), c.wantErr) {
				t.Fatalf("Make(%s) = %v; want an error saying %q", d, err, c.wantErr)
			}
		})
	}
}

// TestMakeRefusesAnotherAccountsDirectory needs root, to give a
// directory to another account.
func TestMakeRefusesAnotherAccountsDirectory(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to chown a directory to another account")
	}
	for _, owned := range []string{"leaf", "above"} {
		base := t.TempDir()
		d := filepath.Join(base, "modex", "graphviz")
		mustMkdir(t, d, 0o700)
		target := d
		if owned == "above" {
			target = base
		}
		if err := os.Chown(target, 65534, 65534); err != nil {
			t.Fatal(err)
		}
		if err := Make(d); err == nil || !strings.Contains(err.Error(), "belongs to another account") {
			t.Fatalf("%s another account's: Make(%s) = %v; want it refused", owned, d, err)
		}
	}
}

func mustMkdir(t *testing.T, d string, mode os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(d, 0o700); err != nil {
		t.Fatal(err)
	}
	chmod(t, d, mode)
}

func chmod(t *testing.T, d string, mode os.FileMode) {
	t.Helper()
	if err := os.Chmod(d, mode); err != nil {
		t.Fatal(err)
	}
}

func TestCheckFiles(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, mode os.FileMode) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
		chmod(t, p, mode)
		return p
	}
	own := write("own", 0o600)
	readable := write("readable", 0o644)
	shared := write("shared", 0o666)
	link := filepath.Join(dir, "link")
	if err := os.Symlink(own, link); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		path, wantErr string
	}{
		{own, ""},
		{readable, ""},
		{shared, "can be written by other accounts"},
		{link, "is a symbolic link"},
		{filepath.Join(dir, "missing"), "no such file"},
		{os.DevNull, "neither a file nor a directory"},
	}
	for _, c := range cases {
		err := Check(c.path)
		if c.wantErr == "" && err != nil {
			t.Errorf("Check(%s) = %v; want it accepted", c.path, err)
		}
		if c.wantErr != "" && (err == nil || !strings.Contains(err.Error(), c.wantErr)) {
			t.Errorf("Check(%s) = %v; want an error saying %q", c.path, err, c.wantErr)
		}
	}
}

// TestCacheDirWithoutHome: with no cache folder (no HOME) the fallback is
// a new private folder, not a fixed name in the shared temporary folder.
func TestCacheDirWithoutHome(t *testing.T) {
	t.Setenv("HOME", "")
	t.Setenv("XDG_CACHE_HOME", "")
	t.Setenv("TMPDIR", t.TempDir())
	dir, err := CacheDir()
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Dir(dir) != os.Getenv("TMPDIR") || !strings.HasPrefix(filepath.Base(dir), "modex-cache-") {
		t.Fatalf("CacheDir() = %s; want a new folder in %s", dir, os.Getenv("TMPDIR"))
	}
	if err := Check(dir); err != nil {
		t.Fatalf("the fallback folder is not private: %v", err)
	}
	if again, _ := CacheDir(); again != dir {
		t.Fatalf("a second call made another folder: %s, then %s", dir, again)
	}
	os.RemoveAll(dir)
}
