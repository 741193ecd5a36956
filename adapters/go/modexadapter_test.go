package modexadapter

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// peer is Modex's side of a stream an adapter serves (in memory).
type peer struct {
	t     *testing.T
	in    *io.PipeWriter // the adapter's input
	lines chan string    // the adapter's output lines
	done  chan error     // what Serve returned
}

type pipeConn struct {
	io.Reader
	io.Writer
}

// serve starts a.Serve on in-memory pipes.
func serve(t *testing.T, a *Adapter) *peer {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	p := &peer{t: t, in: inW, lines: make(chan string, 1000), done: make(chan error, 1)}
	go func() {
		err := a.Serve(pipeConn{inR, outW})
		outW.Close()
		p.done <- err
	}()
	go func() {
		sc := bufio.NewScanner(outR)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			p.lines <- sc.Text()
		}
		close(p.lines)
	}()
	t.Cleanup(func() { inW.Close() })
	return p
}

func (p *peer) send(line string) {
	p.t.Helper()
	if _, err := io.WriteString(p.in, line+"\n"); err != nil {
		p.t.Fatalf("writing %s: %v", line, err)
	}
}

// recv is the adapter's next line.
func (p *peer) recv() string {
	p.t.Helper()
	select {
	case l, ok := <-p.lines:
		if !ok {
			p.t.Fatal("the adapter's output ended")
		}
		return l
	case <-time.After(10 * time.Second):
		p.t.Fatal("no line from the adapter in 10 s")
	}
	return ""
}

// call sends a request and checks the answer is want.
func (p *peer) call(req, want string) {
	p.t.Helper()
	p.send(req)
	if got := p.recv(); got != want {
		p.t.Errorf("%s\n got %s\nwant %s", req, got, want)
	}
}

// end waits for Serve to return.
func (p *peer) end() error {
	p.t.Helper()
	select {
	case err := <-p.done:
		return err
	case <-time.After(10 * time.Second):
		p.t.Fatal("Serve did not return")
	}
	return nil
}

func TestHello(t *testing.T) {
	a := New("stack (go)")
	ok := func(Args) (any, error) { return nil, nil }
	a.Handle("Push", ok)
	a.Handle("Pop", ok)
	p := serve(t, a)
	for _, tc := range []struct{ req, want string }{
		{`{"type":"hello","id":1,"protocol":"modex-adapter/1","model":"stack","actions":["Push","Peek","Pop","Size"]}`,
			`{"type":"hello","id":1,"protocol":"modex-adapter/1","name":"stack (go)","features":["coverage"],"unimplemented":["Peek","Size"]}`},
		{`{"type":"hello","id":2,"protocol":"modex-adapter/1","model":"stack","actions":["Push","Pop"]}`,
			`{"type":"hello","id":2,"protocol":"modex-adapter/1","name":"stack (go)","features":["coverage"]}`},
		{`{"type":"hello","id":3,"protocol":"modex-adapter/1","model":"stack"}`,
			`{"type":"hello","id":3,"protocol":"modex-adapter/1","name":"stack (go)","features":["coverage"]}`},
	} {
		p.call(tc.req, tc.want)
	}
}

