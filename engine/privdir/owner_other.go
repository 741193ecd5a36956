//go:build !unix

package privdir

import (
	"errors"
	"io/fs"
)

var (
	errSymlink = errors.New("is a symbolic link")
	errNotFile = errors.New("is neither a file nor a directory")
)

// private returns nil: outside Unix, mode bits do not say who may write a
// file (Windows reports 0777 for every folder), and the user's own folders
// are private by the system's defaults.
func private(string, fs.FileInfo) error { return nil }

// checkAbove returns nil (see private).
func checkAbove(string) error { return nil }

// Tighten does nothing outside Unix (see private).
func Tighten(string) {}
