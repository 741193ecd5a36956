package model

import (
	"errors"
	"strings"

	"go.starlark.net/starlark"
)

// A step's run changes the variables it reads in place (s.network[q][p] =
// ...), so it is given mutable copies of them; copying a dict of dicts whole
// to change one inner dict was a fifth of LamportMutex's exploration. A
// thawPlan is what a worker has learned, for one action and one tuple of
// arguments, of what its runs change: a variable they only read is given as
// the state's shared, frozen value (no copy, and its encoding is reused); a
// dict or list they change is given as a shallow copy whose entries are the
// frozen ones but for the entries they changed, which are copied deeply.
//
// A plan is a guess, never trusted for the result: a run that changes a
// value the plan left frozen raises Starlark's frozen-value error, and every
// run that ends in an error is run again with deep copies, as before; that
// run's changes are added to the plan. A successful run, or a failed
// require(), under a plan is the full run's (it did what the full run would
// have done: the values it read are equal, and it changed none it was not
// given a copy of; Starlark has no identity test). A plan that keeps
// failing without growing (a run that adds a set's existing element: an
// error on a frozen set, no change on a copy) is turned off.
type thawPlan struct {
	vars  []thawVar
	fails uint32
	off   bool
}

type thawMode uint8

const (
	thawUnseen  thawMode = iota // no run has read it yet: a deep copy
	thawNone                    // runs only read it: the frozen value
	thawShallow                 // a shallow copy; the entries at keys deep
	thawFull                    // a deep copy
)

type thawVar struct {
	mode thawMode
	keys []starlark.Value // thawShallow: the keys (dict) or indexes (list) copied deeply
}

// maxThawPlans bounds a worker's plans (actions × argument tuples); tries
// past it run with deep copies.
const maxThawPlans = 4096

// planFor returns the worker's plan for the action and arguments, made
// empty at the first call; nil when the arguments cannot be a key or the
// worker has too many plans.
func (w *starWorker) planFor(action int, args []Value) *thawPlan {
	k := appendUvarint(w.pkey[:0], uint64(action))
	for _, a := range args {
		var err error
		if k, err = AppendValue(k, a); err != nil {
			return nil
		}
	}
	w.pkey = k
	if p, ok := w.plans[string(k)]; ok {
		return p
	}
	if len(w.plans) >= maxThawPlans {
		return nil
	}
	if w.plans == nil {
		w.plans = map[string]*thawPlan{}
	}
	p := &thawPlan{vars: make([]thawVar, len(w.m.info.Vars))}
	w.plans[string(k)] = p
	return p
}

// given returns what a run under the plan gets for variable i of s (v its
// frozen value): the value to give, and whether it is a copy of its own.
func (p *thawPlan) given(i int, v starlark.Value, slab *valSlab) (starlark.Value, bool) {
	tv := &p.vars[i]
	switch tv.mode {
	case thawNone:
		return v, false
	case thawShallow:
		if c := shallowThaw(v, tv.keys, slab); c != nil {
			return c, true
		}
	}
	return deepCopyIn(v, slab), true
}

// shallowThaw copies a frozen dict or list one level deep: its entries at
// keys are copied deeply, the others shared (frozen). Nil for other values.
func shallowThaw(v starlark.Value, keys []starlark.Value, slab *valSlab) starlark.Value {
	switch x := v.(type) {
	case *starlark.Dict:
		d := shallowCopyDict(x, slab)
		for _, k := range keys {
			if e, found, _ := x.Get(k); found {
				_ = d.SetKey(k, deepCopyIn(e, slab))
			}
		}
		return d
	case *starlark.List:
		n := x.Len()
		elems := make([]starlark.Value, n, n+1)
		for i := range elems {
			elems[i] = x.Index(i)
		}
		for _, k := range keys {
			if i, ok := AsInt(k); ok && i < n {
				elems[i] = deepCopyIn(elems[i], slab)
			}
		}
		return starlark.NewList(elems)
	}
	return nil
}

