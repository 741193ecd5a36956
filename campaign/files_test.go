//go:build unix

package campaign

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// Key, trust and credentials files are refused when another account could
// have chosen what they hold: written by others (mode, or a folder others
// may write, or through a symbolic link to such a place), or belonging to
// another user (issue 51, 4). The error names the file, what is wrong and
// how to mend it.
func TestKeyAndTrustFilesChecked(t *testing.T) {
	kp, _ := NewKey()
	seed, _ := kp.Seed()
	pub := PublicKey(kp)
	other := 65534 // nobody
	root := os.Geteuid() == 0
	// setup makes the files of a case in a private folder; it returns
	// the path to read.
	cases := []struct {
		name  string
		setup func(t *testing.T, dir string) string
		root  bool   // needs root (chown)
		want  string // "" : accepted; else what the error says (alternatives separated by |)
	}{
		{"own 600", func(t *testing.T, dir string) string { return write(t, dir, "k", string(seed), 0o600) }, false, ""},
		{"own 644", func(t *testing.T, dir string) string { return write(t, dir, "k", string(seed), 0o644) }, false, "chmod 600|holds a key's seed"},
		{"own 666", func(t *testing.T, dir string) string { return write(t, dir, "k", string(seed), 0o666) }, false, "chmod 600|chmod go-w"},
		{"another user's", func(t *testing.T, dir string) string {
			p := write(t, dir, "k", string(seed), 0o600)
			chown(t, p, other)
			return p
		}, true, "belongs to user 65534"},
		{"in a folder others may write", func(t *testing.T, dir string) string {
			return write(t, mkdir(t, dir, "shared", 0o777), "k", string(seed), 0o600)
		}, false, "which others may write (mode -rwxrwxrwx): they could replace it; chmod go-w"},
		{"in a sticky folder others may write", func(t *testing.T, dir string) string {
			return write(t, mkdir(t, dir, "tmp", 0o777|os.ModeSticky), "k", string(seed), 0o600)
		}, false, ""},
		{"in another user's folder", func(t *testing.T, dir string) string {
			d := mkdir(t, dir, "theirs", 0o755)
			p := write(t, d, "k", string(seed), 0o600)
			chown(t, d, other)
			return p
		}, true, "the folder X/theirs of"},
		{"a link to a file in a folder others may write", func(t *testing.T, dir string) string {
			target := write(t, mkdir(t, dir, "shared", 0o777), "k", string(seed), 0o600)
			return link(t, target, filepath.Join(dir, "k"))
		}, false, "which others may write"},
		{"a link to a file of mode 666", func(t *testing.T, dir string) string {
			return link(t, write(t, dir, "real", string(seed), 0o666), filepath.Join(dir, "k"))
		}, false, "chmod 600|chmod go-w"},
		{"a link in a folder others may write", func(t *testing.T, dir string) string {
			target := write(t, dir, "real", string(seed), 0o600)
			return link(t, target, filepath.Join(mkdir(t, dir, "shared", 0o777), "k"))
		}, false, "which others may write"},
		{"another user's link in a sticky folder", func(t *testing.T, dir string) string {
			target := write(t, dir, "real", string(seed), 0o600)
			l := link(t, target, filepath.Join(mkdir(t, dir, "tmp", 0o777|os.ModeSticky), "k"))
			if err := os.Lchown(l, other, other); err != nil {
				t.Skip(err)
			}
			return l
		}, true, "the symbolic link"},
		{"a relative link between private folders", func(t *testing.T, dir string) string {
			write(t, mkdir(t, dir, "keys", 0o700), "real", string(seed), 0o600)
			return link(t, "keys/../keys/real", filepath.Join(dir, "k"))
		}, false, ""},
		{"a named pipe", func(t *testing.T, dir string) string {
			p := filepath.Join(dir, "k")
			if err := syscall.Mkfifo(p, 0o600); err != nil {
				t.Fatal(err)
			}
			return p
		}, false, "not a regular file"},
		{"a link loop", func(t *testing.T, dir string) string {
			link(t, filepath.Join(dir, "b"), filepath.Join(dir, "a"))
			return link(t, filepath.Join(dir, "a"), filepath.Join(dir, "b"))
		}, false, "too many symbolic links"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if tc.root && !root {
				t.Skip("chown needs root")
			}
			dir := t.TempDir()
			path := tc.setup(t, dir)
			want := strings.ReplaceAll(tc.want, "X/", dir+"/")
			// As a key file (a seed: secret), as a trust file holding
			// that seed, and as NATS credentials (secret).
			_, keyErr := ReadKeyFile(path)
			_, trustErr := ParseTrust([]string{path})
			_, credsErr := connect("nats://127.0.0.1:1", "t", Auth{Creds: path})
			for what, err := range map[string]error{"key file": keyErr, "trust file": trustErr, "NATS credentials file": credsErr} {
				switch {
				case tc.want == "" && what == "NATS credentials file":
					if err == nil || strings.Contains(err.Error(), "NATS credentials file") {
						t.Errorf("as %s: %v", what, err) // checked, then the connection fails
					}
				case tc.want == "":
					if err != nil {
						t.Errorf("as %s: %v", what, err)
					}
				case err == nil:
					t.Errorf("as %s: accepted", what)
				case !strings.Contains(err.Error(), what) || !strings.Contains(err.Error(), path) || !containsAny(err.Error(), want):
					t.Errorf("as %s: %v (want %q)", what, err, want)
				}
			}
		})
	}
	// A trust file of public keys may be read by others, not written;
	// one that holds a seed is a key file.
	dir := t.TempDir()
	for _, tc := range []struct {
		text string
		mode os.FileMode
		want string
	}{
		{pub + "\n", 0o644, ""},
		{pub + "\n", 0o664, "chmod go-w"},
		{pub + "\n", 0o646, "chmod go-w"},
		{string(seed) + "\n", 0o640, "holds a key's seed and may be read by others"},
		{string(seed) + "\n", 0o600, ""},
	} {
		p := write(t, dir, "trust", tc.text, tc.mode)
		tr, err := ParseTrust([]string{p})
		if (err == nil) != (tc.want == "") || (err != nil && !strings.Contains(err.Error(), tc.want)) || (err == nil && !tr[pub]) {
			t.Errorf("%.10q mode %v: %v", tc.text, tc.mode, err)
		}
		os.Remove(p)
	}
	if _, err := ParseTrust([]string{filepath.Join(dir, "missing")}); err == nil || !strings.Contains(err.Error(), "neither a public key") {
		t.Errorf("a missing file: %v", err)
	}
	if _, err := ReadKeyFile(filepath.Join(dir, "missing")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a missing key file: %v", err)
	}
}

// containsAny says whether s contains one of the |-separated alternatives.
func containsAny(s, alternatives string) bool {
	for _, a := range strings.Split(alternatives, "|") {
		if strings.Contains(s, a) {
			return true
		}
	}
	return false
}

// write makes a file of mode in dir and returns its path.
func write(t *testing.T, dir, name, text string, mode os.FileMode) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(p, mode); err != nil { // beyond the umask
		t.Fatal(err)
	}
	return p
}

// mkdir makes a folder of mode in dir and returns its path.
func mkdir(t *testing.T, dir, name string, mode os.FileMode) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.Mkdir(p, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(p, mode); err != nil {
		t.Fatal(err)
	}
	return p
}

// link makes a symbolic link at path to target and returns path.
func link(t *testing.T, target, path string) string {
	t.Helper()
	if err := os.Symlink(target, path); err != nil {
		t.Fatal(err)
	}
	return path
}

// chown gives a file to uid.
func chown(t *testing.T, path string, uid int) {
	t.Helper()
	if err := os.Chown(path, uid, uid); err != nil {
		t.Skip(err)
	}
}