// Arguments decode to the documented Go values.
func TestDecode(t *testing.T) {
	var got any
	a := New("decode")
	a.Handle("Echo", func(args Args) (any, error) {
		got = args.Value(0)
		return nil, nil
	})
	p := serve(t, a)
	for i, tc := range []struct {
		arg  string
		want any
	}{
		{`null`, nil},
		{`true`, true},
		{`1`, int64(1)},
		{`-7`, int64(-7)},
		{`1.5`, 1.5},
		{`2.0`, int64(2)},
		{`1e3`, int64(1000)},
		{`1e300`, 1e300},
		{`9223372036854775807`, int64(math.MaxInt64)},
		{`"s"`, "s"},
		{`"<&>"`, "<&>"},
		{`[1,"a",[true]]`, []any{int64(1), "a", []any{true}}},
		{`[]`, []any{}},
		{`{"set":[1,2]}`, Set{int64(1), int64(2)}},
		{`{"set":[]}`, Set{}},
		{`{"dict":[["a",1],[[1,2],{"set":["x"]}]]}`, Dict{{"a", int64(1)}, {[]any{int64(1), int64(2)}, Set{"x"}}}},
		{`{"bytes":"hi"}`, []byte("hi")},
		{`{"port":1,"host":"h"}`, json.RawMessage(`{"host":"h","port":1}`)},
		{`{"set":[1],"x":2}`, json.RawMessage(`{"set":[1],"x":2}`)},
		{`{"dict":[[1]]}`, json.RawMessage(`{"dict":[[1]]}`)},
	} {
		got = "unset"
		p.call(fmt.Sprintf(`{"type":"invoke","id":%d,"action":"Echo","args":[%s]}`, i, tc.arg),
			fmt.Sprintf(`{"type":"result","id":%d,"output":null}`, i))
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: decoded %#v, want %#v", tc.arg, got, tc.want)
		}
	}
}

type port int

type endpoint struct {
	Host string `json:"host"`
	Port int    `json:"port"`
}

// Outputs encode as documented; an output that cannot be encoded is an
// error answer.
func TestEncode(t *testing.T) {
	var out any
	a := New("encode")
	a.Handle("Get", func(Args) (any, error) { return out, nil })
	a.Handle("Echo", func(args Args) (any, error) { return args.Value(0), nil })
	p := serve(t, a)
	seven := 7
	var nilPtr *int
	for i, tc := range []struct {
		out  any
		want string // the output's JSON, or the error message
	}{
		{nil, `null`},
		{true, `true`},
		{"s", `"s"`},
		{"<&>", `"<&>"`},
		{3, `3`},
		{int64(-4), `-4`},
		{uint8(7), `7`},
		{1.5, `1.5`},
		{float32(0.5), `0.5`},
		{port(80), `80`},
		{&seven, `7`},
		{nilPtr, `null`},
		{[]byte("hi"), `{"bytes":"hi"}`},
		{[]int{3, 1}, `[3,1]`},
		{[]int(nil), `[]`},
		{[2]string{"b", "a"}, `["b","a"]`},
		{[]any{nil, Set{}}, `[null,{"set":[]}]`},
		{Set{3, int64(1), 2.5}, `{"set":[1,2.5,3]}`},
		{Set{"b", "a", "c"}, `{"set":["a","b","c"]}`},
		{Set{true, false}, `{"set":[false,true]}`},
		{Set{"b", 1, "a"}, `{"set":["b",1,"a"]}`},
		{Set{[]int{2}, []int{1}}, `{"set":[[2],[1]]}`},
		{Dict{{"b", 1}, {"a", Set{2, 1}}}, `{"dict":[["b",1],["a",{"set":[1,2]}]]}`},
		{map[string]int{"b": 2, "a": 1, "c": 3}, `{"dict":[["a",1],["b",2],["c",3]]}`},
		{map[int][]string{2: {"x"}, 1: nil}, `{"dict":[[1,[]],[2,["x"]]]}`},
		{map[string]any{}, `{"dict":[]}`},
		{endpoint{"h", 1}, `{"host":"h","port":1}`},
		{json.RawMessage(`{"a":1}`), `{"a":1}`},
		{make(chan int), `cannot encode the output of Get: cannot encode a chan int`},
		{math.NaN(), `cannot encode the output of Get: cannot encode the number NaN`},
		{Set{func() {}}, `cannot encode the output of Get: cannot encode a func()`},
	} {
		out = tc.out
		want := fmt.Sprintf(`{"type":"result","id":%d,"output":%s}`, i, tc.want)
		if strings.HasPrefix(tc.want, "cannot") {
			want = fmt.Sprintf(`{"type":"error","id":%d,"message":%q}`, i, tc.want)
		}
		p.call(fmt.Sprintf(`{"type":"invoke","id":%d,"action":"Get","args":[]}`, i), want)
	}
	// Decoded values encode back as they came.
	for i, v := range []string{`{"host":"h","port":1}`, `{"set":[1,2]}`, `{"dict":[[[1,"a"],{"bytes":"x"}]]}`, `[1.5,null,"s"]`} {
		p.call(fmt.Sprintf(`{"type":"invoke","id":%d,"action":"Echo","args":[%s]}`, 100+i, v),
			fmt.Sprintf(`{"type":"result","id":%d,"output":%s}`, 100+i, v))
	}
}

