package graph

import (
	"encoding/json"
	"testing"
)

// The hand-written encoder writes what json.MarshalIndent writes, for
// strings that need escaping, empty and missing lists, and counts.
func TestHandWrittenJSONMatchesEncodingJSON(t *testing.T) {
	odd := []string{"", "plain", `q"uote\back`, "<tag> & more", "line\nbreak\ttab\r\b\f", "\x00\x01\x1f\x7f", "bad \xff utf8 \xc3",
		"sep \u2028 \u2029 end", "é 漢字 🎉", "\u00e9\u0301"}
	for _, s := range odd {
		st := State{ID: s, Label: s, Kind: "active", Error: s, Vars: Vars{{Name: s, Value: s}, {Name: "n", Value: "1"}}, Count: len(s)}
		tr := Transition{From: s, To: s, Action: s, Args: []string{s, s}, Output: s, Kind: "observable", Label: s}
		for _, c := range []struct {
			v    any
			mine []byte
		}{
			{&st, appendStateJSON(nil, &st)},
			{&State{Vars: Vars{}}, appendStateJSON(nil, &State{})},
			{&tr, appendTransitionJSON(nil, &tr)},
			{&Transition{Args: []string{}}, appendTransitionJSON(nil, &Transition{Args: []string{}})},
			{&Transition{}, appendTransitionJSON(nil, &Transition{})},
		} {
			want, err := json.MarshalIndent(c.v, "  ", " ")
			if err != nil {
				t.Fatal(err)
			}
			if string(c.mine) != string(want) {
				t.Errorf("%q:\ngot  %s\nwant %s", s, c.mine, want)
			}
		}
	}
}

// FuzzAppendJSONString checks the string encoder against encoding/json.
func FuzzAppendJSONString(f *testing.F) {
	for _, s := range []string{"", "a<b>&c", "\x00\n\u2028", "\xff\xfe", "é"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want, _ := json.Marshal(s)
		if got := appendJSONString(nil, s); string(got) != string(want) {
			t.Errorf("%q: got %s, want %s", s, got, want)
		}
	})
}
