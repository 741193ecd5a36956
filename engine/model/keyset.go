package model

import (
	"hash/maphash"
	"sync"
	"sync/atomic"

	"github.com/modex/modex/engine/memtouch"
)

// keySet tells which of a list's strings were added before. Its table is
// of indexes into that list, with a part of each hash to skip most
// comparisons: 8 bytes a slot and nothing for the collector to scan,
// where a map[string]struct{} of half a million initial keys takes about
// 40 MB of pointers (each collection during init() marks them).
type keySet struct {
	seed  maphash.Seed
	slots []keySlot
	n     int
}

// keySlot is one slot: the index of a key + 1 (0: empty) in its low half
// and its hash's high half in its high half, in one word that addAll
// changes atomically.
type keySlot uint64

func makeSlot(at int, tag uint32) keySlot { return keySlot(uint64(tag)<<32 | uint64(uint32(at+1))) }

// index is the index of the slot's key (-1: empty).
func (sl keySlot) index() int { return int(uint32(sl)) - 1 }

func (sl keySlot) tag() uint32 { return uint32(sl >> 32) }

// newKeySet returns a set with room for about n keys before it grows.
func newKeySet(n int) *keySet {
	return &keySet{seed: maphash.MakeSeed(), slots: memtouch.Make[keySlot](tableFor(n))}
}

// tableFor is the size of a table with room for n keys.
func tableFor(n int) int {
	size := 16
	for 3*size < 4*n {
		size *= 2
	}
	return size
}

// add adds keys[at] to the set unless an equal key is in it, and tells
// whether it was added. keys holds every key added before at the indexes
// it was added at.
func (s *keySet) add(keys []string, at int) bool {
	if 4*(s.n+1) > 3*len(s.slots) {
		s.grow(keys, 2*len(s.slots))
	}
	pos, tag, found := s.find(keys, keys[at])
	if found {
		return false
	}
	s.slots[pos] = makeSlot(at, tag)
	s.n++
	return true
}

// grow makes the table size slots. A slot's home comes from the hash,
// which the slot does not keep whole: the keys are hashed again.
func (s *keySet) grow(keys []string, size int) {
	old := s.slots
	s.slots = memtouch.Make[keySlot](size) // probed before stored into
	mask := uint64(len(s.slots) - 1)
	for _, o := range old {
		if o == 0 {
			continue
		}
		i := maphash.String(s.seed, keys[o.index()]) & mask
		for s.slots[i] != 0 {
			i = (i + 1) & mask
		}
		s.slots[i] = o
	}
}

// addAll adds keys[from:] as add would, one by one in order, but on tasks
// goroutines (the keys of init()'s loops run in parallel: half a million
// for Bakery, where adding them one by one took 0.19 s), and returns the
// keys left: keys[:from], then those of keys[from:] not equal to one
// before them, in order. The keys dropped are passed to drop. The set's
// indexes are those of the list returned, which reuses keys' array.
//
// Each key is put in its slot by compare-and-swap. Of equal keys, the one
// of lowest index takes the slot, whatever the order the goroutines reach
// it in: a key finding an equal one of higher index in its slot takes the
// slot from it. When no key met an equal one (the usual case), nothing is
// dropped; otherwise a second pass finds the keys that hold their slots,
// and the list is compacted.
func (s *keySet) addAll(keys []string, from, tasks int, drop func(string)) []string {
	n := len(keys) - from
	if need := tableFor(s.n + n); need > len(s.slots) {
		s.grow(keys[:from], need)
	}
	mask := uint64(len(s.slots) - 1)
	// put puts keys[i] in its slot: it tells whether the slot was empty
	// and whether an equal key was met there.
	put := func(i int) (added, repeat bool) {
		key := keys[i]
		h := maphash.String(s.seed, key)
		tag := uint32(h >> 32)
		mine := makeSlot(i, tag)
		for pos := h & mask; ; {
			p := (*uint64)(&s.slots[pos])
			cur := keySlot(atomic.LoadUint64(p))
			switch {
			case cur == 0:
				if atomic.CompareAndSwapUint64(p, 0, uint64(mine)) {
					return true, false
				}
				continue // taken meanwhile: look at it again
			case cur.tag() == tag && keys[cur.index()] == key:
				if cur.index() < i || atomic.CompareAndSwapUint64(p, uint64(cur), uint64(mine)) {
					return false, true
				}
				continue
			}
			pos = (pos + 1) & mask
		}
	}
	var added, repeats atomic.Int64 // summed once a part, not once a key
	parallelRange(from, len(keys), tasks, func(lo, hi int) {
		var a, r int64
		for i := lo; i < hi; i++ {
			ad, rep := put(i)
			if ad {
				a++
			}
			if rep {
				r++
			}
		}
		added.Add(a)
		repeats.Add(r)
	})
	s.n += int(added.Load())
	if repeats.Load() == 0 {
		return keys
	}
	// Some keys repeat: those that hold their slot now are kept.
	at := make([]int32, n) // the slot of a key kept, -1 for one dropped
	parallelRange(from, len(keys), tasks, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			pos, _, _ := s.find(keys, keys[i])
			at[i-from] = -1
			if s.slots[pos].index() == i {
				at[i-from] = int32(pos)
			}
		}
	})
	out := keys[:from]
	for i, pos := range at {
		k := keys[from+i]
		if pos < 0 {
			drop(k)
			continue
		}
		s.slots[pos] = makeSlot(len(out), s.slots[pos].tag())
		out = append(out, k)
	}
	clear(keys[len(out):])
	return out
}

// find returns the position of key's slot (or of the empty slot where it
// would go), its hash's high half, and whether it is there.
func (s *keySet) find(keys []string, key string) (pos uint64, tag uint32, found bool) {
	h := maphash.String(s.seed, key)
	tag = uint32(h >> 32)
	mask := uint64(len(s.slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		sl := s.slots[i]
		if sl == 0 {
			return i, tag, false
		}
		if sl.tag() == tag && keys[sl.index()] == key {
			return i, tag, true
		}
	}
}

// parallelRange runs f on tasks goroutines, each over parts of lo..hi.
func parallelRange(lo, hi, tasks int, f func(lo, hi int)) {
	const part = 4096
	var next atomic.Int64
	next.Store(int64(lo))
	var wg sync.WaitGroup
	for range max(tasks, 1) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				from := int(next.Add(part)) - part
				if from >= hi {
					return
				}
				f(from, min(from+part, hi))
			}
		}()
	}
	wg.Wait()
}
