package model

import (
	"testing"

	"go.starlark.net/starlark"
)

// Encoding is canonical: dict and set order do not count, list order does.
func TestCanonicalEncoding(t *testing.T) {
	d1 := starlark.NewDict(2)
	d1.SetKey(starlark.String("b"), starlark.MakeInt(2))
	d1.SetKey(starlark.String("a"), starlark.MakeInt(1))
	d2 := starlark.NewDict(2)
	d2.SetKey(starlark.String("a"), starlark.MakeInt(1))
	d2.SetKey(starlark.String("b"), starlark.MakeInt(2))
	s1 := starlark.NewSet(2)
	s1.Insert(Object{"Client", 2})
	s1.Insert(Object{"Client", 1})
	s2 := starlark.NewSet(2)
	s2.Insert(Object{"Client", 1})
	s2.Insert(Object{"Client", 2})
	l1 := starlark.NewList([]starlark.Value{starlark.MakeInt(1), starlark.MakeInt(2)})
	l2 := starlark.NewList([]starlark.Value{starlark.MakeInt(2), starlark.MakeInt(1)})
	for _, tc := range []struct {
		a, b  Value
		equal bool
	}{
		{d1, d2, true},
		{s1, s2, true},
		{l1, l2, false},
		{starlark.MakeInt(1), starlark.True, false},
		{starlark.String("x"), starlark.Bytes("x"), false},
		{starlark.Tuple{}, starlark.NewList(nil), false},
		{starlark.MakeInt(1 << 62), starlark.MakeInt(1 << 62), true},
	} {
		ka, err1 := Key(tc.a)
		kb, err2 := Key(tc.b)
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		if (ka == kb) != tc.equal {
			t.Errorf("Key(%s) == Key(%s) is %v, want %v", tc.a, tc.b, ka == kb, tc.equal)
		}
	}
	if _, err := Key(starlark.Float(1.5)); err == nil {
		t.Error("a float was accepted as a state value")
	}
}

func FuzzDecodeValue(f *testing.F) {
	big := starlark.MakeInt64(1 << 62).Mul(starlark.MakeInt64(1 << 62))
	seeds := []Value{starlark.None, starlark.True, starlark.MakeInt(-7), starlark.String("hi"),
		starlark.Tuple{starlark.MakeInt(1), Object{"Client", 3}}, starlark.NewList([]Value{starlark.Bytes("b")}), big}
	for _, v := range seeds {
		k, err := Key(v)
		if err != nil {
			f.Fatal(err)
		}
		f.Add([]byte(k))
	}
	f.Add([]byte("d\x02sa\x01isa\x02"))
	f.Fuzz(func(t *testing.T, data []byte) {
		// skip (lazy states) accepts what value accepts, and ends where it
		// ends; a thawed value encodes as the frozen one.
		ds, dv, dt := decoder{b: string(data)}, decoder{b: string(data)}, decoder{b: string(data), thaw: true}
		errSkip := ds.skip()
		fv, errVal := dv.value()
		tv, errThaw := dt.value()
		if (errThaw == nil) != (errVal == nil) {
			t.Fatalf("thawed decoding: %v, frozen: %v", errThaw, errVal)
		}
		if errVal == nil {
			if errSkip != nil || ds.pos != dv.pos {
				t.Fatalf("skip: %v at %d, value ends at %d", errSkip, ds.pos, dv.pos)
			}
			kf, _ := Key(fv)
			if kt, _ := Key(tv); kt != kf {
				t.Fatalf("thawed %q, frozen %q", kt, kf)
			}
		}
		v, err := DecodeValue(string(data))
		if err != nil {
			return
		}
		// Whatever decodes re-encodes to a canonical key that decodes to an
		// equal value.
		k, err := Key(v)
		if err != nil {
			t.Fatalf("decoded %s does not encode: %v", v, err)
		}
		w, err := DecodeValue(k)
		if err != nil {
			t.Fatalf("canonical key does not decode: %v", err)
		}
		k2, _ := Key(w)
		if k2 != k {
			t.Fatalf("not canonical: %q vs %q", k, k2)
		}
	})
}
