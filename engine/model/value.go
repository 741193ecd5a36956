package model

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/big"
	"sort"
	"strings"
	"sync"

	"go.starlark.net/starlark"
)

// Value is a model value: the Starlark values allowed in a state (None, bool,
// int, string, bytes, tuple, list, dict, set) and objects made by new().
// Go-native models use the same type; Int, Str and Tuple build them.
type Value = starlark.Value

// Int returns the model value for a Go int.
func Int(i int) Value { return starlark.MakeInt(i) }

// Str returns the model value for a Go string.
func Str(s string) Value { return starlark.String(s) }

// Tuple returns a model tuple of the given values.
func Tuple(vs ...Value) Value { return starlark.Tuple(vs) }

// AsInt returns the Go int held by v, or false when v is not a small int.
func AsInt(v Value) (int, bool) {
	i, ok := v.(starlark.Int)
	if !ok {
		return 0, false
	}
	n, ok := i.Int64()
	return int(n), ok
}

// AsString returns the Go string held by v, or false when v is not a string.
func AsString(v Value) (string, bool) {
	s, ok := v.(starlark.String)
	return string(s), ok
}

// Object is a value made by new(kind): printed <kind><n>, where n counts the
// objects of that kind created on the path to the state.
type Object struct {
	Kind string
	N    int
}

var (
	_ starlark.Value      = Object{}
	_ starlark.Comparable = Object{}
)

// String prints the object as Client1, Client2, ...
func (o Object) String() string { return fmt.Sprintf("%s%d", o.Kind, o.N) }

// Type returns the Starlark type name of objects: their kind.
func (o Object) Type() string { return o.Kind }

// Freeze does nothing: objects are immutable.
func (o Object) Freeze() {}

// Truth reports that objects are always true.
func (o Object) Truth() starlark.Bool { return true }

// Hash hashes the object by kind and number.
func (o Object) Hash() (uint32, error) {
	h, _ := starlark.String(o.Kind).Hash()
	return h*31 + uint32(o.N), nil
}

// CompareSameType orders objects by kind, then number.
func (o Object) CompareSameType(op syntaxToken, y starlark.Value, depth int) (bool, error) {
	p := y.(Object)
	c := strings.Compare(o.Kind, p.Kind)
	if c == 0 {
		c = o.N - p.N
	}
	return threeway(op, c), nil
}

// Encoding tags. The encoding is canonical: two values are equal as state
// values exactly when their encodings are equal. Dict entries and set
// elements are sorted by their encodings, so insertion order does not count.
const (
	tagNone   = 'N'
	tagTrue   = 'T'
	tagFalse  = 'F'
	tagInt    = 'i'
	tagBigInt = 'I'
	tagString = 's'
	tagBytes  = 'b'
	tagTuple  = 't'
	tagList   = 'l'
	tagDict   = 'd'
	tagSet    = 'S'
	tagObject = 'o'
)

// UnsupportedValueError reports a value that may not be part of a state.
type UnsupportedValueError struct {
	Path string // where in the state, e.g. clients[2]
	Type string
}

// Error names the value's type and where it is in the state.
func (e *UnsupportedValueError) Error() string {
	return fmt.Sprintf("unsupported value of type %s in the state at %s (allowed: None, bool, int, string, bytes, tuple, list, dict, set, objects from new)", e.Type, e.Path)
}

// AppendValue appends the canonical encoding of v to b.
func AppendValue(b []byte, v Value) ([]byte, error) {
	return AppendValuePath(b, v, "value")
}

func appendUvarint(b []byte, n uint64) []byte { return binary.AppendUvarint(b, n) }

