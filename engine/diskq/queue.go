// Package diskq holds the two files an exhaustive check keeps on disk
// instead of in memory: a first-in first-out queue of records (the states
// waiting to be expanded) that keeps a bounded part in memory and spills
// the rest to segment files, and a trace of fixed-size records (each state's
// parent and fingerprint) from which the way to any state is read back.
package diskq

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// Options bound a Queue.
type Options struct {
	// MemoryBytes is how many bytes of records the queue keeps in memory
	// before it writes them to a segment file (default 16 MiB). Reading
	// loads one segment at a time: the queue holds at most about twice
	// this much.
	MemoryBytes int
	// MaxRecord bounds a record's size, written or read (default 64 MiB).
	MaxRecord int
}

func (o *Options) defaults() {
	if o.MemoryBytes <= 0 {
		o.MemoryBytes = 16 << 20
	}
	if o.MaxRecord <= 0 {
		o.MaxRecord = 64 << 20
	}
}

// Queue is a first-in first-out queue of byte records, the oldest of them
// in segment files in a folder. It is for one goroutine.
type Queue struct {
	dir, prefix string
	opts        Options
	// head is the segment being read, loaded whole (headSeq its number);
	// segs the numbers of the segments on disk after it, oldest first;
	// tail the records pushed since the last segment was written.
	head    []byte
	headOff int
	headSeq int
	segs    []int
	tail    []byte
	tailOff int
	seq     int // the last segment number used
	n       int64
	// disk is the bytes of the segment files now, peak the most.
	disk, peak int64
}

// segMagic starts every segment file.
const segMagic = "MXQ1"

// New makes an empty queue whose segments are files prefix-N.seg in dir
// (which must exist); segments of that name left there are removed.
func New(dir, prefix string, opts Options) (*Queue, error) {
	opts.defaults()
	q := &Queue{dir: dir, prefix: prefix, opts: opts}
	seqs, err := q.list()
	if err != nil {
		return nil, err
	}
	for _, s := range seqs {
		if err := os.Remove(q.path(s)); err != nil {
			return nil, err
		}
	}
	return q, nil
}

// Open reopens the queue a Close left in dir: its records are those
// pushed and not popped before the Close, in the same order. Every
// segment is read through once to count (and check) its records.
func Open(dir, prefix string, opts Options) (*Queue, error) {
	opts.defaults()
	q := &Queue{dir: dir, prefix: prefix, opts: opts}
	seqs, err := q.list()
	if err != nil {
		return nil, err
	}
	for _, s := range seqs {
		b, err := os.ReadFile(q.path(s))
		if err != nil {
			return nil, err
		}
		n, err := ParseSegment(b, opts.MaxRecord)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", q.path(s), err)
		}
		q.n += int64(n)
		q.disk += int64(len(b))
		q.seq = max(q.seq, s)
	}
	q.segs, q.peak = seqs, q.disk
	return q, nil
}

// list returns the numbers of the queue's segment files in dir, in order.
func (q *Queue) list() ([]int, error) {
	es, err := os.ReadDir(q.dir)
	if err != nil {
		return nil, err
	}
	var seqs []int
	for _, e := range es {
		rest, ok := strings.CutPrefix(e.Name(), q.prefix+"-")
		num, ok2 := strings.CutSuffix(rest, ".seg")
		if !ok || !ok2 {
			continue
		}
		if s, err := strconv.Atoi(num); err == nil && s > 0 {
			seqs = append(seqs, s)
		}
	}
	slices.Sort(seqs)
	return seqs, nil
}

func (q *Queue) path(seq int) string {
	return filepath.Join(q.dir, fmt.Sprintf("%s-%010d.seg", q.prefix, seq))
}

// Len is the number of records in the queue.
func (q *Queue) Len() int64 { return q.n }

// DiskBytes is the size of the queue's segment files now; PeakDiskBytes
// the most it was.
func (q *Queue) DiskBytes() int64 { return q.disk }

// PeakDiskBytes is the most the queue's segment files took at once.
func (q *Queue) PeakDiskBytes() int64 { return q.peak }

// Push adds a record at the end of the queue (copied).
func (q *Queue) Push(rec []byte) error {
	if len(rec) > q.opts.MaxRecord {
		return fmt.Errorf("diskq: a record of %d bytes (at most %d)", len(rec), q.opts.MaxRecord)
	}
	if q.tailOff > 0 && q.tailOff >= len(q.tail)/2 {
		q.tail = q.tail[:copy(q.tail, q.tail[q.tailOff:])]
		q.tailOff = 0
	}
	q.tail = binary.AppendUvarint(q.tail, uint64(len(rec)))
	q.tail = append(q.tail, rec...)
	q.n++
	if len(q.tail)-q.tailOff >= q.opts.MemoryBytes {
		return q.spill()
	}
	return nil
}

