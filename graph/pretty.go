package graph

import "strings"

// Pretty lays out a value printed as a Starlark literal over several lines
// when it is wider than width: the elements of a long list, tuple, dict or
// set go one per line, indented, recursively; short parts stay on one line.
func Pretty(s string, width int) string {
	var b strings.Builder
	pretty(&b, strings.TrimSpace(s), width, 0, 0)
	return b.String()
}

// pretty writes s starting at column col of a line indented indent levels.
func pretty(b *strings.Builder, s string, width, indent, col int) {
	if col+len(s) <= width {
		b.WriteString(s)
		return
	}
	open, close, prefix := -1, byte(0), ""
	switch {
	case strings.HasPrefix(s, "set(["):
		open, close, prefix = 4, ']', "set("
	default:
		if len(s) > 0 {
			switch s[0] {
			case '[':
				open, close = 0, ']'
			case '(':
				open, close = 0, ')'
			case '{':
				open, close = 0, '}'
			}
		}
	}
	if open < 0 {
		b.WriteString(s)
		return
	}
	end := matching(s, open)
	if end < 0 || s[end] != close {
		b.WriteString(s)
		return
	}
	items := splitTop(s[open+1 : end])
	b.WriteString(prefix)
	b.WriteByte(s[open])
	pad := strings.Repeat("  ", indent+1)
	for i, it := range items {
		b.WriteString("\n" + pad)
		// dict entries: keep "key: " and lay out the value
		if k := topColon(it); k >= 0 {
			b.WriteString(it[:k+2])
			pretty(b, it[k+2:], width, indent+1, len(pad)+k+2)
		} else {
			pretty(b, it, width, indent+1, len(pad))
		}
		if i < len(items)-1 {
			b.WriteByte(',')
		}
	}
	b.WriteString("\n" + strings.Repeat("  ", indent))
	b.WriteByte(s[end])
	b.WriteString(s[end+1:])
}

// scanTop walks s from index from, skipping string literals, and calls f at
// every other byte with the bracket depth after it; it returns the first
// index where f says true, or -1.
func scanTop(s string, from int, f func(j, depth int) bool) int {
	depth := 0
	for j := from; j < len(s); j++ {
		switch s[j] {
		case '"', '\'':
			j = skipString(s, j)
			continue
		case '[', '(', '{':
			depth++
		case ']', ')', '}':
			depth--
		}
		if f(j, depth) {
			return j
		}
	}
	return -1
}

// matching returns the index of the bracket closing the one at i.
func matching(s string, i int) int {
	return scanTop(s, i, func(j, depth int) bool { return depth == 0 })
}

func skipString(s string, i int) int {
	q := s[i]
	for j := i + 1; j < len(s); j++ {
		if s[j] == '\\' {
			j++
		} else if s[j] == q {
			return j
		}
	}
	return len(s) - 1
}

// splitTop splits a comma-separated list at its top level.
func splitTop(s string) []string {
	var out []string
	start := 0
	scanTop(s, 0, func(j, depth int) bool {
		if depth == 0 && s[j] == ',' {
			out = append(out, strings.TrimSpace(s[start:j]))
			start = j + 1
		}
		return false
	})
	if last := strings.TrimSpace(s[start:]); last != "" {
		out = append(out, last)
	}
	return out
}

// topColon returns the index of a top-level ": " (a dict entry), or -1.
func topColon(s string) int {
	return scanTop(s, 0, func(j, depth int) bool {
		return depth == 0 && s[j] == ':' && j+1 < len(s) && s[j+1] == ' '
	})
}
