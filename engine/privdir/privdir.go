// Package privdir makes and checks directories and files that only this
// process's user can write: where Modex keeps what it will later trust (the
// compiled code of go-graphviz, the commands a user allowed to run), a
// directory another local account could write is no place to keep it.
//
// The checks are Unix's (owner and mode bits). Elsewhere the user's own
// folders (os.UserCacheDir, os.UserConfigDir) are private by the system's
// defaults and the checks pass.
package privdir

import (
	"os"
	"path/filepath"
	"sync"
)

// Make makes dir (and its parents) if it is missing and returns nil if no
// other account can put something in it or swap it for a directory of its
// own: dir passes Check (write permission for group and others is first
// taken off it where this user owns it, as a umask of 002 leaves it), and
// every folder above it passes checkAbove. Otherwise the error says what
// is wrong.
func Make(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	Tighten(dir)
	if err := Check(dir); err != nil {
		return err
	}
	return checkAncestors(filepath.Dir(dir))
}

// CheckPath returns nil if path and its folder pass Check and every folder
// above them passes checkAbove: a file kept in a folder Make accepted.
func CheckPath(path string) error {
	parent := filepath.Dir(path)
	for _, p := range []string{path, parent} {
		if err := Check(p); err != nil {
			return err
		}
	}
	return checkAncestors(filepath.Dir(parent))
}

// checkAncestors checks d and every folder above it with checkAbove,
// following symbolic links first.
func checkAncestors(d string) error {
	d, err := filepath.EvalSymlinks(d)
	if err != nil {
		return err
	}
	for ; ; d = filepath.Dir(d) {
		if err := checkAbove(d); err != nil {
			return err
		}
		if filepath.Dir(d) == d {
			return nil
		}
	}
}

// Check returns nil if path is a real file or directory (not a symbolic
// link), owned by this process's user and writable by nobody else, and an
// error saying which of these it is not.
func Check(path string) error {
	fi, err := os.Lstat(path)
	if err != nil {
		return err
	}
	if fi.Mode()&os.ModeSymlink != 0 {
		return &os.PathError{Op: "check", Path: path, Err: errSymlink}
	}
	if !fi.IsDir() && !fi.Mode().IsRegular() {
		return &os.PathError{Op: "check", Path: path, Err: errNotFile}
	}
	return private(path, fi)
}

var (
	fallbackOnce sync.Once
	fallback     string
	fallbackErr  error
)

// CacheDir is the user's cache folder (os.UserCacheDir) or, where there is
// none (no HOME), a folder of this process's own made in the temporary
// folder (0700, with a random name; it is left there when the process
// ends): a fixed name in a shared temporary folder could have been made
// first by another account.
func CacheDir() (string, error) {
	if dir, err := os.UserCacheDir(); err == nil {
		return dir, nil
	}
	fallbackOnce.Do(func() { fallback, fallbackErr = os.MkdirTemp("", "modex-cache-") })
	return fallback, fallbackErr
}
