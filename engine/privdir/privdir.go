// Package privdir makes and checks directories and files that only this
// process's user can write: where Modex keeps what it will later trust (the
// compiled code of go-graphviz, the commands a user allowed to run), a
// directory another local account could write is no place to keep it.
//
// It imports the standard library only: package gvcache runs it before
// other packages initialise.
package privdir

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
)

// Make makes dir (and its parents) if it is missing and returns nil if it
// and its parent are private (Check): no other account can put something
// in it or swap it for a directory of its own. Otherwise the error says
// what is wrong.
func Make(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	for _, d := range []string{filepath.Dir(dir), dir} {
		if err := Check(d); err != nil {
			return err
		}
	}
	return nil
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
		return fmt.Errorf("%s is a symbolic link", path)
	}
	if !fi.IsDir() && !fi.Mode().IsRegular() {
		return fmt.Errorf("%s is neither a file nor a directory", path)
	}
	if fi.Mode().Perm()&0o022 != 0 {
		return fmt.Errorf("%s can be written by other accounts (mode %v)", path, fi.Mode().Perm())
	}
	if !ownedByMe(fi) {
		return errors.New(path + " belongs to another account")
	}
	return nil
}

var (
	fallbackOnce sync.Once
	fallback     string
	fallbackErr  error
)

// CacheDir is the user's cache folder (os.UserCacheDir) or, where there is
// none (no HOME), a folder of this process's own made in the temporary
// folder (0700, with a random name): a fixed name in a shared temporary
// folder could have been made first by another account.
func CacheDir() (string, error) {
	if dir, err := os.UserCacheDir(); err == nil {
		return dir, nil
	}
	fallbackOnce.Do(func() { fallback, fallbackErr = os.MkdirTemp("", "modex-cache-") })
	return fallback, fallbackErr
}
