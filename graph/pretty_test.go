package graph

import "testing"

func TestPretty(t *testing.T) {
	for _, tc := range []struct {
		in    string
		width int
		want  string
	}{
		{"[1, 2]", 40, "[1, 2]"},
		{`{Client1: {Client2: ["hi", "bye"]}, Client2: {Client1: []}}`, 40,
			"{\n  Client1: {Client2: [\"hi\", \"bye\"]},\n  Client2: {Client1: []}\n}"},
		{`["a, b", "c"]`, 5, "[\n  \"a, b\",\n  \"c\"\n]"},
		{`set([("Flowers",), ("Perfume",)])`, 20, "set([\n  (\"Flowers\",),\n  (\"Perfume\",)\n])"},
		{`"a very long string that cannot break"`, 10, `"a very long string that cannot break"`},
	} {
		if got := Pretty(tc.in, tc.width); got != tc.want {
			t.Errorf("Pretty(%s, %d) =\n%s\nwant\n%s", tc.in, tc.width, got, tc.want)
		}
	}
}

func FuzzPretty(f *testing.F) {
	f.Add(`{Client1: {Client2: ["hi", "bye"]}, Client2: {Client1: []}}`, 10)
	f.Add(`set([("a",)])`, 3)
	f.Add(`["\"]", ")"]`, 2)
	f.Fuzz(func(t *testing.T, s string, w int) {
		Pretty(s, w%100) // must not panic or loop
	})
}
