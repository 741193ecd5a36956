//go:build !windows && !linux

package adapter

import "syscall"

// dieWithParent: only Linux kills a child when its parent dies.
func dieWithParent(*syscall.SysProcAttr) {}
