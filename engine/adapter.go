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
	events  []*Event
	evWake  chan struct{}
	dead    *ImplError // set when the stream failed; every call fails with it
	onDead  func() *ImplError
	closer  func() error
	name    string
}

func newLineAdapter(r io.Reader, w io.Writer, timeout time.Duration) *lineAdapter {
	if timeout <= 0 {
		timeout = 5 * time.Second
	}
	a := &lineAdapter{w: w, timeout: timeout, pending: map[int]chan map[string]any{}, evWake: make(chan struct{}, 1)}
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
	select {
	case a.evWake <- struct{}{}:
	default:
	}
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
			a.mu.Lock()
			a.events = append(a.events, &Event{Action: action, Args: args})
			a.mu.Unlock()
			select {
			case a.evWake <- struct{}{}:
			default:
			}
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
	a.mu.Lock()
	a.events = nil
	a.mu.Unlock()
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
	deadline := time.Now().Add(wait)
	for {
		a.mu.Lock()
		if len(a.events) > 0 {
			ev := a.events[0]
			a.events = a.events[1:]
			a.mu.Unlock()
			return ev, nil
		}
		dead := a.dead
		a.mu.Unlock()
		if dead != nil {
			return nil, dead
		}
		left := time.Until(deadline)
		if left <= 0 {
			return nil, nil
		}
		t := time.NewTimer(left)
		select {
		case <-a.evWake:
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return nil, ctx.Err()
		}
		t.Stop()
	}
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

	mu     sync.Mutex
	events []*Event
	wake   chan struct{}
}

func (p *InProcess) init() {
	p.mu.Lock()
	if p.wake == nil {
		p.wake = make(chan struct{}, 1)
	}
	p.mu.Unlock()
}

// Emit reports an observable event.
func (p *InProcess) Emit(action string, args ...any) {
	p.init()
	p.mu.Lock()
	p.events = append(p.events, &Event{Action: action, Args: args})
	p.mu.Unlock()
	select {
	case p.wake <- struct{}{}:
	default:
	}
}

// Reset implements Implementation.
func (p *InProcess) Reset(ctx context.Context) error {
	p.init()
	p.mu.Lock()
	p.events = nil
	p.mu.Unlock()
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
	p.init()
	deadline := time.Now().Add(wait)
	for {
		p.mu.Lock()
		if len(p.events) > 0 {
			ev := p.events[0]
			p.events = p.events[1:]
			p.mu.Unlock()
			return ev, nil
		}
		p.mu.Unlock()
		left := time.Until(deadline)
		if left <= 0 {
			return nil, nil
		}
		t := time.NewTimer(left)
		select {
		case <-p.wake:
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return nil, ctx.Err()
		}
		t.Stop()
	}
}

// Close implements Implementation.
func (p *InProcess) Close() error { return nil }
