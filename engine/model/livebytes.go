package model

import (
	"go.starlark.net/starlark"
)

// LiveBytes estimates the heap a value read from a file holds, itself and
// what it refers to (64-bit Go, Starlark's representations): a reader of
// untrusted data (a history, a trace) adds it up to bound the memory of
// what it keeps by bytes, not only by counts — an empty map `{}` is two
// bytes in a file and a few hundred in memory. The estimate errs high;
// values shared between two places are counted twice.
func LiveBytes(v Value) int64 {
	const (
		iface  = 16 // the interface value that holds it, in its parent
		header = 24 // a slice's or string's header
	)
	switch x := v.(type) {
	case nil, starlark.NoneType, starlark.Bool:
		return iface
	case starlark.Int:
		if _, ok := x.Int64(); ok {
			return iface + 16
		}
		return iface + 64 + int64(x.BigInt().BitLen()/8)
	case starlark.Float:
		return iface + 8
	case starlark.String:
		return iface + header + int64(len(x))
	case starlark.Bytes:
		return iface + header + int64(len(x))
	case starlark.Tuple:
		n := int64(iface + header + iface*len(x))
		for _, e := range x {
			n += LiveBytes(e) - iface
		}
		return n
	case *starlark.List:
		n := int64(iface + 48 + iface*x.Len())
		for i := range x.Len() {
			n += LiveBytes(x.Index(i)) - iface
		}
		return n
	case *starlark.Dict:
		return iface + hashtableBytes(x.Len()) + entriesBytes(x.Items())
	case *starlark.Set:
		n := iface + hashtableBytes(x.Len())
		it := x.Iterate()
		defer it.Done()
		var e starlark.Value
		for it.Next(&e) {
			n += LiveBytes(e) - iface
		}
		return n
	}
	return iface + 64 // an Object and the like: small
}

// hashtableBytes is what Starlark's hash table of n entries takes: the
// table (a header and its first bucket, made even when empty) and a
// bucket of eight entries (a hash, a key, a value, the insertion order's
// links) per eight entries.
func hashtableBytes(n int) int64 {
	const table, bucket = 96, 8*64 + 8
	return table + bucket*int64(1+n/8)
}

// entriesBytes is what the keys and values of a dict's items hold beyond
// the table's slots.
func entriesBytes(items []starlark.Tuple) int64 {
	var n int64
	for _, kv := range items {
		n += LiveBytes(kv[0]) - 16 + LiveBytes(kv[1]) - 16
	}
	return n
}
