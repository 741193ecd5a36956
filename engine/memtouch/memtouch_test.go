package memtouch

import (
	"os"
	"strconv"
	"strings"
	"testing"
)

type slot struct {
	a uint64
	b uint32
	v int32
}

// TestMake checks that Make's slices are zero and as long as asked, for
// sizes around its threshold and element sizes that do and do not divide
// a page.
func TestMake(t *testing.T) {
	for _, n := range []int{0, 1, 100, minTouched/16 - 1, minTouched / 16, 1 << 20} {
		s := Make[slot](n)
		if len(s) != n {
			t.Fatalf("Make(%d): length %d", n, len(s))
		}
		for i := range s {
			if s[i] != (slot{}) {
				t.Fatalf("Make(%d): element %d is %+v", n, i, s[i])
			}
		}
		b := Make[[3]byte](n) // 3 bytes: not a divisor of a page
		if len(b) != n {
			t.Fatalf("Make[[3]byte](%d): length %d", n, len(b))
		}
		for i := range b {
			if b[i] != ([3]byte{}) {
				t.Fatalf("Make[[3]byte](%d): element %d is %v", n, i, b[i])
			}
		}
	}
	if s := Make[struct{}](10); len(s) != 10 {
		t.Fatalf("Make of empty structs: length %d", len(s))
	}
}

// TestMakeMapsWritable reads every page of a large new slice, as an index
// probing it would, then checks in /proc/self/smaps that the slice's pages
// are not the kernel's zero page: they count as the process's anonymous
// memory (Linux only).
func TestMakeMapsWritable(t *testing.T) {
	if _, err := os.Stat("/proc/self/smaps_rollup"); err != nil {
		t.Skip("no /proc/self/smaps_rollup")
	}
	const n = 64 << 20 // bytes
	before := anonKB(t)
	s := Make[uint64](n / 8)
	var sum uint64
	for i := 0; i < len(s); i += 512 {
		sum += s[i] // a read of every page
	}
	after := anonKB(t)
	if sum != 0 {
		t.Fatalf("a new slice holds %d", sum)
	}
	// Read first, a page would be the shared zero page, not anonymous
	// memory of the process's own; made by Make, each is.
	if grew := after - before; grew < n/1024*3/4 {
		t.Fatalf("anonymous memory grew by %d KiB for a %d KiB slice read through: its pages are not mapped writable", grew, n/1024)
	}
	s[len(s)-1] = 1 // s is alive until here
}

// anonKB is the process's anonymous memory in KiB.
func anonKB(t *testing.T) int {
	b, err := os.ReadFile("/proc/self/smaps_rollup")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "Anonymous:" {
			n, err := strconv.Atoi(f[1])
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
	}
	t.Fatal("no Anonymous line in /proc/self/smaps_rollup")
	return 0
}
