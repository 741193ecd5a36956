package model

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"go.starlark.net/starlark"
)

// A loop of init() run in parallel gives the serial loop's states in the
// serial loop's order, and the variables after it hold what the serial
// loop left; a loop whose iterations depend on each other, or that
// changes what was made before it, gives the serial loop's states too
// (run serially, or again in the interpreter). The interpreter's run is
// the reference: print() is not in the compiled subset.
func TestParallelInitLoop(t *testing.T) {
	const head = `
def A(s):
    s.x = (s.x + 1) % 7
actions = [A]

def ok(a, b):
    return (a + b) % 5 != 0

def put(l, v):
    l.append(v)
    return v

def init():
    xs = [i for i in range(40)]
    n = len(xs)
`
	cases := []struct {
		name, body string
		parallel   bool // the loop runs in parallel to the end
	}{
		{"independent", `
    for t in range(n * n):
        a = xs[t % n]
        b = xs[t // n]
        if ok(a, b):
            initial({"x": a % 7, "y": [b % 11, a % 3]})
`, true},
		{"keys in another order", `
    initial({"x": 0, "y": []})
    for t in range(n * n):
        a = xs[t % n]
        initial({"y": [a % 4, t % 3], "x": a % 5})
`, true},
		{"keys not the variables, late", `
    initial({"x": 0, "y": []})
    for t in range(n * n):
        initial({"y": [t % 3], "x": t % 5})
    initial({"y": [1], "z": 2})
`, true},
		{"a value that is no value of a state", `
    initial({"x": 0, "y": []})
    for t in range(n * n):
        initial({"y": [t % 4], "x": None if t == 1500 else t % 5})
        initial({"y": [t % 4], "x": 0.5 if t == 1510 else t % 5})
`, false},
		{"read after the loop", `
    for t in range(n * n):
        a = xs[t % n]
        b = t // n
        initial({"x": a % 7, "y": [b % 13]})
    initial({"x": a, "y": [b, t]})
`, true},
		{"carried from the last iteration", `
    last = 0
    for t in range(n * n):
        a = xs[t % n]
        initial({"x": last % 7, "y": [a % 5, t]})
        last = a + t
`, false},
		{"bound in some iterations", `
    c = -1
    for t in range(n * n):
        a = xs[t % n]
        if a == 3 and t < 700:
            c = t
        initial({"x": a % 7, "y": [a % 2]})
    initial({"x": c, "y": []})  # nil after the parallel loop: the interpreter runs init()
`, true},
		{"appends to a list made before", `
    seen = []
    for t in range(n * n):
        seen.append(t % 9)
        initial({"x": t % 7, "y": [len(seen) % 4]})
    initial({"x": len(seen), "y": []})
`, false},
		{"a helper changes a list made before", `
    acc = []
    for t in range(n * n):
        initial({"x": put(acc, t % 7), "y": [t % 3]})
    initial({"x": len(acc), "y": []})
`, false},
		{"breaks", `
    for t in range(n * n):
        if t == 900:
            break
        initial({"x": t % 7, "y": [t % 6]})
`, false},
		{"a bad state late", `
    for t in range(n * n):
        if t == 1300:
            initial({"x": 1})
        initial({"x": t % 7, "y": [t % 6]})
`, false},
	}
	load := func(src string, workers int) ([]string, error) {
		m, err := LoadStarlarkOptions("p.star", []byte(src), LoadOptions{Workers: workers})
		if err != nil {
			return nil, err
		}
		return m.initKeys, nil
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			src := head + tc.body
			want, wantErr := load(strings.Replace(src, "    xs = ", "    print(\"\"); xs = ", 1), 4)
			for _, workers := range []int{1, 4} {
				before := parRuns.Load()
				got, err := load(src, workers)
				if fmt.Sprint(err) != fmt.Sprint(wantErr) {
					t.Fatalf("workers %d: error %v, the interpreter's %v", workers, err, wantErr)
				}
				if strings.Join(got, "|") != strings.Join(want, "|") {
					t.Fatalf("workers %d: %d keys, the interpreter gives %d (or another order)", workers, len(got), len(want))
				}
				if ran := parRuns.Load() > before; ran != (tc.parallel && workers > 1) {
					t.Errorf("workers %d: ran in parallel %v, want %v", workers, ran, tc.parallel && workers > 1)
				}
			}
			if wantErr == nil && len(want) < 5 {
				t.Fatalf("only %d states: the case tests nothing", len(want))
			}
		})
	}
}