// Refusals, unimplemented actions, errors and panics get their answers,
// and the adapter answers on.
func TestInvokeOutcomes(t *testing.T) {
	a := New("outcomes")
	a.Handle("Full", func(Args) (any, error) { return nil, Refuse("the stack is full") })
	a.Handle("Wrapped", func(Args) (any, error) { return nil, fmt.Errorf("push: %w", Refuse("full")) })
	a.Handle("Later", func(Args) (any, error) { return nil, ErrNotImplemented })
	a.Handle("LaterToo", func(Args) (any, error) { return nil, fmt.Errorf("Pop: %w", ErrNotImplemented) })
	a.Handle("Fail", func(Args) (any, error) { return nil, errors.New("the server is down") })
	a.Handle("Panic", func(Args) (any, error) { panic("boom") })
	a.Handle("NilMap", func(Args) (any, error) {
		var m map[string]int
		m["x"] = 1
		return nil, nil
	})
	a.Handle("Push", func(args Args) (any, error) { return args.String(0) + fmt.Sprint(args.Int(1)), nil })
	a.Handle("Types", func(args Args) (any, error) {
		return []any{args.Bool(0), args.Float(1), args.Float(2), args.Len()}, nil
	})
	a.Handle("Str", func(args Args) (any, error) { return args.String(0), nil })
	a.Handle("Bool", func(args Args) (any, error) { return args.Bool(0), nil })
	a.Handle("Float", func(args Args) (any, error) { return args.Float(0), nil })
	a.Handle("Value", func(args Args) (any, error) { return args.Value(-1), nil })
	a.Handle("BadJSON", func(Args) (any, error) { return json.RawMessage(`{`), nil })
	a.Handle("PanicJSON", func(Args) (any, error) { return panicky{}, nil })
	a.Handle("PanicError", func(Args) (any, error) { return nil, panicky{} })
	a.Handle("NilRefused", func(Args) (any, error) { var r *RefusedError; return nil, r })
	p := serve(t, a)
	for i, tc := range []struct{ action, args, want string }{
		{"Full", `[]`, `"type":"refused","id":%d,"reason":"the stack is full"`},
		{"Wrapped", `[]`, `"type":"refused","id":%d,"reason":"full"`},
		{"Later", `[]`, `"type":"unimplemented","id":%d,"reason":"not implemented"`},
		{"LaterToo", `[]`, `"type":"unimplemented","id":%d,"reason":"Pop: not implemented"`},
		{"Nope", `[]`, `"type":"unimplemented","id":%d,"reason":"no handler for Nope"`},
		{"Fail", `[]`, `"type":"error","id":%d,"message":"the server is down"`},
		{"Panic", `[]`, `"type":"error","id":%d,"message":"panic: boom"`},
		{"NilMap", `[]`, `"type":"error","id":%d,"message":"panic: assignment to entry in nil map"`},
		{"Push", `["a",2]`, `"type":"result","id":%d,"output":"a2"`},
		{"Push", `["a","b"]`, `"type":"error","id":%d,"message":"argument 2 of Push: want an integer, got \"b\""`},
		{"Push", `["a",1.5]`, `"type":"error","id":%d,"message":"argument 2 of Push: want an integer, got 1.5"`},
		{"Push", `["a"]`, `"type":"error","id":%d,"message":"argument 2 of Push: missing (1 given)"`},
		{"Push", `[1,2]`, `"type":"error","id":%d,"message":"argument 1 of Push: want a string, got 1"`},
		{"Push", `[{"set":[1]},2]`, `"type":"error","id":%d,"message":"argument 1 of Push: want a string, got {\"set\":[1]}"`},
		{"Types", `[true,2,0.5]`, `"type":"result","id":%d,"output":[true,2,0.5,3]`},
		{"Str", `[]`, `"type":"error","id":%d,"message":"argument 1 of Str: missing (0 given)"`},
		{"Bool", `[null]`, `"type":"error","id":%d,"message":"argument 1 of Bool: want a boolean, got null"`},
		{"Float", `["x"]`, `"type":"error","id":%d,"message":"argument 1 of Float: want a number, got \"x\""`},
		{"Value", `[1]`, `"type":"error","id":%d,"message":"argument 0 of Value: missing (1 given)"`},
		{"Push", `"a"`, `"type":"error","id":%d,"message":"invoke: args must be an array"`},
		{"Types", `[false,1e300,-1]`, `"type":"result","id":%d,"output":[false,1e+300,-1,3]`},
		{"BadJSON", `[]`, `"type":"error","id":%d,"message":"cannot encode the output of BadJSON: json: error calling MarshalJSON for type json.RawMessage: unexpected end of JSON input"`},
		{"PanicJSON", `[]`, `"type":"error","id":%d,"message":"panic: MarshalJSON broke"`},
		{"PanicError", `[]`, `"type":"error","id":%d,"message":"panic: Error broke"`},
		{"NilRefused", `[]`, `"type":"error","id":%d,"message":"panic: runtime error: invalid memory address or nil pointer dereference"`},
		{"Full", `[]`, `"type":"refused","id":%d,"reason":"the stack is full"`},
	} {
		p.call(fmt.Sprintf(`{"type":"invoke","id":%d,"action":%q,"args":%s}`, i, tc.action, tc.args),
			"{"+fmt.Sprintf(tc.want, i)+"}")
	}
	// No args at all: none.
	p.call(`{"type":"invoke","id":99,"action":"Str"}`, `{"type":"error","id":99,"message":"argument 1 of Str: missing (0 given)"}`)
}

