//go:build !windows && !linux

package adapter

import (
	"errors"
	"syscall"
)

// dieWithParent: only Linux kills a child when its parent dies.
func dieWithParent(*syscall.SysProcAttr) {}

// ShareOneCPU is supported on Linux only.
func ShareOneCPU() (restore func(), err error) {
	return nil, errors.New("running on one CPU is supported on Linux only")
}
