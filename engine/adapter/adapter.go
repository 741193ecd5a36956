package adapter

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"os"
	"os/exec"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/modex/modex/engine/conform"
	"github.com/modex/modex/engine/model"
)

// maxLine bounds one line from an implementation.
const maxLine = 16 << 20

// waitDelay bounds how long, once a child exited (or was killed), Modex
// waits for its output pipes: a grandchild that escaped the process group
// (setsid) may hold them open forever.
const waitDelay = 2 * time.Second

// lineAdapter speaks the JSON-lines adapter protocol over a stream.
type lineAdapter struct {
	w       io.Writer
	wmu     sync.Mutex
	timeout time.Duration

	callMu  sync.Mutex  // one call at a time
	timer   *time.Timer // a call's timeout (under callMu)
	wbuf    []byte      // a call's request line (under callMu)
	mu      sync.Mutex
	nextID  int
	pending map[int]chan map[string]any
	events  conform.EventQueue
	dead    *conform.ImplError // set when the stream failed; every call fails with it
	onDead  func() *conform.ImplError
	closer  func() error
	name    string
	missing []string // the controllable actions the hello answer said are not implemented
	// coverage: the hello answer's features include "coverage" (the
	// adapter answers the coverage request).
	coverage bool
}

// Option is a setting of StartProcess.
type Option struct{ env []string }

// WithEnv adds variables ("NAME=value") to the adapter's environment (and
// so to the processes it starts), e.g. where to write coverage data.
func WithEnv(env ...string) Option { return Option{env: env} }

// HelloFor is the handshake for a model: its name and its controllable
// actions.
func HelloFor(info *model.ModelInfo) Hello {
	h := Hello{Model: info.Name, Actions: []string{}}
	for _, a := range info.Actions {
		if a.Kind == model.Controllable {
			h.Actions = append(h.Actions, a.Name)
		}
	}
	return h
}

// Hello is what Modex tells an adapter in the handshake: the model's
// name and its controllable actions (so that an adapter made with the kit
// can answer which of them it does not implement yet).
type Hello struct {
	Model   string
	Actions []string
}

// newLineAdapter is an adapter writing requests to w; start it on what it
// reads once its hooks (onDead, closer) are set: its reading goroutine
// reads them.
func newLineAdapter(w io.Writer, timeout time.Duration) *lineAdapter {
	if timeout <= 0 {
		timeout = 5 * time.Second
	}
	return &lineAdapter{w: w, timeout: timeout, pending: map[int]chan map[string]any{}}
}

// start reads the implementation's lines from r.
func (a *lineAdapter) start(r io.Reader) { go a.read(r) }

func (a *lineAdapter) fail(e *conform.ImplError) {
	a.mu.Lock()
	if a.dead == nil {
		a.dead = e
	}
	for id, ch := range a.pending {
		close(ch)
		delete(a.pending, id)
	}
	a.mu.Unlock()
	a.events.Fail(e)
}

func (a *lineAdapter) read(r io.Reader) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), maxLine)
	line := 0
	for sc.Scan() {
		line++
		raw := bytes.TrimSpace(sc.Bytes())
		if len(raw) == 0 {
			continue
		}
		text := lazyText(raw) // the line, for error messages only
		x, err := conform.DecodeJSON(raw)
		msg, ok := x.(map[string]any)
		if err != nil || !ok {
			a.fail(&conform.ImplError{Kind: conform.FailProtocol, Msg: fmt.Sprintf("line %d from the implementation is not a JSON object: %.200q", line, text)})
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
				a.fail(&conform.ImplError{Kind: conform.FailProtocol, Msg: fmt.Sprintf("line %d: an event needs an action name and an args array: %.200q", line, text)})
				return
			}
			if err := a.events.Push(&conform.Event{Action: action, Args: args, Bytes: len(raw)}); err != nil {
				a.fail(err.(*conform.ImplError))
				return
			}
		case "hello", "ok", "result", "refused", "unimplemented", "error", "coverage":
			id := -1
			if f, ok := msg["id"].(float64); ok && f == math.Trunc(f) && math.Abs(f) < 1<<53 {
				id = int(f) // an id of 4.9 answers no request
			}
			a.mu.Lock()
			ch, ok := a.pending[id]
			delete(a.pending, id)
			a.mu.Unlock()
			if !ok {
				a.fail(&conform.ImplError{Kind: conform.FailProtocol, Msg: fmt.Sprintf("line %d answers no pending request (id %v): %.200q", line, msg["id"], text)})
				return
			}
			ch <- msg
		default:
			a.fail(&conform.ImplError{Kind: conform.FailProtocol, Msg: fmt.Sprintf("line %d has unknown type %q: %.200q", line, typ, text)})
			return
		}
	}
	if e := sc.Err(); errors.Is(e, bufio.ErrTooLong) {
		a.fail(&conform.ImplError{Kind: conform.FailProtocol, Msg: fmt.Sprintf("line %d from the implementation is longer than %d MiB", line+1, maxLine>>20)})
		return
	}
	err := &conform.ImplError{Kind: conform.FailCrash, Msg: "the implementation closed its output"}
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

