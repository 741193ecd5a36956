package conform

import (
	"bufio"
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"math/big"
	"os"
	"regexp"
	"strconv"
	"strings"

	"github.com/modex/modex/engine/model"
	"go.starlark.net/starlark"
	"go.starlark.net/syntax"
)

// Attr is one attribute of a recorded event, in file order.
type Attr struct {
	Key   string
	Value string
	// Typed is the value of a JSON-lines attribute that is an array or an
	// object, read as a model value (a list, a dict); nil for the others,
	// whose Value is read as the mapping says.
	Typed model.Value
}

// Record is one event of a recorded trace.
type Record struct {
	Name  string
	Attrs []Attr        // XML and JSON-lines traces
	Args  []model.Value // plain traces: the inputs, in order
	// Output is the recorded output of a plain-trace line Name(...)/out.
	Output    model.Value
	HasOutput bool
	Line      int // 1-based line in the trace file
	// Run is the run a record of a Modex step log belongs to (SplitRuns);
	// 0 in other traces.
	Run int
	// skip marks a line that is no event (a step log's timeout).
	skip bool
}

// Attr returns the value of an attribute and whether it is present.
func (r *Record) Attr(key string) (string, bool) {
	for _, a := range r.Attrs {
		if a.Key == key {
			return a.Value, true
		}
	}
	return "", false
}

// String prints the record as in its trace: name(attr=value, ...) or
// Name(args)/output.
func (r *Record) String() string {
	var parts []string
	if r.Attrs != nil {
		for _, a := range r.Attrs {
			parts = append(parts, a.Key+"="+strconv.Quote(a.Value))
		}
	} else {
		for _, a := range r.Args {
			parts = append(parts, model.Format(a))
		}
	}
	s := r.Name + "(" + strings.Join(parts, ", ") + ")"
	if r.HasOutput {
		s += "/" + model.Format(r.Output)
	}
	return s
}

// TraceError is a malformed trace, with the line.
type TraceError struct {
	File string
	Line int
	Msg  string
}

// Error prints file:line: message.
func (e *TraceError) Error() string { return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg) }

