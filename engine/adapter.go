package engine

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"
)

// ProtocolVersion is the adapter protocol spoken (docs/adapter-protocol.md).
const ProtocolVersion = "modex-adapter/1"

// Event is an observable action the implementation did on its own.
type Event struct {
	Action string
	Args   []any // wire values
}

// Implementation is a system under test, reached in process or through an
// adapter. Values are wire values (see Binding).
type Implementation interface {
	// Reset brings the implementation back to its initial state (the
	// paper's finish/reset between test runs) and drops pending events.
	Reset(ctx context.Context) error
	// Invoke performs a controllable action and returns its output; a
	// *RefusedError when the implementation does not accept it now; an
	// *ImplError when it crashed, timed out or broke the protocol.
	Invoke(ctx context.Context, action string, args []any) (any, error)
	// Next waits up to wait for the next observable event (buffered, in
	// order); nil when none came.
	Next(ctx context.Context, wait time.Duration) (*Event, error)
	// Close shuts the implementation down and releases it.
	Close() error
}

// RefusedError is an implementation refusing a controllable action.
type RefusedError struct{ Reason string }

// Error says what was refused and why.
func (e *RefusedError) Error() string { return "refused: " + e.Reason }

// Failure kinds of a test run, as reported and in JUnit output.
const (
	FailUnexpected   = "unexpected-observable" // an observable action the model does not allow
	FailRefused      = "refused"               // a controllable action the implementation refused
	FailOutput       = "output-mismatch"       // an output the model does not allow
	FailInvariant    = "invariant"             // the model state violates the invariant
	FailNotAccepting = "non-accepting-end"     // the run ended outside an accepting state
	FailCrash        = "crash"                 // the implementation exited
	FailTimeout      = "timeout"               // the implementation did not answer a call in time
	FailProtocol     = "protocol"              // the implementation broke the adapter protocol
	FailModel        = "model-error"           // the model itself failed
)

// ImplError is a failure of the implementation itself: crash, timeout or
// protocol violation.
type ImplError struct {
	Kind string
	Msg  string
}

// Error prints the failure kind and message.
func (e *ImplError) Error() string { return e.Kind + ": " + e.Msg }

// lineAdapter speaks the JSON-lines adapter protocol over a stream.
type lineAdapter struct {
	w       io.Writer
	wmu     sync.Mutex
	timeout time.Duration

	mu      sync.Mutex
	nextID  int
	pending map[int]chan map[string]any
	events  eventQueue
	dead    *ImplError // set when the stream failed; every call fails with it
	onDead  func() *ImplError
	closer  func() error
	name    string
}

func newLineAdapter(r io.Reader, w io.Writer, timeout time.Duration) *lineAdapter {
	if timeout <= 0 {
		timeout = 5 * time.Second
	}
	a := &lineAdapter{w: w, timeout: timeout, pending: map[int]chan map[string]any{}}
	go a.read(r)
	return a
}

func (a *lineAdapter) fail(e *ImplError) {
	a.mu.Lock()
	if a.dead == nil {
		a.dead = e
	}
	for id, ch := range a.pending {
		close(ch)
		delete(a.pending, id)
	}
	a.mu.Unlock()
	a.events.fail(e)
}

func (a *lineAdapter) read(r io.Reader) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 16*1024*1024)
	line := 0
	for sc.Scan() {
		line++
		text := strings.TrimSpace(sc.Text())
		if text == "" {
			continue
		}
		x, err := decodeJSON([]byte(text))
		msg, ok := x.(map[string]any)
		if err != nil || !ok {
			a.fail(&ImplError{Kind: FailProtocol, Msg: fmt.Sprintf("line %d from the implementation is not a JSON object: %.200q", line, text)})
			return
		}
		typ, _ := msg["type"].(string)
		switch typ {
		case "event":
			action, _ := msg["action"].(string)
			args, argsOK := msg["args"].([]any)
			if msg["args"] == nil {
				args, argsOK = nil, true
			}
			if action == "" || !argsOK {
				a.fail(&ImplError{Kind: FailProtocol, Msg: fmt.Sprintf("line %d: an event needs an action name and an args array: %.200q", line, text)})
				return
			}
			a.events.push(&Event{Action: action, Args: args})
		case "hello", "ok", "result", "refused", "error":
			id := -1
			if f, ok := msg["id"].(float64); ok {
				id = int(f)
			}
			a.mu.Lock()
			ch, ok := a.pending[id]
			delete(a.pending, id)
			a.mu.Unlock()
			if !ok {
				a.fail(&ImplError{Kind: FailProtocol, Msg: fmt.Sprintf("line %d answers no pending request (id %v): %.200q", line, msg["id"], text)})
				return
			}
			ch <- msg
		default:
			a.fail(&ImplError{Kind: FailProtocol, Msg: fmt.Sprintf("line %d has unknown type %q: %.200q", line, typ, text)})
			return
		}
	}
	err := &ImplError{Kind: FailCrash, Msg: "the implementation closed its output"}
	if e := sc.Err(); e != nil {
		err.Msg += ": " + e.Error()
	}
	if a.onDead != nil {
		if e := a.onDead(); e != nil {
			err = e
		}
	}
	a.fail(err)
}

