package conform

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unsafe"

	"github.com/modex/modex/engine/model"
	"go.starlark.net/starlark"
)

// Completions of an operation in a concurrent history.
const (
	OpOK   = "ok"   // it took effect, with the recorded result
	OpFail = "fail" // it did not take effect (or: its output is a failure value)
	OpInfo = "info" // unknown: it may have taken effect at any time after its invocation, or never
)

// History is a concurrent history: operations of several processes, each
// with an invocation and a completion, overlapping in time (Jepsen,
// porcupine, etcd's robustness tests).
type History struct {
	File string
	Ops  []HistoryOp // in invocation order
	// Events counts the invocations and completions read.
	Events int
	// Skipped counts the lines of a Jepsen log that are no operation.
	Skipped int
}

// HistoryOp is one operation: an invocation and its completion.
type HistoryOp struct {
	Process string
	F       string      // the operation's name (:f)
	Value   model.Value // the invocation's :value (None when absent)
	// Attrs are the invocation's other keys (:key, …) but :type, :f,
	// :process, :time and :index.
	Attrs map[string]model.Value
	// Status is OpOK, OpFail or OpInfo (also for an operation with no
	// completion at the end of the history).
	Status string
	Result model.Value // the completion's :value (None when absent)
	// Call and Return are the positions of the invocation and completion
	// among the history's events; Return is -1 for an operation with no
	// completion.
	Call, Return int
	// CallLine and ReturnLine are 1-based lines (ReturnLine 0: none).
	CallLine, ReturnLine int
}

// Bounds of a history: it is data.
const (
	// MaxHistoryOps bounds the operations of a history.
	MaxHistoryOps = 1_000_000
	// maxHistoryLine bounds a line of a history file.
	maxHistoryLine = 1 << 20
)

// historyFormat is how a history file writes its events.
type historyFormat int

const (
	notHistory  historyFormat = iota
	ednHistory                // {:type :invoke, :f :write, :value 3, :process 0}
	jsonHistory               // {"type": "invoke", "f": "write", "value": 3, "process": 0}
	jepsenLog                 // INFO  jepsen.util - 0	:invoke	:write	3
)

// sniffHistory tells, from a file's first lines, whether it is a concurrent
// history and in which form.
func sniffHistory(head []byte) historyFormat {
	lines := bytes.Split(head, []byte("\n"))
	// A Jepsen log has lines of any kind before its first operation
	// (the test's set-up, errors, stack traces).
	for i, raw := range lines {
		if (i < len(lines)-1 || len(lines) == 1) && jepsenLine.Match(raw) {
			return jepsenLog
		}
	}
	for i, raw := range lines {
		if i == len(lines)-1 && len(lines) > 1 {
			break // maybe cut
		}
		line := strings.TrimSpace(string(raw))
		switch {
		case line == "" || strings.HasPrefix(line, ";"):
			continue
		case strings.HasPrefix(line, "{:") || strings.HasPrefix(line, "{ :"):
			return ednHistory
		case strings.HasPrefix(line, "{"):
			var m map[string]json.RawMessage
			if json.Unmarshal([]byte(line), &m) != nil {
				return notHistory
			}
			_, ev := m["event"]
			_, typ := m["type"]
			_, f := m["f"]
			if typ && f && !ev {
				return jsonHistory
			}
			return notHistory
		default:
			return notHistory
		}
	}
	return notHistory
}

// IsHistoryFile reports whether the file at path holds a concurrent history
// (Jepsen EDN, JSON lines with "type" and "f", or a Jepsen log) rather than
// a trace.
func IsHistoryFile(path string) (bool, error) {
	// Only a regular file is looked into: opening a named pipe would
	// block (the trace reader reports what else it is).
	if fi, err := os.Stat(path); err != nil || !fi.Mode().IsRegular() {
		return false, err
	}
	f, err := openRecorded(path)
	if err != nil {
		return false, err
	}
	defer f.Close()
	head := make([]byte, 64<<10)
	n, err := io.ReadFull(f, head)
	if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
		return false, err
	}
	return sniffHistory(head[:n]) != notHistory, nil
}

