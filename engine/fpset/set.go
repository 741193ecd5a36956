package fpset

import (
	"errors"
	"fmt"
	"math/bits"
	"os"
	"runtime/debug"
	"slices"
	"sort"

	"github.com/modex/modex/engine/memtouch"
)

// Options bound a Set.
type Options struct {
	// Dir is the folder of the set's files; it must exist. The set writes
	// only files named fp-*.bin in it, and Close removes them.
	Dir string
	// MemoryBytes bounds the in-memory table, 8 bytes a slot (default 64
	// MiB; at least 16 slots). The table starts small and doubles up to
	// it; a doubling that would hold the old and the new table past the
	// bound goes through a file instead.
	MemoryBytes int64
	// PendingBytes bounds the fingerprints that wait for a lookup on disk,
	// 8 bytes each (default an eighth of MemoryBytes).
	PendingBytes int64
	// MaxFiles is how many sorted files the set keeps before it merges
	// them into one (default 8).
	MaxFiles int
	// Load is the fill of the table past which it doubles or, at its
	// bound, is written to disk (default 0.75, at most 0.95).
	Load float64
	// OnMemory, when set, is told how the table's bytes change (the
	// caller's accounting of long-lived memory).
	OnMemory func(delta int64)
}

// Result says what Add found.
type Result int

// Results of Add.
const (
	// Known: the fingerprint was in the in-memory table (seen before).
	Known Result = iota
	// Added: not seen before, for certain (no file to look in).
	Added
	// Pending: not in memory; it is new unless a file has it, which
	// Resolve tells.
	Pending
)

// ErrFull is returned by Add when the table is full and pending
// fingerprints must be resolved first (see Full).
var ErrFull = errors.New("fpset: the in-memory table is full: resolve the pending fingerprints")

// Set is a set of 64-bit fingerprints (never 0) bounded in memory. The
// fingerprints must be spread evenly over the 64 bits, as Fingerprint's
// are: a fingerprint's place in the table is its position in that range.
//
// Add inserts into the in-memory table; with files on disk, a fingerprint
// not in memory is Pending until the next Resolve, which sorts the pending
// ones and looks them up in the sorted files in one pass, reading only the
// pages they fall in. When the table is full, Resolve writes it, sorted,
// to a new file and empties it; past MaxFiles files, the files are merged
// into one (duplicates across files dropped).
//
// Contains may be called from several goroutines at once while none calls
// any other method; the other methods are for one goroutine.
type Set struct {
	opts       Options
	slots      []uint64
	n          int // fingerprints in slots
	maxSlots   int
	limit      int // n past which the table doubles or is full
	pending    []uint64
	maxPending int
	files      []*sortedFile
	seq        int
	buf        []byte // a block of pages read from a file
	stats      Stats
}

// Stats count what a Set did.
type Stats struct {
	// Spills is the number of times the table was written to disk;
	// Merges the number of times the files were merged into one.
	Spills, Merges int
	// Files is the number of sorted files now; DiskBytes their size now,
	// PeakDiskBytes the most they took.
	Files                    int
	DiskBytes, PeakDiskBytes int64
	// MemoryBytes is the table's size now (8 bytes a slot).
	MemoryBytes int64
	// LookedUp counts the fingerprints looked up on disk; PagesRead the
	// pages of 8 KiB read for them.
	LookedUp, PagesRead int64
	// GrownOnDisk counts the doublings of the table made through a file
	// (the old table and the new would have passed the bound together).
	GrownOnDisk int
}

// New makes an empty set.
func New(opts Options) (*Set, error) {
	if opts.Dir == "" {
		return nil, errors.New("fpset: no folder for the files")
	}
	if st, err := os.Stat(opts.Dir); err != nil || !st.IsDir() {
		return nil, fmt.Errorf("fpset: %s is not a folder", opts.Dir)
	}
	if opts.MemoryBytes <= 0 {
		opts.MemoryBytes = 64 << 20
	}
	if opts.PendingBytes <= 0 {
		opts.PendingBytes = opts.MemoryBytes / 8
	}
	if opts.MaxFiles <= 0 {
		opts.MaxFiles = 8
	}
	if opts.Load <= 0 || opts.Load > 0.95 {
		opts.Load = 0.75
	}
	s := &Set{opts: opts}
	s.maxSlots = int(max(opts.MemoryBytes/8, 16))
	s.maxPending = int(max(opts.PendingBytes/8, 1))
	if err := s.resize(min(s.maxSlots, 1<<14)); err != nil {
		return nil, err
	}
	return s, nil
}

