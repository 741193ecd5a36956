// Package fpset keeps the set of states an exhaustive check has visited as
// 64-bit fingerprints of their keys, in a bounded amount of memory: an
// open-addressing table in memory that, when full, is sorted and written to
// a file, and sorted files on disk against which new fingerprints are
// looked up in batches (as TLC's DiskFPSet and the disk-based search of
// Stern and Dill do). The collision probability of such a set is estimated
// as TLC estimates it (Collision).
package fpset

import "math/bits"

// The primes of XXH64.
const (
	prime1 uint64 = 0x9E3779B185EBCA87
	prime2 uint64 = 0xC2B2AE3D27D4EB4F
	prime3 uint64 = 0x165667B19E3779F9
	prime4 uint64 = 0x85EBCA77C2B2AE63
	prime5 uint64 = 0x27D4EB2F165667C5
)

// Fingerprint returns the 64-bit fingerprint of a state key: XXH64 of its
// bytes with seed 0 (Yann Collet's xxHash, the 64-bit variant, as its
// specification defines it), except that 0, which the set keeps for empty
// slots, becomes 1. The function is fixed: the same key has the same
// fingerprint in every process, on every machine (unlike hash/maphash,
// whose seeds are random per process), so that files of fingerprints can
// be compared across runs. XXH64 passes SMHasher's tests of uniformity
// and avalanche; a set of n distinct keys then has two with the same
// fingerprint with probability about n²/2⁶⁵.
func Fingerprint(key string) uint64 {
	h := xxh64(key)
	if h == 0 {
		return 1
	}
	return h
}

// xxh64 is XXH64 with seed 0.
func xxh64(s string) uint64 {
	n := len(s)
	var h uint64
	if n >= 32 {
		p1 := prime1 // a variable: the sums wrap around, as the specification's do
		v1, v2, v3, v4 := p1+prime2, prime2, uint64(0), -p1
		for len(s) >= 32 {
			v1 = round(v1, u64(s))
			v2 = round(v2, u64(s[8:]))
			v3 = round(v3, u64(s[16:]))
			v4 = round(v4, u64(s[24:]))
			s = s[32:]
		}
		h = bits.RotateLeft64(v1, 1) + bits.RotateLeft64(v2, 7) + bits.RotateLeft64(v3, 12) + bits.RotateLeft64(v4, 18)
		h = mergeRound(h, v1)
		h = mergeRound(h, v2)
		h = mergeRound(h, v3)
		h = mergeRound(h, v4)
	} else {
		h = prime5
	}
	h += uint64(n)
	for ; len(s) >= 8; s = s[8:] {
		h ^= round(0, u64(s))
		h = bits.RotateLeft64(h, 27)*prime1 + prime4
	}
	if len(s) >= 4 {
		h ^= uint64(u32(s)) * prime1
		h = bits.RotateLeft64(h, 23)*prime2 + prime3
		s = s[4:]
	}
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i]) * prime5
		h = bits.RotateLeft64(h, 11) * prime1
	}
	h ^= h >> 33
	h *= prime2
	h ^= h >> 29
	h *= prime3
	h ^= h >> 32
	return h
}

func round(acc, input uint64) uint64 {
	acc += input * prime2
	acc = bits.RotateLeft64(acc, 31)
	return acc * prime1
}

func mergeRound(acc, val uint64) uint64 {
	val = round(0, val)
	acc ^= val
	return acc*prime1 + prime4
}

// u64 reads 8 bytes of s, little-endian (the compiler makes it one load).
func u64(s string) uint64 {
	_ = s[7]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

// u32 reads 4 bytes of s, little-endian.
func u32(s string) uint32 {
	_ = s[3]
	return uint32(s[0]) | uint32(s[1])<<8 | uint32(s[2])<<16 | uint32(s[3])<<24
}
