package wasm

import (
	"sync"
	"sync/atomic"
)

// Modex's changes to go-graphviz v0.2.9 (see MODEX.md at the module's root):
// the WASM module is compiled and instantiated by Load, at first use, not by
// a package init that every process linking go-graphviz ran, and the
// directory of wazero's compilation cache is the program's choice.

var (
	loadOnce sync.Once
	loaded   atomic.Bool

	cacheMu        sync.Mutex // guards the two below, and orders them before load reads them
	cacheDirSet    bool
	cacheDirChosen string
)

// Load compiles and instantiates the WASM build of Graphviz, once. It
// panics where that fails, as the package's init did; the package is then
// unusable, and later calls do not try again.
func Load() {
	loadOnce.Do(func() {
		load()
		loaded.Store(true)
	})
}

// Loaded reports whether Load has loaded the module.
func Loaded() bool { return loaded.Load() }

// SetCacheDir sets the directory of the compilation cache ("": no cache)
// instead of os.TempDir()/go-graphviz. It has effect only before Load.
func SetCacheDir(dir string) {
	cacheMu.Lock()
	defer cacheMu.Unlock()
	cacheDirSet = true
	cacheDirChosen = dir
}

// chosenCacheDir is the directory SetCacheDir set, and whether it was called.
func chosenCacheDir() (dir string, set bool) {
	cacheMu.Lock()
	defer cacheMu.Unlock()
	return cacheDirChosen, cacheDirSet
}