// home is the first slot to look at for fp: the table's order is the
// fingerprints' order (fp·len/2⁶⁴ grows with fp), so the table is nearly
// sorted already when it is written to disk.
func home(fp uint64, n int) int {
	hi, _ := bits.Mul64(fp, uint64(n))
	return int(hi)
}

// Contains tells whether fp is in the in-memory table (files are not
// looked at). It is safe for concurrent readers (see Set).
func (s *Set) Contains(fp uint64) bool {
	slots := s.slots
	for i := home(fp, len(slots)); ; {
		v := slots[i]
		if v == fp {
			return true
		}
		if v == 0 {
			return false
		}
		if i++; i == len(slots) {
			i = 0
		}
	}
}

// insert puts fp in slots; false when it was there.
func insert(slots []uint64, fp uint64) bool {
	for i := home(fp, len(slots)); ; {
		v := slots[i]
		if v == fp {
			return false
		}
		if v == 0 {
			slots[i] = fp
			return true
		}
		if i++; i == len(slots) {
			i = 0
		}
	}
}

// Add adds fp (not 0) to the set and says whether it was seen (Known),
// surely new (Added) or to be looked up on disk (Pending). After an Add,
// the caller checks Full and, when it is, calls Resolve.
func (s *Set) Add(fp uint64) (Result, error) {
	if fp == 0 {
		return Known, errors.New("fpset: fingerprint 0")
	}
	if s.n+1 >= len(s.slots) {
		return Known, ErrFull
	}
	if !insert(s.slots, fp) {
		return Known, nil
	}
	s.n++
	if s.n > s.limit && len(s.slots) < s.maxSlots {
		if err := s.resize(min(2*len(s.slots), s.maxSlots)); err != nil {
			return Known, err
		}
	}
	if len(s.files) == 0 {
		return Added, nil
	}
	s.pending = append(s.pending, fp)
	return Pending, nil
}

// Full tells whether Resolve must run before the next Add: the table is
// at its bound and fill, or the pending fingerprints at theirs.
func (s *Set) Full() bool {
	return s.n >= s.limit && len(s.slots) == s.maxSlots || len(s.pending) >= s.maxPending
}

// Len is the number of fingerprints in the in-memory table; PendingLen
// the number waiting for Resolve.
func (s *Set) Len() int { return s.n }

// PendingLen is the number of fingerprints waiting for Resolve.
func (s *Set) PendingLen() int { return len(s.pending) }

// Stats returns what the set did so far.
func (s *Set) Stats() Stats {
	st := s.stats
	st.Files = len(s.files)
	st.MemoryBytes = int64(len(s.slots)) * 8
	return st
}