// ParseTrace reads a trace, detecting its format: XML (one element per
// event, seed 004 Figure 5.4), JSON lines ({"event": name, attributes...})
// or plain lines (Name(arg, ...) or Name(arg, ...)/output, Starlark
// literals; objects such as Client1 are read as objects). Blank lines and
// lines starting with # are skipped in the line formats.
func ParseTrace(file string, data []byte) ([]Record, error) {
	tr := NewTraceReader(file, bytes.NewReader(data))
	out := []Record{}
	for {
		r, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
}

// TraceReader reads a recorded trace one event at a time, so that a trace
// of any length is replayed in bounded memory.
type TraceReader interface {
	// Next returns the next record, or io.EOF after the last.
	Next() (Record, error)
}

// NewTraceReader reads a trace from r in the format its first non-blank
// byte tells (see ParseTrace); file names it in errors.
func NewTraceReader(file string, r io.Reader) TraceReader {
	br := bufio.NewReaderSize(r, 1<<16)
	if bom, _ := br.Peek(3); bytes.Equal(bom, utf8BOM) {
		br.Discard(3) // a byte-order mark some editors write
	}
	first := byte(0)
	for n := 1; n <= 1<<16; n *= 2 {
		buf, _ := br.Peek(n)
		if t := bytes.TrimLeft(buf, " \t\r\n"); len(t) > 0 {
			first = t[0]
			break
		}
		if len(buf) < n {
			break // the whole input is blank
		}
	}
	switch first {
	case '<':
		bx := &boundedXML{r: br, max: MaxXMLToken, line: 1}
		return &xmlTrace{file: file, dec: xml.NewDecoder(bx), bx: bx}
	case '{':
		return newLineTrace(file, br, parseJSONRecord)
	}
	return newLineTrace(file, br, parsePlainRecord)
}

// utf8BOM is the byte-order mark some editors put at a UTF-8 file's start.
var utf8BOM = []byte{0xef, 0xbb, 0xbf}

// OpenTrace opens a trace file for reading (a regular file of at most
// MaxTraceSize bytes); close it after.
func OpenTrace(path string) (TraceReader, io.Closer, error) {
	f, err := openRecorded(path)
	if err != nil {
		return nil, nil, err
	}
	return NewTraceReader(path, io.LimitReader(f, MaxTraceSize)), f, nil
}

// openRecorded opens a recorded trace or history: a regular file of at most
// MaxTraceSize bytes.
func openRecorded(path string) (*os.File, error) {
	// Checked before opening: opening a named pipe blocks until a writer
	// comes, for ever if none does.
	if st, err := os.Stat(path); err != nil {
		return nil, err
	} else if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", path)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err == nil && !st.Mode().IsRegular() {
		err = fmt.Errorf("%s is not a regular file", path)
	}
	if err == nil && st.Size() > MaxTraceSize {
		err = fmt.Errorf("%s is larger than %d MiB", path, MaxTraceSize>>20)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// xmlTrace reads events as flat elements inside one root element.
type xmlTrace struct {
	file  string
	dec   *xml.Decoder
	depth int
	bx    *boundedXML
}

// MaxXMLToken bounds a tag (an event element with its attributes) or a run
// of text in an XML trace: the XML decoder holds a token whole, several
// times over, so a 400 MB attribute would take gigabytes.
const MaxXMLToken = 1 << 20

// boundedXML passes XML through, failing when a tag or a text run between
// tags is longer than max bytes (quotes are followed: a '>' inside an
// attribute value does not end its tag).
type boundedXML struct {
	r     io.Reader
	max   int
	run   int  // bytes of the current tag or text run
	inTag bool // between '<' and its '>'
	quote byte // the quote of the attribute value being read, or 0
	line  int  // the line being read
	err   error
}

func (b *boundedXML) Read(p []byte) (int, error) {
	if b.err != nil {
		return 0, b.err
	}
	n, err := b.r.Read(p)
	for i := 0; i < n; i++ {
		c := p[i]
		switch {
		case c == '\n':
			b.line++
		case b.quote != 0:
			if c == b.quote {
				b.quote = 0
			}
		case b.inTag && (c == '"' || c == '\''):
			b.quote = c
		case c == '<':
			b.inTag, b.run = true, 0
		case c == '>' && b.inTag:
			b.inTag, b.run = false, 0
		}
		if b.run++; b.run > b.max {
			what := "text"
			if b.inTag {
				what = "a tag (an event with its attributes)"
			}
			b.err = &TraceError{Line: b.line, Msg: fmt.Sprintf("%s longer than %d MiB", what, b.max>>20)}
			return i, b.err
		}
	}
	return n, err
}

func (x *xmlTrace) Next() (Record, error) {
	for {
		line, _ := x.dec.InputPos()
		tok, err := x.dec.Token()
		if errors.Is(err, io.EOF) {
			if x.depth != 0 {
				return Record{}, &TraceError{x.file, line, "the trace ends inside an element"}
			}
			return Record{}, io.EOF
		}
		if te := (*TraceError)(nil); errors.As(err, &te) {
			return Record{}, &TraceError{x.file, te.Line, te.Msg}
		}
		if err != nil {
			l := line
			var se *xml.SyntaxError
			if errors.As(err, &se) {
				l = se.Line
			}
			return Record{}, &TraceError{x.file, l, "malformed XML: " + strings.TrimPrefix(err.Error(), "XML syntax error on line "+strconv.Itoa(l)+": ")}
		}
		switch t := tok.(type) {
		case xml.StartElement:
			x.depth++
			if x.depth == 1 {
				continue // the root, e.g. <trace>
			}
			if x.depth > 2 {
				return Record{}, &TraceError{x.file, line, fmt.Sprintf("element <%s> inside an event: events are flat elements", t.Name.Local)}
			}
			r := Record{Name: t.Name.Local, Attrs: make([]Attr, 0, len(t.Attr)), Line: line}
			for _, a := range t.Attr {
				r.Attrs = append(r.Attrs, Attr{Key: a.Name.Local, Value: a.Value})
			}
			return r, nil
		case xml.EndElement:
			x.depth--
		case xml.CharData:
			if x.depth >= 2 && len(bytes.TrimSpace(t)) > 0 {
				return Record{}, &TraceError{x.file, line, "text inside an event element"}
			}
		}
	}
}

// lineTrace reads a line-based trace, one record a line; blank lines and
// # comments are skipped.
type lineTrace struct {
	file  string
	sc    *bufio.Scanner
	line  int
	parse func(string) (Record, error)
}

func newLineTrace(file string, r io.Reader, parse func(string) (Record, error)) *lineTrace {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<16), 1<<24)
	return &lineTrace{file: file, sc: sc, parse: parse}
}

func (l *lineTrace) Next() (Record, error) {
	for l.sc.Scan() {
		l.line++
		text := strings.TrimSpace(l.sc.Text())
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		r, err := l.parse(text)
		if err != nil {
			return Record{}, &TraceError{l.file, l.line, err.Error()}
		}
		if r.skip {
			continue
		}
		r.Line = l.line
		return r, nil
	}
	if err := l.sc.Err(); err != nil {
		return Record{}, &TraceError{l.file, l.line + 1, err.Error()}
	}
	return Record{}, io.EOF
}

// sliceTrace reads records already in memory.
type sliceTrace struct {
	recs []Record
	i    int
}

func (s *sliceTrace) Next() (Record, error) {
	if s.i >= len(s.recs) {
		return Record{}, io.EOF
	}
	s.i++
	return s.recs[s.i-1], nil
}

