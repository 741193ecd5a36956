package conform_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/modex/modex/engine/conform"
	"github.com/modex/modex/engine/explore"
	"github.com/modex/modex/engine/model"
)

func chatModel(t testing.TB) (*model.StarModel, *explore.Config) {
	m, err := model.LoadStarlark("../../projects/chat/chat.star")
	if err != nil {
		t.Fatal(err)
	}
	cfg := explore.DefaultConfig(m)
	return m, cfg
}

func replayText(t *testing.T, text string, rc conform.ReplayConfig) *conform.ReplayResult {
	t.Helper()
	m, cfg := chatModel(t)
	recs, err := conform.ParseTrace("t.trace", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	res, err := conform.Replay(context.Background(), m, cfg, recs, rc)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

const chatPrefix = `Create()/Client1
Create()/Client2
Enter(Client1)
Enter(Client2)
`

func TestReplayVerdicts(t *testing.T) {
	// Pass: every event reproduced.
	res := replayText(t, chatPrefix+"Post(Client1, \"hi\")\n?Deliver(Client1, Client2, \"hi\")\n", conform.ReplayConfig{RequireAccepting: true})
	if res.Verdict != conform.Pass || res.Matched != 6 {
		t.Fatalf("pass: %+v", res)
	}
	// Fail: bye delivered before hi; the divergence names the event and
	// what the model would have accepted.
	res = replayText(t, chatPrefix+"Post(Client1, \"hi\")\nPost(Client1, \"bye\")\n?Deliver(Client1, Client2, \"bye\")\n", conform.ReplayConfig{})
	f := res.Failure
	if res.Verdict != conform.Fail || f == nil || f.Index != 6 || f.Line != 7 || !strings.Contains(f.Event, `"bye"`) {
		t.Fatalf("fail: %+v %+v", res, f)
	}
	found := false
	for _, e := range f.Expected {
		found = found || e == `?Deliver(Client1, Client2, "hi")`
	}
	if !found || len(f.States) != 1 {
		t.Errorf("expected %v, states %v", f.Expected, f.States)
	}
	// Output mismatch: Create returns Client1, not Client2.
	res = replayText(t, "Create()/Client2\n", conform.ReplayConfig{})
	if res.Verdict != conform.Fail {
		t.Errorf("wrong output replayed: %+v", res)
	}
	// Accepting: a pending delivery at the end fails when asked.
	res = replayText(t, chatPrefix+"Post(Client1, \"hi\")\n", conform.ReplayConfig{RequireAccepting: true})
	if res.Verdict != conform.Fail || !strings.Contains(res.Failure.Message, "accepting") {
		t.Errorf("non-accepting end: %+v", res)
	}
	// Empty trace: nothing to contradict.
	res = replayText(t, "", conform.ReplayConfig{})
	if res.Verdict != conform.Pass || res.Total != 0 {
		t.Errorf("empty trace: %+v", res)
	}
}

// The thread-pool model resolves its scheduling choice by search; a bound
// too small for the candidates makes the verdict inconclusive.
func TestReplayNondeterminismAndBound(t *testing.T) {
	m, err := model.LoadStarlark("../../projects/threadpool/threadpool.star")
	if err != nil {
		t.Fatal(err)
	}
	cfg := explore.DefaultConfig(m)
	trace := `<trace>
  <createThreads thread="b" number="2" time="1"/>
  <starting thread="w1" time="2"/>
  <waiting thread="w1" time="3"/>
  <starting thread="w2" time="4"/>
  <waiting thread="w2" time="5"/>
  <enqueue thread="env" info="task 7" time="6"/>
  <dequeue thread="w2" info="task 7" time="7"/>
  <waiting thread="w2" time="8"/>
  <killThreads thread="b" number="2" time="9"/>
</trace>`
	recs, err := conform.ParseTrace("pool.xml", []byte(trace))
	if err != nil {
		t.Fatal(err)
	}
	res, err := conform.Replay(context.Background(), m, cfg, recs, conform.ReplayConfig{RequireAccepting: true})
	if err != nil || res.Verdict != conform.Pass || res.MaxStates < 3 {
		t.Fatalf("%v %+v", err, res)
	}
	res, err = conform.Replay(context.Background(), m, cfg, recs, conform.ReplayConfig{MaxStates: 2})
	if err != nil || res.Verdict != conform.Inconclusive || !strings.Contains(res.Reason, "more than 2 states") {
		t.Fatalf("bound: %v %+v", err, res)
	}
}

// Seed 004 §5.3.4: a trace passes only if the model reproduces it and its
// invariants hold; when the model's own code fails, the verdict is a model
// error, never a failure of the implementation. A divergence names what the
// model would have accepted, outputs included.
func TestReplayInvariantsAndModelErrors(t *testing.T) {
	m, err := model.LoadStarlarkSource("counter.star", []byte(`
def init():
    return {"x": 0}

def Inc(s):
    s.x += 1

def Div(s):
    s.x = 10 // (s.x - s.x)

def Get(s):
    return s.x

def Split(s):
    s.x = choose([0, 5])

actions = [Inc, Div, Get, Split]

def invariant(s):
    return s.x < 2
`))
	if err != nil {
		t.Fatal(err)
	}
	cfg := explore.DefaultConfig(m)
	for _, tc := range []struct {
		name, trace string
		verdict     conform.Verdict
		event       int // 1-based, 0: none
		msg         string
		expected    string
	}{
		{"passes", "Inc()\nGet()/1\n", conform.Pass, 0, "", ""},
		{"invariant", "Inc()\nInc()\nInc()\n", conform.Fail, 2, "the invariant is violated", ""},
		{"model error", "Inc()\nDiv()\n", conform.ModelError, 2, "division by zero", ""},
		{"wrong output", "Inc()\nGet()/7\n", conform.Fail, 2, "accepts Get()/7", "Get()/1"},
		// Split may leave x at 0 or 5; 5 breaks the invariant, so the model
		// can only be at 0 (seed 004 §5.3.4: violating candidates are
		// dropped, the trace fails only when none is left).
		{"violating candidate dropped", "Split()\nGet()/0\n", conform.Pass, 0, "", ""},
		{"only through a violating candidate", "Split()\nGet()/5\n", conform.Fail, 2, "accepts Get()/5", "Get()/0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			recs, err := conform.ParseTrace("t.trace", []byte(tc.trace))
			if err != nil {
				t.Fatal(err)
			}
			res, err := conform.Replay(context.Background(), m, cfg, recs, conform.ReplayConfig{})
			if err != nil {
				t.Fatal(err)
			}
			if res.Verdict != tc.verdict {
				t.Fatalf("verdict %s, want %s (%+v)", res.Verdict, tc.verdict, res.Failure)
			}
			if tc.event == 0 {
				return
			}
			f := res.Failure
			if f == nil || f.Index+1 != tc.event || !strings.Contains(f.Message, tc.msg) || !strings.Contains(strings.Join(f.Expected, ", "), tc.expected) {
				t.Errorf("failure %+v, want event %d with %q, expected %q", f, tc.event, tc.msg, tc.expected)
			}
		})
	}
}

// Events of different threads may match out of order within the window.
func TestReplayWindow(t *testing.T) {
	m, cfg := chatModel(t)
	// Enter is only possible once both clients exist: recorded before the
	// second Create (another thread), it needs the window.
	recs, err := conform.ParseTrace("w.jsonl", []byte(`{"event":"Create","thread":"main"}
{"event":"Enter","thread":"t1","c":"Client1"}
{"event":"Create","thread":"main"}
`))
	if err != nil {
		t.Fatal(err)
	}
	rc := conform.ReplayConfig{}
	// Enter needs both clients (mode "entering"): in order it fails...
	if res, err := conform.Replay(context.Background(), m, cfg, recs, rc); err != nil || res.Verdict != conform.Fail {
		t.Fatalf("in order: %v %+v", err, res)
	}
	// ...with a window, the main thread's Create may match first.
	rc.Window = 2
	res, err := conform.Replay(context.Background(), m, cfg, recs, rc)
	if err != nil || res.Verdict != conform.Pass || res.Path[1].Index != 2 || res.Path[2].Label != `Enter("Client1")` {
		t.Fatalf("window: %v %+v", err, res)
	}
	// Events of one thread keep their order even within the window.
	recs2, _ := conform.ParseTrace("w2.jsonl", []byte(`{"event":"Create","thread":"main"}
{"event":"Enter","thread":"main","c":"Client1"}
{"event":"Create","thread":"main"}
`))
	if res, _ := conform.Replay(context.Background(), m, cfg, recs2, rc); res.Verdict != conform.Fail {
		t.Errorf("same-thread events reordered: %+v", res)
	}
}

func TestMalformedTraces(t *testing.T) {
	for _, tc := range []struct{ name, text, want string }{
		{"x.xml", "<trace>\n  <a x=\"1\"/>\n  <b y=\"2\"\n</trace>", "x.xml:4:"},
		{"x.xml", "<trace>\n  <a><b/></a>\n</trace>", "x.xml:2: element <b> inside an event"},
		{"x.jsonl", "{\"event\":\"a\"}\n{\"event\": }\n", "x.jsonl:2: malformed JSON"},
		{"x.jsonl", "{\"event\":\"a\"}\n\n{\"name\":\"b\"}\n", `x.jsonl:3: the object has no "event" name`},
		{"x.trace", "Create()\n# comment\nPost(Client1, hi)\n", "x.trace:3:"},
		{"x.trace", "Create()\nPost(Client1, len([]))\n", "x.trace:2: only literal values"},
		// A trace is data: nothing in it is evaluated, and values are bounded.
		{"x.trace", "Push([0]*200000000)\n", "x.trace:1: only literal values"},
		{"x.trace", "Push(" + strings.Repeat("[", 40) + strings.Repeat("]", 40) + ")\n", "x.trace:1: a value nested more than 32 deep"},
		{"x.trace", "Push([" + strings.Repeat("0,", 10001) + "])\n", "x.trace:1: a value with more than 10000 elements"},
		{"x.trace", "Push(1.5)\n", "x.trace:1: 1.5 is not a model value"},
		{"x.trace", "Push(" + strings.Repeat("7", 4_000_000) + ")\n", "x.trace:1: a number of more than 1000 digits"},
		{"x.xml", "<trace>\n<a x=\"1>2\"/>\n<a x=\"" + strings.Repeat("y", 2<<20) + "\"/>\n</trace>", "x.xml:3: a tag (an event with its attributes) longer than 1 MiB"},
		{"x.trace", "Push({\"a\": [Client1, (1, -2)]}, None)/True\nGo(x)\n", "x.trace:2: x is not a value"},
	} {
		_, err := conform.ParseTrace(tc.name, []byte(tc.text))
		var te *conform.TraceError
		if err == nil || !errors.As(err, &te) || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%q: got %v, want %s...", tc.text, err, tc.want)
		}
	}
	// A trace naming an event the model lacks is reported with its line.
	m, cfg := chatModel(t)
	recs, _ := conform.ParseTrace("u.trace", []byte("Create()/Client1\nShout()\n"))
	_, err := conform.Replay(context.Background(), m, cfg, recs, conform.ReplayConfig{File: "u.trace"})
	if err == nil || !strings.Contains(err.Error(), `u.trace:2: event "Shout" maps to no action`) {
		t.Errorf("unknown event: %v", err)
	}
}