// spill writes the records in memory to a new segment.
func (q *Queue) spill() error {
	q.seq++
	if err := q.writeSegment(q.seq, q.tail[q.tailOff:]); err != nil {
		return err
	}
	q.segs = append(q.segs, q.seq)
	q.tail, q.tailOff = q.tail[:0], 0
	return nil
}

func (q *Queue) writeSegment(seq int, recs []byte) error {
	b := make([]byte, 0, len(segMagic)+len(recs))
	b = append(append(b, segMagic...), recs...)
	if err := os.WriteFile(q.path(seq), b, 0o600); err != nil {
		return err
	}
	q.disk += int64(len(b))
	q.peak = max(q.peak, q.disk)
	return nil
}

// Pop removes the first record and returns it; the slice is valid until
// the next Push or Pop. It returns io.EOF when the queue is empty.
func (q *Queue) Pop() ([]byte, error) {
	for q.headOff >= len(q.head) && len(q.segs) > 0 {
		if err := q.load(); err != nil {
			return nil, err
		}
	}
	if q.headOff < len(q.head) {
		rec, next, err := readRecord(q.head, q.headOff, q.opts.MaxRecord)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", q.path(q.headSeq), err)
		}
		q.headOff = next
		q.n--
		return rec, nil
	}
	if q.tailOff >= len(q.tail) {
		return nil, io.EOF
	}
	rec, next, err := readRecord(q.tail, q.tailOff, q.opts.MaxRecord)
	if err != nil {
		return nil, err
	}
	q.tailOff = next
	q.n--
	return rec, nil
}

// load reads the oldest segment into head and removes its file.
func (q *Queue) load() error {
	seq := q.segs[0]
	b, err := os.ReadFile(q.path(seq))
	if err != nil {
		return err
	}
	if !strings.HasPrefix(string(b), segMagic) {
		return fmt.Errorf("%s: not a queue segment", q.path(seq))
	}
	if err := os.Remove(q.path(seq)); err != nil {
		return err
	}
	q.disk -= int64(len(b))
	q.segs = q.segs[1:]
	q.head, q.headOff, q.headSeq = b, len(segMagic), seq
	return nil
}

// readRecord reads the record at off in b: its bytes and where the next
// begins.
func readRecord(b []byte, off, maxRecord int) (rec []byte, next int, err error) {
	size, k := binary.Uvarint(b[off:])
	if k <= 0 {
		return nil, 0, errors.New("diskq: a record's length is cut or too long")
	}
	if size > uint64(maxRecord) || size > uint64(len(b)-off-k) {
		return nil, 0, fmt.Errorf("diskq: a record of %d bytes where %d are left (at most %d)", size, len(b)-off-k, maxRecord)
	}
	start := off + k
	return b[start : start+int(size)], start + int(size), nil
}

// ParseSegment checks a segment file's contents and counts its records,
// none larger than maxRecord bytes.
func ParseSegment(b []byte, maxRecord int) (records int, err error) {
	if !strings.HasPrefix(string(b), segMagic) {
		return 0, errors.New("diskq: not a queue segment")
	}
	for off := len(segMagic); off < len(b); records++ {
		if _, off, err = readRecord(b, off, maxRecord); err != nil {
			return records, err
		}
	}
	return records, nil
}

// Close writes what the queue holds in memory to segment files, so that
// Open finds every record not popped yet, in order: the rest of the
// segment being read keeps its number (the lowest), the records in memory
// get a new one (the highest).
func (q *Queue) Close() error {
	if q.headOff < len(q.head) {
		if err := q.writeSegment(q.headSeq, q.head[q.headOff:]); err != nil {
			return err
		}
		q.segs = append([]int{q.headSeq}, q.segs...)
	}
	q.head, q.headOff = nil, 0
	if q.tailOff < len(q.tail) {
		if err := q.spill(); err != nil {
			return err
		}
	}
	return nil
}

// Remove deletes the queue's segment files and empties it.
func (q *Queue) Remove() error {
	var first error
	for _, s := range q.segs {
		if err := os.Remove(q.path(s)); err != nil && first == nil {
			first = err
		}
	}
	q.segs, q.head, q.headOff, q.tail, q.tailOff, q.n, q.disk = nil, nil, 0, nil, 0, 0, 0
	return first
}
