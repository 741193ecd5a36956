//go:build linux

package adapter

import "syscall"

// dieWithParent has the kernel kill the child when modex dies, even by
// SIGKILL, which no handler of modex's sees.
func dieWithParent(a *syscall.SysProcAttr) { a.Pdeathsig = syscall.SIGKILL }