// lazyText is a line read, printed (%q, %.200q) only when an error needs it.
type lazyText []byte

// String is the line as text.
func (t lazyText) String() string { return string(t) }

// call sends a request and waits for its answer. Calls are one at a time
// (the tester's); the timer is the adapter's, reset for each.
func (a *lineAdapter) call(ctx context.Context, msg map[string]any) (map[string]any, error) {
	a.callMu.Lock()
	defer a.callMu.Unlock()
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
	data, err := appendRequest(a.wbuf[:0], msg)
	if err != nil {
		return nil, err
	}
	a.wbuf = append(data, '\n')
	if err := a.write(ctx, a.wbuf); err != nil {
		a.wbuf = nil // a write given up on may still be reading it
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		e := writeError(err, a.timeout)
		if e.Kind == conform.FailCrash && a.onDead != nil {
			// The implementation closed its input: it exited, most
			// likely, and how it did says more (within the timeout).
			if d := a.onDead(); d.Kind == conform.FailCrash {
				e = d
			}
		}
		a.fail(e)
		a.mu.Lock()
		d := a.dead
		a.mu.Unlock()
		return nil, d
	}
	if a.timer == nil {
		a.timer = time.NewTimer(a.timeout)
	} else {
		a.timer.Reset(a.timeout)
	}
	t := a.timer
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
		e := &conform.ImplError{Kind: conform.FailTimeout, Msg: fmt.Sprintf("no answer to %s within %s", msg["type"], a.timeout)}
		a.fail(e)
		return nil, e
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// appendRequest appends msg as json.Marshal writes it (keys sorted),
// without its reflection for the usual few plain keys.
func appendRequest(b []byte, msg map[string]any) ([]byte, error) {
	keys := make([]string, 0, 8)
	for k := range msg {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	b = append(b, '{')
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		var err error
		if b, err = conform.AppendJSON(b, k); err != nil {
			return b, err
		}
		b = append(b, ':')
		if b, err = conform.AppendJSON(b, msg[k]); err != nil {
			return b, err
		}
	}
	return append(b, '}'), nil
}

// write sends data to the implementation within the call timeout: an
// implementation that stops reading its input (a full pipe) must not
// block Modex for ever, nor a cancel or a signal.
func (a *lineAdapter) write(ctx context.Context, data []byte) error {
	a.wmu.Lock()
	defer a.wmu.Unlock()
	if d, ok := a.w.(interface{ SetWriteDeadline(time.Time) error }); ok && d.SetWriteDeadline(time.Now().Add(a.timeout)) == nil {
		stop := context.AfterFunc(ctx, func() { d.SetWriteDeadline(time.Now()) })
		_, err := a.w.Write(data)
		stop()
		return err
	}
	// A writer without deadlines: the write goes on in the background;
	// a timed-out one ends when the implementation is closed.
	done := make(chan error, 1)
	go func() {
		_, err := a.w.Write(data)
		done <- err
	}()
	t := time.NewTimer(a.timeout)
	defer t.Stop()
	select {
	case err := <-done:
		return err
	case <-t.C:
		return os.ErrDeadlineExceeded
	case <-ctx.Done():
		return ctx.Err()
	}
}

// writeError says why a write to the implementation failed.
func writeError(err error, timeout time.Duration) *conform.ImplError {
	switch {
	case errors.Is(err, os.ErrDeadlineExceeded):
		return &conform.ImplError{Kind: conform.FailTimeout, Msg: fmt.Sprintf("the implementation did not read its input within %s (it stopped reading requests)", timeout)}
	case errors.Is(err, syscall.EPIPE), errors.Is(err, os.ErrClosed), errors.Is(err, io.ErrClosedPipe):
		return &conform.ImplError{Kind: conform.FailCrash, Msg: "the implementation closed its input (it exited, or closed its standard input)"}
	}
	return &conform.ImplError{Kind: conform.FailCrash, Msg: "writing to the implementation: " + err.Error()}
}

func (a *lineAdapter) hello(ctx context.Context, h Hello) error {
	msg := map[string]any{"type": "hello", "protocol": conform.ProtocolVersion, "model": h.Model}
	if h.Actions != nil {
		actions := make([]any, len(h.Actions))
		for i, n := range h.Actions {
			actions[i] = n
		}
		msg["actions"] = actions
	}
	resp, err := a.call(ctx, msg)
	if err != nil {
		return err
	}
	if resp["type"] != "hello" {
		return &conform.ImplError{Kind: conform.FailProtocol, Msg: fmt.Sprintf("the handshake was answered with %s", conform.CanonJSON(resp))}
	}
	if p, _ := resp["protocol"].(string); p != conform.ProtocolVersion {
		return &conform.ImplError{Kind: conform.FailProtocol, Msg: fmt.Sprintf("the implementation speaks %q, Modex %q", p, conform.ProtocolVersion)}
	}
	a.name, _ = resp["name"].(string)
	if fs, ok := resp["features"].([]any); ok {
		for _, f := range fs {
			a.coverage = a.coverage || f == "coverage"
		}
	}
	if u, ok := resp["unimplemented"]; ok && u != nil {
		list, ok := u.([]any)
		for _, x := range list {
			name, isName := x.(string)
			ok = ok && isName
			a.missing = append(a.missing, name)
		}
		if !ok {
			return &conform.ImplError{Kind: conform.FailProtocol, Msg: "the handshake's unimplemented is not a list of action names: " + conform.CanonJSON(u)}
		}
	}
	return nil
}

// Name is the name the adapter gave in the handshake.
func (a *lineAdapter) Name() string { return a.name }

// NotImplemented lists the controllable actions the adapter said, in the
// handshake, it does not implement (conform.Unimplemented).
func (a *lineAdapter) NotImplemented() []string { return a.missing }

func (a *lineAdapter) Reset(ctx context.Context) error {
	resp, err := a.call(ctx, map[string]any{"type": "reset"})
	if err != nil {
		return err
	}
	if resp["type"] != "ok" {
		return &conform.ImplError{Kind: conform.FailProtocol, Msg: "reset was answered with " + conform.CanonJSON(resp)}
	}
	a.events.Clear()
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
		return nil, &conform.RefusedError{Reason: reason}
	case "unimplemented":
		reason, _ := resp["reason"].(string)
		return nil, &conform.NotImplementedError{Action: action, Reason: reason}
	case "error":
		m, _ := resp["message"].(string)
		return nil, &conform.ImplError{Kind: conform.FailCrash, Msg: "the implementation reported an error: " + m}
	}
	return nil, &conform.ImplError{Kind: conform.FailProtocol, Msg: "invoke was answered with " + conform.CanonJSON(resp)}
}

