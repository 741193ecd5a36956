// Package modexadapter is Modex's adapter kit for Go: it speaks the
// implementation-adapter protocol (modex-adapter/1, docs/adapter-protocol.md
// in the Modex sources) so that an adapter is only its per-action code:
//
//	a := modexadapter.New("stack (go)")
//	a.Handle("Push", func(args modexadapter.Args) (any, error) {
//		if len(stack) == capacity {
//			return nil, modexadapter.Refuse("the stack is full")
//		}
//		stack = append(stack, args.Int(0))
//		return nil, nil
//	})
//	a.OnReset(func() error { stack = nil; return nil })
//	if err := a.Run(); err != nil {
//		log.Fatal(err)
//	}
//
// It needs only the standard library, and works copied into a package main
// with its package clause changed (as the samples and "modex adapter new"
// do, so that "go run *.go" works outside a module): its unexported names
// start with mx; it has no init function.
package main

import (
	"bufio"
	"bytes"
	mxcmp "cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"os"
	mxsignal "os/signal"
	"reflect"
	mxcoverage "runtime/coverage"
	mxdebug "runtime/debug"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"
)

// mxProtocol is the protocol version the kit speaks.
const mxProtocol = "modex-adapter/1"

// mxGrace bounds a signal's wait for the request in hand (then: close).
const mxGrace = 2 * time.Second

// Adapter is one adapter: the handlers of its actions and its hooks. Make
// it with New, register handlers and hooks, then call Run (or Serve, or
// ListenAndServe). Its methods are safe for concurrent use.
type Adapter struct {
	name string

	hmu      sync.Mutex // guards the handlers and hooks
	handlers map[string]func(Args) (any, error)
	onReset  func() error
	onClose  func()

	wmu sync.Mutex // one line at a time
	out io.Writer  // the stream being served; nil outside Serve

	busy      chan struct{} // held while a request is handled
	closeOnce sync.Once
}

// New returns an adapter that introduces itself to Modex as name.
func New(name string) *Adapter {
	return &Adapter{name: name, handlers: map[string]func(Args) (any, error){}, busy: make(chan struct{}, 1)}
}

// Handle registers the handler of a controllable action, replacing any
// earlier one. The handler gets the action's arguments, decoded (see Args),
// and returns the action's output (nil for none) or an error:
// Refuse(reason) for a refusal, ErrNotImplemented when the action is not
// implemented (it must then have changed nothing), any other error (or a
// panic) for a failure of the implementation. Handlers run one at a time.
func (a *Adapter) Handle(action string, handler func(args Args) (any, error)) {
	if handler == nil {
		panic("modexadapter: Handle(" + action + ", nil)")
	}
	a.hmu.Lock()
	a.handlers[action] = handler
	a.hmu.Unlock()
}

// OnReset sets the hook that brings the implementation back to its
// initial state before each test run. Modex drops every event that arrives
// before the reset's answer, and takes those after it for the new run: the
// hook must stop (and wait for) whatever the previous run started. An
// error it returns is reported to Modex as "reset: <text>".
func (a *Adapter) OnReset(hook func() error) {
	a.hmu.Lock()
	a.onReset = hook
	a.hmu.Unlock()
}

// OnClose sets the hook called once when the adapter stops: at shutdown,
// at the end of its input, or on SIGTERM or SIGINT (under Run).
func (a *Adapter) OnClose(hook func()) {
	a.hmu.Lock()
	a.onClose = hook
	a.hmu.Unlock()
}

// Emit reports an observable action of the implementation: an event. It
// may be called from any goroutine, at any time; the event is written at
// once, a whole line, after those emitted before it. Events emitted while
// no stream is served are dropped. Emit panics when an argument cannot be
// encoded (a channel, a function...).
func (a *Adapter) Emit(action string, args ...any) {
	wire := make([]any, len(args))
	for i, x := range args {
		w, err := mxEncode(x)
		if err != nil {
			panic(fmt.Errorf("modexadapter: Emit(%q): argument %d: %v", action, i+1, err))
		}
		wire[i] = w
	}
	line, err := mxLine("type", "event", "action", action, "args", wire)
	if err != nil {
		panic(fmt.Errorf("modexadapter: Emit(%q): %v", action, err))
	}
	a.mxWrite(line)
}

