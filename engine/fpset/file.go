package fpset

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
)

// pageFPs is the number of fingerprints in a page of a file (8 KiB), the
// unit of the in-memory index; blockPages the most pages read at once.
const (
	pageFPs    = 1024
	pageBytes  = pageFPs * 8
	blockPages = 64
)

// sortedFile is a file of distinct fingerprints in increasing order, 8
// bytes each, little-endian, with no header, and the first fingerprint of
// each of its pages (kept in memory: 1/1024 of the file).
type sortedFile struct {
	path  string
	f     *os.File
	n     int64    // fingerprints
	index []uint64 // first fingerprint of each page
	last  uint64
}

// writeFile writes the fingerprints fill emits, which must be increasing,
// to a new file at path.
func writeFile(path string, fill func(emit func(uint64) error) error) (*sortedFile, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return nil, err
	}
	sf := &sortedFile{path: path, f: f}
	w := bufio.NewWriterSize(f, 1<<20)
	var b [8]byte
	emit := func(v uint64) error {
		if sf.n > 0 && v <= sf.last {
			return fmt.Errorf("fpset: %s: fingerprints out of order", path)
		}
		if sf.n%pageFPs == 0 {
			sf.index = append(sf.index, v)
		}
		sf.last = v
		sf.n++
		binary.LittleEndian.PutUint64(b[:], v)
		_, err := w.Write(b[:])
		return err
	}
	err = fill(emit)
	if err == nil {
		err = w.Flush()
	}
	if err != nil {
		sf.remove()
		return nil, err
	}
	return sf, nil
}

// remove closes and deletes the file.
func (f *sortedFile) remove() error {
	f.f.Close()
	return os.Remove(f.path)
}

// pages is the number of pages of the file.
func (f *sortedFile) pages() int { return len(f.index) }

// page returns the page a fingerprint v ≥ index[0] would be in.
func (f *sortedFile) page(v uint64) int {
	return sort.Search(len(f.index), func(i int) bool { return f.index[i] > v }) - 1
}

// lookup marks in dup (a bit per fingerprint) those of cands, sorted, that
// the file holds, reading only the pages they fall in, several
// neighbouring pages at once; it returns the pages read. buf is the
// caller's buffer, kept between calls.
func (f *sortedFile) lookup(cands []uint64, dup []uint64, buf *[]byte) (pages int64, err error) {
	if f.n == 0 {
		return 0, nil
	}
	var vals []uint64 // the block read, decoded
	lo, hi := -1, -1  // its pages
	dec := make([]uint64, 0, blockPages*pageFPs)
	for i := 0; i < len(cands); i++ {
		c := cands[i]
		if dup[i/64]&(1<<(i%64)) != 0 || c < f.index[0] || c > f.last {
			continue
		}
		p := f.page(c)
		if p < lo || p >= hi {
			lo, hi = p, f.blockEnd(p, cands[i:])
			vals, err = f.readPages(lo, hi, buf, dec[:0])
			if err != nil {
				return pages, err
			}
			dec = vals
			pages += int64(hi - lo)
		}
		j := sort.Search(len(vals), func(k int) bool { return vals[k] >= c })
		if j < len(vals) && vals[j] == c {
			dup[i/64] |= 1 << (i % 64)
		}
	}
	return pages, nil
}

// blockEnd is the page after the last that the candidates rest (sorted,
// the first in page p) need within blockPages of p: a block is read at
// once, and no page past the last candidate's is read.
func (f *sortedFile) blockEnd(p int, rest []uint64) int {
	end := min(p+blockPages, f.pages())
	if end < f.pages() {
		bound := f.index[end] // the first fingerprint past the block
		k := sort.Search(len(rest), func(k int) bool { return rest[k] >= bound })
		rest = rest[:k]
	}
	lastPage := f.page(min(rest[len(rest)-1], f.last))
	return max(p+1, min(end, lastPage+1))
}

// readPages reads pages lo..hi-1 and decodes them into dec.
func (f *sortedFile) readPages(lo, hi int, buf *[]byte, dec []uint64) ([]uint64, error) {
	start := int64(lo) * pageBytes
	size := min(int64(hi-lo)*pageBytes, f.n*8-start)
	if int64(cap(*buf)) < size {
		*buf = make([]byte, blockPages*pageBytes)
	}
	b := (*buf)[:size]
	if _, err := f.f.ReadAt(b, start); err != nil {
		return nil, fmt.Errorf("fpset: reading %s: %w", f.path, err)
	}
	for k := 0; k+8 <= len(b); k += 8 {
		dec = append(dec, binary.LittleEndian.Uint64(b[k:]))
	}
	return dec, nil
}

// fileReader reads a sorted file from the start.
type fileReader struct {
	r    *bufio.Reader
	left int64
	cur  uint64
	ok   bool
}

func newFileReader(f *sortedFile) (*fileReader, error) {
	if _, err := f.f.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	r := &fileReader{r: bufio.NewReaderSize(f.f, 1<<20), left: f.n}
	return r, r.next()
}

// next reads the next fingerprint into cur; ok is false at the end.
func (r *fileReader) next() error {
	if r.left == 0 {
		r.ok = false
		return nil
	}
	var b [8]byte
	if _, err := io.ReadFull(r.r, b[:]); err != nil {
		return fmt.Errorf("fpset: reading a file: %w", err)
	}
	r.cur, r.ok = binary.LittleEndian.Uint64(b[:]), true
	r.left--
	return nil
}

// mergeSorted calls emit with the distinct fingerprints of the files and
// of mem (sorted), in increasing order.
func mergeSorted(files []*sortedFile, mem []uint64, emit func(uint64) error) error {
	rs := make([]*fileReader, 0, len(files))
	for _, f := range files {
		r, err := newFileReader(f)
		if err != nil {
			return err
		}
		rs = append(rs, r)
	}
	first := true
	var last uint64
	for {
		best, from := uint64(0), -2 // -1: mem
		for i, r := range rs {
			if r.ok && (from == -2 || r.cur < best) {
				best, from = r.cur, i
			}
		}
		if len(mem) > 0 && (from == -2 || mem[0] < best) {
			best, from = mem[0], -1
		}
		if from == -2 {
			return nil
		}
		if from == -1 {
			mem = mem[1:]
		} else if err := rs[from].next(); err != nil {
			return err
		}
		if !first && best == last {
			continue
		}
		if err := emit(best); err != nil {
			return err
		}
		first, last = false, best
	}
}

// Summary is what Finish finds of the whole set.
type Summary struct {
	// Distinct is the number of distinct fingerprints in the set.
	Distinct int64
	// MinGap is the least difference between two of them in increasing
	// order (0 when there are fewer than two).
	MinGap uint64
}

// Finish counts the set's distinct fingerprints, memory and files
// together, and finds the least gap between two of them (for
// Collision's estimate from the fingerprints). Pending fingerprints must
// be resolved first. The in-memory table is sorted in place: the set
// takes nothing but Close afterwards.
func (s *Set) Finish() (Summary, error) {
	if len(s.pending) > 0 {
		return Summary{}, errors.New("fpset: finish with pending fingerprints")
	}
	mem := s.compact()
	s.n = len(s.slots) // no more Add
	var sum Summary
	var last uint64
	err := mergeSorted(s.files, mem, func(v uint64) error {
		if sum.Distinct > 0 && (sum.MinGap == 0 || v-last < sum.MinGap) {
			sum.MinGap = v - last
		}
		sum.Distinct++
		last = v
		return nil
	})
	return sum, err
}
