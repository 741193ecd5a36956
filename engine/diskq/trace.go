package diskq

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"os"
)

// traceRecord is the size of a trace record: the parent's index + 1 (0 for
// none) and the fingerprint, 8 bytes each, little-endian (TLC's trace file
// keeps the same two).
const traceRecord = 16

// Trace is a file of records numbered from 0 in the order they are
// appended, each a parent (an earlier record, or none) and a fingerprint:
// the states of a search, each with the state it was first reached from.
// It is for one goroutine.
type Trace struct {
	path string
	f    *os.File
	w    *bufio.Writer
	n    int64
}

// NewTrace makes an empty trace file at path (replacing one there).
func NewTrace(path string) (*Trace, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return nil, err
	}
	return &Trace{path: path, f: f, w: bufio.NewWriterSize(f, 1<<20)}, nil
}

// Len is the number of records.
func (t *Trace) Len() int64 { return t.n }

// DiskBytes is the trace's size.
func (t *Trace) DiskBytes() int64 { return t.n * traceRecord }

// Append adds a record, parent -1 for none, and returns its index.
func (t *Trace) Append(parent int64, fp uint64) (int64, error) {
	if parent < -1 || parent >= t.n {
		return 0, fmt.Errorf("diskq: record %d's parent %d is not an earlier record", t.n, parent)
	}
	var b [traceRecord]byte
	binary.LittleEndian.PutUint64(b[:], uint64(parent+1))
	binary.LittleEndian.PutUint64(b[8:], fp)
	if _, err := t.w.Write(b[:]); err != nil {
		return 0, err
	}
	t.n++
	return t.n - 1, nil
}

// Get reads record i.
func (t *Trace) Get(i int64) (parent int64, fp uint64, err error) {
	if i < 0 || i >= t.n {
		return 0, 0, fmt.Errorf("diskq: no trace record %d (%d records)", i, t.n)
	}
	if err := t.w.Flush(); err != nil {
		return 0, 0, err
	}
	var b [traceRecord]byte
	if _, err := t.f.ReadAt(b[:], i*traceRecord); err != nil {
		return 0, 0, fmt.Errorf("%s: %w", t.path, err)
	}
	parent = int64(binary.LittleEndian.Uint64(b[:])) - 1
	if parent < -1 || parent >= i {
		return 0, 0, fmt.Errorf("%s: record %d's parent %d is not an earlier record", t.path, i, parent)
	}
	return parent, binary.LittleEndian.Uint64(b[8:]), nil
}

// Chain returns the fingerprints from the first record of i's line (one
// with no parent) to i's own.
func (t *Trace) Chain(i int64) ([]uint64, error) {
	var fps []uint64
	for i >= 0 {
		parent, fp, err := t.Get(i)
		if err != nil {
			return nil, err
		}
		fps = append(fps, fp)
		i = parent // strictly smaller: the loop ends
	}
	for a, b := 0, len(fps)-1; a < b; a, b = a+1, b-1 {
		fps[a], fps[b] = fps[b], fps[a]
	}
	return fps, nil
}

// Remove closes and deletes the trace file.
func (t *Trace) Remove() error {
	t.f.Close()
	return os.Remove(t.path)
}