// RefusedError is the error of an action the implementation refuses (Modex
// reports it as a "refused" answer, with Reason). Make one with Refuse.
type RefusedError struct {
	Reason string
}

// Error returns "refused: " and the reason.
func (e *RefusedError) Error() string { return "refused: " + e.Reason }

// Refuse returns the error a handler returns when the implementation does
// not accept the action now; its dynamic type is *RefusedError.
func Refuse(reason string) error { return &RefusedError{Reason: reason} }

// ErrNotImplemented is the error a handler returns (or wraps) for an
// action the adapter does not implement: Modex then leaves the action out
// for the rest of the test, and the step does not count. An action with no
// handler is answered the same way.
var ErrNotImplemented = errors.New("not implemented")

// Set is a set value: {"set": [...]} on the wire. Encoded, its items are
// sorted when they are all strings, all numbers or all booleans.
type Set []any

// Dict is a dict value: {"dict": [[key, value], ...]} on the wire, in its
// order. (Go maps are encoded as dicts too, sorted by key.)
type Dict []Pair

// Pair is one entry of a Dict.
type Pair struct {
	Key, Value any
}

// Args are an action's arguments decoded: null is nil, a whole number
// int64 (else float64), an array []any, {"set"} a Set, {"dict"} a Dict,
// {"bytes"} a []byte, another object (an implementation's own identity
// value) a json.RawMessage. A typed getter (from 0) panics on a missing
// or mistyped argument: an error answer ("argument 2 of Push: want an
// integer, got "a"").
type Args []any

// Len is the number of arguments.
func (a Args) Len() int { return len(a) }

// Value returns argument i as decoded.
func (a Args) Value(i int) any { return a.mxAt(i) }

// Int returns argument i, a whole number.
func (a Args) Int(i int) int {
	switch x := a.mxAt(i).(type) {
	case int64:
		if int64(int(x)) == x {
			return int(x)
		}
	case int:
		return x
	case float64:
		if x == math.Trunc(x) && math.Abs(x) <= 1<<53 {
			return int(x)
		}
	}
	panic(&mxArgError{index: i, want: "an integer", got: a[i]})
}

// String returns argument i, a string.
func (a Args) String(i int) string {
	if s, ok := a.mxAt(i).(string); ok {
		return s
	}
	panic(&mxArgError{index: i, want: "a string", got: a[i]})
}

// Bool returns argument i, a boolean.
func (a Args) Bool(i int) bool {
	if b, ok := a.mxAt(i).(bool); ok {
		return b
	}
	panic(&mxArgError{index: i, want: "a boolean", got: a[i]})
}

// Float returns argument i, a number.
func (a Args) Float(i int) float64 {
	switch x := a.mxAt(i).(type) {
	case float64:
		return x
	case int64:
		return float64(x)
	case int:
		return float64(x)
	}
	panic(&mxArgError{index: i, want: "a number", got: a[i]})
}

func (a Args) mxAt(i int) any {
	if i < 0 || i >= len(a) {
		panic(&mxArgError{index: i, n: len(a)})
	}
	return a[i]
}

// mxArgError is the panic of a getter of Args.
type mxArgError struct {
	action string // set when a handler's panic is recovered
	index  int    // from 0
	want   string // "" when the argument is missing
	got    any
	n      int // the number of arguments (when missing)
}

func (e *mxArgError) Error() string {
	where := fmt.Sprintf("argument %d", e.index+1)
	if e.action != "" {
		where += " of " + e.action
	}
	if e.want == "" {
		return fmt.Sprintf("%s: missing (%d given)", where, e.n)
	}
	shown := "a value that cannot be shown"
	if w, err := mxEncode(e.got); err == nil {
		if data, err := mxJSON(w); err == nil {
			shown = string(data)
			if len(shown) > 80 {
				shown = shown[:77] + "..."
			}
		}
	}
	return fmt.Sprintf("%s: want %s, got %s", where, e.want, shown)
}

