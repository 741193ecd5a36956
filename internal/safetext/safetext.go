// Package safetext makes text that comes from outside Modex — a model's
// fail() messages and values, a project's and its configurations' names,
// traces and histories, an adapter's answers and a network peer's headers
// — safe to print on a terminal, to paste into a shell and to write into
// XML: nothing raw reaches a terminal or a file format.
//
// Term and TermText show the characters a terminal would act on (C0
// controls, DEL, C1 controls, the Unicode bidirectional overrides and
// isolates, bytes that are not UTF-8) as escapes in Go's notation (\x1b,
// \u202e), and leave everything else as it is. Shell quotes a word for a
// POSIX shell; XML escapes character data and attribute values, dropping
// nothing a reader would need.
package safetext

import (
	"io"
	"strings"
	"unicode/utf8"
)

const hexDigits = "0123456789abcdef"

// unsafeRune reports whether a terminal may act on r rather than show it:
// C0 controls, DEL, C1 controls, and the bidirectional embeddings,
// overrides and isolates (U+202A–U+202E, U+2066–U+2069) that reorder what
// follows them.
func unsafeRune(r rune) bool {
	return r < 0x20 || r >= 0x7f && r <= 0x9f || r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069
}

// plain reports whether s holds only printable ASCII: nothing to escape,
// for any of the escapers (the common case, checked without decoding).
func plain(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f {
			return false
		}
	}
	return true
}

// plainLines reports whether p holds only printable ASCII, line breaks
// and tabs: nothing TermText escapes.
func plainLines(p []byte) bool {
	for _, c := range p {
		if (c < 0x20 && c != '\n' && c != '\t') || c >= 0x7f {
			return false
		}
	}
	return true
}

// appendRuneEscape appends the escape of an unsafe rune: \n, \r and \t by
// name, other ASCII controls as \xNN, C1 controls and the bidi characters
// as \uNNNN (as Go's %q writes them).
func appendRuneEscape(b []byte, r rune) []byte {
	switch r {
	case '\n':
		return append(b, '\\', 'n')
	case '\r':
		return append(b, '\\', 'r')
	case '\t':
		return append(b, '\\', 't')
	}
	if r < 0x80 {
		return append(b, '\\', 'x', hexDigits[r>>4], hexDigits[r&0xf])
	}
	return append(b, '\\', 'u', hexDigits[r>>12&0xf], hexDigits[r>>8&0xf], hexDigits[r>>4&0xf], hexDigits[r&0xf])
}

// termEscape escapes s for a terminal, keeping the runes keep allows.
func termEscape(s string, keep func(rune) bool) string {
	if plain(s) {
		return s
	}
	var b []byte
	done := 0 // s[:done] is in b, or needs no escape when b is nil
	for i := 0; i < len(s); {
		r, n := rune(s[i]), 1
		if r >= utf8.RuneSelf {
			r, n = utf8.DecodeRuneInString(s[i:])
		}
		invalid := r == utf8.RuneError && n == 1
		if !invalid && (!unsafeRune(r) || keep(r)) {
			i += n
			continue
		}
		if b == nil {
			b = make([]byte, 0, len(s)+16)
		}
		b = append(b, s[done:i]...)
		if invalid {
			c := s[i]
			b = append(b, '\\', 'x', hexDigits[c>>4], hexDigits[c&0xf])
		} else {
			b = appendRuneEscape(b, r)
		}
		i += n
		done = i
	}
	if b == nil {
		return s
	}
	return string(append(b, s[done:]...))
}

func keepNone(rune) bool { return false }

func keepLayout(r rune) bool { return r == '\n' || r == '\t' }

// Term escapes a value for one line of a terminal: every control
// character, line breaks and tabs too (\n, \t, \r, \x1b), DEL (\x7f), the
// C1 controls (\u009b), the bidi overrides and isolates (\u202e, \u2066)
// and each byte that is not UTF-8 (\xff) are written as escapes; anything
// else, backslashes included, is left as it is. A name or a message so
// escaped can neither drive the terminal nor start a line of its own that
// looks like one of Modex's.
func Term(s string) string { return termEscape(s, keepNone) }

// TermText is Term for text whose line breaks and tabs are Modex's own
// layout (a multi-line report or error): it keeps \n and \t and escapes
// the rest as Term does (\r too, which would let a line overwrite itself).
func TermText(s string) string { return termEscape(s, keepLayout) }