// panicky panics in its methods.
type panicky struct{}

func (panicky) MarshalJSON() ([]byte, error) { panic("MarshalJSON broke") }
func (panicky) Error() string                { panic("Error broke") }

// An argument's getter panics outside a handler with a message naming the
// argument.
func TestArgsPanic(t *testing.T) {
	defer func() {
		p := recover()
		err, ok := p.(error)
		if !ok || err.Error() != `argument 2: want an integer, got true` {
			t.Errorf("panic %v", p)
		}
	}()
	Args{int64(1), true}.Int(1)
}

// Reset calls the hook; its error or panic is the answer's message.
func TestReset(t *testing.T) {
	p := serve(t, New("no hook"))
	p.call(`{"type":"reset","id":1}`, `{"type":"ok","id":1}`)

	resets := 0
	var fail error
	a := New("hook")
	a.OnReset(func() error {
		resets++
		if fail != nil && fail.Error() == "panic" {
			panic("the hook broke")
		}
		return fail
	})
	p = serve(t, a)
	p.call(`{"type":"reset","id":1}`, `{"type":"ok","id":1}`)
	fail = errors.New("the database is down")
	p.call(`{"type":"reset","id":2}`, `{"type":"error","id":2,"message":"reset: the database is down"}`)
	fail = errors.New("panic")
	p.call(`{"type":"reset","id":3}`, `{"type":"error","id":3,"message":"reset: panic: the hook broke"}`)
	fail = nil
	p.call(`{"type":"reset","id":4}`, `{"type":"ok","id":4}`)
	if resets != 4 {
		t.Errorf("%d resets, want 4", resets)
	}
}

