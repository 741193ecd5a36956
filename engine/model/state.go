package model

import (
	"fmt"
	"sort"
	"strings"

	"go.starlark.net/starlark"
)

type objCount struct {
	kind string
	n    int
}

// sstate is a decoded Starlark model state: frozen variable values plus the
// per-kind object counters.
type sstate struct {
	key  string
	vals []starlark.Value // nil until decoded
	encs []string         // per-variable encodings (substrings of key)
	objs []objCount
	// lazy states (a worker's DecodeScratch) decode a variable when it is
	// read (vals[i] nil until then) and make a changed variable straight
	// from its encoding; they belong to one goroutine.
	lazy bool
	// known, in a lazy state, lists the dicts, lists and sets decoded as
	// entries of its variables, with their encodings (see appendValueKnown)
	known []knownEnc
	// slab, in a worker's DecodeScratch state, holds the elements of the
	// sequences a step makes to change (see valSlab).
	slab *valSlab
	// cache, in a worker's DecodeScratch state, shares decoded values
	cache *valCache
	// source marks a worker's DecodeScratch state: the dicts and sets of
	// its variables, decoded when read, are recycled after it (recycle.go)
	source bool
	// gen, in a worker's DecodeScratch state, tells its memoised reads
	// from the last state's (0: none; see memo.go)
	gen uint32
}

// valSlab hands out the element arrays of the lists and tuples a scratch
// step decodes to change: they die with the step (the explorer keeps
// outcomes by their keys), so the slab is used again by the next step,
// unless an output that is not a scalar (which may share them) was kept.
type valSlab struct {
	buf    []starlark.Value
	pinned bool
	// the dicts and sets handed out since the last reset, and those
	// recycled for reuse (see recycle.go)
	dicts  pool[*starlark.Dict]
	sets   pool[*starlark.Set]
	reused int  // dicts and sets handed out again
	fresh  bool // no recycling: every copy new (tests compare)
	// srcPinned: something decoded from the source state may be kept (an
	// output or input that is not a scalar, a Step's outcomes), so the
	// source's variables are not recycled
	srcPinned bool
}

// take returns n elements with room for c.
func (s *valSlab) take(n, c int) []starlark.Value {
	if s == nil || c > 256 {
		return make([]starlark.Value, n, c)
	}
	if cap(s.buf)-len(s.buf) < c {
		s.buf = make([]starlark.Value, 0, 4096)
	}
	off := len(s.buf)
	s.buf = s.buf[:off+c]
	return s.buf[off : off+n : off+c]
}

// reset makes the slab ready for the next step: the same array, or a new
// one when the last step's outputs may refer to it.
func (s *valSlab) reset() {
	s.recycle()
	if s.pinned {
		s.buf, s.pinned = nil, false
	}
	s.buf = s.buf[:0]
}

// val returns variable i, decoding it first in a lazy state.
func (s *sstate) val(i int) (starlark.Value, error) {
	if v := s.vals[i]; v != nil || !s.lazy {
		return v, nil
	}
	if v := s.cache.whole(i, s.encs[i]); v != nil {
		s.vals[i] = v
		return v, nil
	}
	d := decoder{b: s.encs[i], known: &s.known, cache: s.cache}
	if s.source {
		d.reads = s.slab
	}
	v, err := d.value()
	if err != nil {
		return nil, err
	}
	s.cache.keepWhole(i, s.encs[i], v)
	s.vals[i] = v
	return v, nil
}

// mutable returns a copy of variable i that a step may change.
func (s *sstate) mutable(i int) (starlark.Value, error) {
	if v := s.vals[i]; v != nil || !s.lazy {
		return deepCopyIn(v, s.slab), nil
	}
	d := decoder{b: s.encs[i], thaw: true, slab: s.slab}
	return d.value()
}