// A comprehension in init() reads its list by index only when nothing in it
// can change the list: one that appends to the list it runs over, itself
// or through a helper, meets the interpreter's error.
func TestInitComprehensionChangingItsList(t *testing.T) {
	for name, expr := range map[string]string{
		"append":   "[xs.append(x) for x in xs]",
		"a helper": "[put(xs, x) for x in xs]",
	} {
		src := `
def A(s):
    s.x = 1
actions = [A]

def put(l, v):
    l.append(v)
    return v

def init():
    xs = [1, 2, 3]
    ys = ` + expr + `
    return {"x": len(ys)}
`
		_, err := LoadStarlarkSource("c.star", []byte(src))
		_, want := LoadStarlarkSource("c.star", []byte(strings.Replace(src, "    xs = ", "    print(\"\"); xs = ", 1)))
		if err == nil || want == nil || err.Error() != want.Error() {
			t.Errorf("%s: %v, the interpreter's %v", name, err, want)
		}
	}
}

// init() returning a comprehension of states has them taken one by one as
// the comprehension makes them (no list of them all): the states, their
// order and every error are the returned list's, as the interpreter gives
// them.
func TestStreamedReturn(t *testing.T) {
	cases := map[string]struct {
		expr     string
		streamed bool
	}{
		"states":            {`[{"x": a % 7, "y": [b % 3]} for a in range(30) for b in range(20) if (a + b) % 4 != 0]`, true},
		"none":              {`[{"x": a, "y": []} for a in range(5) if a > 9]`, false},
		"not a dict":        {`[{"x": a, "y": []} if a < 40 else a for a in range(50)]`, false},
		"other variables":   {`[{"x": a, "y": []} if a < 40 else {"x": a} for a in range(50)]`, false},
		"a helper":          {`[put(d, a) for a in range(5)]`, false},
		"one state at last": {`[{"x": 1, "y": [a // 100]} for a in range(50)]`, true},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			src := `
def A(s):
    s.x = (s.x + 1) % 7
actions = [A]

def put(d, a):
    d["y"].append(a)
    return d

def init():
    d = {"x": 0, "y": []}
    return ` + tc.expr + "\n"
			// streamed: the keys were made while the model loaded
			keys := func(src string) (ks []string, streamed bool, err error) {
				m, err := LoadStarlarkSource("r.star", []byte(src))
				if err != nil {
					return nil, false, err
				}
				streamed = m.initKeys != nil
				w, _ := m.NewWorker()
				ks, err = w.(*starWorker).InitKeys()
				return ks, streamed, err
			}
			want, _, wantErr := keys(strings.Replace(src, "    d = ", "    print(\"\"); d = ", 1))
			got, streamed, err := keys(src)
			if fmt.Sprint(err) != fmt.Sprint(wantErr) {
				t.Fatalf("error %v, the interpreter's %v", err, wantErr)
			}
			if strings.Join(got, "|") != strings.Join(want, "|") {
				t.Fatalf("%d states, the interpreter's %d (or another order)", len(got), len(want))
			}
			if streamed != tc.streamed {
				t.Errorf("taken one by one: %v, want %v", streamed, tc.streamed)
			}
		})
	}
}

// Initial keys let go of are made again, the same, by init() run again:
// given by initial(), from a streamed comprehension, from a returned list
// and by an init() the interpreter runs.
func TestReleaseInitKeys(t *testing.T) {
	// 5000 states sharing a dict: a returned list's are encoded by several
	// goroutines (its value must be frozen when init() runs again).
	for name, body := range map[string]string{
		"initial()":     "    for a in range(5000):\n        initial({\"x\": a % 7, \"y\": [a % 5], \"z\": d})\n",
		"streamed":      "    return [{\"x\": a % 7, \"y\": [a % 5], \"z\": d} for a in range(5000)]\n",
		"returned list": "    xs = []\n    for a in range(5000):\n        xs.append({\"x\": a % 7, \"y\": [a % 5], \"z\": d})\n    return xs\n",
		"interpreted":   "    print(\"\")\n    return [{\"x\": a % 7, \"y\": [a % 5], \"z\": d} for a in range(5000)]\n",
	} {
		src := "def A(s):\n    s.x = 1\nactions = [A]\n\ndef init():\n    d = {\"k\": {\"m\": 1}}\n" + body
		m, sw := loadWorker(t, "r.star", src)
		first, err := sw.InitKeys()
		if err != nil || len(first) != 35 {
			t.Fatalf("%s: %d keys, %v", name, len(first), err)
		}
		want := strings.Join(first, "|")
		sw.ReleaseInitKeys()
		if m.initKeys != nil {
			t.Fatalf("%s: the keys are kept", name)
		}
		again, err := sw.InitKeys()
		if err != nil || strings.Join(again, "|") != want {
			t.Errorf("%s: %d keys again (%v), first %d", name, len(again), err, len(first))
		}
		// Taken: the caller owns them, and the model makes them again.
		taken, err := sw.TakeInitKeys()
		if err != nil || strings.Join(taken, "|") != want || m.initKeys != nil {
			t.Errorf("%s: %d keys taken (%v), kept %v", name, len(taken), err, m.initKeys != nil)
		}
		if again, err := sw.InitKeys(); err != nil || strings.Join(again, "|") != want || &again[0] == &taken[0] {
			t.Errorf("%s: %d keys after a take (%v)", name, len(again), err)
		}
	}
}