// Lines that are not requests are skipped; an unknown request with an id
// is an error answer.
func TestBadRequests(t *testing.T) {
	p := serve(t, New("bad"))
	p.send(`not json`)
	p.send(`[1,2]`)
	p.send(`null`)
	p.send(``)
	p.send(`   `)
	p.send(`{"type":"frobnicate"}`)
	p.call(`{"type":"frobnicate","id":7}`, `{"type":"error","id":7,"message":"unknown request type frobnicate"}`)
	p.call(`{"type":"reset","id":8}`, `{"type":"ok","id":8}`)
}

// Events emitted from another goroutine while a handler runs are written
// at once, whole lines, in the order emitted, before the handler's answer
// (which waits for the last of them to be read).
func TestEventsDuringInvoke(t *testing.T) {
	a := New("events")
	const n = 100
	a.Handle("Burst", func(args Args) (any, error) {
		done := make(chan struct{})
		go func() {
			defer close(done)
			for i := range n {
				a.Emit("Tick", i, strings.Repeat("x", 1000*(i%7)), Set{"b", "a"})
			}
		}()
		time.Sleep(50 * time.Millisecond)
		<-done
		a.Emit("Last")
		return "burst", nil
	})
	p := serve(t, a)
	p.send(`{"type":"invoke","id":1,"action":"Burst","args":[]}`)
	for i := range n {
		line := p.recv()
		var ev struct {
			Type   string
			Action string
			Args   []any
		}
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			t.Fatalf("line %d is not JSON: %v: %.100s", i, err, line)
		}
		want := fmt.Sprintf(`{"type":"event","action":"Tick","args":[%d,"%s",{"set":["a","b"]}]}`, i, strings.Repeat("x", 1000*(i%7)))
		if line != want {
			t.Fatalf("line %d: %.100s", i, line)
		}
	}
	if got := p.recv(); got != `{"type":"event","action":"Last","args":[]}` {
		t.Errorf("got %s", got)
	}
	if got := p.recv(); got != `{"type":"result","id":1,"output":"burst"}` {
		t.Errorf("got %s", got)
	}
}

// Many goroutines emitting at once, during requests: every line whole.
func TestConcurrentEmit(t *testing.T) {
	a := New("concurrent")
	a.Handle("Nop", func(Args) (any, error) { return 1, nil })
	p := serve(t, a)
	p.call(`{"type":"reset","id":100}`, `{"type":"ok","id":100}`) // Serve has begun: no event is dropped
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 50 {
				a.Emit("E", g, i)
			}
		}()
	}
	go func() {
		for i := range 20 {
			p.send(fmt.Sprintf(`{"type":"invoke","id":%d,"action":"Nop","args":[]}`, i))
		}
	}()
	next := map[float64]float64{}
	results := 0
	for results < 20 || len(next) < 4 || !all50(next) {
		var m map[string]any
		line := p.recv()
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("not JSON: %s", line)
		}
		if m["type"] == "result" {
			results++
			continue
		}
		args := m["args"].([]any)
		g, i := args[0].(float64), args[1].(float64)
		if next[g] != i {
			t.Fatalf("goroutine %v: event %v, want %v", g, i, next[g])
		}
		next[g] = i + 1
	}
	wg.Wait()
}

func all50(next map[float64]float64) bool {
	for _, n := range next {
		if n != 50 {
			return false
		}
	}
	return true
}

// Shutdown and the end of the input end Serve, calling the close hook
// once; events emitted after are dropped.
func TestShutdownAndEOF(t *testing.T) {
	for _, shutdown := range []bool{true, false} {
		var closed atomic.Int32
		a := New("closing")
		a.OnClose(func() { closed.Add(1) })
		p := serve(t, a)
		p.call(`{"type":"reset","id":1}`, `{"type":"ok","id":1}`)
		if shutdown {
			p.send(`{"type":"shutdown"}`)
		} else {
			p.in.Close()
		}
		if err := p.end(); err != nil {
			t.Errorf("shutdown=%v: Serve returned %v", shutdown, err)
		}
		a.Emit("Late", 1)
		if l, ok := <-p.lines; ok {
			t.Errorf("shutdown=%v: a line after the end: %s", shutdown, l)
		}
		if closed.Load() != 1 {
			t.Errorf("shutdown=%v: the close hook ran %d times", shutdown, closed.Load())
		}
	}
}

