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
// and those recycled for reuse.
type pool[T recycled] struct {
	used, free []T
}

// take returns an empty value with room for n entries: a recycled one when
// the pool has one, else made by fresh.
func (p *pool[T]) take(n int, reused *int, fresh func(int) T) T {
	var v T
	if k := len(p.free); k > 0 && n <= maxRecycledLen {
		*reused++
		v = p.free[k-1]
		p.free[k-1] = nil
		p.free = p.free[:k-1]
	} else {
		v = fresh(n)
	}
	p.used = append(p.used, v)
	return v
}

// recycle takes back the values handed out since the last reset: cleared
// for reuse, or let go when keep is false.
func (p *pool[T]) recycle(keep bool) {
	if keep {
		for _, v := range p.used {
			if v.Len() <= maxRecycledLen && len(p.free) < maxRecycled {
				unfreeze(*(*unsafe.Pointer)(unsafe.Pointer(&v)))
				_ = v.Clear()
				p.free = append(p.free, v)
			}
		}
	}
	clear(p.used)
	p.used = p.used[:0]
}

// dict returns an empty dict for a step's copy with room for n entries: a
// recycled one when the slab has one, else new.
func (s *valSlab) dict(n int) *starlark.Dict {
	if s == nil || s.fresh || !htLayout.ok {
		return starlark.NewDict(n)
	}
	return s.dicts.take(n, &s.reused, starlark.NewDict)
}

// set is dict for sets.
func (s *valSlab) set(n int) *starlark.Set {
	if s == nil || s.fresh || !htLayout.ok {
		return starlark.NewSet(n)
	}
	return s.sets.take(n, &s.reused, starlark.NewSet)
}

// recycle takes back the dicts and sets handed out since the last reset:
// cleared for reuse, or let go when the last step's outputs may share them.
func (s *valSlab) recycle() {
	s.dicts.recycle(!s.pinned)
	s.sets.recycle(!s.pinned)
}