// TermIndented is TermText for a multi-line value printed in a report
// (a crashed adapter's stderr, a model error's traceback): its lines are
// kept, the ones after the first starting with indent, so that none can
// pass for a line of the report's own, and trailing line breaks are
// dropped.
func TermIndented(s, indent string) string {
	s = TermText(strings.TrimRight(s, "\n"))
	if !strings.Contains(s, "\n") {
		return s
	}
	return strings.ReplaceAll(s, "\n", "\n"+indent)
}

// TermWriter writes to W what is written to it through TermText, call by
// call: text printed for people, whatever its values, reaches W with no
// control character but its line breaks and tabs. A rune split across two
// calls is escaped byte by byte; the writers of reports write whole
// strings.
type TermWriter struct {
	W io.Writer
}

// Write writes p, escaped, to w.W and returns len(p) when that succeeded.
func (w *TermWriter) Write(p []byte) (int, error) {
	if plainLines(p) {
		return w.W.Write(p) // nothing to escape: not copied
	}
	s := TermText(string(p))
	if _, err := io.WriteString(w.W, s); err != nil {
		return 0, err
	}
	return len(p), nil
}

// shellBare reports whether a shell takes c as it is in a word, quoted or
// not.
func shellBare(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("_./:=@%+,-", c) >= 0
}

// Shell quotes s as one word of a POSIX shell command line, to be printed
// for people to paste: bare when it holds only letters, digits and
// _./:=@%+,- (and is not empty), else in single quotes, a quote inside
// closed, escaped and opened again:
//
//	x; touch /tmp/pwned #   'x; touch /tmp/pwned #'
//	it's                    'it'\''s'
//
// A word holding a character Term would escape is written $'...' with
// those characters as \xNN bytes (and \\, \' for backslashes and quotes):
// the one form that shows them without sending them to the terminal,
// understood by bash, zsh, ksh, busybox and POSIX.1-2024 shells (not by
// dash 0.5.12, Debian 12's /bin/sh).
func Shell(s string) string {
	if s == "" {
		return "''"
	}
	bare := true
	for i := 0; i < len(s); i++ {
		if !shellBare(s[i]) {
			bare = false
			break
		}
	}
	if bare {
		return s
	}
	if Term(s) != s {
		return dollarQuote(s)
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// dollarQuote writes s as $'...' with its unsafe characters as bytes.
func dollarQuote(s string) string {
	b := make([]byte, 0, len(s)+8)
	b = append(b, '$', '\'')
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == '\\' || r == '\'':
			b = append(b, '\\', byte(r))
		case unsafeRune(r) || r == utf8.RuneError && n == 1:
			for _, c := range []byte(s[i : i+n]) {
				b = append(b, '\\', 'x', hexDigits[c>>4], hexDigits[c&0xf])
			}
		default:
			b = append(b, s[i:i+n]...)
		}
		i += n
	}
	return string(append(b, '\''))
}

// Command joins words into a command line, each quoted by Shell.
func Command(words ...string) string {
	q := make([]string, len(words))
	for i, w := range words {
		q[i] = Shell(w)
	}
	return strings.Join(q, " ")
}

// XML escapes s for XML 1.0 character data or a quoted attribute value:
// &, <, >, " and ' as entities; characters XML 1.0 does not allow (the
// controls other than tab, line feed and carriage return, U+FFFE, U+FFFF),
// and the C1 controls and bidi characters Term escapes, written as
// visible escapes (\x01, \u202e); bytes that are not UTF-8 as U+FFFD. The
// result parses with any XML reader and draws what s held.
func XML(s string) string {
	if plain(s) && !strings.ContainsAny(s, `&<>"'`) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	var esc []byte
	for i := 0; i < len(s); {
		r, n := rune(s[i]), 1
		if r >= utf8.RuneSelf {
			r, n = utf8.DecodeRuneInString(s[i:])
		}
		switch {
		case r == utf8.RuneError && n == 1:
			b.WriteRune(utf8.RuneError)
		case r == '&':
			b.WriteString("&amp;")
		case r == '<':
			b.WriteString("&lt;")
		case r == '>':
			b.WriteString("&gt;")
		case r == '"':
			b.WriteString("&#34;")
		case r == '\'':
			b.WriteString("&#39;")
		case r == '\t' || r == '\n' || r == '\r':
			b.WriteByte(byte(r))
		case unsafeRune(r) || r == 0xfffe || r == 0xffff:
			esc = appendRuneEscape(esc[:0], r)
			b.Write(esc)
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}