// parseJSONRecord reads {"event": name, key: value, ...} keeping key order.
func parseJSONRecord(text string) (Record, error) {
	dec := json.NewDecoder(strings.NewReader(text))
	dec.UseNumber()
	r := Record{Attrs: []Attr{}}
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return r, fmt.Errorf("not a JSON object: %.60q", text)
	}
	for dec.More() {
		kt, err := dec.Token()
		if err != nil {
			return r, fmt.Errorf("malformed JSON: %v", err)
		}
		key := kt.(string)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return r, fmt.Errorf("malformed JSON value of %q: %v", key, err)
		}
		if key == "output" { // the recorded output, a JSON value
			v, err := jsonValue(raw)
			if err != nil {
				return r, fmt.Errorf("output: %v", err)
			}
			r.Output, r.HasOutput = v, true
			continue
		}
		var val string
		var typed model.Value
		if string(raw) == "null" {
			val = "null" // None (json.Unmarshal leaves a string untouched for null)
		} else if err := json.Unmarshal(raw, &val); err != nil {
			val = string(raw) // numbers, booleans, arrays, objects: their JSON text
			if c := bytes.TrimSpace(raw); len(c) > 0 && (c[0] == '[' || c[0] == '{') {
				if typed, err = jsonValue(raw); err != nil {
					return r, fmt.Errorf("the value of %q: %v", key, err)
				}
			}
		}
		if key == "event" {
			r.Name = val
			continue
		}
		r.Attrs = append(r.Attrs, Attr{Key: key, Value: val, Typed: typed})
	}
	if _, err := dec.Token(); err != nil {
		return r, fmt.Errorf("malformed JSON: %v", err)
	}
	if dec.More() {
		return r, fmt.Errorf("more than one JSON value on the line")
	}
	if r.Name == "" {
		if label, ok := r.Attr("label"); ok { // a line of a Modex step log
			return logRecord(label, r.Attrs)
		}
		return r, fmt.Errorf(`the object has no "event" name (nor the "label" of a Modex step log)`)
	}
	return r, nil
}

var objectName = regexp.MustCompile(`^([A-Za-z_][A-Za-z_]*?)([0-9]+)$`)

// parsePlainRecord reads Name(arg, ...) or Name(arg, ...)/output; a leading
// ? (observable, as in logs) is allowed.
func parsePlainRecord(text string) (Record, error) {
	text = strings.TrimPrefix(text, "?")
	if longNumber(text, maxLiteralDigits) {
		// The parser converts a long number in time quadratic in its
		// digits (4 million digits: a minute): refused before parsing.
		return Record{}, fmt.Errorf("a number of more than %d digits", maxLiteralDigits)
	}
	call, outText := text, ""
	if i := strings.LastIndex(text, ")/"); i >= 0 {
		call, outText = text[:i+1], text[i+2:]
	}
	x, err := syntax.ParseExpr("trace", call, 0)
	if err != nil {
		return Record{}, fmt.Errorf("want Name(arg, ...) or Name(arg, ...)/output: %v", err)
	}
	ce, ok := x.(*syntax.CallExpr)
	if !ok {
		return Record{}, fmt.Errorf("want Name(arg, ...), not %.60q", text)
	}
	name, ok := ce.Fn.(*syntax.Ident)
	if !ok {
		return Record{}, fmt.Errorf("the event name must be an identifier")
	}
	r := Record{Name: name.Name}
	for _, a := range ce.Args {
		if u, ok := a.(*syntax.UnaryExpr); ok && (u.Op == syntax.STAR || u.Op == syntax.STARSTAR) {
			return Record{}, fmt.Errorf("*args and **kwargs are not values")
		}
		if b, ok := a.(*syntax.BinaryExpr); ok && b.Op == syntax.EQ {
			return Record{}, fmt.Errorf("keyword arguments are not allowed: give the inputs in order")
		}
		v, err := literal(a)
		if err != nil {
			return Record{}, err
		}
		r.Args = append(r.Args, v)
	}
	if outText != "" {
		ox, err := syntax.ParseExpr("trace", outText, 0)
		if err != nil {
			return Record{}, fmt.Errorf("bad output %q: %v", outText, err)
		}
		if r.Output, err = literal(ox); err != nil {
			return Record{}, err
		}
		r.HasOutput = true
	}
	return r, nil
}

// Bounds of a trace value: nesting depth and elements (a trace is data).
const (
	maxLiteralDepth = 32
	maxLiteralElems = 10000
)

// maxLiteralDigits bounds the digits of a number in a plain trace.
const maxLiteralDigits = 1000

