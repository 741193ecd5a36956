//go:build unix

package privdir

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

var (
	errSymlink = errors.New("is a symbolic link")
	errNotFile = errors.New("is neither a file nor a directory")
)

// private returns nil if fi (path's) belongs to this process's user and
// only that user may write it.
func private(path string, fi fs.FileInfo) error {
	if fi.Mode().Perm()&0o022 != 0 {
		return fmt.Errorf("%s can be written by other accounts (mode %v)", path, fi.Mode().Perm())
	}
	if owner(fi) != os.Geteuid() {
		return errors.New(path + " belongs to another account")
	}
	return nil
}

// checkAbove returns nil if folder d, above a private folder, lets no
// other account rename what is in it: owned by this user or by root, and
// writable by others only with the sticky bit (as /tmp); writable by its
// group only when this user owns it (a user's own group, as Debian gives
// each user).
func checkAbove(d string) error {
	fi, err := os.Stat(d)
	if err != nil {
		return err
	}
	o, me := owner(fi), os.Geteuid()
	if o != me && o != 0 {
		return fmt.Errorf("%s belongs to another account", d)
	}
	perm, sticky := fi.Mode().Perm(), fi.Mode()&os.ModeSticky != 0
	if perm&0o002 != 0 && !sticky || perm&0o020 != 0 && o != me && !sticky {
		return fmt.Errorf("%s can be written by other accounts (mode %v)", d, perm)
	}
	return nil
}

// Tighten takes write permission for group and others off path where this
// user owns it (a directory a umask of 002 made, a file made 0666).
func Tighten(path string) {
	fi, err := os.Lstat(path)
	if err != nil || fi.Mode()&os.ModeSymlink != 0 || owner(fi) != os.Geteuid() {
		return
	}
	if perm := fi.Mode().Perm(); perm&0o022 != 0 {
		os.Chmod(path, perm&^0o022)
	}
}

func owner(fi fs.FileInfo) int {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return int(st.Uid)
	}
	return -1
}