// FlushCoverage asks the adapter to write the implementation's coverage
// data and say where (conform.CoverageFlusher), when its handshake offered
// it ("features": ["coverage"]). An error answer is an error, not a
// failure of the implementation.
func (a *lineAdapter) FlushCoverage(ctx context.Context) (*conform.CoverageReport, error) {
	if !a.coverage {
		// Asked only of an adapter that says it answers: another may
		// exit on an unknown request.
		return &conform.CoverageReport{Format: "none", Reason: "the adapter does not offer the coverage request (its handshake lists no \"coverage\" feature): only what the implementation writes into MODEX_COVERAGE_DIR itself is read"}, nil
	}
	resp, err := a.call(ctx, map[string]any{"type": "coverage"})
	if err != nil {
		return nil, err
	}
	switch resp["type"] {
	case "coverage":
		r := &conform.CoverageReport{}
		r.Format, _ = resp["format"].(string)
		r.Path, _ = resp["path"].(string)
		r.Reason, _ = resp["reason"].(string)
		return r, nil
	case "error":
		m, _ := resp["message"].(string)
		return nil, fmt.Errorf("the adapter answered the coverage request with an error: %s", m)
	}
	return nil, &conform.ImplError{Kind: conform.FailProtocol, Msg: "coverage was answered with " + conform.CanonJSON(resp)}
}

func (a *lineAdapter) Next(ctx context.Context, wait time.Duration) (*conform.Event, error) {
	return a.events.Next(ctx, wait)
}