// decodeLazy makes dst the lazy state of key, reusing dst's slices: the
// key's structure is checked now, the variables are decoded when read.
func (m *StarModel) decodeLazy(dst *sstate, key string) error {
	n := len(m.info.Vars)
	vals, encs, objs := dst.vals[:0], dst.encs[:0], dst.objs[:0]
	if cap(vals) < n {
		vals, encs = make([]starlark.Value, n), make([]string, n)
	}
	vals, encs = vals[:n], encs[:n]
	clear(vals)
	if objs == nil {
		objs = []objCount{}
	}
	clear(dst.known)
	*dst = sstate{key: key, vals: vals, encs: encs, lazy: true, slab: dst.slab, cache: dst.cache, known: dst.known[:0]}
	d := decoder{b: key}
	for i := range encs {
		start := d.pos
		if err := d.skip(); err != nil {
			return err
		}
		encs[i] = key[start:d.pos]
	}
	objs, err := d.objs(objs)
	if err != nil {
		return err
	}
	dst.objs = objs
	if d.pos != len(key) {
		return d.fail("trailing bytes")
	}
	return nil
}

func (s *sstate) Key() string { return s.key }

// lazyState returns a state that is decoded only when its values are needed.
func lazyState(key string) *sstate { return &sstate{key: key} }

// ensure decodes a lazy state.
func (m *StarModel) ensure(st State) (*sstate, error) {
	s := st.(*sstate)
	if s.vals != nil || len(m.info.Vars) == 0 && s.objs != nil {
		return s, nil
	}
	d, err := m.decode(s.key)
	if err != nil {
		return nil, err
	}
	*s = *d
	return s, nil
}

func (m *StarModel) decode(key string) (*sstate, error) {
	d := decoder{b: key}
	st := &sstate{key: key, vals: make([]starlark.Value, len(m.info.Vars)), encs: make([]string, len(m.info.Vars)), objs: []objCount{}}
	for i := range st.vals {
		start := d.pos
		v, err := d.value()
		if err != nil {
			return nil, err
		}
		st.vals[i] = v
		st.encs[i] = key[start:d.pos]
	}
	objs, err := d.objs(st.objs)
	if err != nil {
		return nil, err
	}
	st.objs = objs
	if d.pos != len(key) {
		return nil, d.fail("trailing bytes")
	}
	return st, nil
}

// objs reads the object counters that end a state's encoding.
func (d *decoder) objs(objs []objCount) ([]objCount, error) {
	n, err := d.uvarint()
	if err != nil {
		return nil, err
	}
	for i := uint64(0); i < n; i++ {
		k, err := d.str()
		if err != nil {
			return nil, err
		}
		c, err := d.uvarint()
		if err != nil {
			return nil, err
		}
		objs = append(objs, objCount{k, int(c)})
	}
	return objs, nil
}

// rec is the state record s seen by actions and expressions.
type rec struct {
	m        *StarModel
	st       *sstate
	cur      []starlark.Value
	touched  []bool
	readonly bool
	// guard, with readonly, marks a step's first run (see starWorker.guard):
	// setting a variable stops it with abort.
	guard   bool
	abort   error
	objs    []objCount
	objsOwn bool
	// plan, in a step's run, says how the variables read are given (see
	// thawPlan; nil: deep copies); copies, when not nil, gets the deep
	// copies given of the variables the plan has not seen (of all, with
	// learnAll), for the plan to learn from.
	plan     *thawPlan
	copies   []starlark.Value
	learnAll bool
	// planned tells whether the run was given a frozen value or a shallow
	// copy: an error in it is to be checked by a run with deep copies.
	planned bool
	// shallow has bit i set when variable i was given as a shallow copy
	// (its shared entries' encodings are the source's)
	shallow uint64
}

var _ starlark.HasSetField = (*rec)(nil)

func (r *rec) String() string {
	var sb strings.Builder
	sb.WriteString("state(")
	for i, n := range r.m.info.Vars {
		if i > 0 {
			sb.WriteString(", ")
		}
		sb.WriteString(n)
		sb.WriteString("=")
		sb.WriteString(r.value(i).String())
	}
	sb.WriteString(")")
	return sb.String()
}

func (r *rec) Type() string { return "state" }

func (r *rec) Freeze() {}

func (r *rec) Truth() starlark.Bool { return true }

func (r *rec) Hash() (uint32, error) { return 0, fmt.Errorf("unhashable: state") }

func (r *rec) AttrNames() []string { return r.m.info.Vars }

func (r *rec) value(i int) starlark.Value {
	if r.touched != nil && r.touched[i] {
		return r.cur[i]
	}
	if r.st == nil {
		return starlark.None
	}
	v, err := r.st.val(i)
	if err != nil {
		return starlark.String("<" + err.Error() + ">")
	}
	return v
}

