package projects

import (
	"errors"
	"os"
	"sync"
)

// The temporary files and folders that writers (WriteAtomic, WriteNew, a
// campaign worker's project bundles) rename into place: every return path of
// a writer removes its own, and RemoveTemps removes those of writers still
// running when the process exits on its own terms (modex, signalled twice or
// not ending within its grace period, exits at once and its deferred
// removals never run).
var temps struct {
	sync.Mutex
	paths  map[string]bool // path -> a folder
	closed bool            // RemoveTemps ran: no more temporary files
}

// errExiting is what CreateTemp and MkdirTemp say once RemoveTemps ran.
var errExiting = errors.New("modex is exiting: no new file is written")

// CreateTemp is os.CreateTemp for a file that is renamed (or linked) into
// place once written: until RemoveTemp or ForgetTemp, RemoveTemps removes it.
func CreateTemp(dir, pattern string) (*os.File, error) {
	temps.Lock()
	defer temps.Unlock()
	if temps.closed {
		return nil, errExiting
	}
	f, err := os.CreateTemp(dir, pattern)
	if err != nil {
		return nil, err
	}
	track(f.Name(), false)
	return f, nil
}

// MkdirTemp is os.MkdirTemp for a folder that is renamed into place once
// filled: until RemoveTemp or ForgetTemp, RemoveTemps removes it and what it holds.
func MkdirTemp(dir, pattern string) (string, error) {
	temps.Lock()
	defer temps.Unlock()
	if temps.closed {
		return "", errExiting
	}
	path, err := os.MkdirTemp(dir, pattern)
	if err != nil {
		return "", err
	}
	track(path, true)
	return path, nil
}

// track records a temporary path; temps is locked.
func track(path string, dir bool) {
	if temps.paths == nil {
		temps.paths = map[string]bool{}
	}
	temps.paths[path] = dir
}

// RemoveTemp removes the temporary file or folder path (made by
// CreateTemp or MkdirTemp) and forgets it: what a writer does on its ways
// out that put nothing in place.
func RemoveTemp(path string) {
	temps.Lock()
	defer temps.Unlock()
	dir, ok := temps.paths[path]
	if !ok {
		return
	}
	delete(temps.paths, path)
	if dir {
		os.RemoveAll(path)
	} else {
		os.Remove(path)
	}
}

// ForgetTemp forgets the temporary file or folder path once it was renamed
// into place (its name is gone, or may be another writer's by now).
func ForgetTemp(path string) {
	temps.Lock()
	defer temps.Unlock()
	delete(temps.paths, path)
}

// RemoveTemps removes every temporary file and folder still being written,
// for a process about to exit without returning to their writers; no new
// one can be made after it (CreateTemp and MkdirTemp fail). A writer that
// renames its file meanwhile either finds it gone (the target stays as it
// was) or got there first (the target is whole).
func RemoveTemps() {
	temps.Lock()
	defer temps.Unlock()
	temps.closed = true
	for path, dir := range temps.paths {
		if dir {
			os.RemoveAll(path)
		} else {
			os.Remove(path)
		}
	}
	temps.paths = nil
}

// TempCount is how many temporary files and folders are being written now
// (for tests).
func TempCount() int {
	temps.Lock()
	defer temps.Unlock()
	return len(temps.paths)
}
