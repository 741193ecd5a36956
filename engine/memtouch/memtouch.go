// Package memtouch makes large tables whose memory is mapped for writing
// at once.
//
// Memory fresh from the system is mapped at its first touch. A table that
// is read before it is written — an open-addressing index probes a slot
// before it stores into it — first maps the kernel's shared zero page, and
// the first write to each page then copies it and flushes the old mapping
// from the TLB of every core that runs the process: an interrupt of the
// other workers, dear on a virtual machine. Bakery's 655,200 initial states
// stored into a fresh index cost its two-worker run about 8,000 of them
// (docs/performance.md, "Two workers against one"). Writing one word of
// each page first maps it writable, with no copy and no flush.
package memtouch

import "unsafe"

// pageSize is the smallest page size of the systems Go runs on: a write
// every pageSize bytes touches every page.
const pageSize = 4096

// minTouched is the size below which Make does not touch: small slices
// come from spans the allocator has touched already.
const minTouched = 64 << 10

// Make returns a new slice of n zero values of T, its pages mapped for
// writing when it is large.
func Make[T any](n int) []T {
	s := make([]T, n)
	var zero T
	size := int(unsafe.Sizeof(zero))
	if size == 0 || n*size < minTouched {
		return s
	}
	step := max(1, pageSize/size)
	for i := 0; i < n; i += step {
		s[i] = zero // s is new: every element is zero already
	}
	return s
}