// learn adds to the plan what a run with deep copies did to variable i:
// copy is the copy it was given (now as the run left it), orig the frozen
// value it was copied from. It tells whether the plan grew.
func (p *thawPlan) learn(i int, copy, orig starlark.Value) bool {
	tv := &p.vars[i]
	if tv.mode == thawFull {
		return false
	}
	nv := learnThaw(copy, orig)
	switch {
	case tv.mode == thawUnseen || tv.mode == thawNone && nv.mode != thawNone:
		*tv = nv
		return true
	case tv.mode == thawShallow && nv.mode == thawFull:
		*tv = nv
		return true
	case tv.mode == thawShallow && nv.mode == thawShallow:
		grew := false
		for _, k := range nv.keys {
			if !containsValue(tv.keys, k) {
				tv.keys = append(tv.keys, k)
				grew = true
			}
		}
		return grew
	}
	return false
}

// learnThaw tells how a variable whose frozen value was orig and whose
// deep copy a run left as copy is to be given: frozen when the copy is
// unchanged and holds no mutable value (a run that had changed and then
// restored it fails on the frozen value, and learns again); a shallow copy
// of a dict or list, deep at the entries holding mutable values that
// differ; else a deep copy.
func learnThaw(copy, orig starlark.Value) thawVar {
	if !mutableInside(orig) {
		return thawVar{mode: thawNone}
	}
	if eq, err := starlark.Equal(copy, orig); err == nil && eq {
		return thawVar{mode: thawNone}
	}
	var keys []starlark.Value
	switch c := copy.(type) {
	case *starlark.Dict:
		o, ok := orig.(*starlark.Dict)
		if !ok {
			return thawVar{mode: thawFull}
		}
		for k, ov := range o.Entries() {
			if !mutableInside(ov) {
				continue
			}
			if cv, found, _ := c.Get(k); !found || !equalValues(cv, ov) {
				keys = append(keys, k)
			}
		}
	case *starlark.List:
		o, ok := orig.(*starlark.List)
		if !ok {
			return thawVar{mode: thawFull}
		}
		for i := 0; i < o.Len(); i++ {
			if ov := o.Index(i); mutableInside(ov) && (i >= c.Len() || !equalValues(c.Index(i), ov)) {
				keys = append(keys, starlark.MakeInt(i))
			}
		}
	case *starlark.Set:
	default:
		return thawVar{mode: thawFull}
	}
	return thawVar{mode: thawShallow, keys: keys}
}

// mutableInside tells whether a value is or holds a dict, list or set.
func mutableInside(v starlark.Value) bool {
	switch x := v.(type) {
	case *starlark.Dict, *starlark.List, *starlark.Set:
		return true
	case starlark.Tuple:
		for _, e := range x {
			if mutableInside(e) {
				return true
			}
		}
	}
	return false
}

func equalValues(a, b starlark.Value) bool {
	eq, err := starlark.Equal(a, b)
	return err == nil && eq
}

func containsValue(vs []starlark.Value, v starlark.Value) bool {
	for _, x := range vs {
		if equalValues(x, v) {
			return true
		}
	}
	return false
}

// shallowCopyDict returns a new dict with x's entries (shared, not copied).
func shallowCopyDict(x *starlark.Dict, slab *valSlab) *starlark.Dict {
	c := copiers.Get().(*copier)
	d := slab.dict(x.Len())
	c.dst, c.shallow = d, true
	x.Entries()(c.kv)
	c.dst, c.shallow = nil, false
	copiers.Put(c)
	return d
}

// failed counts a run with deep copies that taught the plan nothing after
// a run under it failed; the fourth turns the plan off.
func (p *thawPlan) failed() {
	p.fails++
	if p.fails >= 4 {
		p.off = true
	}
}

