package conform

import (
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/modex/modex/engine/model"
	"go.starlark.net/starlark"
)

type bigInt = big.Int

// parseEDN reads one EDN value (extensible data notation, Jepsen's history
// format) as a model value: nil, true/false, integers, floats, strings,
// keywords and symbols as their names (":read" is "read"), vectors and
// lists as lists, sets as sets, maps as dicts; "#inst" and other tags are
// read as the value they tag, "#_" discards the next value. Nothing is
// evaluated; depth and elements are bounded.
func parseEDN(text string) (model.Value, error) {
	v, rest, err := parseEDNPrefix(text)
	if err != nil {
		return nil, err
	}
	if rest != "" {
		return nil, fmt.Errorf("EDN at column %d: more after the value: %.30q", len(text)-len(rest)+1, rest)
	}
	return v, nil
}

// parseEDNPrefix reads the first EDN value of text and returns what
// follows it (spaces skipped).
func parseEDNPrefix(text string) (model.Value, string, error) {
	p := &ednParser{s: text, budget: maxLiteralElems}
	v, err := p.value(0)
	if err == nil && v == nil {
		err = p.errf("a value is missing (#_ discards the one after it)")
	}
	if err != nil {
		return nil, "", err
	}
	p.space()
	return v, p.s[p.i:], nil
}

type ednParser struct {
	s      string
	i      int
	budget int
}

func (p *ednParser) errf(format string, args ...any) error {
	return fmt.Errorf("EDN at column %d: %s", p.i+1, fmt.Sprintf(format, args...))
}

// space skips whitespace, commas and ; comments.
func (p *ednParser) space() {
	for p.i < len(p.s) {
		c := p.s[p.i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == ',':
			p.i++
		case c == ';':
			for p.i < len(p.s) && p.s[p.i] != '\n' {
				p.i++
			}
		default:
			return
		}
	}
}

// delimiter reports whether c ends a token.
func delimiter(c byte) bool {
	return strings.IndexByte(" \t\r\n,;()[]{}\"", c) >= 0
}

func (p *ednParser) value(depth int) (model.Value, error) {
	if depth > maxLiteralDepth {
		return nil, p.errf("a value nested more than %d deep", maxLiteralDepth)
	}
	if p.budget--; p.budget < 0 {
		return nil, p.errf("a value of more than %d elements", maxLiteralElems)
	}
	p.space()
	if p.i >= len(p.s) {
		return nil, p.errf("a value is missing")
	}
	switch c := p.s[p.i]; c {
	case '"':
		return p.str()
	case '[', '(':
		close := byte(']')
		if c == '(' {
			close = ')'
		}
		p.i++
		elems, err := p.seq(close, depth)
		if err != nil {
			return nil, err
		}
		return starlark.NewList(elems), nil
	case '{':
		p.i++
		return p.dict(depth)
	case '#':
		return p.dispatch(depth)
	case ')', ']', '}':
		return nil, p.errf("unexpected %q", c)
	case '\\':
		return p.char()
	}
	return p.atom()
}

// seq reads elements up to close.
func (p *ednParser) seq(close byte, depth int) ([]starlark.Value, error) {
	var elems []starlark.Value
	for {
		p.space()
		if p.i >= len(p.s) {
			return nil, p.errf("%q is missing", close)
		}
		if p.s[p.i] == close {
			p.i++
			return elems, nil
		}
		v, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		if v != nil { // nil: a discarded value (#_)
			elems = append(elems, v)
		}
	}
}

func (p *ednParser) dict(depth int) (model.Value, error) {
	elems, err := p.seq('}', depth)
	if err != nil {
		return nil, err
	}
	if len(elems)%2 != 0 {
		return nil, p.errf("a map with a key and no value")
	}
	d := starlark.NewDict(len(elems) / 2)
	for k := 0; k < len(elems); k += 2 {
		if err := d.SetKey(elems[k], elems[k+1]); err != nil {
			return nil, p.errf("map key %s: %v", elems[k], err)
		}
	}
	return d, nil
}

