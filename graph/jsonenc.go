package graph

import (
	"strconv"
	"unicode/utf8"
)

// The graph's JSON elements are written by hand, byte for byte as
// json.MarshalIndent (prefix "  ", indent " ") writes them inside
// WriteJSON's document, without reflection: exporting a big graph is
// dominated by this encoding.

// appendStateJSON appends a state as an element of "states".
func appendStateJSON(b []byte, s *State) []byte {
	b = append(b, "{\n   \"id\": "...)
	b = appendJSONString(b, s.ID)
	b = append(b, ",\n   \"label\": "...)
	b = appendJSONString(b, s.Label)
	b = append(b, ",\n   \"initial\": "...)
	b = strconv.AppendBool(b, s.Initial)
	b = append(b, ",\n   \"accepting\": "...)
	b = strconv.AppendBool(b, s.Accepting)
	b = append(b, ",\n   \"kind\": "...)
	b = appendJSONString(b, s.Kind)
	b = append(b, ",\n   \"error\": "...)
	b = appendJSONString(b, s.Error)
	b = append(b, ",\n   \"frontier\": "...)
	b = strconv.AppendBool(b, s.Frontier)
	b = append(b, ",\n   \"vars\": {"...)
	for i, v := range s.Vars {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, "\n    "...)
		b = appendJSONString(b, v.Name)
		b = append(b, ": "...)
		b = appendJSONString(b, v.Value)
	}
	if len(s.Vars) > 0 {
		b = append(b, "\n   "...)
	}
	b = append(b, '}')
	if s.Count != 0 {
		b = append(b, ",\n   \"count\": "...)
		b = strconv.AppendInt(b, int64(s.Count), 10)
	}
	return append(b, "\n  }"...)
}

// appendTransitionJSON appends a transition as an element of
// "transitions".
func appendTransitionJSON(b []byte, t *Transition) []byte {
	b = append(b, "{\n   \"from\": "...)
	b = appendJSONString(b, t.From)
	b = append(b, ",\n   \"to\": "...)
	b = appendJSONString(b, t.To)
	b = append(b, ",\n   \"action\": "...)
	b = appendJSONString(b, t.Action)
	b = append(b, ",\n   \"args\": "...)
	switch {
	case t.Args == nil:
		b = append(b, "null"...)
	case len(t.Args) == 0:
		b = append(b, "[]"...)
	default:
		b = append(b, '[')
		for i, a := range t.Args {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, "\n    "...)
			b = appendJSONString(b, a)
		}
		b = append(b, "\n   ]"...)
	}
	b = append(b, ",\n   \"output\": "...)
	b = appendJSONString(b, t.Output)
	b = append(b, ",\n   \"kind\": "...)
	b = appendJSONString(b, t.Kind)
	b = append(b, ",\n   \"label\": "...)
	b = appendJSONString(b, t.Label)
	return append(b, "\n  }"...)
}

const hexDigits = "0123456789abcdef"

// appendJSONString appends s as encoding/json writes a string: quoted,
// with <, > and & escaped for HTML, control characters as \n-style or
// \u00XX escapes, invalid UTF-8 as \ufffd, and U+2028 and U+2029 escaped.
func appendJSONString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '\\', '"':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
