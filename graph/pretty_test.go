package graph

import (
	"strings"
	"testing"
)

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

// Long state labels are broken after ", " and before " | " into lines of
// at most the width where possible; joining the lines with spaces gives the
// label back.
func TestWrapLabel(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"(0, 0)", "(0, 0)"},
		{`{Client1: {Client2: []}, Client2: {Client1: ["hi"]}}`, "{Client1: {Client2: []},\nClient2: {Client1: [\"hi\"]}}"},
		{"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"},
		{"(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13)", "(1, 2, 3, 4, 5, 6, 7, 8, 9,\n10, 11, 12, 13)"},
		{"{a: 1, b: 2} | [x, y, z] | 12345678901234567890", "{a: 1, b: 2} | [x, y, z]\n| 12345678901234567890"},
		{"multi\nline label that is long, with commas, many", "multi\nline label that is long, with commas, many"},
		{"é, é, é, é, é, é, é, é, é, é", "é, é, é, é, é, é, é, é, é, é"},
	} {
		got := WrapLabel(c.in, 28)
		if got != c.want {
			t.Errorf("WrapLabel(%q) = %q, want %q", c.in, got, c.want)
		}
		if back := strings.ReplaceAll(got, "\n", " "); !strings.Contains(c.in, "\n") && back != c.in {
			t.Errorf("WrapLabel(%q): lines join to %q", c.in, back)
		}
	}
}
