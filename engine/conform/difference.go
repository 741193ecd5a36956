package conform

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// diffContext is how much of each value FirstDifference shows on either
// side of where they part.
const diffContext = 24

// FirstDifference says where two printed values first differ, with a
// little of each around that point: long values are cut when shown, and
// the difference may lie past the cut. "" when they are equal.
func FirstDifference(seen, want string) string {
	if seen == want {
		return ""
	}
	i := 0
	for i < len(seen) && i < len(want) && seen[i] == want[i] {
		i++
	}
	for i > 0 && (i < len(seen) && !utf8.RuneStart(seen[i]) || i < len(want) && !utf8.RuneStart(want[i])) {
		i--
	}
	return fmt.Sprintf("they part at character %d: %s where the model has %s", utf8.RuneCountInString(seen[:i])+1,
		around(seen, i), around(want, i))
}

// around is s from diffContext runes before i to diffContext after, with
// ellipses where it is cut ("(end)" when s ends at i).
func around(s string, i int) string {
	start := i
	for n := 0; start > 0 && n < diffContext; n++ {
		_, w := utf8.DecodeLastRuneInString(s[:start])
		start -= w
	}
	end := i
	for n := 0; end < len(s) && n < diffContext; n++ {
		_, w := utf8.DecodeRuneInString(s[end:])
		end += w
	}
	var b strings.Builder
	if start > 0 {
		b.WriteString("…")
	}
	b.WriteString(s[start:i])
	if i == len(s) {
		b.WriteString("(end)")
	} else {
		b.WriteString("⟨" + s[i:end])
	}
	if end < len(s) {
		b.WriteString("…")
	}
	return b.String()
}