func FuzzParseTrace(f *testing.F) {
	for _, s := range []string{
		"<trace>\n  <createThreads thread=\"1\" number=\"10\"/>\n  <enqueue thread=\"1\" info=\"x\"/>\n</trace>",
		"{\"event\":\"enqueue\",\"task\":3,\"ok\":true}\n{\"event\":\"dequeue\",\"thread\":\"w1\"}\n",
		"Create()/Client1\n?Deliver(Client1, Client2, \"hi\")\nPost(Client1, (1, [2], {3: None}))\n",
		"", "<", "{", "a(", "Create()/", "Post(Client1, \"x\")/Client2",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		recs, err := conform.ParseTrace("fuzz", data)
		if err != nil {
			var te *conform.TraceError
			if !errors.As(err, &te) || te.Line < 1 {
				t.Fatalf("error without a line: %v", err)
			}
			return
		}
		for _, r := range recs {
			if r.Name == "" || r.Line < 1 {
				t.Fatalf("record without name or line: %+v", r)
			}
			_ = r.String()
		}
	})
}

// Memory does not grow with the trace: a long trace is read as it goes and
// its path keeps the first 10,000 steps; the count covers all of them.
func TestReplayLongTraceBoundedPath(t *testing.T) {
	m, cfg := stackModelForTest(t)
	var b strings.Builder
	for i := 0; i < 15000; i++ {
		b.WriteString("Push(1)\nPop()/1\n")
	}
	res, err := conform.ReplayTrace(context.Background(), m, cfg, conform.NewTraceReader("long.trace", strings.NewReader(b.String())), conform.ReplayConfig{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Verdict != conform.Pass || res.Matched != 30000 || res.Total != 30000 || len(res.Path) != 10000 {
		t.Errorf("%s: matched %d of %d, path %d", res.Verdict, res.Matched, res.Total, len(res.Path))
	}
}

// A model with several initial states: a replay starts in all of them and
// the trace's events keep those that agree, so a trace from either start
// passes and one that fits neither fails; an online test against an
// implementation that starts in one of them passes too.
func TestSeveralInitialStates(t *testing.T) {
	m, err := model.LoadStarlarkSource("two.star", []byte(`
def init():
    return [{"x": 0}, {"x": 10}]

def Get(s):
    require(s.x < 12 and s.x != 2)
    s.x += 1
    return s.x

actions = [Get]
`))
	if err != nil {
		t.Fatal(err)
	}
	cfg := explore.DefaultConfig(m)
	for text, want := range map[string]conform.Verdict{
		"Get()/1\nGet()/2\n":   conform.Pass,
		"Get()/11\nGet()/12\n": conform.Pass,
		"Get()/11\nGet()/2\n":  conform.Fail,
		"Get()/5\n":            conform.Fail,
	} {
		recs, err := conform.ParseTrace("t.trace", []byte(text))
		if err != nil {
			t.Fatal(err)
		}
		res, err := conform.Replay(context.Background(), m, cfg, recs, conform.ReplayConfig{})
		if err != nil || res.Verdict != want {
			t.Errorf("%q: %v %+v (want %s)", text, err, res, want)
		}
	}
	var x int64 = 10
	impl := &conform.InProcess{
		ResetFunc: func() error { x = 10; return nil },
		Do: func(action string, args []any) (any, error) {
			x++
			return x, nil
		},
	}
	tc := conform.TestConfig{Runs: 3, Steps: 2, Seed: 1}
	tr, err := conform.Test(context.Background(), m, cfg, impl, tc)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range tr.Runs {
		if r.Verdict != conform.Pass {
			t.Errorf("online run %d: %s %+v", r.Run, r.Verdict, r.Failure)
		}
	}
}

// JSON null in a JSON-lines trace is None, not the empty string; a
// replay of a model that expects None passes.
func TestJSONNullIsNone(t *testing.T) {
	m, err := model.LoadStarlarkSource("got.star", []byte(`
def init():
    return {"last": 0}

def Got(s, value):
    require(value == None)
    s.last = value

observables = [Got]
`))
	if err != nil {
		t.Fatal(err)
	}
	recs, err := conform.ParseTrace("x.jsonl", []byte(`{"event": "Got", "value": null}`+"\n"))
	if err != nil || len(recs) != 1 || recs[0].Attrs[0].Value != "null" {
		t.Fatalf("%v %+v", err, recs)
	}
	rc := conform.ReplayConfig{Mappings: map[string]*conform.EventMapping{"Got": {Action: "Got", Role: conform.RoleEvent, Params: map[string]string{"value": "value"}}}}
	res, err := conform.Replay(context.Background(), m, explore.DefaultConfig(m), recs, rc)
	if err != nil || res.Verdict != conform.Pass {
		t.Fatalf("%v %+v %+v", err, res, res.Failure)
	}
}

// At the bound a replay is inconclusive, never a false fail: the set of
// states is checked after every closure (before invariants drop any) and
// after the last event; with a larger bound the same trace passes, and the
// largest set reported counts the one after the last event.
func TestReplayBoundNeverFails(t *testing.T) {
	m, err := model.LoadStarlarkSource("pick.star", []byte(`
def init():
    return {"x": -1, "done": False}

def Pick(s, k):
    require(s.x == -1)
    s.x = k

def Obs(s, v):
    require(s.x == v and not s.done)
    s.done = True

def accepting(s):
    return s.done

internal = [Pick]
observables = [Obs]
domains = {Pick: {"k": list(range(10))}, Obs: {"v": list(range(10))}}
`))
	if err != nil {
		t.Fatal(err)
	}
	cfg := explore.DefaultConfig(m)
	recs, err := conform.ParseTrace("t.trace", []byte("Obs(9)\n"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		bound     int
		accepting bool
		want      conform.Verdict
	}{
		{5, false, conform.Inconclusive},
		{5, true, conform.Inconclusive},
		{100, true, conform.Pass},
	} {
		res, err := conform.Replay(context.Background(), m, cfg, recs, conform.ReplayConfig{MaxStates: tc.bound, RequireAccepting: tc.accepting})
		if err != nil || res.Verdict != tc.want || res.Total != 1 {
			t.Errorf("bound %d: %v %+v %+v", tc.bound, err, res, res.Failure)
		}
		if tc.want == conform.Pass && res.MaxStates != 11 {
			t.Errorf("at most %d candidate states reported, want 11", res.MaxStates)
		}
	}
}