// Run speaks the protocol on standard input and output until the input
// ends, Modex sends shutdown, or the process gets SIGTERM or SIGINT; it
// returns nil then, after the close hook (so a main that returns exits 0).
// It keeps the real standard output for the protocol and points os.Stdout
// at os.Stderr, so that a stray fmt.Println cannot break the protocol.
// With "--listen HOST:PORT" (or -listen, --listen=HOST:PORT) among the
// program's arguments it serves one TCP connection instead
// (ListenAndServe).
func (a *Adapter) Run() error {
	addr, tcp, err := mxListenArg(os.Args[1:])
	if err != nil {
		return err
	}
	sigs := make(chan os.Signal, 1)
	mxsignal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer mxsignal.Stop(sigs)
	done := make(chan error, 1)
	if tcp {
		go func() { done <- a.ListenAndServe(addr) }()
	} else {
		out := os.Stdout
		os.Stdout = os.Stderr
		go func() { done <- a.Serve(mxStdio{os.Stdin, out}) }()
	}
	select {
	case err := <-done:
		return err
	case <-sigs:
		// Let the request being handled end (for a while), and take no
		// other.
		select {
		case a.busy <- struct{}{}:
		case <-time.After(mxGrace):
		}
		a.mxClose()
		return nil
	}
}

// mxStdio is standard input and output as one stream.
type mxStdio struct {
	io.Reader
	io.Writer
}

// mxListenArg finds --listen ADDR (or -listen, or =ADDR) in args.
func mxListenArg(args []string) (addr string, found bool, err error) {
	for i, arg := range args {
		if arg == "--" {
			break
		}
		name, value, hasValue := strings.Cut(arg, "=")
		if name != "--listen" && name != "-listen" {
			continue
		}
		if hasValue {
			return value, true, nil
		}
		if i+1 == len(args) {
			return "", false, errors.New("--listen needs HOST:PORT")
		}
		return args[i+1], true, nil
	}
	return "", false, nil
}

// ListenAndServe listens on the TCP address addr ("127.0.0.1:0" picks a
// free port), prints "listening on HOST:PORT" to standard error, accepts
// one connection and serves it (Serve); it returns when the connection
// ends.
func (a *Adapter) ListenAndServe(addr string) error {
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "listening on %s\n", l.Addr())
	conn, err := l.Accept()
	l.Close()
	if err != nil {
		return err
	}
	defer conn.Close()
	return a.Serve(conn)
}