// longNumber reports whether text has a run of more than max digits (or
// hexadecimal digits) outside its string literals.
func longNumber(text string, max int) bool {
	var quote byte
	run := 0
	for i := 0; i < len(text); i++ {
		c := text[i]
		switch {
		case quote != 0:
			if c == '\\' {
				i++
			} else if c == quote {
				quote = 0
			}
			run = 0
		case c == '"' || c == '\'':
			quote, run = c, 0
		case c >= '0' && c <= '9' || run > 0 && (c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' || c == 'x' || c == 'X' || c == '_'):
			if run++; run > max {
				return true
			}
		default:
			run = 0
		}
	}
	return false
}

// MaxTraceSize bounds a recorded trace file.
const MaxTraceSize = 512 << 20

// ReadTraceFile reads and parses a recorded trace file (a regular file of
// at most MaxTraceSize bytes).
func ReadTraceFile(path string) ([]Record, error) {
	data, err := model.ReadFileLimited(path, MaxTraceSize)
	if err != nil {
		return nil, err
	}
	return ParseTrace(path, data)
}

// ParseLiteral reads a Starlark literal (a number, string, None, True,
// False, or a list, tuple or dict of those) as a model value, evaluating
// nothing.
func ParseLiteral(text string) (model.Value, error) {
	if longNumber(text, maxLiteralDigits) {
		return nil, fmt.Errorf("a number of more than %d digits", maxLiteralDigits)
	}
	x, err := syntax.ParseExpr("literal", text, 0)
	if err != nil {
		return nil, fmt.Errorf("not a literal: %v", err)
	}
	return literal(x)
}

// literal converts a literal expression to a model value without
// evaluating anything: numbers, strings, None/True/False, objects written
// like Client1, and lists, tuples and dicts of those, at most
// maxLiteralDepth deep with maxLiteralElems elements in all.
func literal(x syntax.Expr) (model.Value, error) {
	budget := maxLiteralElems
	return literalValue(x, 0, &budget)
}

func literalValue(x syntax.Expr, depth int, budget *int) (model.Value, error) {
	if depth > maxLiteralDepth {
		return nil, fmt.Errorf("a value nested more than %d deep", maxLiteralDepth)
	}
	if *budget--; *budget < 0 {
		return nil, fmt.Errorf("a value with more than %d elements", maxLiteralElems)
	}
	seq := func(xs []syntax.Expr) ([]starlark.Value, error) {
		out := make([]starlark.Value, 0, len(xs))
		for _, e := range xs {
			v, err := literalValue(e, depth+1, budget)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		return out, nil
	}
	switch e := x.(type) {
	case *syntax.Literal:
		switch v := e.Value.(type) {
		case int64:
			return starlark.MakeInt64(v), nil
		case *big.Int:
			return starlark.MakeBigInt(v), nil
		case string:
			if e.Token == syntax.STRING {
				return starlark.String(v), nil
			}
		}
		return nil, fmt.Errorf("%s is not a model value (floats and bytes are not)", e.Raw)
	case *syntax.UnaryExpr:
		if lit, ok := e.X.(*syntax.Literal); ok && e.Op == syntax.MINUS {
			if v, err := literalValue(lit, depth, budget); err == nil {
				if i, ok := v.(starlark.Int); ok {
					return starlark.MakeInt(0).Sub(i), nil
				}
			}
		}
	case *syntax.Ident:
		switch e.Name {
		case "None":
			return starlark.None, nil
		case "True":
			return starlark.True, nil
		case "False":
			return starlark.False, nil
		}
		m := objectName.FindStringSubmatch(e.Name)
		if m == nil {
			return nil, fmt.Errorf("%s is not a value (objects are written like Client1)", e.Name)
		}
		n, err := strconv.Atoi(m[2])
		if err != nil {
			return nil, fmt.Errorf("%s: object number out of range", e.Name)
		}
		return model.Object{Kind: m[1], N: n}, nil
	case *syntax.ParenExpr:
		return literalValue(e.X, depth, budget)
	case *syntax.ListExpr:
		vs, err := seq(e.List)
		if err != nil {
			return nil, err
		}
		return starlark.NewList(vs), nil
	case *syntax.TupleExpr:
		vs, err := seq(e.List)
		if err != nil {
			return nil, err
		}
		return starlark.Tuple(vs), nil
	case *syntax.DictExpr:
		d := starlark.NewDict(len(e.List))
		for _, item := range e.List {
			entry := item.(*syntax.DictEntry)
			kv, err := seq([]syntax.Expr{entry.Key, entry.Value})
			if err != nil {
				return nil, err
			}
			if err := d.SetKey(kv[0], kv[1]); err != nil {
				return nil, fmt.Errorf("bad dict key: %v", err)
			}
		}
		return d, nil
	}
	return nil, fmt.Errorf("only literal values may appear in a trace (numbers, strings, None, True, False, objects like Client1, and lists, tuples and dicts of those)")
}
