package main

import (
	"fmt"
	"os"
	"runtime/pprof"
)

// startProfile writes a CPU profile of the whole command to the file named
// by MODEX_CPUPROFILE, when it is set (docs/performance.md: how the
// figures there were profiled). The returned function stops it.
func startProfile() func() {
	path := os.Getenv("MODEX_CPUPROFILE")
	if path == "" {
		return func() {}
	}
	f, err := os.Create(path)
	if err == nil {
		err = pprof.StartCPUProfile(f)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "modex: MODEX_CPUPROFILE:", err)
		return func() {}
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}
}
