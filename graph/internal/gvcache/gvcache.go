// Package gvcache keeps go-graphviz's cache of compiled code out of the
// shared temporary directory.
//
// go-graphviz compiles its WASM build of Graphviz at first use (Modex's copy
// in third_party/go-graphviz; upstream compiles it when the package
// initialises) and keeps the machine code through wazero's compilation
// cache, which loads what it finds there without checking who wrote it.
// Upstream's place for it is os.TempDir()/go-graphviz: in a shared /tmp,
// another local account could create that directory first and put code
// there that every Modex process of every user would then run. Dir is the
// place Modex gives it instead.
package gvcache

import (
	"os"
	"path/filepath"

	"github.com/modex/modex/engine/privdir"
)

// Dir is the directory for go-graphviz's compiled code: modex/graphviz in
// the user's cache directory, made and checked by privdir.Make; "" (no
// cache: about 0.5 s more at a process's first layout) where there is no
// such directory or it is not this user's alone.
func Dir() string {
	base, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	d := filepath.Join(base, "modex", "graphviz")
	if privdir.Make(d) != nil {
		return ""
	}
	// Modex before go-graphviz loaded lazily kept the cache a level down,
	// in go-graphviz: about 12 MB that nothing reads any more.
	os.RemoveAll(filepath.Join(d, "go-graphviz"))
	return d
}
