package model

import (
	"bytes"
	"encoding/binary"
	"errors"
	"slices"
	"sync"

	"go.starlark.net/starlark"
)

// encoder writes canonical encodings without the allocations of the
// path-naming encoder (appendValue): a dict's entries and a set's elements
// are written in place, in iteration order, and reordered only when that
// order is not already the canonical one. Any value it cannot encode makes
// it give up (errSlow): the path-naming encoder then says what and where.
type encoder struct {
	offs  []int  // entry boundaries of the dicts and sets being written
	spans []span // a reordering's entries
	tmp   []byte // a reordering's copy
	// The dict and set iterators' callbacks, made once (a closure made per
	// dict would be allocated per dict), and the state they share: the
	// encoding so far, the depth of the entries, the first error.
	kv    func(k, v Value) bool
	elem  func(v Value) bool
	b     []byte
	depth int
	err   error
	// known holds values whose encodings are known (see appendValueShared)
	known []knownEnc
}

func newEncoder() *encoder {
	e := new(encoder)
	e.kv = func(k, v Value) bool {
		e.offs = append(e.offs, len(e.b))
		if e.b, e.err = e.value(e.b, k, e.depth); e.err != nil {
			return false
		}
		e.b, e.err = e.value(e.b, v, e.depth)
		return e.err == nil
	}
	e.elem = func(v Value) bool {
		e.offs = append(e.offs, len(e.b))
		e.b, e.err = e.value(e.b, v, e.depth)
		return e.err == nil
	}
	return e
}

// entries writes a dict's entries or a set's elements (each) at depth and
// puts them in canonical order.
func (e *encoder) entries(b []byte, depth int, each func()) ([]byte, error) {
	base := len(e.offs)
	saved := e.depth
	e.b, e.depth, e.err = b, depth, nil
	each()
	b, err := e.b, e.err
	e.b, e.depth, e.err = nil, saved, nil
	return e.canonical(b, base, err)
}

type span struct{ start, end int }

// errSlow sends an encoding to the path-naming encoder for its error.
var errSlow = errors.New("encode the slow way")

var encoders = sync.Pool{New: func() any { return newEncoder() }}

// appendFast appends v's canonical encoding; errSlow when it cannot.
func (e *encoder) value(b []byte, v Value, depth int) ([]byte, error) {
	if out, ok := appendScalar(b, v); ok {
		return out, nil
	}
	if depth >= MaxValueDepth {
		return nil, errSlow
	}
	var err error
	if len(e.known) > 0 {
		switch v.(type) {
		case *starlark.Dict, *starlark.List, *starlark.Set:
			for _, k := range e.known {
				if k.v == v {
					return append(b, k.enc...), nil
				}
			}
		}
	}
	switch x := v.(type) {
	case starlark.Tuple:
		b = appendUvarint(append(b, tagTuple), uint64(len(x)))
		for _, el := range x {
			if b, err = e.value(b, el, depth+1); err != nil {
				return nil, err
			}
		}
		return b, nil
	case *starlark.List:
		n := x.Len()
		b = appendUvarint(append(b, tagList), uint64(n))
		for i := 0; i < n; i++ {
			if b, err = e.value(b, x.Index(i), depth+1); err != nil {
				return nil, err
			}
		}
		return b, nil
	case *starlark.Dict:
		b = appendUvarint(append(b, tagDict), uint64(x.Len()))
		return e.entries(b, depth+1, func() { x.Entries()(e.kv) })
	case *starlark.Set:
		b = appendUvarint(append(b, tagSet), uint64(x.Len()))
		return e.entries(b, depth+1, func() { x.Elements()(e.elem) })
	}
	return nil, errSlow
}

// appendScalar appends the encoding of a value that holds no other (both
// encoders' common case); false for any other value.
func appendScalar(b []byte, v Value) ([]byte, bool) {
	switch x := v.(type) {
	case starlark.Int:
		if n, ok := x.Int64(); ok {
			return binary.AppendVarint(append(b, tagInt), n), true
		}
		return appendStr(append(b, tagBigInt), x.BigInt().String()), true
	case starlark.String:
		return appendStr(append(b, tagString), string(x)), true
	case starlark.NoneType:
		return append(b, tagNone), true
	case starlark.Bool:
		if x {
			return append(b, tagTrue), true
		}
		return append(b, tagFalse), true
	case starlark.Bytes:
		return appendStr(append(b, tagBytes), string(x)), true
	case Object:
		b = appendStr(append(b, tagObject), x.Kind)
		return appendUvarint(b, uint64(x.N)), true
	}
	return b, false
}

// canonical puts the entries written since offs[base] in the order of
// their encodings (entries are distinct, so no two are equal).
func (e *encoder) canonical(b []byte, base int, err error) ([]byte, error) {
	offs := append(e.offs, len(b))
	e.offs = offs[:base]
	if err != nil {
		return nil, err
	}
	offs = offs[base:]
	sorted := true
	for i := 0; i+2 < len(offs); i++ {
		if bytes.Compare(b[offs[i]:offs[i+1]], b[offs[i+1]:offs[i+2]]) > 0 {
			sorted = false
			break
		}
	}
	if sorted {
		return b, nil
	}
	start := offs[0]
	e.tmp = append(e.tmp[:0], b[start:]...)
	e.spans = e.spans[:0]
	for i := 0; i+1 < len(offs); i++ {
		e.spans = append(e.spans, span{offs[i] - start, offs[i+1] - start})
	}
	tmp := e.tmp
	slices.SortFunc(e.spans, func(p, q span) int { return bytes.Compare(tmp[p.start:p.end], tmp[q.start:q.end]) })
	b = b[:start]
	for _, s := range e.spans {
		b = append(b, tmp[s.start:s.end]...)
	}
	return b, nil
}