// Serve speaks the protocol on one stream, handling its requests one at a
// time, until the stream ends or Modex sends shutdown (then it returns
// nil), or reading or writing fails. It calls the close hook (once in the
// adapter's life) when it returns. Serve one stream at a time.
func (a *Adapter) Serve(conn io.ReadWriter) error {
	a.wmu.Lock()
	a.out = conn
	a.wmu.Unlock()
	defer func() {
		a.wmu.Lock()
		a.out = nil
		a.wmu.Unlock()
		a.mxClose()
	}()
	r := bufio.NewReaderSize(conn, 64<<10)
	for {
		line, err := r.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			a.busy <- struct{}{}
			stop, werr := a.mxRequest(line)
			<-a.busy
			if werr != nil || stop {
				return werr
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// mxRequest answers one request line; stop is true for shutdown, err an
// error writing the answer.
func (a *Adapter) mxRequest(line []byte) (stop bool, err error) {
	var msg map[string]any
	d := json.NewDecoder(bytes.NewReader(line))
	d.UseNumber()
	if err := d.Decode(&msg); err != nil || msg == nil {
		fmt.Fprintf(os.Stderr, "modexadapter: ignoring a line that is not a JSON object: %.200q\n", line)
		return false, nil
	}
	id, hasID := msg["id"]
	typ, _ := msg["type"].(string)
	switch typ {
	case "shutdown":
		return true, nil
	case "hello":
		return false, a.mxAnswer(a.mxHello(id, msg["actions"])...)
	case "reset":
		a.hmu.Lock()
		hook := a.onReset
		a.hmu.Unlock()
		if hook != nil {
			if msg, ok := mxGuard(hook); !ok {
				return false, a.mxAnswer("type", "error", "id", id, "message", "reset: "+msg)
			}
		}
		return false, a.mxAnswer("type", "ok", "id", id)
	case "invoke":
		return false, a.mxInvoke(id, msg)
	case "coverage":
		return false, a.mxAnswer(mxCoverage(id)...)
	}
	if !hasID {
		fmt.Fprintf(os.Stderr, "modexadapter: ignoring a request of unknown type %q without an id\n", typ)
		return false, nil
	}
	return false, a.mxAnswer("type", "error", "id", id, "message", fmt.Sprintf("unknown request type %v", msg["type"]))
}

// mxCoverage writes a -cover -covermode=atomic program's counters into
// GOCOVERDIR (Modex sets it to measure coverage): where, or why not.
func mxCoverage(id any) []any {
	dir, why := os.Getenv("GOCOVERDIR"), "GOCOVERDIR is not set"
	if dir != "" {
		if why = ""; mxcoverage.WriteMetaDir(dir) != nil {
			why = "not built with go build -cover"
		} else if err := mxcoverage.WriteCountersDir(dir); err != nil {
			why = err.Error()
		}
	}
	if why != "" {
		return []any{"type", "coverage", "id", id, "format", "none", "reason", why}
	}
	return []any{"type", "coverage", "id", id, "format", "gocoverdir", "path", dir}
}

// mxHello is the answer to hello: the kit's name and the actions Modex
// listed that have no handler.
func (a *Adapter) mxHello(id, actions any) []any {
	kv := []any{"type", "hello", "id", id, "protocol", mxProtocol, "name", a.name, "features", []string{"coverage"}}
	names, _ := actions.([]any)
	missing := []string{}
	a.hmu.Lock()
	for _, n := range names {
		if s, ok := n.(string); ok && a.handlers[s] == nil {
			missing = append(missing, s)
		}
	}
	a.hmu.Unlock()
	if len(missing) > 0 {
		kv = append(kv, "unimplemented", missing)
	}
	return kv
}

// mxInvoke calls an action's handler and answers with what it returned.
func (a *Adapter) mxInvoke(id any, msg map[string]any) error {
	action, _ := msg["action"].(string)
	var args Args
	switch x := msg["args"].(type) {
	case nil:
	case []any:
		args = make(Args, len(x))
		for i, e := range x {
			args[i] = mxDecode(e)
		}
	default:
		return a.mxAnswer("type", "error", "id", id, "message", "invoke: args must be an array")
	}
	a.hmu.Lock()
	h := a.handlers[action]
	a.hmu.Unlock()
	if h == nil {
		return a.mxAnswer("type", "unimplemented", "id", id, "reason", "no handler for "+action)
	}
	return a.mxWrite(mxOutcome(id, action, h, args))
}

// mxOutcome calls a handler and makes its answer's line: a result, refused,
// unimplemented or an error (an error, a panic in the user's code — the
// handler, an error's Error, an output's MarshalJSON — or a bad output).
func mxOutcome(id any, action string, h func(Args) (any, error), args Args) (line []byte) {
	fail := func(message string) []byte {
		line, _ := mxLine("type", "error", "id", id, "message", message)
		return line
	}
	defer func() {
		if p := recover(); p != nil {
			if e, ok := p.(*mxArgError); ok {
				e.action = action
				line = fail(e.Error())
				return
			}
			fmt.Fprintf(os.Stderr, "modexadapter: %s panicked: %v\n%s", action, p, mxdebug.Stack())
			line = fail(fmt.Sprintf("panic: %v", p))
		}
	}()
	out, err := h(args)
	var refused *RefusedError
	switch {
	case err == nil:
		w, err := mxEncode(out)
		if err == nil {
			if line, err = mxLine("type", "result", "id", id, "output", w); err == nil {
				return line
			}
		}
		return fail(fmt.Sprintf("cannot encode the output of %s: %v", action, err))
	case errors.As(err, &refused):
		line, _ = mxLine("type", "refused", "id", id, "reason", refused.Reason)
	case errors.Is(err, ErrNotImplemented):
		line, _ = mxLine("type", "unimplemented", "id", id, "reason", err.Error())
	default:
		line = fail(err.Error())
	}
	return line
}

// mxGuard calls a hook; it returns what went wrong (the text of its
// error, or its panic) and false, or "" and true.
func mxGuard(hook func() error) (msg string, ok bool) {
	defer func() {
		if p := recover(); p != nil {
			fmt.Fprintf(os.Stderr, "modexadapter: a hook panicked: %v\n%s", p, mxdebug.Stack())
			msg, ok = fmt.Sprintf("panic: %v", p), false
		}
	}()
	if err := hook(); err != nil {
		return err.Error(), false
	}
	return "", true
}

// mxClose calls the close hook, the first time only.
func (a *Adapter) mxClose() {
	a.closeOnce.Do(func() {
		a.hmu.Lock()
		hook := a.onClose
		a.hmu.Unlock()
		if hook != nil {
			mxGuard(func() error { hook(); return nil })
		}
	})
}

// mxAnswer writes a line of keys and values (JSON-ready).
func (a *Adapter) mxAnswer(kv ...any) error {
	line, err := mxLine(kv...)
	if err != nil {
		return err
	}
	return a.mxWrite(line)
}

// mxWrite writes one line, whole, to the stream being served.
func (a *Adapter) mxWrite(line []byte) error {
	a.wmu.Lock()
	defer a.wmu.Unlock()
	if a.out == nil {
		return nil
	}
	_, err := a.out.Write(line)
	return err
}

// mxLine is a JSON object of the keys and values kv, in that order, and a
// newline.
func mxLine(kv ...any) ([]byte, error) {
	b := []byte{'{'}
	for i := 0; i+1 < len(kv); i += 2 {
		if i > 0 {
			b = append(b, ',')
		}
		k, err := mxJSON(kv[i])
		if err != nil {
			return nil, err
		}
		v, err := mxJSON(kv[i+1])
		if err != nil {
			return nil, err
		}
		b = append(append(append(b, k...), ':'), v...)
	}
	return append(b, '}', '\n'), nil
}

// mxJSON is the JSON of a wire value, without HTML escapes.
func mxJSON(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte{'\n'}), nil
}

// mxDecode turns a JSON value (decoded with UseNumber) into an argument.
func mxDecode(x any) any {
	switch y := x.(type) {
	case json.Number:
		if i, err := y.Int64(); err == nil {
			return i
		}
		f, _ := y.Float64()
		if f == math.Trunc(f) && math.Abs(f) < 1<<63 {
			return int64(f)
		}
		return f
	case []any:
		out := make([]any, len(y))
		for i, e := range y {
			out[i] = mxDecode(e)
		}
		return out
	case map[string]any:
		if v, ok := mxDecodeTagged(y); ok {
			return v
		}
		raw, _ := json.Marshal(y)
		return json.RawMessage(raw)
	}
	return x
}

// mxDecodeTagged decodes {"set": ...}, {"dict": ...} and {"bytes": ...}.
func mxDecodeTagged(m map[string]any) (any, bool) {
	if len(m) != 1 {
		return nil, false
	}
	if s, ok := m["bytes"].(string); ok {
		return []byte(s), true
	}
	if items, ok := m["set"].([]any); ok {
		s := make(Set, len(items))
		for i, e := range items {
			s[i] = mxDecode(e)
		}
		return s, true
	}
	items, ok := m["dict"].([]any)
	if !ok {
		return nil, false
	}
	d := make(Dict, len(items))
	for i, e := range items {
		kv, ok := e.([]any)
		if !ok || len(kv) != 2 {
			return nil, false
		}
		d[i] = Pair{mxDecode(kv[0]), mxDecode(kv[1])}
	}
	return d, true
}

// mxEncode turns an output or event argument into a JSON-ready value.
func mxEncode(v any) (any, error) {
	switch x := v.(type) {
	case nil, bool, string, json.RawMessage:
		return x, nil
	case json.Number:
		return mxDecode(x), nil
	case []byte:
		return map[string]any{"bytes": string(x)}, nil
	case []any:
		return mxEncodeAll(x)
	case Set:
		items, err := mxEncodeAll(x)
		if err != nil {
			return nil, err
		}
		if compare := mxComparer(items); compare != nil {
			slices.SortStableFunc(items, compare)
		}
		return map[string]any{"set": items}, nil
	case Dict:
		items := make([]any, len(x))
		for i, p := range x {
			kv, err := mxEncodeAll([]any{p.Key, p.Value})
			if err != nil {
				return nil, err
			}
			items[i] = kv
		}
		return map[string]any{"dict": items}, nil
	case json.Marshaler:
		return x, nil
	}
	return mxEncodeValue(reflect.ValueOf(v))
}

// mxEncodeValue encodes what mxEncode does not know by its type.
func mxEncodeValue(v reflect.Value) (any, error) {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return nil, nil
		}
		return mxEncode(v.Elem().Interface())
	case reflect.Bool:
		return v.Bool(), nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return v.Int(), nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		if v.Uint() <= math.MaxInt64 {
			return int64(v.Uint()), nil
		}
		return v.Uint(), nil
	case reflect.Float32, reflect.Float64:
		if f := v.Float(); !math.IsNaN(f) && !math.IsInf(f, 0) {
			return f, nil
		}
		return nil, fmt.Errorf("cannot encode the number %v", v.Float())
	case reflect.String:
		return v.String(), nil
	case reflect.Slice, reflect.Array:
		if v.Kind() == reflect.Slice && v.Type().Elem().Kind() == reflect.Uint8 {
			return map[string]any{"bytes": string(v.Bytes())}, nil
		}
		items := make([]any, v.Len())
		for i := range items {
			items[i] = v.Index(i).Interface()
		}
		return mxEncodeAll(items)
	case reflect.Map:
		items := make([]any, 0, v.Len())
		keys := make([]any, 0, v.Len())
		for it := v.MapRange(); it.Next(); {
			kv, err := mxEncodeAll([]any{it.Key().Interface(), it.Value().Interface()})
			if err != nil {
				return nil, err
			}
			items = append(items, kv)
			keys = append(keys, kv[0])
		}
		if compare := mxComparer(keys); compare != nil {
			slices.SortStableFunc(items, func(a, b any) int { return compare(a.([]any)[0], b.([]any)[0]) })
		}
		return map[string]any{"dict": items}, nil
	case reflect.Struct:
		return v.Interface(), nil // a JSON object, by encoding/json
	}
	return nil, fmt.Errorf("cannot encode a %s", v.Type())
}

