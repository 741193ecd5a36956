package model

import (
	"bytes"
	"math/rand"
	"testing"

	"go.starlark.net/starlark"
)

// randValue builds a random state value: scalars, and tuples, lists, dicts
// and sets of them nested up to depth levels, dicts and sets filled in a
// random order.
func randValue(r *rand.Rand, depth int, hashable bool) Value {
	k := r.Intn(12)
	if depth == 0 || hashable && k >= 8 && k != 8 {
		k = r.Intn(7)
	}
	switch k {
	case 0:
		return starlark.MakeInt(r.Intn(200) - 100)
	case 1:
		return starlark.MakeInt64(r.Int63() << 1) // past a small int; big past 2^63
	case 2:
		return starlark.String([]string{"", "a", "req", "ack", "zz"}[r.Intn(5)])
	case 3:
		return starlark.Bool(r.Intn(2) == 0)
	case 4:
		return starlark.None
	case 5:
		return Object{Kind: "Client", N: r.Intn(4)}
	case 6:
		return starlark.Bytes("b")
	case 7, 8:
		t := make(starlark.Tuple, r.Intn(4))
		for i := range t {
			t[i] = randValue(r, depth-1, hashable)
		}
		return t
	case 9:
		l := make([]Value, r.Intn(4))
		for i := range l {
			l[i] = randValue(r, depth-1, false)
		}
		return starlark.NewList(l)
	case 10:
		d := starlark.NewDict(4)
		for i := r.Intn(6); i > 0; i-- {
			_ = d.SetKey(randValue(r, depth-1, true), randValue(r, depth-1, false))
		}
		return d
	}
	s := starlark.NewSet(4)
	for i := r.Intn(6); i > 0; i-- {
		_ = s.Insert(randValue(r, depth-1, true))
	}
	return s
}

// The in-place encoder writes exactly what the path-naming one writes, for
// values frozen or not, and the encoding decodes back to an equal value.
func TestFastEncodingMatches(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	for i := 0; i < 20000; i++ {
		v := randValue(r, 4, false)
		if i%2 == 0 {
			v.Freeze()
		}
		slow, err := appendValue([]byte("prefix"), v, "v", 0)
		if err != nil {
			t.Fatal(err)
		}
		fast, err := AppendValuePath([]byte("prefix"), v, "v")
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(slow, fast) {
			t.Fatalf("%s:\nslow %q\nfast %q", v, slow, fast)
		}
		back, err := DecodeValue(string(fast[len("prefix"):]))
		if err != nil {
			t.Fatal(err)
		}
		if eq, err := starlark.Equal(back, v); err != nil || !eq {
			t.Fatalf("%s decoded as %s", v, back)
		}
	}
}

// A value the encoder cannot take is named by where it stands, as before.
func TestFastEncodingErrors(t *testing.T) {
	d := starlark.NewDict(1)
	_ = d.SetKey(starlark.MakeInt(1), starlark.NewList([]Value{starlark.MakeInt(2), starlark.Float(1.5)}))
	_, err := AppendValuePath(nil, d, "net")
	if err == nil || err.Error() != (&UnsupportedValueError{Path: "net[1][1]", Type: "float"}).Error() {
		t.Fatalf("got %v", err)
	}
	l := starlark.NewList(nil)
	_ = l.Append(l)
	if _, err := AppendValuePath(nil, l, "loop"); err == nil {
		t.Fatal("a list that contains itself encoded")
	}
}