// A write that fails ends Serve with its error.
func TestWriteError(t *testing.T) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	outR.Close()
	done := make(chan error, 1)
	go func() { done <- New("x").Serve(pipeConn{inR, outW}) }()
	io.WriteString(inW, `{"type":"reset","id":1}`+"\n")
	if err := <-done; !errors.Is(err, io.ErrClosedPipe) {
		t.Errorf("Serve returned %v", err)
	}
	inW.Close()
}

func TestListenArg(t *testing.T) {
	for _, tc := range []struct {
		args  []string
		addr  string
		found bool
		err   bool
	}{
		{nil, "", false, false},
		{[]string{"adapter", "--fixed"}, "", false, false},
		{[]string{"adapter", "--listen", "127.0.0.1:0", "--fixed"}, "127.0.0.1:0", true, false},
		{[]string{"-listen=:7000"}, ":7000", true, false},
		{[]string{"--listen=h:1"}, "h:1", true, false},
		{[]string{"--listen"}, "", false, true},
		{[]string{"--", "--listen", "x"}, "", false, false},
	} {
		addr, found, err := mxListenArg(tc.args)
		if addr != tc.addr || found != tc.found || (err != nil) != tc.err {
			t.Errorf("%q: %q %v %v", tc.args, addr, found, err)
		}
	}
}

// buildKitAdapter builds testdata/kitadapter.
func buildKitAdapter(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds a program")
	}
	bin := filepath.Join(t.TempDir(), "kitadapter")
	if out, err := exec.Command("go", "build", "-o", bin, "./testdata/kitadapter").CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	return bin
}

// child is a running adapter program speaking on its stdin and stdout.
type child struct {
	cmd    *exec.Cmd
	in     io.WriteCloser
	out    *bufio.Scanner
	stderr *strings.Builder
}

func startChild(t *testing.T, bin string, args ...string) *child {
	t.Helper()
	cmd := exec.Command(bin, args...)
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	c := &child{cmd: cmd, in: in, out: bufio.NewScanner(out), stderr: &strings.Builder{}}
	cmd.Stderr = &syncWriter{w: c.stderr}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	return c
}

func (c *child) call(t *testing.T, req, want string) {
	t.Helper()
	io.WriteString(c.in, req+"\n")
	if !c.out.Scan() {
		t.Fatalf("%s: no answer (stderr %q)", req, c.stderr)
	}
	if got := c.out.Text(); got != want {
		t.Errorf("%s\n got %s\nwant %s", req, got, want)
	}
}

// wait waits for the program to exit (within 10 s) and returns its status.
func (c *child) wait(t *testing.T) int {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- c.cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the adapter did not exit")
	}
	return c.cmd.ProcessState.ExitCode()
}

type syncWriter struct {
	mu sync.Mutex
	w  *strings.Builder
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}

func (s *syncWriter) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.String()
}