func appendStr(b []byte, s string) []byte {
	b = appendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// MaxValueDepth bounds how deeply values nest (a list in a list in ...): a
// value deeper than that, or one that contains itself (a list appended to
// itself, a dict stored in itself), is a model error, not a Go stack
// overflow. TLA+-style states nest a few levels; 1000 leaves room for
// linked structures built of tuples.
const MaxValueDepth = 1000

// maxPathLen bounds the paths named in encoding errors: deeper dicts keep
// their start.
const maxPathLen = 80

// DepthError reports a value nested deeper than MaxValueDepth: most often
// one that contains itself.
type DepthError struct {
	Path string // where the value stands, e.g. output or clients
}

// Error names where the value stands and the likely cause.
func (e *DepthError) Error() string {
	return fmt.Sprintf("the value at %s nests more than %d levels deep: a list, dict or set that contains itself, or a structure too deep for a state", e.Path, MaxValueDepth)
}

// AppendValuePath appends the canonical encoding of v to b; path names
// where v stands (for example "input" or "output") in errors. A value that
// contains itself, or nests deeper than MaxValueDepth, is a *DepthError.
func AppendValuePath(b []byte, v Value, path string) ([]byte, error) {
	e := encoders.Get().(*encoder)
	out, err := e.value(b, v, 0)
	encoders.Put(e)
	if err == nil {
		return out, nil
	}
	return appendValue(b[:len(b):len(b)], v, path, 0) // says what and where
}

// appendValue is the encoder that names where a value stands: AppendValuePath
// runs it for the error when the in-place encoder (encoder.value) gives up.
func appendValue(b []byte, v Value, path string, depth int) ([]byte, error) {
	if out, ok := appendScalar(b, v); ok {
		return out, nil
	}
	switch x := v.(type) {
	case starlark.Tuple:
		if depth >= MaxValueDepth {
			return nil, &DepthError{Path: path}
		}
		b = append(b, tagTuple)
		b = appendUvarint(b, uint64(len(x)))
		var err error
		for i, e := range x {
			if b, err = appendValue(b, e, path, depth+1); err != nil {
				return nil, annotate(err, path, i)
			}
		}
		return b, nil
	case *starlark.List:
		if depth >= MaxValueDepth {
			return nil, &DepthError{Path: path}
		}
		b = append(b, tagList)
		n := x.Len()
		b = appendUvarint(b, uint64(n))
		var err error
		for i := 0; i < n; i++ {
			if b, err = appendValue(b, x.Index(i), path, depth+1); err != nil {
				return nil, annotate(err, path, i)
			}
		}
		return b, nil
	case *starlark.Dict:
		if depth >= MaxValueDepth {
			return nil, &DepthError{Path: path}
		}
		items := x.Items()
		parts := make([][]byte, len(items))
		for i, kv := range items {
			p, err := appendValue(nil, kv[0], path+"[key]", depth+1)
			if err != nil {
				return nil, err
			}
			sub := path
			if len(path) < maxPathLen { // a path through nested dicts is named by its start
				sub = path + "[" + kv[0].String() + "]"
			}
			if p, err = appendValue(p, kv[1], sub, depth+1); err != nil {
				return nil, err
			}
			parts[i] = p
		}
		return appendSorted(append(b, tagDict), parts), nil
	case *starlark.Set:
		return appendSet(b, x, path, depth)
	}
	return nil, &UnsupportedValueError{Path: path, Type: v.Type()}
}

// appendSet encodes a set. It is apart from AppendValuePath because of its
// defer: a function with a defer that is not open-coded (AppendValuePath
// has too many returns) runs the runtime's defer machinery at every return,
// which cost 3 % of exploring the Starlark stack.
func appendSet(b []byte, x *starlark.Set, path string, depth int) ([]byte, error) {
	if depth >= MaxValueDepth {
		return nil, &DepthError{Path: path}
	}
	parts := make([][]byte, 0, x.Len())
	it := x.Iterate()
	defer it.Done()
	var e starlark.Value
	for it.Next(&e) {
		p, err := appendValue(nil, e, path+"[elem]", depth+1)
		if err != nil {
			return nil, err
		}
		parts = append(parts, p)
	}
	return appendSorted(append(b, tagSet), parts), nil
}

func annotate(err error, path string, i int) error {
	if u, ok := err.(*UnsupportedValueError); ok && u.Path == path {
		return &UnsupportedValueError{Path: fmt.Sprintf("%s[%d]", path, i), Type: u.Type}
	}
	return err
}

func appendSorted(b []byte, parts [][]byte) []byte {
	sort.Slice(parts, func(i, j int) bool { return bytes.Compare(parts[i], parts[j]) < 0 })
	b = appendUvarint(b, uint64(len(parts)))
	for _, p := range parts {
		b = append(b, p...)
	}
	return b
}

// decoder reads canonical encodings back into frozen Starlark values, or
// into mutable ones (thaw) for a step to change.
type decoder struct {
	b    string
	pos  int
	thaw bool
	slab *valSlab // where a thawed sequence's elements go (nil: allocated)
	// reads, when not nil, hands out the dict or set of a source state's
	// variable read (depth 0), recycled after the state (see recycle.go)
	reads *valSlab
	// known, when not nil, gets the dicts, lists and sets decoded as
	// entries of the value (at depth 1) with their encodings
	known *[]knownEnc
	// cache, when not nil, shares the frozen containers decoded (see
	// valCache)
	cache *valCache
	// depth is how deeply the value being read nests (bounded by
	// MaxValueDepth: an encoding is untrusted input when it comes from a
	// file).
	depth int
}

// skip moves past one value, checking its structure as value does, without
// building it (the elements of sets and keys of dicts are checked for
// hashability only when the value is built).
func (d *decoder) skip() error {
	if d.pos >= len(d.b) {
		return d.fail("unexpected end")
	}
	tag := d.b[d.pos]
	d.pos++
	switch tag {
	case tagNone, tagTrue, tagFalse:
		return nil
	case tagInt:
		_, err := d.varint()
		return err
	case tagBigInt:
		_, err := d.bigInt()
		return err
	case tagString, tagBytes:
		_, err := d.str()
		return err
	case tagObject:
		if _, err := d.str(); err != nil {
			return err
		}
		_, err := d.uvarint()
		return err
	case tagTuple, tagList, tagSet, tagDict:
		n, err := d.uvarint()
		if err != nil {
			return err
		}
		if n > uint64(len(d.b)) {
			return d.fail("bad count")
		}
		if tag == tagDict {
			n *= 2
		}
		if d.depth++; d.depth > MaxValueDepth {
			return d.fail("nested too deep")
		}
		for i := uint64(0); i < n; i++ {
			if err := d.skip(); err != nil {
				return err
			}
		}
		d.depth--
		return nil
	}
	return d.fail(fmt.Sprintf("unknown tag %q", tag))
}

func (d *decoder) fail(what string) error {
	return fmt.Errorf("corrupt state encoding at byte %d: %s", d.pos, what)
}

func (d *decoder) uvarint() (uint64, error) {
	n, k := binary.Uvarint([]byte(d.b[d.pos:min(len(d.b), d.pos+10)]))
	if k <= 0 {
		return 0, d.fail("bad length")
	}
	d.pos += k
	return n, nil
}

// varint reads an int's varint.
func (d *decoder) varint() (int64, error) {
	if d.pos < len(d.b) && d.b[d.pos] < 0x80 { // one byte: -64..63
		x := uint64(d.b[d.pos])
		d.pos++
		return int64(x>>1) ^ -int64(x&1), nil
	}
	n, k := binary.Varint([]byte(d.b[d.pos:min(len(d.b), d.pos+10)]))
	if k <= 0 {
		return 0, d.fail("bad int")
	}
	d.pos += k
	return n, nil
}

// bigInt reads a big int's decimal digits.
func (d *decoder) bigInt() (*big.Int, error) {
	s, err := d.str()
	if err != nil {
		return nil, err
	}
	bi, ok := new(big.Int).SetString(s, 10)
	if !ok {
		return nil, d.fail("bad big int")
	}
	return bi, nil
}

func (d *decoder) str() (string, error) {
	n, err := d.uvarint()
	if err != nil {
		return "", err
	}
	if uint64(len(d.b)-d.pos) < n {
		return "", d.fail("short string")
	}
	s := d.b[d.pos : d.pos+int(n)]
	d.pos += int(n)
	return s, nil
}

func (d *decoder) value() (Value, error) {
	if d.pos >= len(d.b) {
		return nil, d.fail("unexpected end")
	}
	tag := d.b[d.pos]
	if d.cache != nil && !d.thaw && d.depth >= minCachedDepth && isContainerTag(tag) {
		return d.cached()
	}
	d.pos++
	switch tag {
	case tagNone:
		return starlark.None, nil
	case tagTrue:
		return starlark.True, nil
	case tagFalse:
		return starlark.False, nil
	case tagInt:
		n, err := d.varint()
		if err != nil {
			return nil, err
		}
		return starlark.MakeInt64(n), nil
	case tagBigInt:
		bi, err := d.bigInt()
		if err != nil {
			return nil, err
		}
		return starlark.MakeBigInt(bi), nil
	case tagString:
		s, err := d.str()
		return starlark.String(s), err
	case tagBytes:
		s, err := d.str()
		return starlark.Bytes(s), err
	case tagObject:
		k, err := d.str()
		if err != nil {
			return nil, err
		}
		n, err := d.uvarint()
		return Object{Kind: k, N: int(n)}, err
	case tagTuple, tagList, tagSet:
		return d.sequence(tag)
	case tagDict:
		n, err := d.uvarint()
		if err != nil {
			return nil, err
		}
		if n > uint64(len(d.b)) {
			return nil, d.fail("bad count")
		}
		if d.depth++; d.depth > MaxValueDepth {
			return nil, d.fail("nested too deep")
		}
		var dict *starlark.Dict
		switch {
		case d.thaw:
			dict = d.slab.dict(int(n))
		case d.reads != nil && d.depth == 1:
			dict = d.reads.readDict(int(n))
		default:
			dict = starlark.NewDict(int(n))
		}
		for i := uint64(0); i < n; i++ {
			k, err := d.value()
			if err != nil {
				return nil, err
			}
			start := d.pos
			v, err := d.value()
			if err != nil {
				return nil, err
			}
			d.record(v, start)
			if err := dict.SetKey(k, v); err != nil {
				return nil, d.fail(err.Error())
			}
		}
		d.depth--
		if !d.thaw {
			dict.Freeze()
		}
		return dict, nil
	}
	return nil, d.fail(fmt.Sprintf("unknown tag %q", tag))
}

// record adds v, an entry decoded from start, to d.known when it is a
// dict, list or set at depth 1.
func (d *decoder) record(v Value, start int) {
	if d.known == nil || d.depth != 1 {
		return
	}
	switch v.(type) {
	case *starlark.Dict, *starlark.List, *starlark.Set:
		*d.known = append(*d.known, knownEnc{v, d.b[start:d.pos]})
	}
}

// sequence decodes a tuple, list or set after its tag.
func (d *decoder) sequence(tag byte) (Value, error) {
	n, err := d.uvarint()
	if err != nil {
		return nil, err
	}
	if n > uint64(len(d.b)) {
		return nil, d.fail("bad count")
	}
	if d.depth++; d.depth > MaxValueDepth {
		return nil, d.fail("nested too deep")
	}
	var elems []Value
	if d.thaw {
		elems = d.slab.take(int(n), int(n)+1) // a list to change has room for one append
	} else {
		elems = make([]Value, n)
	}
	for i := range elems {
		start := d.pos
		if elems[i], err = d.value(); err != nil {
			return nil, err
		}
		d.record(elems[i], start)
	}
	d.depth--
	switch tag {
	case tagTuple:
		return starlark.Tuple(elems), nil
	case tagList:
		l := starlark.NewList(elems)
		if !d.thaw {
			l.Freeze()
		}
		return l, nil
	}
	var s *starlark.Set
	switch {
	case d.thaw:
		s = d.slab.set(len(elems))
	case d.reads != nil && d.depth == 0: // depth is back to the set's own
		s = d.reads.readSet(len(elems))
	default:
		s = starlark.NewSet(len(elems))
	}
	for _, e := range elems {
		if err := s.Insert(e); err != nil {
			return nil, d.fail(err.Error())
		}
	}
	if !d.thaw {
		s.Freeze()
	}
	return s, nil
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// Scalar tells whether v is an int, string, bool, None or object: a value
// that holds no other, compared by == (equal values by == have equal
// canonical keys), so that it can be cached by its own identity.
func Scalar(v Value) bool {
	switch v.(type) {
	case starlark.Int, starlark.String, starlark.Bool, starlark.NoneType, Object:
		return true
	}
	return false
}

// DecodeValue decodes one canonical encoding made by AppendValue.
func DecodeValue(enc string) (Value, error) {
	d := decoder{b: enc}
	v, err := d.value()
	if err == nil && d.pos != len(enc) {
		err = d.fail("trailing bytes")
	}
	return v, err
}

// Key returns the canonical encoding of v as a string (for maps), or an error
// for values that cannot be part of a state.
func Key(v Value) (string, error) {
	b, err := AppendValue(nil, v)
	return string(b), err
}

// Format prints a value as a Starlark literal (objects as Client1).
func Format(v Value) string {
	if v == nil {
		return "None"
	}
	return v.String()
}

// FormatArgs prints an argument list as "a, b, c".
func FormatArgs(args []Value) string {
	var sb strings.Builder
	for i, a := range args {
		if i > 0 {
			sb.WriteString(", ")
		}
		sb.WriteString(Format(a))
	}
	return sb.String()
}

// deepCopy returns a mutable copy of a frozen value; immutable scalars are
// returned as they are.
func deepCopy(v Value) Value { return deepCopyIn(v, nil) }

// deepCopyIn is deepCopy with the copies' dicts and sets from a step's slab
// (nil: new ones).
func deepCopyIn(v Value, slab *valSlab) Value {
	c := copiers.Get().(*copier)
	c.slab = slab
	out := c.copy(v)
	c.slab = nil
	copiers.Put(c)
	return out
}

// copier makes deepCopy's copies. Its dict callback is made once: a closure
// made per dict copied would be allocated per dict.
type copier struct {
	dst     *starlark.Dict // the dict being filled
	kv      func(k, v Value) bool
	shallow bool     // kv shares the values instead of copying them
	slab    *valSlab // where the copies' dicts and sets come from (nil: new)
}

var copiers = sync.Pool{New: func() any {
	c := new(copier)
	c.kv = func(k, v Value) bool {
		if !c.shallow {
			v = c.copy(v)
		}
		_ = c.dst.SetKey(k, v)
		return true
	}
	return c
}}

func (c *copier) copy(v Value) Value {
	switch x := v.(type) {
	case starlark.Int, starlark.String, starlark.Bool, starlark.NoneType:
		return v // immutable: the common values, first
	case starlark.Tuple:
		var out starlark.Tuple
		for i, e := range x {
			cp := c.copy(e)
			if !identical(cp, e) && out == nil {
				out = make(starlark.Tuple, len(x))
				copy(out, x[:i])
			}
			if out != nil {
				out[i] = cp
			}
		}
		if out == nil {
			return v // not x: a slice made an interface again is allocated
		}
		return out
	case *starlark.List:
		// Room for one more element: state lists are copied to be changed,
		// most often by an append, which would otherwise copy them again.
		n := x.Len()
		elems := make([]Value, n, n+1)
		for i := 0; i < n; i++ {
			elems[i] = c.copy(x.Index(i))
		}
		return starlark.NewList(elems)
	case *starlark.Dict:
		d := c.slab.dict(x.Len())
		saved := c.dst
		c.dst = d
		x.Entries()(c.kv)
		c.dst = saved
		return d
	case *starlark.Set:
		s := c.slab.set(x.Len())
		for e := range x.Elements() {
			_ = s.Insert(e)
		}
		return s
	}
	return v
}

// identical tells whether deepCopy returned v itself: tuples (slices, not
// comparable by ==) by their array, other values by ==.
func identical(a, b Value) bool {
	if ta, ok := a.(starlark.Tuple); ok {
		tb, ok := b.(starlark.Tuple)
		return ok && len(ta) == len(tb) && (len(ta) == 0 || &ta[0] == &tb[0])
	}
	if _, ok := b.(starlark.Tuple); ok {
		return false
	}
	return a == b
}

// None is the model value None.
var None Value = starlark.None
