package model

import (
	"fmt"
	"sort"

	"go.starlark.net/starlark"
	"go.starlark.net/syntax"
)

// requireFailed is the error require() raises to discard a step. Without a
// message, the position is kept and printed only when asked for (failing
// requires are the common case in exploration).
type requireFailed struct {
	why string
	pos syntax.Position
}

func (r *requireFailed) reason() string {
	if r.why != "" {
		return r.why
	}
	return "require failed at " + synPos(r.pos).String()
}

func (r *requireFailed) Error() string { return "require failed: " + r.reason() }

func builtins() starlark.StringDict {
	return starlark.StringDict{
		"require":  starlark.NewBuiltin("require", builtinRequire),
		"new":      starlark.NewBuiltin("new", builtinNew),
		"choose":   starlark.NewBuiltin("choose", builtinChoose),
		"constant": starlark.NewBuiltin("constant", builtinConstant),
		"initial":  starlark.NewBuiltin("initial", builtinInitial),
	}
}

// localConstants is the thread-local table of constant() while loading.
const localConstants = "modex.constants"

// constantTable holds the values a configuration gives constants and
// collects the model's declarations.
type constantTable struct {
	given map[string]Value
	info  *ModelInfo
}

// builtinConstant is constant(name, default): a model constant that a
// project configuration may set ([configs.NAME.constants]); it returns the
// configuration's value, else the default. It may only be called while the
// model loads (at top level), once per name.
func builtinConstant(t *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var name string
	var def starlark.Value
	if err := starlark.UnpackArgs("constant", args, kwargs, "name", &name, "default", &def); err != nil {
		return nil, err
	}
	tab, _ := t.Local(localConstants).(*constantTable)
	if tab == nil {
		return nil, fmt.Errorf("constant(%q): constants are declared at the model's top level, while it loads", name)
	}
	if !isIdentifier(name) {
		return nil, fmt.Errorf("constant(%q): the name must be an identifier", name)
	}
	if _, err := Key(def); err != nil {
		return nil, fmt.Errorf("constant(%q): the default is not a model value: %v", name, err)
	}
	for _, c := range tab.info.Constants {
		if c.Name == name {
			return nil, fmt.Errorf("constant(%q) is declared twice", name)
		}
	}
	v := def
	if g, ok := tab.given[name]; ok {
		if g.Type() != def.Type() {
			return nil, fmt.Errorf("constant(%q): the configuration gives a %s, the default is a %s", name, g.Type(), def.Type())
		}
		v = g
	}
	v.Freeze()
	tab.info.Constants = append(tab.info.Constants, Constant{Name: name, Default: def, Value: v, Pos: synPos(t.CallFrame(1).Pos)})
	return v, nil
}

func newThread(name string) *starlark.Thread {
	t := &starlark.Thread{Name: name}
	t.Print = func(*starlark.Thread, string) {} // models have no I/O
	return t
}

const (
	localRec    = "modex.rec"
	localChoice = "modex.choice"
	localFast   = "modex.fast"
)

// fastRequire lets a failing require() skip Starlark's error machinery in
// exploration and testing: Starlark wraps a builtin's error in an EvalError
// with the whole call stack and source positions unless the error already
// is one, so require returns this worker's sentinel EvalError and notes its
// message here. With detail set (when a user asks why an action is
// disabled) require reports the position of the failing call instead.
type fastRequire struct {
	sentinel *starlark.EvalError
	why      string
	detail   bool
}

func builtinRequire(t *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if len(args) == 1 && len(kwargs) == 0 && args[0].Truth() {
		return starlark.None, nil // the common case, without UnpackArgs' allocations
	}
	if len(args) == 1 && len(kwargs) == 0 {
		return failRequire(t, "") // no reason: nothing to unpack
	}
	var cond starlark.Value
	var why string
	if err := starlark.UnpackArgs("require", args, kwargs, "cond", &cond, "why?", &why); err != nil {
		return nil, err
	}
	if cond.Truth() {
		return starlark.None, nil
	}
	return failRequire(t, why)
}

// failRequire is a require() that failed, with its reason.
func failRequire(t *starlark.Thread, why string) (starlark.Value, error) {
	if fr, _ := t.Local(localFast).(*fastRequire); fr != nil && !fr.detail {
		fr.why = why
		return nil, fr.sentinel
	}
	if why == "" {
		return nil, &requireFailed{pos: t.CallFrame(1).Pos}
	}
	return nil, &requireFailed{why: why}
}

func builtinNew(t *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var kind string
	if err := starlark.UnpackPositionalArgs("new", args, kwargs, 1, &kind); err != nil {
		return nil, err
	}
	if !isIdentifier(kind) {
		return nil, fmt.Errorf("new: kind %q is not an identifier", kind)
	}
	r, _ := t.Local(localRec).(*rec)
	if r == nil || r.readonly {
		return nil, fmt.Errorf("new() may only be called in actions and init()")
	}
	return r.newObject(kind), nil
}

type choiceState struct {
	prefix []int
	sizes  []int
	pos    int
	// picks remembers, per choose() position, the canonical order of its
	// collection while the choices before it stay the same (an action is
	// deterministic: the same choices before give the same collection), so
	// that trying every branch of a choose over K values lists and keys
	// the collection once, not K times.
	picks []*picked
}

// picked is a choose() collection in canonical order: for a sequence, the
// index of each distinct element in it (the element is taken from this
// run's collection: it may be a mutable value of this run's state); for a
// set or dict, whose elements and keys are immutable, the elements.
type picked struct {
	n     int   // the collection's length (a sanity check)
	index []int // sequences
	elems []starlark.Value
}

