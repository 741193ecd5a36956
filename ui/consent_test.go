package ui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestConsentTrustsOnlyPrivateFiles: an answer is remembered in a private
// file; a file or folder another account could write allows nothing, and
// without a configuration folder nothing is remembered.
func TestConsentTrustsOnlyPrivateFiles(t *testing.T) {
	argv := []string{"./impl", "--port", "0"}
	t.Run("remembered", func(t *testing.T) {
		c := &Consent{File: filepath.Join(t.TempDir(), "modex", "allowed-commands")}
		if c.Allowed("p.toml", "/d", argv) {
			t.Fatal("allowed before being asked")
		}
		if err := c.Allow("p.toml", "/d", argv); err != nil {
			t.Fatal(err)
		}
		if !c.Allowed("p.toml", "/d", argv) {
			t.Fatal("the answer was not remembered")
		}
		if c.Allowed("p.toml", "/d", []string{"./impl", "--port", "1"}) {
			t.Fatal("another command allowed")
		}
	})
	for _, c := range []struct {
		name   string
		spoil  func(t *testing.T, file string)
		reason string
	}{
		{"file writable by others", func(t *testing.T, file string) { chmodT(t, file, 0o666) }, ""},
		{"folder above writable by others", func(t *testing.T, file string) {
			chmodT(t, filepath.Dir(filepath.Dir(file)), 0o777)
		}, "can be written by other accounts"},
		{"folder above writable by its group, ours", func(t *testing.T, file string) {
			chmodT(t, filepath.Dir(file), 0o770) // and made private again by Allow
			chmodT(t, filepath.Dir(filepath.Dir(file)), 0o770)
		}, ""},
		{"folder writable by others", func(t *testing.T, file string) { chmodT(t, filepath.Dir(file), 0o777) }, ""},
		{"file a symbolic link", func(t *testing.T, file string) {
			other := filepath.Join(filepath.Dir(file), "other")
			if err := os.Rename(file, other); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(other, file); err != nil {
				t.Fatal(err)
			}
		}, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			con := &Consent{File: filepath.Join(t.TempDir(), "modex", "allowed-commands")}
			if err := con.Allow("p.toml", "/d", argv); err != nil {
				t.Fatal(err)
			}
			c.spoil(t, con.File)
			if con.Allowed("p.toml", "/d", argv) {
				t.Fatalf("%s: a command allowed by a file another account could have written", c.name)
			}
			err := con.Allow("p.toml", "/d", argv)
			if c.reason != "" {
				if err == nil || !strings.Contains(err.Error(), c.reason) {
					t.Fatalf("Allow = %v; want an error saying %q", err, c.reason)
				}
				return
			}
			// Ours to fix: asked again, the answer is kept where it is
			// trusted (a symbolic link is replaced by nothing: refused).
			if err == nil && !con.Allowed("p.toml", "/d", argv) {
				t.Fatalf("%s: allowed again, still not trusted", c.name)
			}
		})
	}
	t.Run("no configuration folder", func(t *testing.T) {
		t.Setenv("HOME", "")
		t.Setenv("XDG_CONFIG_HOME", "")
		c := DefaultConsent()
		if err := c.Allow("p.toml", "/d", argv); err == nil {
			t.Fatal("an answer kept without a configuration folder")
		}
		if c.Allowed("p.toml", "/d", argv) {
			t.Fatal("allowed without a configuration folder")
		}
	})
}

func chmodT(t *testing.T, p string, mode os.FileMode) {
	t.Helper()
	if err := os.Chmod(p, mode); err != nil {
		t.Fatal(err)
	}
}
