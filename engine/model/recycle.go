package model

import (
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
// count back to zero through their offsets, found by reflection when the
// package loads. Should a Starlark release rename or retype them, htLayout
// is not ok and nothing is recycled (TestRecycledDicts fails then, to say
// so).

// htLayout locates the frozen flag and iterator count in Starlark's Dict and
// Set (both a hashtable, field ht).
var htLayout = func() (l struct {
	frozen, iters uintptr
	ok            bool
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
	if !ok1 || !ok2 || fr.Type.Kind() != reflect.Bool || it.Type.Kind() != reflect.Uint32 {
		return l
	}
	l.frozen, l.iters, l.ok = dht.Offset+fr.Offset, dht.Offset+it.Offset, true
	return l
}()

// maxRecycled bounds a worker's dicts (and sets) kept for reuse.
const maxRecycled = 4096

// maxRecycledLen is the most entries a recycled dict or set may have: six
// fit Starlark's inline bucket (a larger one's table is allocated, and
// clearing keeps it).
const maxRecycledLen = 6

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
	used, free      []T
	reads, retiring []T
}

// take returns an empty value with room for n entries: a recycled one when
// the pool has one, else made by fresh; it is listed in *to.
func (p *pool[T]) take(n int, reused *int, fresh func(int) T, to *[]T) T {
	var v T
	if k := len(p.free); k > 0 && n <= maxRecycledLen {
		*reused++
		v = p.free[k-1]
		p.free[k-1] = nil
		p.free = p.free[:k-1]
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
		p.free = reuse(p.free, p.used)
	}
	p.free = reuse(p.free, p.retiring)
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

// reuse appends the values of vs small enough to keep to free, cleared.
func reuse[T recycled](free, vs []T) []T {
	for _, v := range vs {
		if v.Len() <= maxRecycledLen && len(free) < maxRecycled {
			unfreeze(*(*unsafe.Pointer)(unsafe.Pointer(&v)))
			_ = v.Clear()
			free = append(free, v)
		}
	}
	return free
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