// thawPlan returns the plan a step's runs follow (nil: deep copies).
func (w *starWorker) thawPlan(action int, args []Value) *thawPlan {
	if w.fast.detail || w.m.noThaw {
		return nil
	}
	p := w.planFor(action, args)
	if p == nil || p.off {
		return nil
	}
	if cap(w.copies) < len(w.m.info.Vars) {
		w.copies = make([]starlark.Value, len(w.m.info.Vars))
	}
	return p
}

// run runs an action once, for the current choices, under plan: its
// compiled body if it has one (cb), else, or when that stops, the
// interpreter. An interpreter's run that ends in an error after it was
// given a frozen value or a shallow copy is run again with deep copies
// (see thawPlan), and what a run with deep copies did teaches the plan.
func (w *starWorker) run(s *sstate, fn *starlark.Function, argv starlark.Tuple, plan *thawPlan, cb *cfunc) (starlark.Value, error) {
	for again := false; ; again = true {
		var res starlark.Value
		var err error
		compiled := false
		if cb != nil && !again {
			w.fresh(s, plan, false)
			res, compiled = cb.runBody(&w.r, s, argv[1:], &w.cctx)
		}
		if !compiled {
			w.fresh(s, plan, again)
			argv[0] = &w.r
			res, err = w.call(fn, argv)
		}
		switch {
		case err == nil:
			if plan != nil && !w.learn(s, plan) && again {
				plan.failed()
			}
			return res, nil
		case !w.r.planned || isRequire(err, w.fast.sentinel) || isCancelled(err):
			if again {
				plan.failed()
			}
			return res, err
		}
	}
}

// fresh makes w.r a fresh record of s for a run under plan.
func (w *starWorker) fresh(s *sstate, plan *thawPlan, learnAll bool) {
	n := len(w.m.info.Vars)
	w.choice.pos = 0
	w.choice.sizes = w.choice.sizes[:0]
	cur, touched := w.cur[:n], w.touched[:n]
	clear(cur)
	clear(touched)
	w.r = rec{m: w.m, st: s, cur: cur, touched: touched, objs: s.objs, plan: plan, learnAll: learnAll}
	if plan != nil {
		w.r.copies = w.copies[:n]
		clear(w.r.copies)
	}
}

// learn teaches the plan what the run's deep copies tell; it tells whether
// the plan grew.
func (w *starWorker) learn(s *sstate, plan *thawPlan) bool {
	grew := false
	for i, c := range w.r.copies {
		if c == nil {
			continue
		}
		orig, err := s.val(i)
		if err != nil {
			plan.vars[i] = thawVar{mode: thawFull}
			continue
		}
		if plan.learn(i, c, orig) {
			grew = true
		}
	}
	return grew
}

// isRequire tells whether err is a failed require().
func isRequire(err error, sentinel *starlark.EvalError) bool {
	if ee, ok := err.(*starlark.EvalError); ok && ee == sentinel {
		return true
	}
	var rf *requireFailed
	return errors.As(err, &rf)
}

// knownEnc is a value whose canonical encoding is known already: an entry
// of a variable's frozen value, decoded from the state's key, that a
// shallow copy may share.
type knownEnc struct {
	v   starlark.Value // a *Dict, *List or *Set
	enc string
}

// appendValueKnown is AppendValuePath for a value that may share dicts,
// lists and sets whose encodings are known (a shallow copy of a decoded
// variable: see sstate.known): those are not encoded again.
func appendValueKnown(b []byte, v Value, path string, known []knownEnc) ([]byte, error) {
	e := encoders.Get().(*encoder)
	e.known = known
	out, err := e.value(b, v, 0)
	e.known = nil
	encoders.Put(e)
	if err == nil {
		return out, nil
	}
	return appendValue(b[:len(b):len(b)], v, path, 0) // says what and where
}

