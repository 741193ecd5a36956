package adapter

import (
	"encoding/json"
	"math"
	"testing"
)

// A request line is what json.Marshal writes for it, or its error.
func TestAppendRequest(t *testing.T) {
	for _, msg := range []map[string]any{
		{"type": "invoke", "action": "Push", "args": []any{1.0, "<x>", []any{true, nil}}, "id": 7},
		{"type": "hello", "protocol": "modex/1", "model": "chat \"room\"", "id": 1},
		{"type": "invoke", "action": "Put", "args": []any{map[string]any{"b": 2.5, "a": []any{}}}, "id": -3},
		{"type": "invoke", "action": "Bad", "args": []any{math.NaN()}, "id": 2},
		{},
	} {
		want, err := json.Marshal(msg)
		got, err2 := appendRequest([]byte("x"), msg)
		if (err == nil) != (err2 == nil) || err == nil && string(got) != "x"+string(want) {
			t.Errorf("%v: %q (%v), json.Marshal %q (%v)", msg, got, err2, want, err)
		}
	}
}
