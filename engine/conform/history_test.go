package conform_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/modex/modex/engine/conform"
	"github.com/modex/modex/engine/explore"
	"github.com/modex/modex/engine/model"
	"go.starlark.net/starlark"
)

func TestReadHistoryForms(t *testing.T) {
	tests := []struct {
		name, text string
		ops        []string // process f value status result call-return
	}{
		{"edn", `{:type :invoke, :f :write, :value 3, :process 0, :time 1}
{:type :invoke, :f :read, :value nil, :process 1}
{:type :ok, :f :write, :value 3, :process 0}
{:type :ok, :f :read, :value 3, :process 1}
{:type :invoke, :f :cas, :value [3 4], :process 0}
{:type :info, :f :cas, :value [3 4], :process 0}
`, []string{`0 write 3 ok 3 0-2`, `1 read None ok 3 1-3`, `0 cas [3, 4] info [3, 4] 4-5`}},
		{"json", `{"type": "invoke", "f": "put", "key": "k", "value": "x", "process": 2}
{"type": "fail", "f": "put", "key": "k", "value": "x", "process": 2}
{"type": "invoke", "f": "get", "key": "k", "value": null, "process": 2}
`, []string{`2 put "x" fail "x" 0-1`, `2 get None info None 2--1`}},
		{"jepsen log", "INFO  jepsen.core - starting\nINFO  jepsen.util - 3\t:invoke\t:cas\t[1 2]\nINFO  jepsen.util - 3   :fail   :cas    [1 2]\n",
			[]string{`3 cas [1, 2] fail [1, 2] 0-1`}},
		{"edn values", `{:process 0, :type :invoke, :f :txn, :value [[:append 1 2] [:r 3 nil]]} ; a comment
{:process 0, :type :ok, :f :txn, :value #{1 2}, :extra {:a "s\"q"}}
`, []string{`0 txn [["append", 1, 2], ["r", 3, None]] ok set([1, 2]) 0-1`}},
		{"edn symbolic values", `{:process 0, :type :invoke, :f :put, :value [##Inf ##-Inf]}
{:process 0, :type :ok, :f :put, :value ##NaN}
`, []string{`0 put [+inf, -inf] ok nan 0-1`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h, err := conform.ReadHistory("h", strings.NewReader(tc.text))
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, o := range h.Ops {
				got = append(got, fmt.Sprintf("%s %s %s %s %s %d-%d", o.Process, o.F, model.Format(o.Value), o.Status, model.Format(o.Result), o.Call, o.Return))
			}
			if strings.Join(got, "\n") != strings.Join(tc.ops, "\n") {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tc.ops, "\n"))
			}
		})
	}
}

func TestReadHistoryErrors(t *testing.T) {
	tests := []struct{ text, want string }{
		{"{:type :ok, :f :read, :process 0}\n", "h:1: process 0 completes read (:ok) but invoked nothing"},
		{"{:type :invoke, :f :read, :process 0}\n{:type :invoke, :f :read, :process 0}\n", "h:2: process 0 invokes read while its read of line 1 has no completion"},
		{"{:type :invoke, :f :read, :process 0}\n{:type :ok, :f :write, :process 0}\n", "h:2: process 0 completes write but invoked read at line 1"},
		{"{:type :invoke, :f :read, :process 0}\n{:type :done, :f :read, :process 0}\n", `h:2: unknown :type "done"`},
		{"{:type :invoke, :f :read}\n", "h:1: no :process"},
		{"{:type :invoke, :f :read, :process 0, :value [1 2}\n", "h:1: EDN at column"},
		{"{:type :invoke, :f :read, :process 0, :value " + strings.Repeat("[", 40) + "}\n", "nested more than 32 deep"},
		{`{"type": "invoke", "f": "x", "process": 0}` + "\n" + `{"type": "ok", "f": "x", "process": 0, "value": 1e}` + "\n", "h:2: malformed JSON"},
		{"hello\n", "not a concurrent history"},
		{"{:type :invoke, :f :read, :process 0, :value ##Infinity}\n", "h:1: EDN at column 56: unknown symbolic value ##Infinity"},
		{"{:type :invoke, :f :read, :process 0, :value \"" + strings.Repeat("x", 2<<20) + "\"}\n", "h:1: a line longer than"},
	}
	for _, tc := range tests {
		_, err := conform.ReadHistory("h", strings.NewReader(tc.text))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%.60q: got %v, want %q", tc.text, err, tc.want)
		}
	}
}

