//go:build linux

package adapter

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// dieWithParent has the kernel kill the child when modex dies, even by
// SIGKILL, which no handler of modex's sees.
func dieWithParent(a *syscall.SysProcAttr) { a.Pdeathsig = syscall.SIGKILL }

// ShareOneCPU runs this process, and the adapters it starts from now on,
// on one CPU (the one the calling thread is on), and returns what gives the
// process its CPUs back. The tester waits for every answer, so the two
// never need two CPUs at once; on one CPU a request and its answer wake
// no idle CPU, which on a virtual machine costs several microseconds each
// way (docs/performance.md). The cost: the implementation's own threads
// and processes share that CPU too.
func ShareOneCPU() (restore func(), err error) {
	var all, one unix.CPUSet
	if err := unix.SchedGetaffinity(0, &all); err != nil {
		return nil, fmt.Errorf("reading this process's CPUs: %w", err)
	}
	// The CPU this thread runs on, so that several pinned runs spread as
	// the scheduler spread them; else the first allowed.
	var cpu uint32
	if _, _, e := unix.RawSyscall(unix.SYS_GETCPU, uintptr(unsafe.Pointer(&cpu)), 0, 0); e == 0 && all.IsSet(int(cpu)) {
		one.Set(int(cpu))
	} else {
		for c := 0; c < len(all)*64; c++ {
			if all.IsSet(c) {
				one.Set(c)
				break
			}
		}
	}
	if err := setThreadsAffinity(&one); err != nil {
		setThreadsAffinity(&all)
		return nil, err
	}
	return func() { setThreadsAffinity(&all) }, nil
}

// setThreadsAffinity gives every thread of this process the CPUs in set.
// A thread starts with its creator's set, so a second pass catches those
// started during the first.
func setThreadsAffinity(set *unix.CPUSet) error {
	for pass := 0; pass < 2; pass++ {
		tasks, err := os.ReadDir("/proc/self/task")
		if err != nil {
			return fmt.Errorf("listing this process's threads: %w", err)
		}
		for _, t := range tasks {
			tid, err := strconv.Atoi(t.Name())
			if err != nil {
				continue
			}
			if err := unix.SchedSetaffinity(tid, set); err != nil && !errors.Is(err, unix.ESRCH) {
				return fmt.Errorf("setting thread %d's CPUs: %w", tid, err)
			}
		}
	}
	return nil
}