// resize moves the table's fingerprints to a table of n slots. When the
// old table and the new would pass the bound together, the old one goes
// through a file: written sorted, let go, read back into the new one
// (the table never takes more than MemoryBytes).
func (s *Set) resize(n int) error {
	old := s.slots
	was := len(old)
	var tmp *sortedFile
	if int64(len(old)+n)*8 > s.opts.MemoryBytes && s.n > 0 {
		fps := s.compact()
		f, err := writeFile(s.nextPath(), func(emit func(uint64) error) error {
			for _, v := range fps {
				if err := emit(v); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
		defer f.remove()
		tmp, old, fps, s.slots = f, nil, nil, nil
		s.onMemory(-was)
		was = 0
		debug.FreeOSMemory() // the old table is given back before the new one is taken
	}
	// Counted before it is made, the old one after it is let go: the
	// caller's count (the GC policy's long-lived tables) covers both while
	// both are alive.
	s.onMemory(n)
	s.slots = memtouch.Make[uint64](n) // probed before stored into
	for _, v := range old {
		if v != 0 {
			insert(s.slots, v)
		}
	}
	if tmp != nil {
		if err := mergeSorted([]*sortedFile{tmp}, nil, func(v uint64) error {
			insert(s.slots, v)
			return nil
		}); err != nil {
			return err
		}
		s.stats.GrownOnDisk++
	}
	s.limit = min(int(s.opts.Load*float64(n)), n-2)
	s.onMemory(-was)
	return nil
}

// onMemory tells the caller that the table's slots grew by delta.
func (s *Set) onMemory(delta int) {
	if s.opts.OnMemory != nil && delta != 0 {
		s.opts.OnMemory(int64(delta) * 8)
	}
}

// compact moves the table's fingerprints to its front, sorted, emptying
// every other slot, and returns them.
func (s *Set) compact() []uint64 {
	// In place: the write index never passes the read one; every slot
	// moved from is emptied.
	fps := s.slots[:0]
	for i, v := range s.slots {
		if v != 0 {
			if j := len(fps); j != i {
				s.slots[i] = 0
			}
			fps = append(fps, v)
		}
	}
	slices.Sort(fps)
	return fps
}

// Verdict tells which of the pending fingerprints are new (see Resolve).
type Verdict struct {
	fps []uint64 // sorted
	dup []uint64 // bit i: fps[i] is in a file
}

// New tells whether fp, one of the pending fingerprints, is new: in no
// file. It returns false for a fingerprint that was not pending.
func (v *Verdict) New(fp uint64) bool {
	i := sort.Search(len(v.fps), func(i int) bool { return v.fps[i] >= fp })
	return i < len(v.fps) && v.fps[i] == fp && v.dup[i/64]&(1<<(i%64)) == 0
}

// Len is the number of fingerprints the verdict is about.
func (v *Verdict) Len() int { return len(v.fps) }

// Resolve looks the pending fingerprints up in the files and calls visit
// with the verdict (valid during the call only), then forgets them; when
// the table is full, it then writes it to a new file and empties it
// (merging the files when there are more than MaxFiles).
func (s *Set) Resolve(visit func(v *Verdict) error) error {
	slices.Sort(s.pending)
	v := &Verdict{fps: s.pending, dup: make([]uint64, (len(s.pending)+63)/64)}
	if len(s.pending) > 0 {
		s.stats.LookedUp += int64(len(s.pending))
		for _, f := range s.files {
			pages, err := f.lookup(s.pending, v.dup, &s.buf)
			s.stats.PagesRead += pages
			if err != nil {
				return err
			}
		}
	}
	if visit != nil {
		if err := visit(v); err != nil {
			return err
		}
	}
	s.pending = s.pending[:0]
	if s.n >= s.limit && len(s.slots) == s.maxSlots {
		return s.Spill()
	}
	return nil
}

// Spill writes the table to a new sorted file and empties it. Pending
// fingerprints must be resolved first: they would be found in the new
// file.
func (s *Set) Spill() error {
	if len(s.pending) > 0 {
		return errors.New("fpset: spill with pending fingerprints")
	}
	if s.n == 0 {
		return nil
	}
	fps := s.compact()
	f, err := writeFile(s.nextPath(), func(emit func(uint64) error) error {
		for _, v := range fps {
			if err := emit(v); err != nil {
				return err
			}
		}
		return nil
	})
	clear(s.slots[:len(fps)])
	s.n = 0
	if err != nil {
		return err
	}
	s.files = append(s.files, f)
	s.stats.Spills++
	s.diskChanged()
	if len(s.files) > s.opts.MaxFiles {
		return s.mergeFiles()
	}
	return nil
}

func (s *Set) nextPath() string {
	s.seq++
	return fmt.Sprintf("%s/fp-%06d.bin", s.opts.Dir, s.seq)
}

// diskChanged updates the disk figures after the files changed.
func (s *Set) diskChanged() {
	var b int64
	for _, f := range s.files {
		b += f.n * 8
	}
	s.stats.DiskBytes = b
	s.stats.PeakDiskBytes = max(s.stats.PeakDiskBytes, b)
}

// mergeFiles merges every file into one, dropping duplicates.
func (s *Set) mergeFiles() error {
	merged, err := writeFile(s.nextPath(), func(emit func(uint64) error) error {
		return mergeSorted(s.files, nil, func(v uint64) error { return emit(v) })
	})
	if err != nil {
		return err
	}
	// Both are on disk for a moment: the peak counts them.
	s.stats.PeakDiskBytes = max(s.stats.PeakDiskBytes, s.stats.DiskBytes+merged.n*8)
	for _, f := range s.files {
		f.remove()
	}
	s.files = []*sortedFile{merged}
	s.stats.Merges++
	s.diskChanged()
	return nil
}

// Close removes the set's files and lets its table go.
func (s *Set) Close() error {
	var first error
	for _, f := range s.files {
		if err := f.remove(); err != nil && first == nil {
			first = err
		}
	}
	s.files = nil
	s.onMemory(-len(s.slots))
	s.slots, s.pending, s.n = nil, nil, 0
	s.diskChanged()
	return first
}
