package conform

import (
	"encoding/json"
	"math"
	"strconv"
	"unicode/utf8"
)

// The adapter protocol sends a JSON line per step, and a step over a
// child's pipes costs a few tens of microseconds: encoding/json's
// reflection and its Decoder were a fifth of it. The fast paths below
// handle the common documents directly and hand anything unusual
// (escapes, deep nesting, trailing text, types they do not know) to
// encoding/json, so their results are encoding/json's, byte for byte;
// FuzzFastJSON checks that.

// maxFastDepth bounds the fast decoder's nesting; deeper documents go to
// encoding/json, which has bounds of its own.
const maxFastDepth = 64

// decodeFast decodes data as DecodeJSON would, or says it cannot.
func decodeFast(data []byte) (any, bool) {
	p := fastParser{data: data}
	v, ok := p.value(0)
	if !ok {
		return nil, false
	}
	p.space()
	return v, p.pos == len(data)
}

type fastParser struct {
	data []byte
	pos  int
}

func (p *fastParser) space() {
	for p.pos < len(p.data) {
		switch p.data[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return
		}
	}
}

func (p *fastParser) value(depth int) (any, bool) {
	p.space()
	if p.pos >= len(p.data) || depth > maxFastDepth {
		return nil, false
	}
	switch c := p.data[p.pos]; {
	case c == '{':
		return p.object(depth)
	case c == '[':
		return p.array(depth)
	case c == '"':
		s, ok := p.str()
		return s, ok
	case c == '-' || c >= '0' && c <= '9':
		return p.number()
	}
	for _, lit := range [...]struct {
		text string
		v    any
	}{{"true", true}, {"false", false}, {"null", nil}} {
		if len(p.data)-p.pos >= len(lit.text) && string(p.data[p.pos:p.pos+len(lit.text)]) == lit.text {
			p.pos += len(lit.text)
			return lit.v, true
		}
	}
	return nil, false
}

func (p *fastParser) object(depth int) (any, bool) {
	p.pos++ // '{'
	m := make(map[string]any)
	p.space()
	if p.pos < len(p.data) && p.data[p.pos] == '}' {
		p.pos++
		return m, true
	}
	for {
		p.space()
		if p.pos >= len(p.data) || p.data[p.pos] != '"' {
			return nil, false
		}
		k, ok := p.str()
		if !ok {
			return nil, false
		}
		p.space()
		if p.pos >= len(p.data) || p.data[p.pos] != ':' {
			return nil, false
		}
		p.pos++
		v, ok := p.value(depth + 1)
		if !ok {
			return nil, false
		}
		m[k] = v
		if more, ok := p.next('}'); !more {
			return m, ok
		}
	}
}

// next consumes a ',' (another element follows) or the closing byte
// (the end); ok is false for anything else.
func (p *fastParser) next(closing byte) (more, ok bool) {
	p.space()
	if p.pos < len(p.data) {
		c := p.data[p.pos]
		p.pos++
		return c == ',', c == ',' || c == closing
	}
	return false, false
}

func (p *fastParser) array(depth int) (any, bool) {
	p.pos++ // '['
	a := make([]any, 0)
	p.space()
	if p.pos < len(p.data) && p.data[p.pos] == ']' {
		p.pos++
		return a, true
	}
	for {
		v, ok := p.value(depth + 1)
		if !ok {
			return nil, false
		}
		a = append(a, v)
		if more, ok := p.next(']'); !more {
			return a, ok
		}
	}
}

// str reads a string without escapes or control bytes, valid UTF-8: the
// bytes are the string. Anything else is left to encoding/json.
func (p *fastParser) str() (string, bool) {
	start := p.pos + 1
	ascii := true
	for i := start; i < len(p.data); i++ {
		switch c := p.data[i]; {
		case c == '"':
			s := p.data[start:i]
			if !ascii && !utf8.Valid(s) {
				return "", false
			}
			p.pos = i + 1
			return string(s), true
		case c == '\\' || c < 0x20:
			return "", false
		case c >= utf8.RuneSelf:
			ascii = false
		}
	}
	return "", false
}

// number reads a number by JSON's grammar, valued as normalizeNumbers
// values a json.Number: an int64 when it is one, else the nearest float.
func (p *fastParser) number() (any, bool) {
	d, start := p.data, p.pos
	i := start
	if d[i] == '-' {
		i++
	}
	digits := func() int {
		n := 0
		for i < len(d) && d[i] >= '0' && d[i] <= '9' {
			i++
			n++
		}
		return n
	}
	switch {
	case i < len(d) && d[i] == '0':
		i++
	case digits() == 0:
		return nil, false
	}
	if i < len(d) && d[i] == '.' {
		i++
		if digits() == 0 {
			return nil, false
		}
	}
	if i < len(d) && (d[i] == 'e' || d[i] == 'E') {
		i++
		if i < len(d) && (d[i] == '+' || d[i] == '-') {
			i++
		}
		if digits() == 0 {
			return nil, false
		}
	}
	p.pos = i
	lit := string(d[start:i])
	if n, err := strconv.ParseInt(lit, 10, 64); err == nil {
		return float64(n), true
	}
	f, _ := strconv.ParseFloat(lit, 64)
	return f, true
}

// AppendJSON appends v as json.Marshal would write it; values of types
// the fast path does not cover, and strings needing escapes, are
// marshalled by encoding/json.
func AppendJSON(b []byte, v any) ([]byte, error) {
	return appendJSON(b, v, 0)
}

// appendJSON is AppendJSON at a depth: deeper than maxFastDepth (a slice
// that holds itself) encoding/json takes over, and reports the cycle.
func appendJSON(b []byte, v any, depth int) ([]byte, error) {
	if depth > maxFastDepth {
		data, err := json.Marshal(v)
		return append(b, data...), err
	}
	switch x := v.(type) {
	case nil:
		return append(b, "null"...), nil
	case bool:
		return strconv.AppendBool(b, x), nil
	case int:
		return strconv.AppendInt(b, int64(x), 10), nil
	case string:
		if plainString(x) {
			b = append(b, '"')
			b = append(b, x...)
			return append(b, '"'), nil
		}
	case float64:
		if x == math.Trunc(x) && math.Abs(x) < 1e15 && !(x == 0 && math.Signbit(x)) {
			return strconv.AppendInt(b, int64(x), 10), nil
		}
	case []any:
		if x == nil {
			return append(b, "null"...), nil
		}
		b = append(b, '[')
		for i, e := range x {
			if i > 0 {
				b = append(b, ',')
			}
			var err error
			if b, err = appendJSON(b, e, depth+1); err != nil {
				return b, err
			}
		}
		return append(b, ']'), nil
	}
	data, err := json.Marshal(v)
	return append(b, data...), err
}

// plainString says whether json.Marshal writes s as its bytes in quotes.
func plainString(s string) bool {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c < 0x20 || c >= utf8.RuneSelf, c == '"', c == '\\', c == '<', c == '>', c == '&':
			return false
		}
	}
	return true
}