// FuzzReadHistory: a history file is data; reading never panics and every
// error names a line.
func FuzzReadHistory(f *testing.F) {
	f.Add("{:type :invoke, :f :write, :value 3, :process 0}\n{:type :ok, :f :write, :value 3, :process 0}\n")
	f.Add(`{"type": "invoke", "f": "get", "value": [1, {"a": null}], "process": "p"}` + "\n")
	f.Add("INFO  jepsen.util - 1\t:invoke\t:cas\t[1 #{2} \\a #inst \"x\" #_ 3]\n")
	f.Fuzz(func(t *testing.T, text string) {
		h, err := conform.ReadHistory("f", strings.NewReader(text))
		if err != nil {
			if !strings.HasPrefix(err.Error(), "f:") {
				t.Fatalf("error without a place: %v", err)
			}
			return
		}
		for i := range h.Ops {
			_ = h.OpLabel(i)
		}
	})
}

// registerModel is the register of the differential test: read, write,
// cas, and bump, which adds 1 or 2 (the model chooses).
const registerModel = `
def init():
    return {"v": 0}

def read(s):
    return s.v

def write(s, x):
    s.v = x

def cas(s, old, new):
    if s.v == old:
        s.v = new
        return True
    return False

def bump(s):
    s.v = s.v + choose([1, 2])

actions = [read, write, cas, bump]
`

