package main

import (
	"fmt"
	"os"
	"runtime/pprof"
	"runtime/trace"
)

// startProfile writes a CPU profile of the whole command to the file named
// by MODEX_CPUPROFILE, and a profile of what it allocated to the file named
// by MODEX_MEMPROFILE, when they are set (docs/performance.md: how the
// figures there were profiled), and an execution trace (go tool trace) to
// the file named by MODEX_TRACE. The returned function stops them.
func startProfile() func() {
	stopCPU := func() {}
	stopTrace := func() {}
	if path := os.Getenv("MODEX_TRACE"); path != "" {
		f, err := os.Create(path)
		if err == nil {
			err = trace.Start(f)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "modex: MODEX_TRACE:", err)
		} else {
			stopTrace = func() {
				trace.Stop()
				f.Close()
			}
		}
	}
	if path := os.Getenv("MODEX_CPUPROFILE"); path != "" {
		f, err := os.Create(path)
		if err == nil {
			err = pprof.StartCPUProfile(f)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "modex: MODEX_CPUPROFILE:", err)
		} else {
			stopCPU = func() {
				pprof.StopCPUProfile()
				f.Close()
			}
		}
	}
	return func() {
		stopCPU()
		stopTrace()
		if path := os.Getenv("MODEX_MEMPROFILE"); path != "" {
			f, err := os.Create(path)
			if err == nil {
				err = pprof.Lookup("allocs").WriteTo(f, 0)
				if cerr := f.Close(); err == nil {
					err = cerr
				}
			}
			if err != nil {
				fmt.Fprintln(os.Stderr, "modex: MODEX_MEMPROFILE:", err)
			}
		}
	}
}
