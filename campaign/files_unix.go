//go:build unix

package campaign

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// readChecked reads a file that says whom this process trusts or what it
// signs with (a key file, a trust file, a NATS credentials file), at most
// maxKeyFile bytes, after checking that no other account can have chosen
// its contents. The rule, as ssh's for its keys:
//
//   - every folder the path goes through, symbolic links followed one by
//     one (the folders of each link too), and every link, belong to this
//     user or root, and no folder may be written by its group or others
//     unless it is sticky (/tmp: there only a name's owner may replace it);
//   - the file is a regular file of this user or root that its group and
//     others may not write; secret (a key): nor read.
//
// what names the file in errors ("key file", "trust file"), which say what
// is wrong and how to mend it. The file's mode is returned.
func readChecked(path, what string, secret bool) ([]byte, fs.FileMode, error) {
	real, err := resolveChecked(path, what)
	if err != nil {
		return nil, 0, err
	}
	// O_NOFOLLOW: the file checked is the file read (its folders are the
	// user's, so no one else can swap it meanwhile); O_NONBLOCK: a named
	// pipe put there does not block the open.
	f, err := os.OpenFile(real, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, 0, fmt.Errorf("%s: %w", what, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, 0, fmt.Errorf("%s: %w", what, err)
	}
	name := path
	if real != path {
		name = fmt.Sprintf("%s (%s)", path, real)
	}
	if !st.Mode().IsRegular() {
		return nil, 0, fmt.Errorf("%s %s is not a regular file", what, name)
	}
	if err := ownedHere(st, what+" "+name, real); err != nil {
		return nil, 0, err
	}
	mode := st.Mode().Perm()
	if secret && mode&0o077 != 0 {
		return nil, 0, fmt.Errorf("%s %s may be read or written by others (mode %v): anyone who reads it can sign in its name; chmod 600 %s",
			what, name, mode, real)
	}
	if mode&0o022 != 0 {
		return nil, 0, fmt.Errorf("%s %s may be written by others (mode %v): whoever writes it decides what this process trusts; chmod go-w %s",
			what, name, mode, real)
	}
	data, err := io.ReadAll(io.LimitReader(f, maxKeyFile+1))
	if err != nil {
		return nil, 0, fmt.Errorf("%s: %w", what, err)
	}
	if len(data) > maxKeyFile {
		return nil, 0, fmt.Errorf("%s %s is larger than %d KiB", what, name, maxKeyFile>>10)
	}
	return data, mode, nil
}

// ownedHere checks that a file, folder or link (name in errors, at path)
// belongs to this user or root.
func ownedHere(st fs.FileInfo, name, path string) error {
	sys, ok := st.Sys().(*syscall.Stat_t)
	if !ok {
		return nil
	}
	if uid := os.Geteuid(); int(sys.Uid) != uid && sys.Uid != 0 {
		return fmt.Errorf("%s belongs to user %d, not to you (user %d) or root: its owner decides what it holds; use one of your own (or chown %d %s)",
			name, sys.Uid, uid, uid, path)
	}
	return nil
}

// maxLinks bounds the symbolic links followed in one path (as Linux's 40).
const maxLinks = 40

// resolveChecked follows path's symbolic links one name at a time and
// checks every folder a name is looked up in, and every link, with
// readChecked's rule; it returns the resolved path.
func resolveChecked(path, what string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	checked := map[string]bool{}
	dirOK := func(dir string) error {
		if checked[dir] {
			return nil
		}
		st, err := os.Lstat(dir)
		if err != nil {
			return fmt.Errorf("%s %s: %w", what, path, err)
		}
		if err := ownedHere(st, fmt.Sprintf("the folder %s of %s %s", dir, what, path), dir); err != nil {
			return err
		}
		if mode := st.Mode(); mode.Perm()&0o022 != 0 && mode&fs.ModeSticky == 0 {
			return fmt.Errorf("%s %s is in the folder %s, which others may write (mode %v): they could replace it; chmod go-w %s, or keep the file in a folder of your own",
				what, path, dir, mode.Perm(), dir)
		}
		checked[dir] = true
		return nil
	}
	resolved, rest, links := "/", strings.TrimPrefix(abs, "/"), 0
	for rest != "" {
		var name string
		name, rest, _ = strings.Cut(rest, "/")
		switch name {
		case "", ".":
			continue
		case "..":
			resolved = filepath.Dir(resolved)
			continue
		}
		if err := dirOK(resolved); err != nil {
			return "", err
		}
		next := filepath.Join(resolved, name)
		st, err := os.Lstat(next)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return "", fmt.Errorf("%s %s: %w", what, path, fs.ErrNotExist)
			}
			return "", fmt.Errorf("%s %s: %w", what, path, err)
		}
		if st.Mode()&fs.ModeSymlink == 0 {
			resolved = next
			continue
		}
		if links++; links > maxLinks {
			return "", fmt.Errorf("%s %s: too many symbolic links", what, path)
		}
		if err := ownedHere(st, fmt.Sprintf("the symbolic link %s of %s %s", next, what, path), next); err != nil {
			return "", err
		}
		target, err := os.Readlink(next)
		if err != nil {
			return "", fmt.Errorf("%s %s: %w", what, path, err)
		}
		if filepath.IsAbs(target) {
			resolved = "/"
		}
		rest = strings.TrimPrefix(target, "/") + "/" + rest
	}
	return resolved, nil
}