// call sends a request and waits for its answer.
func (a *lineAdapter) call(ctx context.Context, msg map[string]any) (map[string]any, error) {
	a.mu.Lock()
	if a.dead != nil {
		d := a.dead
		a.mu.Unlock()
		return nil, d
	}
	a.nextID++
	id := a.nextID
	ch := make(chan map[string]any, 1)
	a.pending[id] = ch
	a.mu.Unlock()
	msg["id"] = id
	data, err := json.Marshal(msg)
	if err != nil {
		return nil, err
	}
	a.wmu.Lock()
	_, err = a.w.Write(append(data, '\n'))
	a.wmu.Unlock()
	if err != nil {
		a.fail(&ImplError{Kind: FailCrash, Msg: "writing to the implementation: " + err.Error()})
		a.mu.Lock()
		d := a.dead
		a.mu.Unlock()
		return nil, d
	}
	t := time.NewTimer(a.timeout)
	defer t.Stop()
	select {
	case resp, ok := <-ch:
		if !ok {
			a.mu.Lock()
			d := a.dead
			a.mu.Unlock()
			return nil, d
		}
		return resp, nil
	case <-t.C:
		e := &ImplError{Kind: FailTimeout, Msg: fmt.Sprintf("no answer to %s within %s", msg["type"], a.timeout)}
		a.fail(e)
		return nil, e
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (a *lineAdapter) hello(ctx context.Context, model string) error {
	resp, err := a.call(ctx, map[string]any{"type": "hello", "protocol": ProtocolVersion, "model": model})
	if err != nil {
		return err
	}
	if resp["type"] != "hello" {
		return &ImplError{Kind: FailProtocol, Msg: fmt.Sprintf("the handshake was answered with %s", canonJSON(resp))}
	}
	if p, _ := resp["protocol"].(string); p != ProtocolVersion {
		return &ImplError{Kind: FailProtocol, Msg: fmt.Sprintf("the implementation speaks %q, Modex %q", p, ProtocolVersion)}
	}
	a.name, _ = resp["name"].(string)
	return nil
}

func (a *lineAdapter) Reset(ctx context.Context) error {
	resp, err := a.call(ctx, map[string]any{"type": "reset"})
	if err != nil {
		return err
	}
	if resp["type"] != "ok" {
		return &ImplError{Kind: FailProtocol, Msg: "reset was answered with " + canonJSON(resp)}
	}
	a.events.clear()
	return nil
}

func (a *lineAdapter) Invoke(ctx context.Context, action string, args []any) (any, error) {
	if args == nil {
		args = []any{}
	}
	resp, err := a.call(ctx, map[string]any{"type": "invoke", "action": action, "args": args})
	if err != nil {
		return nil, err
	}
	switch resp["type"] {
	case "result":
		return resp["output"], nil
	case "refused":
		reason, _ := resp["reason"].(string)
		return nil, &RefusedError{Reason: reason}
	case "error":
		m, _ := resp["message"].(string)
		return nil, &ImplError{Kind: FailCrash, Msg: "the implementation reported an error: " + m}
	}
	return nil, &ImplError{Kind: FailProtocol, Msg: "invoke was answered with " + canonJSON(resp)}
}

func (a *lineAdapter) Next(ctx context.Context, wait time.Duration) (*Event, error) {
	return a.events.next(ctx, wait)
}

func (a *lineAdapter) Close() error {
	a.mu.Lock()
	dead := a.dead != nil
	a.mu.Unlock()
	if !dead {
		data, _ := json.Marshal(map[string]any{"type": "shutdown"})
		a.wmu.Lock()
		a.w.Write(append(data, '\n'))
		a.wmu.Unlock()
	}
	if a.closer != nil {
		return a.closer()
	}
	return nil
}

// ringBuffer keeps the last n bytes written (a child's stderr).
type ringBuffer struct {
	mu  sync.Mutex
	buf []byte
	n   int
}

func (r *ringBuffer) Write(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.buf = append(r.buf, p...)
	if len(r.buf) > r.n {
		r.buf = r.buf[len(r.buf)-r.n:]
	}
	return len(p), nil
}

func (r *ringBuffer) String() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return strings.TrimSpace(string(r.buf))
}

// StartProcess starts an implementation adapter as a child process speaking
// the protocol on its standard input and output, and shakes hands. The
// child runs in its own process group, which Close kills.
func StartProcess(ctx context.Context, model string, command []string, dir string, timeout time.Duration) (Implementation, error) {
	if len(command) == 0 {
		return nil, fmt.Errorf("no adapter command")
	}
	cmd := exec.Command(command[0], command[1:]...)
	cmd.Dir = dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Env = os.Environ()
	stderr := &ringBuffer{n: 4096}
	cmd.Stderr = stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting the adapter %q: %w", strings.Join(command, " "), err)
	}
	exited := make(chan struct{})
	var waitErr error
	go func() {
		waitErr = cmd.Wait()
		close(exited)
	}()
	kill := func() {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	a := newLineAdapter(out, in, timeout)
	a.onDead = func() *ImplError {
		select {
		case <-exited:
		case <-time.After(2 * time.Second):
		}
		msg := "the implementation exited"
		if waitErr != nil {
			msg += " (" + waitErr.Error() + ")"
		}
		if s := stderr.String(); s != "" {
			msg += "; its last output on stderr:\n" + s
		}
		return &ImplError{Kind: FailCrash, Msg: msg}
	}
	a.closer = func() error {
		in.Close()
		select {
		case <-exited:
		case <-time.After(time.Second):
			kill()
			<-exited
		}
		kill() // whatever the adapter started in its group
		return nil
	}
	if err := a.hello(ctx, model); err != nil {
		a.Close()
		if s := stderr.String(); s != "" {
			return nil, fmt.Errorf("%w\nadapter stderr:\n%s", err, s)
		}
		return nil, err
	}
	return a, nil
}

// Dial connects to an adapter already listening on a TCP address and shakes
// hands.
func Dial(ctx context.Context, model, address string, timeout time.Duration) (Implementation, error) {
	d := net.Dialer{Timeout: timeout}
	conn, err := d.DialContext(ctx, "tcp", address)
	if err != nil {
		return nil, fmt.Errorf("connecting to the adapter at %s: %w", address, err)
	}
	a := newLineAdapter(conn, conn, timeout)
	a.closer = conn.Close
	if err := a.hello(ctx, model); err != nil {
		conn.Close()
		return nil, err
	}
	return a, nil
}

// InProcess is an implementation living in the same process, for Go users
// and for tests: Do performs controllable actions; the implementation calls
// Emit for observable events (from any goroutine).
type InProcess struct {
	// ResetFunc brings the implementation back to its initial state.
	ResetFunc func() error
	// Do performs an action; return a *RefusedError to refuse it.
	Do func(action string, args []any) (any, error)

	events eventQueue
}

// Emit reports an observable event.
func (p *InProcess) Emit(action string, args ...any) {
	p.events.push(&Event{Action: action, Args: args})
}

// Reset implements Implementation.
func (p *InProcess) Reset(ctx context.Context) error {
	p.events.clear()
	if p.ResetFunc != nil {
		return p.ResetFunc()
	}
	return nil
}

// Invoke implements Implementation.
func (p *InProcess) Invoke(ctx context.Context, action string, args []any) (any, error) {
	return p.Do(action, args)
}

// Next implements Implementation.
func (p *InProcess) Next(ctx context.Context, wait time.Duration) (*Event, error) {
	return p.events.next(ctx, wait)
}

// Close implements Implementation.
func (p *InProcess) Close() error { return nil }

// eventQueue buffers observable events in order and lets one reader wait
// for the next. After fail, the reader gets the error once the buffer is
// drained.
type eventQueue struct {
	mu     sync.Mutex
	events []*Event
	err    error
	wake   chan struct{}
}

func (q *eventQueue) signal() {
	select {
	case q.wakeCh() <- struct{}{}:
	default:
	}
}

func (q *eventQueue) wakeCh() chan struct{} {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.wake == nil {
		q.wake = make(chan struct{}, 1)
	}
	return q.wake
}

func (q *eventQueue) push(ev *Event) {
	q.mu.Lock()
	q.events = append(q.events, ev)
	q.mu.Unlock()
	q.signal()
}

func (q *eventQueue) clear() {
	q.mu.Lock()
	q.events = nil
	q.mu.Unlock()
}

func (q *eventQueue) fail(err error) {
	q.mu.Lock()
	if q.err == nil {
		q.err = err
	}
	q.mu.Unlock()
	q.signal()
}

// next returns the next event, waiting up to wait; nil when none came.
func (q *eventQueue) next(ctx context.Context, wait time.Duration) (*Event, error) {
	wake := q.wakeCh()
	deadline := time.Now().Add(wait)
	for {
		q.mu.Lock()
		if len(q.events) > 0 {
			ev := q.events[0]
			q.events = q.events[1:]
			q.mu.Unlock()
			return ev, nil
		}
		err := q.err
		q.mu.Unlock()
		if err != nil {
			return nil, err
		}
		left := time.Until(deadline)
		if left <= 0 {
			return nil, nil
		}
		t := time.NewTimer(left)
		select {
		case <-wake:
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return nil, ctx.Err()
		}
		t.Stop()
	}
}
