package explore

import "github.com/modex/modex/engine/memtouch"

// hindex maps 128-bit key hashes to ids: open addressing with linear
// probing over one flat, pointer-free table. The hashes are uniform
// already, so a slot is found from their low bits without hashing again,
// and the collector never scans the table. Reads may run concurrently while
// nobody writes (workers read it during a level's expansion; the merge
// writes it alone).
type hindex struct {
	slots []hslot
	n     int
}

// hslot keeps 96 of the key's 128 bits (its first word whole, the low half
// of its second), 16 bytes a slot instead of 24: a third less memory and
// fewer cache misses. Two of n keys agree on 96 bits with probability
// about n²/2⁹⁷: 6·10⁻¹⁴ for a hundred million states.
type hslot struct {
	a uint64
	b uint32
	v int32 // the id + 3 (ids start at prunedID, -2); 0 for an empty slot
}

func (s *hslot) is(k hkey) bool { return s.a == k.a && s.b == uint32(k.b) }

// get returns the id stored for k.
func (h *hindex) get(k hkey) (int32, bool) {
	if len(h.slots) == 0 {
		return 0, false
	}
	mask := uint64(len(h.slots) - 1)
	for i := k.a & mask; ; i = (i + 1) & mask {
		s := &h.slots[i]
		if s.v == 0 {
			return 0, false
		}
		if s.is(k) {
			return s.v - 3, true
		}
	}
}

// set stores id for k, replacing what was stored.
func (h *hindex) set(k hkey, id int32) {
	if 4*(h.n+1) > 3*len(h.slots) {
		h.grow()
	}
	mask := uint64(len(h.slots) - 1)
	for i := k.a & mask; ; i = (i + 1) & mask {
		s := &h.slots[i]
		if s.v == 0 {
			*s = hslot{a: k.a, b: uint32(k.b), v: id + 3}
			h.n++
			return
		}
		if s.is(k) {
			s.v = id + 3
			return
		}
	}
}

// setIfAbsent stores id for k unless k has an id already.
func (h *hindex) setIfAbsent(k hkey, id int32) {
	if _, ok := h.get(k); !ok {
		h.set(k, id)
	}
}

// reset removes every key, keeping the table's room.
func (h *hindex) reset() {
	clear(h.slots)
	h.n = 0
}

// len is the number of keys stored.
func (h *hindex) len() int { return h.n }

// grow makes the table larger. Keys are distinct, so each goes to the first
// free slot from its home; taken in the old table's order, they land near
// the same place or a multiple of the old size further, and the writes go
// forward in a few streams.
func (h *hindex) grow() {
	// Four times as large while small (fewer moves for a table still
	// growing), twice beyond 64K slots (1 MB).
	n := 2 * len(h.slots)
	if len(h.slots) < 1<<16 {
		n = 4 * len(h.slots)
	}
	h.resize(max(1024, n))
}

// reserve makes room for n more keys at once: the initial states, whose
// number is known, go in without the table growing (a growth near the end
// has the old table and the new one alive at once, at the run's peak).
func (h *hindex) reserve(n int) {
	size := max(1024, len(h.slots))
	for 4*(h.n+n) > 3*size {
		size *= 2
	}
	if size > len(h.slots) {
		h.resize(size)
	}
}

// resize moves the keys to a table of size slots (a power of two).
func (h *hindex) resize(size int) {
	old := h.slots
	h.slots = memtouch.Make[hslot](size) // probed before stored into
	mask := uint64(len(h.slots) - 1)
	for j := range old {
		if old[j].v == 0 {
			continue
		}
		i := old[j].a & mask
		for h.slots[i].v != 0 {
			i = (i + 1) & mask
		}
		h.slots[i] = old[j]
	}
}