// A real adapter program: a stray print goes to stderr, not into the
// protocol; SIGTERM, SIGINT, shutdown and the end of its input end it with
// status 0 after its close hook.
func TestProcess(t *testing.T) {
	bin := buildKitAdapter(t)
	for _, end := range []string{"SIGTERM", "SIGINT", "shutdown", "EOF"} {
		t.Run(end, func(t *testing.T) {
			c := startChild(t, bin)
			c.call(t, `{"type":"hello","id":1,"protocol":"modex-adapter/1","model":"stack","actions":["Push","Pop","Peek"]}`,
				`{"type":"hello","id":1,"protocol":"modex-adapter/1","name":"kitadapter","features":["coverage"],"unimplemented":["Peek"]}`)
			c.call(t, `{"type":"reset","id":2}`, `{"type":"ok","id":2}`)
			c.call(t, `{"type":"invoke","id":3,"action":"Push","args":[5]}`, `{"type":"result","id":3,"output":null}`)
			c.call(t, `{"type":"invoke","id":4,"action":"Print","args":[]}`, `{"type":"result","id":4,"output":"printed"}`)
			io.WriteString(c.in, `{"type":"invoke","id":5,"action":"Tick","args":["t1"]}`+"\n")
			c.call(t, `{"type":"invoke","id":6,"action":"Pop","args":[]}`, `{"type":"event","action":"Ticked","args":["t1"]}`)
			for _, want := range []string{`{"type":"result","id":5,"output":null}`, `{"type":"result","id":6,"output":5}`} {
				if !c.out.Scan() || c.out.Text() != want {
					t.Errorf("got %s, want %s", c.out.Text(), want)
				}
			}
			switch end {
			case "SIGTERM":
				c.cmd.Process.Signal(syscall.SIGTERM)
			case "SIGINT":
				c.cmd.Process.Signal(syscall.SIGINT)
			case "shutdown":
				io.WriteString(c.in, `{"type":"shutdown"}`+"\n")
			case "EOF":
				c.in.Close()
			}
			if code := c.wait(t); code != 0 {
				t.Errorf("exit status %d; stderr %q", code, c.cmd.Stderr)
			}
			if stderr := fmt.Sprint(c.cmd.Stderr); stderr != "a stray line on standard output\nclosed\n" {
				t.Errorf("stderr %q", stderr)
			}
		})
	}
}

// SIGTERM while a handler runs: the handler ends and is answered, then
// the close hook runs, and the program exits 0.
func TestProcessSignalDuringInvoke(t *testing.T) {
	bin := buildKitAdapter(t)
	c := startChild(t, bin)
	c.call(t, `{"type":"reset","id":1}`, `{"type":"ok","id":1}`)
	io.WriteString(c.in, `{"type":"invoke","id":2,"action":"Sleep","args":[500]}`+"\n")
	deadline := time.Now().Add(5 * time.Second)
	for !strings.Contains(fmt.Sprint(c.cmd.Stderr), "sleeping") && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	c.cmd.Process.Signal(syscall.SIGTERM)
	if !c.out.Scan() || c.out.Text() != `{"type":"result","id":2,"output":"slept"}` {
		t.Errorf("answer %q", c.out.Text())
	}
	if code := c.wait(t); code != 0 {
		t.Errorf("exit status %d", code)
	}
	if stderr := fmt.Sprint(c.cmd.Stderr); stderr != "sleeping\nslept\nclosed\n" {
		t.Errorf("stderr %q", stderr)
	}
}

// --listen HOST:PORT serves one TCP connection, saying where on stderr.
func TestProcessListen(t *testing.T) {
	bin := buildKitAdapter(t)
	cmd := exec.Command(bin, "--listen", "127.0.0.1:0")
	stderr, w, err := os.Pipe() // read to its end after Wait, unlike StderrPipe
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = w
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait(); stderr.Close() })
	sc := bufio.NewScanner(stderr)
	if !sc.Scan() {
		t.Fatal("nothing on stderr")
	}
	m := regexp.MustCompile(`^listening on (127\.0\.0\.1:[1-9][0-9]*)$`).FindStringSubmatch(sc.Text())
	if m == nil {
		t.Fatalf("stderr %q", sc.Text())
	}
	conn, err := net.Dial("tcp", m[1])
	if err != nil {
		t.Fatal(err)
	}
	r := bufio.NewScanner(conn)
	for _, tc := range []struct{ req, want string }{
		{`{"type":"hello","id":1,"protocol":"modex-adapter/1","model":"stack"}`, `{"type":"hello","id":1,"protocol":"modex-adapter/1","name":"kitadapter","features":["coverage"]}`},
		{`{"type":"invoke","id":2,"action":"Pop","args":[]}`, `{"type":"refused","id":2,"reason":"the stack is empty"}`},
	} {
		io.WriteString(conn, tc.req+"\n")
		if !r.Scan() || r.Text() != tc.want {
			t.Errorf("%s: got %s", tc.req, r.Text())
		}
	}
	conn.Close()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("exit: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the adapter did not exit when its connection closed")
	}
	if sc.Scan(); sc.Text() != "closed" {
		t.Errorf("stderr ends %q", sc.Text())
	}
}