func (a *lineAdapter) Close() error {
	a.mu.Lock()
	dead := a.dead != nil
	a.mu.Unlock()
	if !dead {
		data, _ := json.Marshal(map[string]any{"type": "shutdown"})
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		a.write(ctx, append(data, '\n'))
		cancel()
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

// stderrTail is the end of a process's standard error: its last lines
// within n bytes, or, when the last line alone is longer, that line's end
// after "…".
func stderrTail(s string, n int) string {
	s = strings.TrimSpace(s)
	if len(s) <= n {
		return s
	}
	t := s[len(s)-n:]
	if s[len(s)-n-1] == '\n' {
		return t // whole lines
	}
	if i := strings.IndexByte(t, '\n'); i >= 0 {
		return strings.TrimSpace(t[i+1:])
	}
	for t != "" && !utf8.RuneStart(t[0]) {
		t = t[1:]
	}
	return "…" + t
}

// exitCrash says how an ended process ended: its signal or its exit
// status, and its standard error's end. A launcher that exited with status
// 1 saying how its child ended on its last line, as go run does ("signal:
// killed", "exit status 3"), is read for the child's end.
func exitCrash(ps *os.ProcessState, stderr string) *conform.Crash {
	c := &conform.Crash{Signal: killedBy(ps), Stderr: stderrTail(stderr, conform.MaxStderrTail)}
	if c.Signal != "" {
		return c
	}
	c.Status = ps.ExitCode()
	if c.Status != 1 {
		return c
	}
	last := c.Stderr[strings.LastIndexByte(c.Stderr, '\n')+1:]
	if words, ok := strings.CutPrefix(last, "signal: "); ok {
		if sig := signalNamed(strings.TrimSuffix(words, " (core dumped)")); sig != "" {
			c.Signal, c.Status, c.Launcher = sig, 0, 1
		}
	} else if code, ok := strings.CutPrefix(last, "exit status "); ok {
		if n, err := strconv.Atoi(code); err == nil && n > 1 {
			c.Status, c.Launcher = n, 1
		}
	}
	return c
}

// running holds the adapter processes started and not yet closed, for
// KillAll.
var running = struct {
	sync.Mutex
	cmds map[*exec.Cmd]bool
}{cmds: map[*exec.Cmd]bool{}}

func track(cmd *exec.Cmd) {
	running.Lock()
	running.cmds[cmd] = true
	running.Unlock()
}

func untrack(cmd *exec.Cmd) {
	running.Lock()
	delete(running.cmds, cmd)
	running.Unlock()
}

// KillAll kills every adapter process still running, with its process
// group: a modex that must exit at once (a second Ctrl-C) leaves none
// behind.
func KillAll() {
	running.Lock()
	defer running.Unlock()
	for cmd := range running.cmds {
		killGroup(cmd)
	}
}

// StartProcess starts an implementation adapter as a child process speaking
// the protocol on its standard input and output, and shakes hands. The
// child runs in its own process group, which Close kills (on Windows, where
// there are no process groups, Close kills the child only).
func StartProcess(ctx context.Context, hello Hello, command []string, dir string, timeout time.Duration, opts ...Option) (conform.Implementation, error) {
	if len(command) == 0 {
		return nil, fmt.Errorf("no adapter command")
	}
	cmd := exec.Command(command[0], command[1:]...)
	cmd.Dir = dir
	ownGroup(cmd)
	cmd.Env = os.Environ()
	for _, o := range opts {
		cmd.Env = append(cmd.Env, o.env...)
	}
	cmd.WaitDelay = waitDelay // an escaped grandchild may keep stderr open
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
	track(cmd)
	go func() {
		waitErr = cmd.Wait()
		close(exited)
	}()
	kill := func() { killGroup(cmd) }
	a := newLineAdapter(in, timeout)
	a.onDead = func() *conform.ImplError {
		// Within the call timeout, so that a pending call gets this verdict
		// rather than a timeout.
		select {
		case <-exited:
		case <-time.After(min(2*time.Second, a.timeout/2)):
			return &conform.ImplError{Kind: conform.FailProtocol, Msg: "the implementation closed its output but is still running"}
		}
		if cmd.ProcessState == nil { // not waited for: how it ended is not known
			msg := "the implementation exited"
			if waitErr != nil {
				msg += " (" + waitErr.Error() + ")"
			}
			return &conform.ImplError{Kind: conform.FailCrash, Msg: msg}
		}
		c := exitCrash(cmd.ProcessState, stderr.String())
		return &conform.ImplError{Kind: conform.FailCrash, Msg: c.Message(), Crash: c}
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
		untrack(cmd)
		return nil
	}
	a.start(out)
	if err := a.hello(ctx, hello); err != nil {
		a.Close()
		var ie *conform.ImplError
		if errors.As(err, &ie) && ie.Crash != nil {
			// Its whole stderr follows, not only the crash's tail.
			err = &conform.ImplError{Kind: ie.Kind, Msg: "the adapter " + ie.Crash.How() + " before the handshake", Crash: ie.Crash}
		}
		if s := stderr.String(); s != "" {
			return nil, fmt.Errorf("%w\nadapter stderr:\n%s", err, s)
		}
		return nil, err
	}
	return a, nil
}

// Dial connects to an adapter already listening on a TCP address and shakes
// hands.
func Dial(ctx context.Context, hello Hello, address string, timeout time.Duration) (conform.Implementation, error) {
	d := net.Dialer{Timeout: timeout}
	conn, err := d.DialContext(ctx, "tcp", address)
	if err != nil {
		return nil, fmt.Errorf("connecting to the adapter at %s: %w", address, err)
	}
	a := newLineAdapter(conn, timeout)
	a.closer = conn.Close
	a.start(conn)
	if err := a.hello(ctx, hello); err != nil {
		conn.Close()
		return nil, err
	}
	return a, nil
}
