//go:build unix

package model

import "syscall"

// addressSpaceLimit is the process's RLIMIT_AS (0 when unlimited).
func addressSpaceLimit() uint64 {
	var r syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_AS, &r); err != nil || r.Cur >= 1<<62 {
		return 0
	}
	return uint64(r.Cur)
}