// kitSource is the kit's source with its package clause replaced by
// "package NAME".
func kitSource(t *testing.T, path, name string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	clause := regexp.MustCompile(`(?m)^package \w+\n`)
	loc := clause.FindIndex(data)
	if loc == nil {
		t.Fatalf("%s has no package clause", path)
	}
	return string(data[:loc[0]]) + "package " + name + "\n" + string(data[loc[1]:])
}

// The kit copied into a package main with only its package clause changed
// builds, outside this module, next to a main that uses it unqualified and
// declares names a main often has (debug, signal, cmp, usage, run...):
// the kit imports runtime/debug and os/signal under other names.
func TestCopyIntoMain(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a program")
	}
	dir := t.TempDir()
	main := `package main

import (
	"flag"
	"fmt"
	"log"
)

var debug = flag.Bool("debug", false, "say more")

var signal, cmp, usage, run, verbose, version, handlers int

func main() {
	flag.Parse()
	a := New("copied")
	a.Handle("Inc", func(args Args) (any, error) {
		if args.Int(0) < 0 {
			return nil, Refuse("negative")
		}
		return Set{args.Int(0) + 1, 0}, nil
	})
	a.Handle("Later", func(Args) (any, error) { return nil, ErrNotImplemented })
	if *debug {
		fmt.Println(signal, cmp, usage, run, verbose, version, handlers)
	}
	if err := a.Run(); err != nil {
		log.Fatal(err)
	}
}
`
	for name, text := range map[string]string{
		"modexadapter.go": kitSource(t, "modexadapter.go", "main"),
		"main.go":         main,
		"go.mod":          "module example.com/copied\n\ngo 1.22\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	bin := filepath.Join(dir, "copied")
	cmd := exec.Command("go", "build", "-o", bin, ".")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	c := startChild(t, bin)
	c.call(t, `{"type":"invoke","id":1,"action":"Inc","args":[4]}`, `{"type":"result","id":1,"output":{"set":[0,5]}}`)
	c.call(t, `{"type":"invoke","id":2,"action":"Later","args":[]}`, `{"type":"unimplemented","id":2,"reason":"not implemented"}`)
	c.in.Close()
	if code := c.wait(t); code != 0 {
		t.Errorf("exit status %d", code)
	}
}

// Every bundled sample's copy of the kit (projects/*/impl/modexadapter.go)
// is this file with "package main": update them with
//
//	for f in projects/*/impl/modexadapter.go; do sed 's/^package modexadapter$/package main/' adapters/go/modexadapter.go > $f; done
func TestSampleCopies(t *testing.T) {
	copies, _ := filepath.Glob("../../projects/*/impl/modexadapter.go")
	found := map[string]bool{}
	want := kitSource(t, "modexadapter.go", "main")
	for _, path := range copies {
		found[filepath.Base(filepath.Dir(filepath.Dir(path)))] = true
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if string(data) != want {
			t.Errorf("%s differs from adapters/go/modexadapter.go (other than in its package clause): copy it again", path)
		}
	}
	for _, sample := range []string{"chat", "bag"} {
		if !found[sample] {
			t.Errorf("no copy of the kit in projects/%s/impl", sample)
		}
	}
}
