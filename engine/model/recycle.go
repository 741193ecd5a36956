package model

import (
	"math/bits"
	"reflect"
	"unsafe"

	"go.starlark.net/starlark"
)

// Recycled dicts and sets. A scratch step (StepScratch) makes its copies of
// the dicts and sets it changes — a new Starlark dict is about 600 bytes to
// allocate, and LamportMutex's steps make twelve million of them — and they
// die with the step: the explorer keeps its outcomes by their keys. So the
// worker's slab hands them out, and at the next scratch step takes them
// back, cleared, for the copies that step makes, unless the last step's
// outputs may share them (valSlab.pinned, as for the slab's arrays).
//
// The same goes for the dicts and sets of a source state's variables,
// decoded when read (DecodeScratch): about half of what LamportMutex
// allocated. They are retired when the worker decodes its next source, and
// recycled at the next scratch step after that (the last outcomes, which
// share them, live until then), unless a step took a value that is not a
// scalar as an input (a domain may list the state's own values, and the
// explorer keeps inputs) or gave one as an output (valSlab.srcPinned).
//
// The outcome states are frozen (their values are read by the invariant
// and filters, which must not change them), and Starlark has no way to
// thaw a value: recycling sets the hashtable's frozen flag and iterator
// count back to zero, and reads the length of its table of buckets, through
// their offsets, found by reflection when the package loads. Should a
// Starlark release rename or retype them, htLayout is not ok and nothing
// is recycled (TestRecycledDicts fails then, to say so).

// htLayout locates the frozen flag, iterator count and table of buckets in
// Starlark's Dict and Set (both a hashtable, field ht).
var htLayout = func() (l struct {
	frozen, iters, table uintptr
	ok                   bool
}) {
	find := func(t reflect.Type) (ht reflect.StructField, ok bool) {
		ht, ok = t.FieldByName("ht")
		return ht, ok && ht.Type.Kind() == reflect.Struct
	}
	dht, ok1 := find(reflect.TypeOf((*starlark.Dict)(nil)).Elem())
	sht, ok2 := find(reflect.TypeOf((*starlark.Set)(nil)).Elem())
	if !ok1 || !ok2 || dht.Type != sht.Type || dht.Offset != sht.Offset {
		return l
	}
	fr, ok1 := dht.Type.FieldByName("frozen")
	it, ok2 := dht.Type.FieldByName("itercount")
	tb, ok3 := dht.Type.FieldByName("table")
	if !ok1 || !ok2 || !ok3 || fr.Type.Kind() != reflect.Bool || it.Type.Kind() != reflect.Uint32 || tb.Type.Kind() != reflect.Slice {
		return l
	}
	l.frozen, l.iters, l.table, l.ok = dht.Offset+fr.Offset, dht.Offset+it.Offset, dht.Offset+tb.Offset, true
	return l
}()

// Recycled dicts and sets are kept by the size of their tables (a size
// class: the table of 2^class buckets Starlark makes for their entries),
// and handed out for copies of the same class: a copy then fills a table
// of the size it needs, with no growing (PaxosCommit's set of messages,
// tens of entries, was two fifths of the bytes its exploration allocated
// while only dicts and sets that fit the inline bucket were recycled).
const (
	// recycledClasses: tables of up to 2^(recycledClasses-1) buckets (32:
	// about 200 entries, 15 KB) are recycled; larger ones go to the
	// collector.
	recycledClasses = 6
	// maxRecycled bounds a worker's recycled values of class 0 (the inline
	// bucket); class c keeps at most maxRecycled>>c of them, about 2 MB a
	// class.
	maxRecycled = 4096
)

// sizeClass returns the size class of a hashtable made for n entries: c for
// a table of 2^c buckets, as Starlark sizes it (eight entries a bucket,
// grown once the entries reach 6.5 a bucket).
func sizeClass(n int) int {
	c := 0
	for n >= 8 && float64(n) >= 6.5*float64(int(1)<<c) {
		c++
	}
	return c
}

// tableClass returns the size class of the table of the dict or set p
// points to: the class of its entries when it has no table yet.
func tableClass(p unsafe.Pointer, n int) int {
	nb := len(*(*[]byte)(unsafe.Add(p, htLayout.table))) // its length, whatever its elements
	if nb == 0 {
		return sizeClass(n)
	}
	return bits.Len(uint(nb)) - 1
}

// unfreeze makes a frozen dict's or set's hashtable mutable again, with no
// iterator running (p points to the Dict or Set).
func unfreeze(p unsafe.Pointer) {
	*(*bool)(unsafe.Add(p, htLayout.frozen)) = false
	*(*uint32)(unsafe.Add(p, htLayout.iters)) = 0
}

