// Package gvcache keeps go-graphviz's cache of compiled code out of the
// shared temporary directory.
//
// go-graphviz compiles its WASM build of Graphviz when its package
// initialises, in every process that links it, and keeps the machine code
// in os.TempDir()/go-graphviz (through wazero's compilation cache, which
// loads what it finds there without checking who wrote it). In a shared
// /tmp, another local account could create that directory first and put
// code there that every Modex process of every user would then run.
//
// This package initialises before go-graphviz (what it imports is the
// standard library and package privdir, which imports only the standard
// library; Go initialises the ready packages in import-path order, and
// github.com/modex sorts before github.com/tetratelabs, which go-graphviz
// needs first) and points TMPDIR at a directory only this user can write:
// modex/graphviz in the user's cache directory, made and checked by
// privdir.Make. Where there is none, TMPDIR points where no directory can
// be made, and go-graphviz runs without a cache (0.5 s more at each
// start). Restore, called by package graph's init (which runs after
// go-graphviz's), puts TMPDIR back for everything else.
package gvcache

import (
	"os"
	"path/filepath"

	"github.com/modex/modex/engine/privdir"
)

// noCache is where TMPDIR points when there is no private directory: no
// directory can be made under a device file, so go-graphviz keeps no cache.
var noCache = filepath.Join(os.DevNull, "no-cache")

var (
	savedTMPDIR string
	hadTMPDIR   bool
)

func init() {
	savedTMPDIR, hadTMPDIR = os.LookupEnv("TMPDIR")
	dir := noCache
	if base, err := os.UserCacheDir(); err == nil {
		d := filepath.Join(base, "modex", "graphviz")
		if privdir.Make(d) == nil {
			dir = d
		}
	}
	os.Setenv("TMPDIR", dir)
}

// Restore puts TMPDIR back as it was before this package's init.
func Restore() {
	if hadTMPDIR {
		os.Setenv("TMPDIR", savedTMPDIR)
	} else {
		os.Unsetenv("TMPDIR")
	}
}