func builtinChoose(t *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var coll starlark.Value
	if err := starlark.UnpackPositionalArgs("choose", args, kwargs, 1, &coll); err != nil {
		return nil, err
	}
	cs, _ := t.Local(localChoice).(*choiceState)
	if cs == nil {
		return nil, fmt.Errorf("choose() may only be called in actions")
	}
	v, err := cs.choose(coll)
	if err == nil && v == nil {
		return nil, &requireFailed{why: emptyChoice(synPos(t.CallFrame(1).Pos))}
	}
	return v, err
}

// emptyChoice is the reason of a choose() at pos from an empty collection.
func emptyChoice(pos Pos) string {
	return "choose from an empty collection at " + pos.String()
}

// choose makes the run's next choice, from coll: the element the choices'
// odometer points at, in coll's canonical order; nil for an empty coll
// (the action is disabled there).
func (cs *choiceState) choose(coll starlark.Value) (starlark.Value, error) {
	if cs.pos >= len(cs.prefix) {
		cs.prefix = append(cs.prefix, 0)
	}
	if cs.pos >= len(cs.sizes) {
		cs.sizes = append(cs.sizes, 0)
	}
	i := cs.prefix[cs.pos]
	var pk *picked
	if cs.pos < len(cs.picks) {
		pk = cs.picks[cs.pos]
	}
	if pk == nil || pk.n != collLen(coll) {
		elems, index, err := elementsIndexed(coll)
		if err != nil {
			return nil, fmt.Errorf("choose: %v", err)
		}
		pk = &picked{n: collLen(coll), index: index}
		if index == nil {
			pk.elems = elems
		}
		for len(cs.picks) <= cs.pos {
			cs.picks = append(cs.picks, nil)
		}
		cs.picks[cs.pos] = pk
	}
	size := len(pk.elems)
	if pk.index != nil {
		size = len(pk.index)
	}
	if size == 0 {
		return nil, nil
	}
	cs.sizes[cs.pos] = size
	cs.pos++
	if i >= size {
		i = size - 1
	}
	if pk.index != nil {
		return coll.(starlark.Indexable).Index(pk.index[i]), nil
	}
	return pk.elems[i], nil
}

// collLen is a collection's length (-1 when it has none).
func collLen(v starlark.Value) int {
	if s, ok := v.(starlark.Sequence); ok {
		return s.Len()
	}
	return -1
}

// elementsIndexed is Elements, with, for an indexable sequence (list,
// tuple, range), the index in it of each element returned (nil for sets,
// dicts and other iterables).
func elementsIndexed(v starlark.Value) ([]starlark.Value, []int, error) {
	elems, err := Elements(v)
	if err != nil {
		return nil, nil, err
	}
	seq, ok := v.(starlark.Indexable)
	if !ok {
		return elems, nil, nil
	}
	switch v.(type) {
	case *starlark.Set, *starlark.Dict:
		return elems, nil, nil
	}
	// Elements keeps a sequence's order, dropping later duplicates: walk
	// both in step.
	index := make([]int, 0, len(elems))
	for i, j := 0, 0; i < seq.Len() && j < len(elems); i++ {
		if identical(seq.Index(i), elems[j]) || same(seq.Index(i), elems[j]) {
			index = append(index, i)
			j++
		}
	}
	if len(index) != len(elems) {
		return elems, nil, nil // not a plain sequence: no index
	}
	return elems, index, nil
}

// same tells whether two values have the same canonical key.
func same(a, b starlark.Value) bool {
	ka, err1 := Key(a)
	kb, err2 := Key(b)
	return err1 == nil && err2 == nil && ka == kb
}

// elementCost is what listing one element of a domain takes, in
// interface values: the element, its key (a string header and its bytes)
// and its entry in the set of keys seen.
const elementCost = 6

// collection lists the elements of a domain or choose() argument in
// canonical order: lists, tuples and other sequences as they are; sets and
// dicts (their keys) sorted by canonical encoding; duplicates removed.
func Elements(v starlark.Value) ([]starlark.Value, error) {
	// Sized before it is listed: range(10**8) is a small value whose
	// listing (its elements, their keys, a set of them) is gigabytes.
	if n := starlark.Len(v); n > 0 {
		if err := reserve(sizeOf(nil, int64(n)) * elementCost); err != nil {
			return nil, fmt.Errorf("%d values: %w", n, err)
		}
	}
	var out []starlark.Value
	sorted := false
	switch x := v.(type) {
	case *starlark.Set, *starlark.Dict:
		sorted = true
		it := x.(starlark.Iterable).Iterate()
		var e starlark.Value
		for it.Next(&e) {
			out = append(out, e)
		}
		it.Done()
	case starlark.Iterable:
		it := x.Iterate()
		var e starlark.Value
		for it.Next(&e) {
			out = append(out, e)
		}
		it.Done()
	default:
		return nil, fmt.Errorf("a domain must be a list, tuple, set or dict, not %s", v.Type())
	}
	keys := make([]string, len(out))
	seen := make(map[string]bool, len(out))
	j := 0
	for _, e := range out {
		k, err := Key(e)
		if err != nil {
			return nil, err
		}
		if seen[k] {
			continue
		}
		seen[k] = true
		keys[j], out[j] = k, e
		j++
	}
	out, keys = out[:j], keys[:j]
	if sorted {
		idx := make([]int, j)
		for i := range idx {
			idx[i] = i
		}
		sort.Slice(idx, func(a, b int) bool { return keys[idx[a]] < keys[idx[b]] })
		res := make([]starlark.Value, j)
		for i, k := range idx {
			res[i] = out[k]
		}
		out = res
	}
	return out, nil
}
