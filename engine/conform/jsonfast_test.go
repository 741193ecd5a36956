package conform

import (
	"bytes"
	"encoding/json"
	"math"
	"reflect"
	"testing"
)

// slowDecode is DecodeJSON without its fast path.
func slowDecode(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var x any
	err := dec.Decode(&x)
	return normalizeNumbers(x), err
}

var fastJSONSeeds = []string{
	`{"type":"result","id":7,"output":null}`,
	`{"type":"event","action":"Deliver","args":["a","héllo",[1,2.5,-0,1e400,-3e-7],{"k":true,"k":false}]}`,
	` [ ] `, `{}`, `{"a":{"b":{"c":[[[]]]}}}`, `"x\"y"`, `"tab	"`, `{"a":1} {"b":2}`, `01`, `1.`, `-`, `1e`,
	`9007199254740993`, `-9223372036854775808`, `18446744073709551616`, `1.0`, `tru`, `nul`, `[1,]`, `{"a":1,}`,
	`{"a" 1}`, "\"\xff\"", `[1 2]`, `{"a":1}}`, `0.000001`, `1E+3`,
}

// The fast decoder, when it answers, answers as encoding/json does; and
// it answers for the lines an adapter sends.
func TestFastJSONDecodes(t *testing.T) {
	for _, s := range fastJSONSeeds {
		checkFastDecode(t, []byte(s))
	}
	for _, s := range []string{`{"type":"result","id":7,"output":[1,"a"]}`, `{"type":"event","action":"M","args":["héllo",-2.5e3]}`} {
		if _, ok := decodeFast([]byte(s)); !ok {
			t.Errorf("%s: not decoded by the fast path", s)
		}
	}
	for _, s := range []string{`"x\"y"`, `{"a":1} {"b":2}`, `[1,]`, "\"\xff\""} {
		if _, ok := decodeFast([]byte(s)); ok {
			t.Errorf("%s: decoded by the fast path", s)
		}
	}
}

func checkFastDecode(t *testing.T, data []byte) {
	t.Helper()
	fast, ok := decodeFast(data)
	if !ok {
		return
	}
	slow, err := slowDecode(data)
	if err != nil {
		t.Fatalf("%q: the fast path decoded what encoding/json rejects (%v)", data, err)
	}
	if !reflect.DeepEqual(fast, slow) {
		t.Fatalf("%q: fast %#v, encoding/json %#v", data, fast, slow)
	}
}

// AppendJSON writes what json.Marshal writes.
func TestAppendJSON(t *testing.T) {
	for _, v := range []any{nil, true, "plain", "<tag>&", "tab\t", "é", 3.0, -0.0, math.Copysign(0, -1), 1e15, 1e21, 1e-7, 2.5,
		-123456789012345.0, []any{1.0, "a", []any{}, map[string]any{"b": 1.0, "a": nil}}, map[string]any{}, int64(4), []string{"x"},
		[]any(nil), []any{[]any(nil)}, 7, -12, int(^uint(0) >> 1)} {
		checkAppend(t, v)
	}
	loop := []any{1.0, nil}
	loop[1] = loop // holds itself: an error, as from json.Marshal
	if _, err := AppendJSON(nil, loop); err == nil {
		t.Error("a slice that holds itself: no error")
	}
}

func checkAppend(t *testing.T, v any) {
	t.Helper()
	want, err := json.Marshal(v)
	got, err2 := AppendJSON([]byte("prefix"), v)
	if (err == nil) != (err2 == nil) || err == nil && string(got) != "prefix"+string(want) {
		t.Fatalf("%#v: AppendJSON %q (%v), json.Marshal %q (%v)", v, got, err2, want, err)
	}
}

func FuzzFastJSON(f *testing.F) {
	for _, s := range fastJSONSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 1<<16 {
			return
		}
		checkFastDecode(t, data)
		if v, err := slowDecode(data); err == nil {
			checkAppend(t, v)
		}
		checkAppend(t, string(data))
	})
}