// dispatch reads #{set}, #_ discard and #tag value.
func (p *ednParser) dispatch(depth int) (model.Value, error) {
	p.i++
	if p.i >= len(p.s) {
		return nil, p.errf("# at the end")
	}
	switch p.s[p.i] {
	case '{':
		p.i++
		elems, err := p.seq('}', depth)
		if err != nil {
			return nil, err
		}
		set := starlark.NewSet(len(elems))
		for _, e := range elems {
			if err := set.Insert(e); err != nil {
				return nil, p.errf("set element %s: %v", e, err)
			}
		}
		return set, nil
	case '_':
		p.i++
		if _, err := p.value(depth + 1); err != nil {
			return nil, err
		}
		return nil, nil
	case '#':
		// EDN's symbolic values: ##Inf, ##-Inf, ##NaN.
		start := p.i + 1
		for p.i++; p.i < len(p.s) && !delimiter(p.s[p.i]); p.i++ {
		}
		switch p.s[start:p.i] {
		case "Inf":
			return starlark.Float(math.Inf(1)), nil
		case "-Inf":
			return starlark.Float(math.Inf(-1)), nil
		case "NaN":
			return starlark.Float(math.NaN()), nil
		}
		return nil, p.errf("unknown symbolic value ##%s (want ##Inf, ##-Inf or ##NaN)", p.s[start:p.i])
	}
	start := p.i
	for p.i < len(p.s) && !delimiter(p.s[p.i]) {
		p.i++
	}
	if p.i == start {
		return nil, p.errf("a tag is missing after #")
	}
	v, err := p.value(depth + 1) // the tagged value itself (#inst "…" is its string)
	if err == nil && v == nil {
		err = p.errf("a tagged value is missing")
	}
	return v, err
}

func (p *ednParser) str() (model.Value, error) {
	start := p.i
	p.i++
	var b strings.Builder
	for p.i < len(p.s) {
		c := p.s[p.i]
		switch c {
		case '"':
			p.i++
			return starlark.String(b.String()), nil
		case '\\':
			if p.i+1 >= len(p.s) {
				return nil, p.errf("a string ends in \\")
			}
			p.i++
			switch e := p.s[p.i]; e {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case 'r':
				b.WriteByte('\r')
			case '"', '\\':
				b.WriteByte(e)
			case 'u':
				if p.i+4 >= len(p.s) {
					return nil, p.errf("a short \\u escape")
				}
				n, err := strconv.ParseUint(p.s[p.i+1:p.i+5], 16, 32)
				if err != nil {
					return nil, p.errf("a bad \\u escape")
				}
				b.WriteRune(rune(n))
				p.i += 4
			default:
				return nil, p.errf("unknown escape \\%c", e)
			}
			p.i++
		default:
			b.WriteByte(c)
			p.i++
		}
	}
	p.i = start
	return nil, p.errf("a string with no closing quote")
}

// char reads a character literal (\a, \newline, \space) as a string.
func (p *ednParser) char() (model.Value, error) {
	p.i++
	start := p.i
	if p.i < len(p.s) {
		_, n := utf8.DecodeRuneInString(p.s[p.i:])
		p.i += n
	}
	for p.i < len(p.s) && !delimiter(p.s[p.i]) {
		p.i++
	}
	switch name := p.s[start:p.i]; name {
	case "":
		return nil, p.errf("a character is missing after \\")
	case "newline":
		return starlark.String("\n"), nil
	case "space":
		return starlark.String(" "), nil
	case "tab":
		return starlark.String("\t"), nil
	default:
		return starlark.String(name), nil
	}
}

// atom reads nil, booleans, numbers, keywords and symbols.
func (p *ednParser) atom() (model.Value, error) {
	start := p.i
	for p.i < len(p.s) && !delimiter(p.s[p.i]) {
		p.i++
	}
	tok := p.s[start:p.i]
	switch tok {
	case "nil":
		return starlark.None, nil
	case "true":
		return starlark.True, nil
	case "false":
		return starlark.False, nil
	}
	if strings.HasPrefix(tok, ":") {
		if len(tok) == 1 {
			return nil, p.errf("a keyword with no name")
		}
		return starlark.String(tok[1:]), nil
	}
	c := tok[0]
	if c >= '0' && c <= '9' || (c == '-' || c == '+') && len(tok) > 1 && tok[1] >= '0' && tok[1] <= '9' {
		num := strings.TrimSuffix(strings.TrimSuffix(tok, "N"), "M") // EDN's big-number suffixes
		v, err := numberValue(num)
		if err != nil {
			p.i = start
			return nil, p.errf("%v", err)
		}
		return v, nil
	}
	return starlark.String(tok), nil // a symbol
}
