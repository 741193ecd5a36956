package model

import "hash/maphash"

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

// keySlot is one slot: the index of a key + 1 (0: empty) and its hash's
// high half.
type keySlot struct {
	at  int32
	tag uint32
}

// newKeySet returns a set with room for about n keys before it grows.
func newKeySet(n int) *keySet {
	size := 16
	for 3*size < 4*n {
		size *= 2
	}
	return &keySet{seed: maphash.MakeSeed(), slots: make([]keySlot, size)}
}

// add adds keys[at] to the set unless an equal key is in it, and tells
// whether it was added. keys holds every key added before at the indexes
// it was added at.
func (s *keySet) add(keys []string, at int) bool {
	if 4*(s.n+1) > 3*len(s.slots) {
		s.grow(keys)
	}
	key := keys[at]
	h := maphash.String(s.seed, key)
	tag := uint32(h >> 32)
	mask := uint64(len(s.slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		sl := &s.slots[i]
		if sl.at == 0 {
			sl.at, sl.tag = int32(at)+1, tag
			s.n++
			return true
		}
		if sl.tag == tag && keys[sl.at-1] == key {
			return false
		}
	}
}

// grow doubles the table. A slot's home comes from the hash, which the
// slot does not keep whole: the keys are hashed again.
func (s *keySet) grow(keys []string) {
	old := s.slots
	s.slots = make([]keySlot, 2*len(old))
	mask := uint64(len(s.slots) - 1)
	for _, o := range old {
		if o.at == 0 {
			continue
		}
		i := maphash.String(s.seed, keys[o.at-1]) & mask
		for s.slots[i].at != 0 {
			i = (i + 1) & mask
		}
		s.slots[i] = o
	}
}
