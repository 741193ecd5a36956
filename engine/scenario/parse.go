// Package scenario composes a model with scenarios (issue 56, seed 002's
// scenario control): regular expressions over action patterns, and
// scenario machines written as small Starlark models. The product is made
// by model.StarModel.Compose; this package parses and runs the scenarios.
package scenario

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/modex/modex/engine/model"
)

// MaxSource bounds a regular scenario's text, MaxStates its automaton
// (bounded repetitions copy what they repeat).
const (
	MaxSource = 64 << 10
	MaxStates = 100_000
	maxDepth  = 200
	maxRepeat = 1000
)

// node is a regular expression's syntax tree.
type node struct {
	kind     nodeKind
	pat      int // nPat: index in patterns
	kids     []*node
	min, max int // nRep; max < 0: no bound
}

type nodeKind int

const (
	nPat nodeKind = iota
	nSeq
	nAlt
	nRep
)

// parser reads a regular expression over action patterns.
type parser struct {
	src      string
	at       model.Pos // where src's first character stands
	i        int
	depth    int
	info     *model.ModelInfo
	patterns []*pattern
}

// pos returns the position of byte offset off of the source.
func (p *parser) pos(off int) model.Pos {
	line, col := p.at.Line, p.at.Col
	for _, c := range p.src[:min(off, len(p.src))] {
		if c == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	return model.Pos{File: p.at.File, Line: line, Col: col}
}

func (p *parser) errAt(off int, format string, args ...any) error {
	return &model.PosError{Pos: p.pos(off), Msg: "scenario: " + fmt.Sprintf(format, args...)}
}

// skip passes spaces, newlines and # comments.
func (p *parser) skip() {
	for p.i < len(p.src) {
		switch c := p.src[p.i]; {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			p.i++
		case c == '#':
			for p.i < len(p.src) && p.src[p.i] != '\n' {
				p.i++
			}
		default:
			return
		}
	}
}

func (p *parser) peek() byte {
	p.skip()
	if p.i < len(p.src) {
		return p.src[p.i]
	}
	return 0
}

// alt := seq ('|' seq)*
func (p *parser) alt() (*node, error) {
	if p.depth++; p.depth > maxDepth {
		return nil, p.errAt(p.i, "nested more than %d deep", maxDepth)
	}
	defer func() { p.depth-- }()
	n, err := p.seq()
	if err != nil {
		return nil, err
	}
	alts := []*node{n}
	for p.peek() == '|' {
		p.i++
		n, err := p.seq()
		if err != nil {
			return nil, err
		}
		alts = append(alts, n)
	}
	if len(alts) == 1 {
		return alts[0], nil
	}
	return &node{kind: nAlt, kids: alts}, nil
}

// seq := post (';' post)*
func (p *parser) seq() (*node, error) {
	n, err := p.post()
	if err != nil {
		return nil, err
	}
	seq := []*node{n}
	for p.peek() == ';' {
		p.i++
		n, err := p.post()
		if err != nil {
			return nil, err
		}
		seq = append(seq, n)
	}
	if len(seq) == 1 {
		return seq[0], nil
	}
	return &node{kind: nSeq, kids: seq}, nil
}

// post := atom ('*' | '+' | '?' | '{n}' | '{n,}' | '{n,m}')*
func (p *parser) post() (*node, error) {
	n, err := p.atom()
	if err != nil {
		return nil, err
	}
	for {
		switch p.peek() {
		case '*':
			n = &node{kind: nRep, kids: []*node{n}, min: 0, max: -1}
		case '+':
			n = &node{kind: nRep, kids: []*node{n}, min: 1, max: -1}
		case '?':
			n = &node{kind: nRep, kids: []*node{n}, min: 0, max: 1}
		case '{':
			lo, hi, err := p.bounds()
			if err != nil {
				return nil, err
			}
			n = &node{kind: nRep, kids: []*node{n}, min: lo, max: hi}
			continue
		default:
			return n, nil
		}
		p.i++
	}
}

// bounds reads {n}, {n,} or {n,m}.
func (p *parser) bounds() (lo, hi int, err error) {
	start := p.i
	p.i++ // {
	num := func() (int, bool) {
		p.skip()
		j := p.i
		for p.i < len(p.src) && p.src[p.i] >= '0' && p.src[p.i] <= '9' {
			p.i++
		}
		if j == p.i {
			return 0, false
		}
		v, err := strconv.Atoi(p.src[j:p.i])
		return v, err == nil && v <= maxRepeat
	}
	lo, ok := num()
	if !ok {
		return 0, 0, p.errAt(start, "a repetition is {n}, {n,} or {n,m} with numbers up to %d", maxRepeat)
	}
	hi = lo
	if p.peek() == ',' {
		p.i++
		if p.peek() == '}' {
			hi = -1
		} else if hi, ok = num(); !ok {
			return 0, 0, p.errAt(start, "a repetition is {n}, {n,} or {n,m} with numbers up to %d", maxRepeat)
		}
	}
	if p.peek() != '}' {
		return 0, 0, p.errAt(p.i, "expected } to end the repetition")
	}
	p.i++
	if hi >= 0 && hi < lo {
		return 0, 0, p.errAt(start, "repetition {%d,%d}: the most is less than the least", lo, hi)
	}
	return lo, hi, nil
}

// atom := '(' alt ')' | pattern
func (p *parser) atom() (*node, error) {
	switch c := p.peek(); {
	case c == '(':
		open := p.i
		p.i++
		n, err := p.alt()
		if err != nil {
			return nil, err
		}
		if p.peek() != ')' {
			return nil, p.errAt(open, "this ( is not closed")
		}
		p.i++
		return n, nil
	case c == '?' || isIdentStart(c):
		pat, err := p.pattern()
		if err != nil {
			return nil, err
		}
		p.patterns = append(p.patterns, pat)
		return &node{kind: nPat, pat: len(p.patterns) - 1}, nil
	case c == 0:
		return nil, p.errAt(p.i, "expected an action pattern, found the end")
	default:
		return nil, p.errAt(p.i, "expected an action pattern or (, found %q", c)
	}
}

func isIdentStart(c byte) bool {
	return c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

func isIdent(c byte) bool { return isIdentStart(c) || '0' <= c && c <= '9' }

// ident reads an identifier at p.i.
func (p *parser) ident() string {
	j := p.i
	for p.i < len(p.src) && isIdent(p.src[p.i]) {
		p.i++
	}
	return p.src[j:p.i]
}

// literalEnd returns the end of the value literal starting at i: a quoted
// string, a bracketed tuple or list, or a run of identifier characters
// (numbers, names, a leading minus).
func literalEnd(src string, i int) int {
	if i >= len(src) {
		return i
	}
	switch c := src[i]; c {
	case '"', '\'':
		for j := i + 1; j < len(src); j++ {
			if src[j] == '\\' {
				j++
			} else if src[j] == c {
				return j + 1
			}
		}
		return len(src)
	case '(', '[':
		return closing(src, i)
	}
	j := i
	if src[j] == '-' {
		j++
	}
	for j < len(src) && (isIdent(src[j]) || src[j] == '.') {
		j++
	}
	return j
}

// closing returns the offset just after the bracket that closes the one at
// i (quotes respected), or len(src).
func closing(src string, i int) int {
	depth := 0
	for j := i; j < len(src); j++ {
		switch src[j] {
		case '"', '\'':
			j = literalEnd(src, j) - 1
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			if depth--; depth == 0 {
				return j + 1
			}
		}
	}
	return len(src)
}

// splitArgs splits an argument list's text at its top-level commas,
// returning each argument's offset and text.
func splitArgs(src string, off int) (offs []int, args []string) {
	if strings.TrimSpace(src) == "" {
		return nil, nil
	}
	start := 0
	for j := 0; j < len(src); j++ {
		switch src[j] {
		case '"', '\'':
			j = literalEnd(src, j) - 1
		case '(', '[', '{':
			j = closing(src, j) - 1
		case ',':
			offs, args = append(offs, off+start), append(args, src[start:j])
			start = j + 1
		}
	}
	return append(offs, off+start), append(args, src[start:])
}
