package diskq

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"testing"
)

func rec(i int) []byte {
	return []byte(fmt.Sprintf("record %d %s", i, bytes.Repeat([]byte{byte(i)}, i%37)))
}

// Records come out in the order they went in, through segments written
// while others are read, whatever the mix of pushes and pops.
func TestQueueOrder(t *testing.T) {
	dir := t.TempDir()
	q, err := New(dir, "q", Options{MemoryBytes: 1000})
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 2))
	pushed, popped := 0, 0
	for pushed < 20000 {
		for range r.IntN(50) {
			if err := q.Push(rec(pushed)); err != nil {
				t.Fatal(err)
			}
			pushed++
		}
		for range r.IntN(45) {
			got, err := q.Pop()
			if err == io.EOF {
				if popped != pushed {
					t.Fatalf("EOF after %d of %d", popped, pushed)
				}
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, rec(popped)) {
				t.Fatalf("pop %d: %q", popped, got)
			}
			popped++
		}
		if q.Len() != int64(pushed-popped) {
			t.Fatalf("Len %d, want %d", q.Len(), pushed-popped)
		}
	}
	if q.PeakDiskBytes() == 0 {
		t.Error("nothing was spilled")
	}
	for ; popped < pushed; popped++ {
		got, err := q.Pop()
		if err != nil || !bytes.Equal(got, rec(popped)) {
			t.Fatalf("pop %d: %q, %v", popped, got, err)
		}
	}
	if _, err := q.Pop(); err != io.EOF {
		t.Errorf("an empty queue: %v", err)
	}
	if q.DiskBytes() != 0 {
		t.Errorf("%d bytes on disk in an empty queue", q.DiskBytes())
	}
	if err := q.Remove(); err != nil {
		t.Fatal(err)
	}
	if es, _ := os.ReadDir(dir); len(es) != 0 {
		t.Errorf("%d files left", len(es))
	}
}

// A queue closed half-read reopens with the records it had, in order; a
// new queue of the same name starts empty.
func TestQueueReopen(t *testing.T) {
	dir := t.TempDir()
	q, err := New(dir, "q", Options{MemoryBytes: 500})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 1000 {
		q.Push(rec(i))
	}
	for i := range 321 { // into the second segment
		if got, _ := q.Pop(); !bytes.Equal(got, rec(i)) {
			t.Fatalf("pop %d: %q", i, got)
		}
	}
	if err := q.Close(); err != nil {
		t.Fatal(err)
	}
	q, err = Open(dir, "q", Options{MemoryBytes: 500})
	if err != nil {
		t.Fatal(err)
	}
	if q.Len() != 1000-321 {
		t.Fatalf("reopened with %d records", q.Len())
	}
	q.Push(rec(1000))
	for i := 321; i <= 1000; i++ {
		if got, err := q.Pop(); err != nil || !bytes.Equal(got, rec(i)) {
			t.Fatalf("pop %d after reopening: %q, %v", i, got, err)
		}
	}
	q.Push(rec(7))
	q.Close()
	if q, err = New(dir, "q", Options{}); err != nil || q.Len() != 0 {
		t.Fatalf("New over a closed queue: %v, %d records", err, q.Len())
	}
	if es, _ := os.ReadDir(dir); len(es) != 0 {
		t.Errorf("New left %d files", len(es))
	}
}

// A damaged segment is an error, not a panic or a huge allocation.
func TestQueueDamaged(t *testing.T) {
	dir := t.TempDir()
	for _, b := range []string{"", "XXXX", segMagic + "\x05ab", segMagic + "\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01"} {
		os.WriteFile(dir+"/q-0000000001.seg", []byte(b), 0o600)
		if _, err := Open(dir, "q", Options{}); err == nil {
			t.Errorf("segment %q opened", b)
		}
	}
	q, _ := New(dir, "q", Options{MaxRecord: 10})
	if err := q.Push(make([]byte, 11)); err == nil {
		t.Error("a record past MaxRecord pushed")
	}
}

func FuzzParseSegment(f *testing.F) {
	f.Add([]byte(segMagic + "\x03abc\x00"))
	f.Add([]byte(segMagic + "\x80"))
	f.Fuzz(func(t *testing.T, b []byte) {
		n, err := ParseSegment(b, 1<<10)
		if err == nil && n > len(b) {
			t.Fatalf("%d records in %d bytes", n, len(b))
		}
	})
}

// The trace gives each record's line back to its root.
func TestTrace(t *testing.T) {
	dir := t.TempDir()
	tr, err := NewTrace(dir + "/trace")
	if err != nil {
		t.Fatal(err)
	}
	// A tree: record i's parent is (i-1)/3, the first has none.
	for i := int64(0); i < 100000; i++ {
		parent := (i - 1) / 3
		if i == 0 {
			parent = -1
		}
		if got, err := tr.Append(parent, uint64(i)*7+1); err != nil || got != i {
			t.Fatalf("append %d: %d, %v", i, got, err)
		}
	}
	chain, err := tr.Chain(99999)
	if err != nil {
		t.Fatal(err)
	}
	var want []uint64
	for i := int64(99999); ; i = (i - 1) / 3 {
		want = append([]uint64{uint64(i)*7 + 1}, want...)
		if i == 0 {
			break
		}
	}
	if fmt.Sprint(chain) != fmt.Sprint(want) {
		t.Errorf("chain %v, want %v", chain, want)
	}
	if _, err := tr.Append(200000, 1); err == nil {
		t.Error("a parent that is not an earlier record")
	}
	if _, _, err := tr.Get(100000); err == nil {
		t.Error("a record past the end")
	}
	if tr.DiskBytes() != 100000*traceRecord {
		t.Errorf("%d bytes", tr.DiskBytes())
	}
	if err := tr.Remove(); err != nil {
		t.Fatal(err)
	}
}