func mxEncodeAll(xs []any) ([]any, error) {
	out := make([]any, len(xs))
	for i, x := range xs {
		w, err := mxEncode(x)
		if err != nil {
			return nil, err
		}
		out[i] = w
	}
	return out, nil
}

// mxComparer compares encoded values when they are all strings, all
// numbers or all booleans; it is nil otherwise.
func mxComparer(xs []any) func(a, b any) int {
	kind := ""
	for _, x := range xs {
		k := fmt.Sprintf("%T", x)
		if k == "uint64" || k == "float64" {
			k = "int64" // numbers compare with numbers
		}
		if kind != "" && k != kind || k != "string" && k != "bool" && k != "int64" {
			return nil
		}
		kind = k
	}
	return func(a, b any) int {
		switch x := a.(type) {
		case string:
			return strings.Compare(x, b.(string))
		case bool:
			return mxcmp.Compare(mxBit(x), mxBit(b.(bool)))
		}
		if x, ok := a.(int64); ok {
			if y, ok := b.(int64); ok {
				return mxcmp.Compare(x, y)
			}
		}
		return mxcmp.Compare(mxFloat64(a), mxFloat64(b))
	}
}

func mxBit(b bool) int {
	if b {
		return 1
	}
	return 0
}

// mxFloat64 is an encoded number (int64, uint64 or float64) as a float64.
func mxFloat64(x any) float64 {
	switch y := x.(type) {
	case int64:
		return float64(y)
	case uint64:
		return float64(y)
	}
	return x.(float64)
}