// valCache shares, within a worker, the frozen dicts, lists, sets and
// tuples it decodes from states' keys, by their encodings: the states of
// an exploration hold the same inner values again and again (a network's
// empty channels, a process's requests), and a frozen value can be shared
// by every state that holds it. A hit costs a walk over the encoding and a
// map lookup instead of the value's allocations (a Starlark dict is about
// 600 bytes). Bounded by maxValCache entries (then it starts again).
type valCache struct {
	m map[string]starlark.Value
	// whole counts, per variable, the lookups of its whole value (see
	// valCache.whole)
	wholes []wholeStat
}

// wholeStat counts one variable's lookups of its whole value in a window
// of wholeWindow lookups.
type wholeStat struct{ tries, hits uint32 }

const (
	// wholeWindow: a variable's whole value is looked up for wholeProbe
	// decodes of every wholeWindow, and on the rest of the window only if a
	// quarter of those hit
	wholeWindow = 1 << 14
	wholeProbe  = 1 << 10
)

// whole returns variable i's value whose encoding is enc, if the cache has
// it. Only lists and tuples are shared whole: a source state's dicts and
// sets are recycled after it (recycle.go). A variable whose whole values
// repeat little (LamportMutex's network) is not looked up past the probe:
// Bakery's six lists of two entries repeat in nearly every state, and a hit
// saves the list, its array and its decoding.
func (c *valCache) whole(i int, enc string) starlark.Value {
	w := c.wholeOf(i, enc)
	if w == nil {
		return nil
	}
	if w.tries++; w.tries > wholeWindow {
		*w = wholeStat{tries: 1}
	}
	if w.off() {
		return nil
	}
	v, ok := c.m[enc]
	if ok && w.tries <= wholeProbe {
		w.hits++
	}
	return v
}

// maxWhole bounds the encodings of the whole values shared: the cache is
// bounded by entries, and a long list that repeats little (a history)
// would fill it with kilobytes each during every probe.
const maxWhole = 128

// wholeOf returns the counts of variable i if its value, encoded enc, may
// be shared whole (a list or tuple of a short encoding), or nil.
func (c *valCache) wholeOf(i int, enc string) *wholeStat {
	if c == nil || enc == "" || len(enc) > maxWhole || (enc[0] != tagList && enc[0] != tagTuple) {
		return nil
	}
	if i >= len(c.wholes) {
		c.wholes = append(c.wholes, make([]wholeStat, i+1-len(c.wholes))...)
	}
	return &c.wholes[i]
}

// off tells that the variable's whole values repeat too little to be
// looked up (or kept) for the rest of the window.
func (w *wholeStat) off() bool { return w.tries > wholeProbe && w.hits*4 < wholeProbe }

// keepWhole keeps v, variable i's value decoded from enc, for whole.
func (c *valCache) keepWhole(i int, enc string, v starlark.Value) {
	if w := c.wholeOf(i, enc); w == nil || w.off() {
		return
	}
	if c.m == nil || len(c.m) >= maxValCache {
		c.m = make(map[string]starlark.Value, 1024)
	}
	c.m[strings.Clone(enc)] = v
}

const (
	maxValCache    = 1 << 15
	minCachedDepth = 1 // a variable's own value: only a list or tuple, through valCache.whole
)

func isContainerTag(tag byte) bool {
	return tag == tagDict || tag == tagList || tag == tagSet || tag == tagTuple
}

// cached decodes the container at d.pos through d.cache.
func (d *decoder) cached() (Value, error) {
	start := d.pos
	if err := d.skip(); err != nil {
		return nil, err
	}
	enc := d.b[start:d.pos]
	if v, ok := d.cache.m[enc]; ok {
		return v, nil
	}
	d.pos = start
	saved := d.cache
	d.cache = nil // its entries are not looked up again
	v, err := d.value()
	d.cache = saved
	if err != nil {
		return nil, err
	}
	if d.cache.m == nil || len(d.cache.m) >= maxValCache {
		d.cache.m = make(map[string]starlark.Value, 1024)
	}
	d.cache.m[strings.Clone(enc)] = v
	return v, nil
}
