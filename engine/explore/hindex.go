package explore

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

type hslot struct {
	k    hkey
	id   int32
	full bool
}

// get returns the id stored for k.
func (h *hindex) get(k hkey) (int32, bool) {
	if len(h.slots) == 0 {
		return 0, false
	}
	mask := uint64(len(h.slots) - 1)
	for i := k.a & mask; ; i = (i + 1) & mask {
		s := &h.slots[i]
		if !s.full {
			return 0, false
		}
		if s.k == k {
			return s.id, true
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
		if !s.full {
			*s = hslot{k: k, id: id, full: true}
			h.n++
			return
		}
		if s.k == k {
			s.id = id
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
	old := h.slots
	// Four times as large while small (fewer moves for a table still
	// growing), twice beyond 64K slots (1.5 MB).
	n := 2 * len(old)
	if len(old) < 1<<16 {
		n = 4 * len(old)
	}
	h.slots = make([]hslot, max(1024, n))
	mask := uint64(len(h.slots) - 1)
	for j := range old {
		if !old[j].full {
			continue
		}
		i := old[j].k.a & mask
		for h.slots[i].full {
			i = (i + 1) & mask
		}
		h.slots[i] = old[j]
	}
}