// ReadHistoryFile reads a concurrent history (a regular file of at most
// MaxTraceSize bytes) whose operations take at most DefaultHistoryMemory
// bytes in memory.
func ReadHistoryFile(path string) (*History, error) {
	return ReadHistoryFileLimit(path, 0)
}

// ReadHistoryFileLimit is ReadHistoryFile with the operations' memory
// bounded by maxBytes (0: DefaultHistoryMemory; see ReadHistoryLimit).
func ReadHistoryFileLimit(path string, maxBytes int64) (*History, error) {
	f, err := openRecorded(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadHistoryLimit(path, io.LimitReader(f, MaxTraceSize), maxBytes)
}

// histEvent is one line of a history: an invocation or a completion.
type histEvent struct {
	typ, f, process string
	value           model.Value
	attrs           map[string]model.Value
	line            int
}

// ReadHistory reads a concurrent history from r; file names it in errors
// (file:line: message). Its operations may take DefaultHistoryMemory
// bytes in memory.
func ReadHistory(file string, r io.Reader) (*History, error) {
	return ReadHistoryLimit(file, r, 0)
}

// ReadHistoryLimit is ReadHistory with the memory of the operations read
// bounded by maxBytes (0: DefaultHistoryMemory, the search's default; a
// replay passes its max_memory_mb): their values, as model.LiveBytes
// estimates them, and the operations themselves. A file's bytes are no
// bound — a line of ten thousand `{}` is 20 kB on disk and 5 MB in
// memory — so the reader adds up what it keeps and stops at the line
// that passes the bound.
func ReadHistoryLimit(file string, r io.Reader, maxBytes int64) (*History, error) {
	if maxBytes <= 0 {
		maxBytes = DefaultHistoryMemory
	}
	br := bufio.NewReaderSize(r, 64<<10)
	head, _ := br.Peek(64 << 10)
	format := sniffHistory(head)
	if format == notHistory {
		return nil, &TraceError{File: file, Line: 1, Msg: "not a concurrent history: want one operation a line, as Jepsen's {:type :invoke, :f :write, :value 3, :process 0}, " +
			`JSON {"type": "invoke", "f": "write", "value": 3, "process": 0}, or a Jepsen log`}
	}
	sc := bufio.NewScanner(br)
	sc.Buffer(make([]byte, 0, 64<<10), maxHistoryLine)
	hb := &historyBuilder{h: &History{File: file}, open: map[string]int{}, left: maxBytes}
	line := 0
	for sc.Scan() {
		line++
		text := strings.TrimSpace(sc.Text())
		if text == "" || strings.HasPrefix(text, ";") {
			continue
		}
		ev, ok, err := parseHistoryLine(format, text)
		if err != nil {
			return nil, &TraceError{File: file, Line: line, Msg: err.Error()}
		}
		if !ok {
			hb.h.Skipped++
			continue
		}
		ev.line = line
		if ev.process == "nemesis" {
			hb.h.Skipped++ // Jepsen's fault injector: no client's operation
			continue
		}
		if err := hb.add(ev); err != nil {
			return nil, &TraceError{File: file, Line: line, Msg: err.Error()}
		}
		if hb.left < 0 {
			return nil, &TraceError{File: file, Line: line, Msg: fmt.Sprintf("the history's operations take more than %d MiB in memory by this line (the bound is max_memory_mb; cut the history into parts)", maxBytes>>20)}
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, &TraceError{File: file, Line: line + 1, Msg: fmt.Sprintf("a line longer than %d bytes", maxHistoryLine)}
		}
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	if len(hb.h.Ops) == 0 {
		return nil, &TraceError{File: file, Line: line, Msg: "the history has no operation"}
	}
	return hb.h, nil
}

// historyBuilder pairs invocations with completions, process by process.
type historyBuilder struct {
	h    *History
	open map[string]int // process -> its operation without completion
	left int64          // the bytes the operations may still take
}

// opBytes is what an operation takes in memory beyond its values: its
// slot in Ops (twice, for the slice's growth), its names and its entry
// among the open operations.
const opBytes = 2*int64(unsafe.Sizeof(HistoryOp{})) + 64

// eventBytes is what an event's process, name, value and attributes take.
func eventBytes(ev *histEvent) int64 {
	n := int64(len(ev.process)+len(ev.f)) + model.LiveBytes(ev.value)
	if ev.attrs != nil {
		n += 48
		for k, v := range ev.attrs {
			n += 32 + int64(len(k)) + model.LiveBytes(v)
		}
	}
	return n
}

func (b *historyBuilder) add(ev histEvent) error {
	h := b.h
	pos := h.Events
	switch ev.typ {
	case "invoke":
		if k, ok := b.open[ev.process]; ok {
			o := &h.Ops[k]
			return fmt.Errorf("process %s invokes %s while its %s of line %d has no completion", ev.process, ev.f, o.F, o.CallLine)
		}
		if len(h.Ops) >= MaxHistoryOps {
			return fmt.Errorf("more than %d operations", MaxHistoryOps)
		}
		b.left -= opBytes + eventBytes(&ev)
		b.open[ev.process] = len(h.Ops)
		h.Ops = append(h.Ops, HistoryOp{Process: ev.process, F: ev.f, Value: ev.value, Attrs: ev.attrs,
			Status: OpInfo, Result: starlark.None, Call: pos, Return: -1, CallLine: ev.line})
	case OpOK, OpFail, OpInfo:
		k, ok := b.open[ev.process]
		if !ok {
			return fmt.Errorf("process %s completes %s (:%s) but invoked nothing", ev.process, ev.f, ev.typ)
		}
		o := &h.Ops[k]
		if o.F != ev.f {
			return fmt.Errorf("process %s completes %s but invoked %s at line %d", ev.process, ev.f, o.F, o.CallLine)
		}
		delete(b.open, ev.process)
		b.left -= model.LiveBytes(ev.value) // the completion keeps its value only
		o.Status, o.Result, o.Return, o.ReturnLine = ev.typ, ev.value, pos, ev.line
	default:
		return fmt.Errorf("unknown :type %q: want invoke, ok, fail or info", ev.typ)
	}
	h.Events++
	return nil
}

// parseHistoryLine reads one line; ok is false for a log line that is no
// operation.
func parseHistoryLine(format historyFormat, text string) (histEvent, bool, error) {
	var fields map[string]model.Value
	switch format {
	case jepsenLog:
		return parseJepsenLogLine(text)
	case ednHistory:
		v, err := parseEDN(text)
		if err != nil {
			return histEvent{}, false, err
		}
		d, ok := v.(*starlark.Dict)
		if !ok {
			return histEvent{}, false, fmt.Errorf("want a map {:type …, :f …, :process …}, not %.60q", text)
		}
		fields = dictFields(d)
	case jsonHistory:
		v, err := parseJSONValue(text)
		if err != nil {
			return histEvent{}, false, err
		}
		d, ok := v.(*starlark.Dict)
		if !ok {
			return histEvent{}, false, fmt.Errorf(`want an object {"type": …, "f": …, "process": …}, not %.60q`, text)
		}
		fields = dictFields(d)
	}
	return eventOf(fields)
}

// dictFields turns a map's entries into fields by key name (a keyword's
// or string's text).
func dictFields(d *starlark.Dict) map[string]model.Value {
	out := make(map[string]model.Value, d.Len())
	for _, it := range d.Items() {
		k, ok := starlark.AsString(it[0])
		if !ok {
			k = it[0].String()
		}
		out[k] = it[1]
	}
	return out
}

// eventOf reads :type, :f, :process and :value; the other keys but :time
// and :index are kept as attributes.
func eventOf(fields map[string]model.Value) (histEvent, bool, error) {
	ev := histEvent{value: starlark.None}
	name := func(key string) (string, error) {
		v, ok := fields[key]
		if !ok || v == starlark.None {
			return "", fmt.Errorf("no :%s", key)
		}
		if s, ok := starlark.AsString(v); ok {
			return s, nil
		}
		return v.String(), nil
	}
	var err error
	if ev.typ, err = name("type"); err != nil {
		return ev, false, err
	}
	if ev.f, err = name("f"); err != nil {
		return ev, false, err
	}
	if ev.process, err = name("process"); err != nil {
		return ev, false, err
	}
	for k, v := range fields {
		switch k {
		case "type", "f", "process", "time", "index":
		case "value":
			ev.value = v
		default:
			if ev.attrs == nil {
				ev.attrs = map[string]model.Value{}
			}
			ev.attrs[k] = v
		}
	}
	return ev, true, nil
}

// jepsenLine is an operation's line in a Jepsen log: process, :type, :f
// and the value, separated by tabs or spaces.
var jepsenLine = regexp.MustCompile(`jepsen\.util\s+-\s+(\S+)\s+:(\S+)\s+:(\S+)\s*(.*)$`)

// parseJepsenLogLine reads "INFO  jepsen.util - 3	:invoke	:cas	[3 0]";
// other lines of the log are skipped.
func parseJepsenLogLine(text string) (histEvent, bool, error) {
	m := jepsenLine.FindStringSubmatch(text)
	if m == nil {
		return histEvent{}, false, nil
	}
	ev := histEvent{process: strings.TrimPrefix(m[1], ":"), typ: m[2], f: m[3], value: starlark.None}
	if strings.TrimSpace(m[4]) != "" {
		// The value, then (Jepsen's op->str) maybe a tab and the error.
		v, rest, err := parseEDNPrefix(m[4])
		if err != nil {
			return histEvent{}, false, err
		}
		ev.value = v
		if rest != "" {
			ev.attrs = map[string]model.Value{"error": starlark.String(rest)}
		}
	}
	return ev, true, nil
}

// parseJSONValue reads a JSON value as a model value: null, booleans,
// integers (floats), strings, arrays as lists, objects as dicts; bounded in
// depth and elements.
func parseJSONValue(text string) (model.Value, error) {
	dec := json.NewDecoder(strings.NewReader(text))
	dec.UseNumber()
	var raw any
	if err := dec.Decode(&raw); err != nil {
		return nil, fmt.Errorf("malformed JSON: %v", err)
	}
	if dec.More() {
		return nil, fmt.Errorf("more than one JSON value on the line")
	}
	budget := maxLiteralElems
	return jsonToValue(raw, 0, &budget)
}

func jsonToValue(x any, depth int, budget *int) (model.Value, error) {
	if depth > maxLiteralDepth {
		return nil, fmt.Errorf("a value nested more than %d deep", maxLiteralDepth)
	}
	if *budget--; *budget < 0 {
		return nil, fmt.Errorf("a value of more than %d elements", maxLiteralElems)
	}
	switch x := x.(type) {
	case nil:
		return starlark.None, nil
	case bool:
		return starlark.Bool(x), nil
	case string:
		return starlark.String(x), nil
	case json.Number:
		return numberValue(string(x))
	case []any:
		l := make([]starlark.Value, 0, len(x))
		for _, e := range x {
			v, err := jsonToValue(e, depth+1, budget)
			if err != nil {
				return nil, err
			}
			l = append(l, v)
		}
		return starlark.NewList(l), nil
	case map[string]any:
		d := starlark.NewDict(len(x))
		for _, k := range slices.Sorted(maps.Keys(x)) { // printed the same in every run
			e := x[k]
			v, err := jsonToValue(e, depth+1, budget)
			if err != nil {
				return nil, err
			}
			d.SetKey(starlark.String(k), v)
		}
		return d, nil
	}
	return nil, fmt.Errorf("unexpected JSON value %v", x)
}

// numberValue reads an integer (at most maxLiteralDigits digits) or a float.
func numberValue(s string) (model.Value, error) {
	if longNumber(s, maxLiteralDigits) {
		return nil, fmt.Errorf("a number of more than %d digits", maxLiteralDigits)
	}
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		return starlark.MakeInt64(n), nil
	}
	if strings.ContainsAny(s, ".eE") {
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return nil, fmt.Errorf("bad number %q", s)
		}
		return starlark.Float(f), nil
	}
	n, ok := new(bigInt).SetString(strings.TrimPrefix(s, "+"), 10)
	if !ok {
		return nil, fmt.Errorf("bad number %q", s)
	}
	return starlark.MakeBigInt(n), nil
}