func loadSource(t testing.TB, name, src string) (model.Model, *explore.Config) {
	t.Helper()
	m, err := model.LoadStarlarkSource(name, []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return m, explore.DefaultConfig(m)
}

// casMapping: a cas that completes :ok returned True, :fail returned False.
func casMapping() conform.ReplayConfig {
	return conform.ReplayConfig{Mappings: map[string]*conform.EventMapping{
		"cas": {Action: "cas", OkOutput: starlark.True, FailOutput: starlark.False},
	}}
}

func checkText(t testing.TB, m model.Model, cfg *explore.Config, text string, rc conform.ReplayConfig) (*conform.History, *conform.HistoryResult) {
	t.Helper()
	h, err := conform.ReadHistory("h.edn", strings.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	res, err := conform.CheckHistory(context.Background(), m, cfg, h, rc)
	if err != nil {
		t.Fatal(err)
	}
	return h, res
}

// bruteOp is an operation as the brute-force checker sees it.
type bruteOp struct {
	f          string
	arg        []int
	out        int // read's result; cas: 1 true, 0 false
	optional   bool
	call, ret  int
	hasCASFail bool
}

// bruteLinearizable tries every order of every choice of optional
// operations, stepping a Go register: the reference of the differential
// test (no cache, no list, no model program).
func bruteLinearizable(ops []bruteOp) bool {
	placed := make([]bool, len(ops))
	var try func(v, left int) bool
	try = func(v, left int) bool {
		if left == 0 {
			return true
		}
		for i, o := range ops {
			if placed[i] {
				continue
			}
			// o may go next when no unplaced operation completed before
			// o was invoked.
			ok := true
			for j, p := range ops {
				if !placed[j] && j != i && !p.optional && p.ret < o.call {
					ok = false
				}
			}
			if !ok {
				continue
			}
			next := []int{}
			switch o.f {
			case "read":
				if o.optional || o.out == v {
					next = append(next, v)
				}
			case "write":
				next = append(next, o.arg[0])
			case "cas":
				hit := v == o.arg[0]
				switch {
				case o.optional && hit:
					next = append(next, o.arg[1])
				case o.optional:
					next = append(next, v)
				case hit && o.out == 1:
					next = append(next, o.arg[1])
				case !hit && o.out == 0:
					next = append(next, v)
				}
			case "bump":
				next = append(next, v+1, v+2)
			}
			req := 0
			if !o.optional {
				req = 1
			}
			for _, n := range next {
				placed[i] = true
				if try(n, left-req) {
					placed[i] = false
					return true
				}
				placed[i] = false
			}
		}
		return false
	}
	required := 0
	for _, o := range ops {
		if !o.optional {
			required++
		}
	}
	return try(0, required)
}

// randomHistory writes a random small history of up to 6 operations by 3
// processes, as EDN, and the operations the brute-force checker takes.
func randomHistory(r *rand.Rand) (string, []bruteOp) {
	type open struct {
		op  int
		inv string
	}
	var b strings.Builder
	var ops []bruteOp
	busy := map[int]*open{}
	pos, n := 0, 1+r.IntN(6)
	for len(ops) < n || len(busy) > 0 {
		p := r.IntN(3)
		if o := busy[p]; o != nil {
			op := &ops[o.op]
			typ, val := "ok", o.inv
			switch k := r.IntN(10); {
			case k == 0:
				typ, op.optional = "info", true
			case op.f == "read":
				op.out = r.IntN(3)
				val = fmt.Sprint(op.out)
			case op.f == "cas" && k < 5:
				typ, op.out = "fail", 0
			case op.f == "cas":
				op.out = 1
			}
			op.ret = pos
			fmt.Fprintf(&b, "{:process %d, :type :%s, :f :%s, :value %s}\n", p, typ, op.f, val)
			delete(busy, p)
		} else if len(ops) < n {
			f := []string{"read", "write", "cas", "bump"}[r.IntN(4)]
			op := bruteOp{f: f, call: pos, ret: 1 << 30}
			val := "nil"
			switch f {
			case "write":
				op.arg = []int{r.IntN(3)}
				val = fmt.Sprint(op.arg[0])
			case "cas":
				op.arg = []int{r.IntN(3), r.IntN(3)}
				val = fmt.Sprintf("[%d %d]", op.arg[0], op.arg[1])
			}
			busy[p] = &open{len(ops), val}
			ops = append(ops, op)
			fmt.Fprintf(&b, "{:process %d, :type :invoke, :f :%s, :value %s}\n", p, f, val)
		} else {
			continue
		}
		pos++
	}
	for i := range ops {
		if ops[i].optional {
			ops[i].ret = 1 << 30
		}
	}
	return b.String(), ops
}

// The search gives the brute force's verdict on random small histories
// (nondeterministic bump, :info operations that may never take effect,
// cas failures that took effect).
func TestHistoryDifferential(t *testing.T) {
	m, cfg := loadSource(t, "register.star", registerModel)
	r := rand.New(rand.NewPCG(1, 2))
	counts := map[bool]int{}
	for i := 0; i < 600; i++ {
		text, ops := randomHistory(r)
		want := bruteLinearizable(ops)
		_, res := checkText(t, m, cfg, text, casMapping())
		got := res.Verdict == conform.Pass
		if got != want || res.Verdict == conform.Inconclusive {
			t.Fatalf("history %d: brute force says linearizable=%v, the search %s\n%s", i, want, res.Verdict, text)
		}
		counts[want]++
	}
	if counts[true] < 100 || counts[false] < 100 {
		t.Errorf("an unbalanced sample: %v", counts)
	}
}

// linearizable lists porcupine's linearizable etcd histories (its
// porcupine_test.go); the other 79 of etcd_000…etcd_102 are not (etcd_095
// is empty and not among them).
var linearizable = map[int]bool{2: true, 5: true, 7: true, 18: true, 25: true, 31: true, 38: true, 45: true, 48: true, 49: true, 51: true,
	53: true, 56: true, 67: true, 75: true, 76: true, 80: true, 87: true, 92: true, 98: true, 100: true, 101: true, 102: true}

func registerProject(t testing.TB) (model.Model, *explore.Config) {
	m, err := model.LoadStarlark("../../projects/register/register.star")
	if err != nil {
		t.Fatal(err)
	}
	return m, explore.DefaultConfig(m)
}

// Porcupine's 102 etcd histories get porcupine's verdicts.
func TestPorcupineEtcdHistories(t *testing.T) {
	m, cfg := registerProject(t)
	n, pass := 0, 0
	for i := 0; i <= 102; i++ {
		if i == 95 {
			continue
		}
		path := fmt.Sprintf("../../projects/register/histories/etcd_%03d.log", i)
		h, err := conform.ReadHistoryFile(path)
		if err != nil {
			t.Fatal(err)
		}
		res, err := conform.CheckHistory(context.Background(), m, cfg, h, casMapping())
		if err != nil {
			t.Fatal(err)
		}
		want := conform.Fail
		if linearizable[i] {
			want = conform.Pass
			pass++
		}
		if res.Verdict != want {
			t.Errorf("%s: %s, porcupine says %s (%s)", path, res.Verdict, want, res.Reason)
		}
		n++
	}
	if n != 102 || pass != 23 {
		t.Fatalf("%d histories, %d linearizable", n, pass)
	}
}

// A history that is not linearizable says where: the longest linearizable
// prefix, the operation that cannot be placed, the model's state and why.
func TestHistoryFailureReport(t *testing.T) {
	m, cfg := registerProject(t)
	h, err := conform.ReadHistoryFile("../../projects/register/histories/etcd_000.log")
	if err != nil {
		t.Fatal(err)
	}
	res, err := conform.CheckHistory(context.Background(), m, cfg, h, casMapping())
	if err != nil {
		t.Fatal(err)
	}
	f := res.Failure
	if res.Verdict != conform.Fail || f == nil {
		t.Fatalf("%+v", res)
	}
	o := h.Ops[f.Op]
	if o.ReturnLine != 86 || o.F != "read" || h.OpLabel(f.Op) != "read() → 2" || f.State.Key == "" ||
		!strings.Contains(f.Message, "read() returned 2, but after the prefix the model's read() gives 0") || len(res.Order) != 43 {
		t.Errorf("line %d %s: %s (%d placed)", o.ReturnLine, h.OpLabel(f.Op), f.Message, len(res.Order))
	}
	// The prefix's order respects real time: an operation placed after
	// another was not completed before the other was invoked.
	for a := 0; a < len(res.Order); a++ {
		for b := a + 1; b < len(res.Order); b++ {
			x, y := h.Ops[res.Order[a]], h.Ops[res.Order[b]]
			if y.Return >= 0 && y.Status != conform.OpInfo && y.Return < x.Call {
				t.Fatalf("%s placed before %s, which completed before it began", h.OpLabel(res.Order[a]), h.OpLabel(res.Order[b]))
			}
		}
	}
}

// kv histories checked key by key (P-compositionality) get porcupine's
// verdicts, and the same as checked whole where that finishes.
func TestPorcupineKVHistories(t *testing.T) {
	m, err := model.LoadStarlark("../../projects/kv/kv.star")
	if err != nil {
		t.Fatal(err)
	}
	cfg := explore.DefaultConfig(m)
	files, _ := filepath.Glob("../../projects/kv/histories/*.edn")
	if len(files) != 6 {
		t.Fatalf("%d kv histories", len(files))
	}
	for _, path := range files {
		h, err := conform.ReadHistoryFile(path)
		if err != nil {
			t.Fatal(err)
		}
		want := conform.Pass
		if strings.HasSuffix(path, "-bad.edn") {
			want = conform.Fail
		}
		res, err := conform.CheckHistory(context.Background(), m, cfg, h, conform.ReplayConfig{Key: "key"})
		if err != nil {
			t.Fatal(err)
		}
		if res.Verdict != want || res.Partitions < 8 {
			t.Errorf("%s by key: %s in %d parts, want %s", path, res.Verdict, res.Partitions, want)
		}
		if want == conform.Fail && (res.Failure == nil || res.Failure.Key == "") {
			t.Errorf("%s: the failure names no key: %+v", path, res.Failure)
		}
		if strings.Contains(path, "c50") {
			continue // whole, the 50-client histories take minutes (porcupine's kvNoPartitionModel too)
		}
		whole, err := conform.CheckHistory(context.Background(), m, cfg, h, conform.ReplayConfig{})
		if err != nil {
			t.Fatal(err)
		}
		if whole.Verdict != want || whole.Partitions != 1 {
			t.Errorf("%s whole: %s, want %s", path, whole.Verdict, want)
		}
	}
}

// Running out of time is inconclusive, and says so.
func TestHistoryTimeBudget(t *testing.T) {
	m, err := model.LoadStarlark("../../projects/kv/kv.star")
	if err != nil {
		t.Fatal(err)
	}
	h, err := conform.ReadHistoryFile("../../projects/kv/histories/c50-ok.edn")
	if err != nil {
		t.Fatal(err)
	}
	res, err := conform.CheckHistory(context.Background(), m, explore.DefaultConfig(m), h, conform.ReplayConfig{TimeBudget: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if res.Verdict != conform.Inconclusive || !strings.Contains(res.Reason, "time budget (1ms)") {
		t.Errorf("%s: %s", res.Verdict, res.Reason)
	}
	// A memory bound too small for the search is inconclusive too.
	res, err = conform.CheckHistory(context.Background(), m, explore.DefaultConfig(m), h, conform.ReplayConfig{MaxMemory: 1 << 10})
	if err != nil {
		t.Fatal(err)
	}
	if res.Verdict != conform.Inconclusive || !strings.Contains(res.Reason, "memory bound") {
		t.Errorf("%s: %s", res.Verdict, res.Reason)
	}
}

// Mapping errors name the line.
func TestHistoryMappingErrors(t *testing.T) {
	m, cfg := registerProject(t)
	for _, tc := range []struct{ text, want string }{
		{"{:type :invoke, :f :delete, :process 0}\n", `h.edn:1: operation "delete" maps to no action`},
		{"{:type :invoke, :f :cas, :value 3, :process 0}\n", "h.edn:1: cas takes old, new from the invocation's :value, which is 3 (want a vector of 2)"},
		{"{:type :invoke, :f :read, :process 0, :key 1}\n", "h.edn:1: read by process 0 has no :k"},
	} {
		h, err := conform.ReadHistory("h.edn", strings.NewReader(tc.text))
		if err != nil {
			t.Fatal(err)
		}
		rc := casMapping()
		if strings.Contains(tc.want, ":k") {
			rc.Key = "k"
		}
		_, err = conform.CheckHistory(context.Background(), m, cfg, h, rc)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("got %v, want %q", err, tc.want)
		}
	}
}

// IsHistoryFile tells histories from traces without reading a pipe.
func TestIsHistoryFile(t *testing.T) {
	dir := t.TempDir()
	for name, text := range map[string]string{
		"h.edn":   "{:type :invoke, :f :read, :process 0}\n",
		"h.jsonl": `{"type": "invoke", "f": "read", "process": 0}` + "\n",
		"t.jsonl": `{"event": "enqueue", "type": "x", "f": 1}` + "\n",
		"t.trace": "Create()/Client1\n",
		"t.xml":   "<trace><event name=\"x\"/></trace>\n",
	} {
		os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644)
		got, err := conform.IsHistoryFile(filepath.Join(dir, name))
		if err != nil || got != strings.HasPrefix(name, "h.") {
			t.Errorf("%s: %v %v", name, got, err)
		}
	}
}

// BenchmarkCheckHistoryEtcd checks porcupine's 102 etcd histories (the
// whole comparison with porcupine: scripts/histories-vs-porcupine.sh).
func BenchmarkCheckHistoryEtcd(b *testing.B) {
	m, cfg := registerProject(b)
	var hs []*conform.History
	for i := 0; i <= 102; i++ {
		if i == 95 {
			continue
		}
		h, err := conform.ReadHistoryFile(fmt.Sprintf("../../projects/register/histories/etcd_%03d.log", i))
		if err != nil {
			b.Fatal(err)
		}
		hs = append(hs, h)
	}
	b.ResetTimer()
	for n := 0; n < b.N; n++ {
		for _, h := range hs {
			if _, err := conform.CheckHistory(context.Background(), m, cfg, h, casMapping()); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkCheckHistoryKV checks porcupine's largest linearizable kv
// history (1,712 operations of 50 clients), key by key.
func BenchmarkCheckHistoryKV(b *testing.B) {
	m, err := model.LoadStarlark("../../projects/kv/kv.star")
	if err != nil {
		b.Fatal(err)
	}
	h, err := conform.ReadHistoryFile("../../projects/kv/histories/c50-ok.edn")
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for n := 0; n < b.N; n++ {
		res, err := conform.CheckHistory(context.Background(), m, explore.DefaultConfig(m), h, conform.ReplayConfig{Key: "key"})
		if err != nil || res.Verdict != conform.Pass {
			b.Fatal(err, res.Verdict)
		}
	}
}

// pendingModel is the register written as the user wrote it before
// histories were input: per-process pending operations in the state, the
// linearization point an internal action, a timed-out operation (info)
// floating, to take effect once at any later time or never. Replaying a
// history written as a trace of invocations and completions against it is
// the set-based check the search must agree with.
const pendingModel = `
def init():
    return {"v": 0, "pend": {}, "done": {}, "floating": []}

def apply(s, op):
    f, a, b = op
    if f == "read":
        return s.v
    if f == "write":
        s.v = a
        return None
    if f == "cas":
        if s.v == a:
            s.v = b
            return True
        return False
    s.v = s.v + choose([1, 2])
    return None

def invoke(s, p, f, a, b):
    require(p not in s.pend and p not in s.done)
    s.pend[p] = (f, a, b)

def lin(s, p):
    op = s.pend.pop(p)
    s.done[p] = apply(s, op)

def lin_floating(s, i):
    op = s.floating.pop(i)
    apply(s, op)

def ret(s, p, r):
    require(p in s.done and s.done[p] == r)
    s.done.pop(p)

def info(s, p):
    require(p in s.pend or p in s.done)
    if p in s.pend:
        s.floating.append(s.pend.pop(p))
    else:
        s.done.pop(p)

actions = [invoke]
observables = [ret, info]
internal = [lin, lin_floating]
domains = {
    lin: {"p": lambda s: sorted(s.pend.keys())},
    lin_floating: {"i": lambda s: list(range(len(s.floating)))},
}
`

// historyTrace writes a random history (EDN) as a plain trace of the
// pending model.
func historyTrace(t *testing.T, text string) string {
	h, err := conform.ReadHistory("h.edn", strings.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	type ev struct {
		pos  int
		line string
	}
	var evs []ev
	for _, o := range h.Ops {
		a, b := 0, 0
		if l, ok := o.Value.(*starlark.List); ok {
			a, _ = model.AsInt(l.Index(0))
			b, _ = model.AsInt(l.Index(1))
		} else if n, ok := model.AsInt(o.Value); ok {
			a = n
		}
		evs = append(evs, ev{o.Call, fmt.Sprintf("invoke(%s, %q, %d, %d)", o.Process, o.F, a, b)})
		if o.Return < 0 {
			continue
		}
		r := "None"
		switch {
		case o.Status == conform.OpInfo:
			evs = append(evs, ev{o.Return, fmt.Sprintf("info(%s)", o.Process)})
			continue
		case o.F == "read":
			r = model.Format(o.Result)
		case o.F == "cas":
			r = map[string]string{conform.OpOK: "True", conform.OpFail: "False"}[o.Status]
		}
		evs = append(evs, ev{o.Return, fmt.Sprintf("ret(%s, %s)", o.Process, r)})
	}
	sort.Slice(evs, func(i, j int) bool { return evs[i].pos < evs[j].pos })
	var b strings.Builder
	for _, e := range evs {
		b.WriteString(e.line + "\n")
	}
	return b.String()
}

// The search and the set-based replay of the pending model agree.
func TestHistoryAgreesWithSetBasedReplay(t *testing.T) {
	m, cfg := loadSource(t, "register.star", registerModel)
	pm, pcfg := loadSource(t, "pending.star", pendingModel)
	r := rand.New(rand.NewPCG(3, 4))
	counts := map[conform.Verdict]int{}
	for i := 0; i < 300; i++ {
		text, _ := randomHistory(r)
		_, res := checkText(t, m, cfg, text, casMapping())
		trace := historyTrace(t, text)
		recs, err := conform.ParseTrace("h.trace", []byte(trace))
		if err != nil {
			t.Fatalf("%v\n%s", err, trace)
		}
		rep, err := conform.Replay(context.Background(), pm, pcfg, recs, conform.ReplayConfig{MaxStates: 100000})
		if err != nil {
			t.Fatal(err)
		}
		if rep.Verdict != res.Verdict {
			t.Fatalf("history %d: the search says %s, the set-based replay %s (%s)\n%s\n%s", i, res.Verdict, rep.Verdict, rep.Reason, text, trace)
		}
		counts[res.Verdict]++
	}
	if counts[conform.Pass] < 50 || counts[conform.Fail] < 50 {
		t.Errorf("an unbalanced sample: %v", counts)
	}
}

// Defects found in review, each with the input that showed it.
func TestHistoryReviewCases(t *testing.T) {
	// A context cancelled before the search: inconclusive, never pass.
	m, cfg := registerProject(t)
	h, err := conform.ReadHistory("h.edn", strings.NewReader("{:process 0, :type :invoke, :f :read}\n{:process 0, :type :ok, :f :read, :value 5}\n"))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res, err := conform.CheckHistory(ctx, m, cfg, h, casMapping())
	if err != nil || res.Verdict != conform.Inconclusive {
		t.Errorf("cancelled first: %v %v", res.Verdict, err)
	}
	// Action 1 with input 1 and action 11 with none are not one step.
	var src strings.Builder
	src.WriteString("def init():\n    return {\"v\": 0}\n")
	var names []string
	for i := 0; i < 12; i++ {
		names = append(names, fmt.Sprintf("a%d", i))
		switch i {
		case 1:
			src.WriteString("def a1(s, x):\n    s.v = x\n")
		case 11:
			src.WriteString("def a11(s):\n    return s.v\n")
		default:
			fmt.Fprintf(&src, "def a%d(s):\n    pass\n", i)
		}
	}
	src.WriteString("actions = [" + strings.Join(names, ", ") + "]\n")
	m2, cfg2 := loadSource(t, "twelve.star", src.String())
	_, res = checkText(t, m2, cfg2, `{:process 0, :type :invoke, :f :a11}
{:process 0, :type :ok, :f :a11, :value 0}
{:process 0, :type :invoke, :f :a1, :value 1}
{:process 0, :type :ok, :f :a1, :value 1}
{:process 0, :type :invoke, :f :a11}
{:process 0, :type :ok, :f :a11, :value 1}
`, conform.ReplayConfig{})
	if res.Verdict != conform.Pass {
		t.Errorf("a1(1) taken for a11(): %s %+v", res.Verdict, res.Failure)
	}
	// A nondeterministic step followed by internal actions keeps all its
	// outcomes.
	m3, cfg3 := loadSource(t, "tick.star", `
def init():
    return {"v": 0, "t": 0}
def bump(s):
    s.v = s.v + choose([1, 2])
def read(s):
    return s.v
def tick(s):
    require(s.t == 0)
    s.t = choose([1, 2])
actions = [bump, read]
internal = [tick]
`)
	_, res = checkText(t, m3, cfg3, `{:process 0, :type :invoke, :f :bump}
{:process 0, :type :ok, :f :bump}
{:process 0, :type :invoke, :f :read}
{:process 0, :type :ok, :f :read, :value 2}
`, conform.ReplayConfig{})
	if res.Verdict != conform.Pass {
		t.Errorf("bump then read 2: %s %+v", res.Verdict, res.Failure)
	}
	// Internal actions that lead to too many states: inconclusive.
	m4, cfg4 := loadSource(t, "spin.star", `
def init():
    return {"n": 0}
def go(s):
    pass
def spin(s, i):
    s.n = i + 1
actions = [go]
internal = [spin]
domains = {spin: {"i": lambda s: range(20001) if s.n == 0 else []}}
`)
	_, res = checkText(t, m4, cfg4, "{:process 0, :type :invoke, :f :go}\n{:process 0, :type :ok, :f :go}\n", conform.ReplayConfig{})
	if res.Verdict != conform.Inconclusive || !strings.Contains(res.Reason, "internal actions lead to more than") {
		t.Errorf("a wide closure: %s %s", res.Verdict, res.Reason)
	}
}

// What real Jepsen logs hold: set-up lines of any kind before the first
// operation, the nemesis's operations, an error after the value.
func TestJepsenLogLines(t *testing.T) {
	text := "2026-01-01 12:00:00,000{main} ERROR jepsen.core - setting up\n\tat clojure.core$eval.invoke\n" +
		"INFO  jepsen.util - 0\t:invoke\t:read\tnil\n" +
		"INFO  jepsen.util - :nemesis\t:info\t:start\tnil\n" +
		"INFO  jepsen.util - :nemesis\t:info\t:start\t[:isolated {\"n1\" #{\"n2\"}}]\n" +
		"INFO  jepsen.util - 0\t:fail\t:read\tnil\tindeterminate: timed out\n"
	h, err := conform.ReadHistory("j.log", strings.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	if len(h.Ops) != 1 || h.Ops[0].Status != conform.OpFail || h.Skipped < 2 {
		t.Errorf("%+v, %d skipped", h.Ops, h.Skipped)
	}
	if _, err := conform.ReadHistory("j.log", strings.NewReader("INFO  jepsen.util - 0\t:invoke\t:read\tnil\nINFO  jepsen.util - 0\t:ok\t:read\t#_ 5\n")); err == nil ||
		!strings.Contains(err.Error(), "j.log:2: EDN at column 5: a value is missing") {
		t.Errorf("#_ alone: %v", err)
	}
}

// A history is bounded by the memory its operations take, not by its
// file's bytes: 200 lines of 500 `{}` each (300 kB on disk) take about
// 60 MB read. Under a 16 MiB bound the reader stops at the line that
// passes it, naming the bound; the whole of it reads under the default.
func TestReadHistoryMemoryBound(t *testing.T) {
	const file = "testdata/hostile/empty-maps.edn"
	_, err := conform.ReadHistoryFileLimit(file, 16<<20)
	var te *conform.TraceError
	if !errors.As(err, &te) || !strings.Contains(err.Error(), "max_memory_mb") {
		t.Fatalf("got %v, want the memory bound named", err)
	}
	if te.Line < 2 || te.Line >= 200 {
		t.Errorf("stopped at line %d, want a line inside the history", te.Line)
	}
	h, err := conform.ReadHistoryFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if len(h.Ops) != 100 {
		t.Errorf("%d operations, want 100", len(h.Ops))
	}
	// The estimate errs high, not low: the heap the operations hold is
	// less than what the reader counted for them.
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	h, err = conform.ReadHistoryFile(file)
	if err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	held := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	var counted int64
	for _, o := range h.Ops {
		counted += model.LiveBytes(o.Value) + model.LiveBytes(o.Result)
	}
	if held > counted {
		t.Errorf("the history holds %d bytes, more than the %d its values were counted for", held, counted)
	}
	runtime.KeepAlive(h)
}