// varOf returns the index of variable name: by comparing names when the
// model has a few (a Starlark name is compared by its length first), else
// from the index.
func (m *StarModel) varOf(name string) (int, bool) {
	if len(m.info.Vars) <= 8 {
		for i, v := range m.info.Vars {
			if v == name {
				return i, true
			}
		}
		return 0, false
	}
	i, ok := m.varIndex[name]
	return i, ok
}

func (r *rec) Attr(name string) (starlark.Value, error) {
	i, ok := r.m.varOf(name)
	if !ok {
		return nil, starlark.NoSuchAttrError(fmt.Sprintf("the state has no variable %q (variables: %s)", name, strings.Join(r.m.info.Vars, ", ")))
	}
	return r.attrAt(i)
}

// attrAt is s.VAR for variable i.
func (r *rec) attrAt(i int) (starlark.Value, error) {
	if r.readonly {
		return r.st.val(i)
	}
	if !r.touched[i] {
		if p := r.plan; p != nil && !r.learnAll && p.vars[i].mode != thawUnseen && p.vars[i].mode != thawFull {
			v, err := r.st.val(i)
			if err != nil {
				return nil, err
			}
			r.planned = true
			v, own := p.given(i, v, r.st.slab)
			if !own {
				return v, nil // read only: shared, and its encoding kept
			}
			if p.vars[i].mode == thawShallow && i < 64 {
				r.shallow |= 1 << i
			}
			r.cur[i], r.touched[i] = v, true
			return v, nil
		}
		v, err := r.st.mutable(i)
		if err != nil {
			return nil, err
		}
		r.cur[i] = v
		r.touched[i] = true
		if r.copies != nil && (r.learnAll || r.plan.vars[i].mode == thawUnseen) {
			r.copies[i] = v
		}
	}
	return r.cur[i], nil
}

func (r *rec) SetField(name string, v starlark.Value) error {
	i, ok := r.m.varOf(name)
	if !ok {
		return starlark.NoSuchAttrError(fmt.Sprintf("the state has no variable %q (variables: %s)", name, strings.Join(r.m.info.Vars, ", ")))
	}
	return r.setAt(i, v)
}

// setAt is s.VAR = v for variable i.
func (r *rec) setAt(i int, v starlark.Value) error {
	if r.guard {
		return r.abort
	}
	if r.readonly {
		return fmt.Errorf("the state is read-only here: cannot set s.%s", r.m.info.Vars[i])
	}
	r.cur[i] = v
	r.touched[i] = true
	return nil
}

func (r *rec) newObject(kind string) Object {
	if !r.objsOwn {
		r.objs = append([]objCount(nil), r.objs...)
		r.objsOwn = true
	}
	for i := range r.objs {
		if r.objs[i].kind == kind {
			r.objs[i].n++
			return Object{Kind: kind, N: r.objs[i].n}
		}
	}
	r.objs = append(r.objs, objCount{kind, 1})
	sort.Slice(r.objs, func(a, b int) bool { return r.objs[a].kind < r.objs[b].kind })
	return Object{Kind: kind, N: 1}
}

// encode builds the key of the state the record now holds; ends gets the
// end of each variable's encoding in it.
func (r *rec) encode(buf []byte, ends []int) ([]byte, []int, error) {
	var err error
	ends = ends[:0]
	for i, name := range r.m.info.Vars {
		if r.touched[i] && r.shallow&(1<<i) != 0 && len(r.st.known) > 0 {
			if buf, err = appendValueKnown(buf, r.cur[i], name, r.st.known); err != nil {
				return nil, ends, err
			}
		} else if r.touched[i] || r.st == nil {
			if buf, err = AppendValuePath(buf, r.cur[i], name); err != nil {
				return nil, ends, err
			}
		} else {
			buf = append(buf, r.st.encs[i]...)
		}
		ends = append(ends, len(buf))
	}
	buf = appendUvarint(buf, uint64(len(r.objs)))
	for _, o := range r.objs {
		buf = appendStr(buf, o.kind)
		buf = appendUvarint(buf, uint64(o.n))
	}
	return buf, ends, nil
}