// init() as the interpreter runs it where a parallel loop or a streamed
// return must not differ: a loop over a string (indexable, not iterable),
// a loop that changes the list it runs over (through a helper, through
// another name), a first state with no variables.
func TestParallelInitEdges(t *testing.T) {
	const head = `
S = "ab" * 150

def A(s):
    s.x = 1
actions = [A]

def push(l, v):
    l.append(v)
    return v

def init():
`
	for name, body := range map[string]string{
		"a string":          "    xs = S\n    for ch in xs:\n        initial({\"x\": ch})\n",
		"a helper appends":  "    ys = list(range(300))\n    for x in ys:\n        if x == 0:\n            push(ys, 999)\n        initial({\"x\": x % 7})\n",
		"another name":      "    ys = list(range(300))\n    for x in ys:\n        if x == 0:\n            w = ys\n            w.append(999)\n        initial({\"x\": x % 7})\n",
		"no variables":      "    n = 3\n    return [({} if i == 0 else {\"x\": i}) for i in range(n)]\n",
		"initial() of none": "    n = 300\n    for i in range(n):\n        initial({} if i == 0 else {\"x\": i})\n",
	} {
		t.Run(name, func(t *testing.T) {
			src := head + body
			load := func(src string, workers int) (string, error) {
				m, err := LoadStarlarkOptions("e.star", []byte(src), LoadOptions{Workers: workers})
				if err != nil {
					return "", err
				}
				w, _ := m.NewWorker()
				keys, err := w.(*starWorker).InitKeys()
				return strings.Join(keys, "|"), err
			}
			want, wantErr := load(strings.Replace(src, "def init():\n    ", "def init():\n    print(\"\"); ", 1), 1)
			if wantErr == nil {
				t.Fatalf("the interpreter gives no error: the case tests nothing")
			}
			for _, workers := range []int{1, 4} {
				got, err := load(src, workers)
				if fmt.Sprint(err) != fmt.Sprint(wantErr) || got != want {
					t.Errorf("workers %d: %v, the interpreter's %v", workers, err, wantErr)
				}
			}
		})
	}
}

// A tuple of constants (literals, None, True, False, the module's globals,
// tuples of those) is made once at compile time: the same value as the
// interpreter's, evaluation after evaluation; a tuple with a variable part
// is made each time.
func TestConstantTuples(t *testing.T) {
	const src = `
G = [1, 2]
def A(s):
    s.x = 1
actions = [A]
def init():
    return {"x": 0}
`
	for _, expr := range []string{
		`("a", (1, None), G, True)`,
		`s.x in ("e4", "w1", 0)`,
		`(s.x, ("k", 2))`,
	} {
		var vals [2][2]Value
		for i, compiled := range []bool{true, false} {
			m, err := LoadStarlarkSource("t.star", []byte(src))
			if err != nil {
				t.Fatal(err)
			}
			m.SetCompiledGuards(compiled)
			x, err := m.Compile(expr, Pos{})
			if err != nil {
				t.Fatal(err)
			}
			w, _ := m.NewWorker()
			st, _ := w.Init()
			for j := range vals[i] {
				if vals[i][j], err = w.Eval(x, st); err != nil {
					t.Fatal(err)
				}
			}
		}
		if eq, err := starlark.Equal(vals[0][0], vals[1][0]); err != nil || !eq {
			t.Errorf("%s: compiled %s, the interpreter's %s", expr, vals[0][0], vals[1][0])
		}
		a, isTuple := vals[0][0].(starlark.Tuple)
		b, _ := vals[0][1].(starlark.Tuple)
		if isTuple && strings.HasPrefix(expr, `("a"`) != (&a[0] == &b[0]) {
			t.Errorf("%s: made once %v, want %v", expr, &a[0] == &b[0], strings.HasPrefix(expr, `("a"`))
		}
	}
}