// recycled is a hashtable value a slab recycles: *starlark.Dict or
// *starlark.Set.
type recycled interface {
	*starlark.Dict | *starlark.Set
	Len() int
	Clear() error
}

// pool holds a slab's dicts or sets: those handed out since the last reset,
// and those recycled for reuse; reads, the source state's variables
// decoded since the last DecodeScratch, and retiring, an earlier source's,
// recycled at the next reset (the outcomes of a scratch step, which share
// the source's variables, live until the next scratch step).
type pool[T recycled] struct {
	used            []T
	free            [recycledClasses][]T // by size class
	reads, retiring []T
}

// take returns an empty value with room for n entries: a recycled one of
// n's size class when the pool has one, else made by fresh; it is listed in
// *to.
func (p *pool[T]) take(n int, reused *int, fresh func(int) T, to *[]T) T {
	var v T
	c := sizeClass(n)
	if c < recycledClasses && len(p.free[c]) > 0 {
		free := p.free[c]
		k := len(free)
		*reused++
		v = free[k-1]
		free[k-1] = nil
		p.free[c] = free[:k-1]
	} else {
		v = fresh(n)
	}
	*to = append(*to, v)
	return v
}

// recycle takes back the values handed out since the last reset, cleared
// for reuse, or lets them go when keep is false; and the retiring source's.
func (p *pool[T]) recycle(keep bool) {
	if len(p.used) == 0 && len(p.retiring) == 0 {
		return
	}
	if keep {
		p.reuse(p.used)
	}
	p.reuse(p.retiring)
	clear(p.used)
	p.used = p.used[:0]
	clear(p.retiring)
	p.retiring = p.retiring[:0]
}

// retire moves the source state's values to those recycled at the next
// reset, or lets them go when keep is false.
func (p *pool[T]) retire(keep bool) {
	if len(p.retiring) > 0 {
		// No scratch step since the last source was retired (initial
		// states evaluated one after another): its values go to the
		// collector, not to a list that would grow with every source.
		clear(p.retiring)
		p.retiring = p.retiring[:0]
	}
	if len(p.reads) == 0 {
		return
	}
	if keep {
		p.retiring = append(p.retiring, p.reads...)
	}
	clear(p.reads)
	p.reads = p.reads[:0]
}

// reuse adds the values of vs small enough to keep to the free lists of
// their tables' size classes, cleared.
func (p *pool[T]) reuse(vs []T) {
	for _, v := range vs {
		ptr := *(*unsafe.Pointer)(unsafe.Pointer(&v))
		c := tableClass(ptr, v.Len())
		if c < recycledClasses && len(p.free[c]) < maxRecycled>>c {
			unfreeze(ptr)
			_ = v.Clear()
			p.free[c] = append(p.free[c], v)
		}
	}
}

// dict returns an empty dict for a step's copy with room for n entries: a
// recycled one when the slab has one, else new.
func (s *valSlab) dict(n int) *starlark.Dict {
	if s == nil || s.fresh || !htLayout.ok {
		return starlark.NewDict(n)
	}
	return s.dicts.take(n, &s.reused, starlark.NewDict, &s.dicts.used)
}

// readDict returns an empty dict for a source state's variable read, with
// room for n entries.
func (s *valSlab) readDict(n int) *starlark.Dict {
	if s.fresh || !htLayout.ok {
		return starlark.NewDict(n)
	}
	return s.dicts.take(n, &s.reused, starlark.NewDict, &s.dicts.reads)
}

// readSet is readDict for sets.
func (s *valSlab) readSet(n int) *starlark.Set {
	if s.fresh || !htLayout.ok {
		return starlark.NewSet(n)
	}
	return s.sets.take(n, &s.reused, starlark.NewSet, &s.sets.reads)
}

// retireSource is called when the worker decodes its next source state:
// the last one's variables are recycled at the next reset unless
// something decoded from it may be kept.
func (s *valSlab) retireSource() {
	s.dicts.retire(!s.srcPinned)
	s.sets.retire(!s.srcPinned)
	s.srcPinned = false
}

// set is dict for sets.
func (s *valSlab) set(n int) *starlark.Set {
	if s == nil || s.fresh || !htLayout.ok {
		return starlark.NewSet(n)
	}
	return s.sets.take(n, &s.reused, starlark.NewSet, &s.sets.used)
}

// recycle takes back the dicts and sets handed out since the last reset:
// cleared for reuse, or let go when the last step's outputs may share them.
func (s *valSlab) recycle() {
	s.dicts.recycle(!s.pinned)
	s.sets.recycle(!s.pinned)
}