// The initial states' keys count in LongLived while init() makes them and
// until they are let go: each kept key once (a parallel loop's chunks are
// adopted, not counted again), nothing left of an init() that failed or
// of one run again from the start, and nothing of a model dropped with
// its keys.
func TestInitKeysCountLongLived(t *testing.T) {
	const head = "def A(s):\n    s.x = 1\nactions = [A]\n\ndef init():\n"
	keyBytes := func(keys []string) (n int64) {
		for _, k := range keys {
			n += int64(len(k)) + 16
		}
		return n
	}
	for name, body := range map[string]string{
		"parallel initial()": "    for a in range(20000):\n        initial({\"x\": a, \"y\": [a % 5]})\n",
		"repeated states":    "    for a in range(20000):\n        initial({\"x\": a % 300, \"y\": [a % 5]})\n",
		"streamed return":    "    return [{\"x\": a, \"y\": [a % 5]} for a in range(20000)]\n",
		"run again":          "    seen = []\n    for a in range(20000):\n        seen.append(a)\n        initial({\"x\": a})\n",
	} {
		for _, workers := range []int{1, 2} {
			m, err := LoadStarlarkOptions("c.star", []byte(head+body), LoadOptions{Workers: workers})
			if err != nil {
				t.Fatal(err)
			}
			w, _ := m.NewWorker()
			sw := w.(*starWorker)
			keys, err := sw.InitKeys()
			if err != nil || len(keys) < 300 {
				t.Fatalf("%s, %d workers: %d keys, %v", name, workers, len(keys), err)
			}
			want := keyBytes(keys)
			if got := m.initLived.n.Load(); got != want {
				t.Errorf("%s, %d workers: %d bytes counted, the keys are %d", name, workers, got, want)
			}
			sw.ReleaseInitKeys()
			if got := m.initLived.n.Load(); got != 0 {
				t.Errorf("%s, %d workers: %d bytes counted once let go", name, workers, got)
			}
			again, err := sw.InitKeys()
			if err != nil || keyBytes(again) != keyBytes(keys) {
				t.Fatalf("%s, %d workers: %d keys again, %v", name, workers, len(again), err)
			}
			if got := m.initLived.n.Load(); got != want {
				t.Errorf("%s, %d workers: %d bytes counted again, the keys are %d", name, workers, got, want)
			}
			sw.ReleaseInitKeys()
		}
	}
	// An init() that fails after giving states, or in its parallel loop,
	// keeps nothing counted.
	for _, body := range []string{
		"    for a in range(20000):\n        initial({\"x\": a})\n    fail(\"no\")\n",
		// keys of a kilobyte: the chunks count theirs as they go
		"    for a in range(20000):\n        if a == 15000:\n            initial({\"no\": a})\n        initial({\"x\": a, \"y\": \"k\" * 1000})\n",
	} {
		before := LongLived()
		_, err := LoadStarlarkOptions("f.star", []byte(head+body), LoadOptions{Workers: 2})
		if err == nil || !strings.Contains(err.Error(), "no") {
			t.Fatalf("a failing init() loads: %v", err)
		}
		if got := LongLived(); got > before {
			t.Errorf("a failed init() left %d bytes counted:\n%s", got-before, body)
		}
	}
	// A model dropped with its keys takes them back once collected.
	l := droppedModelCount(t, head+"    for a in range(20000):\n        initial({\"x\": a})\n")
	for deadline := time.Now().Add(20 * time.Second); l.n.Load() != 0 && time.Now().Before(deadline); {
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
	if got := l.n.Load(); got != 0 {
		t.Errorf("a dropped model's keys still count %d bytes", got)
	}
}

// droppedModelCount loads src, makes its keys and returns its count of
// them, the model dropped.
func droppedModelCount(t *testing.T, src string) *lived {
	m, err := LoadStarlarkOptions("d.star", []byte(src), LoadOptions{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	if m.initLived.n.Load() == 0 {
		t.Fatal("no keys counted")
	}
	return m.initLived
}

// loadWorker loads a model from src and makes a worker of it.
func loadWorker(t *testing.T, name, src string) (*StarModel, *starWorker) {
	t.Helper()
	m, err := LoadStarlarkSource(name, []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	w, err := m.NewWorker()
	if err != nil {
		t.Fatal(err)
	}
	return m, w.(*starWorker)
}
