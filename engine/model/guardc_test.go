package model

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"go.starlark.net/starlark"
)

// Which leading requires compile, into how many conjuncts, and whether the
// compiled guard is the whole of them with no require() after.
func TestCompiledGuardShapes(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		conds      int
		complete   bool
		why        string
	}{
		{"one", `require(s.x == 0)
    s.x = 1`, 1, true, ""},
		{"docstring", `"""Sets x."""
    require(s.x == 0)
    s.x = 1`, 1, true, ""},
		{"prefix", `require(p != q and len(s.m[q]) > 0 and helper(s) and s.x == 0)
    s.x = 1`, 2, false, ""},
		{"two requires", `require(s.x == 0)
    require(p in s.set, "p is in")
    s.x = 1`, 2, true, "p is in"},
		{"reason not literal", `require(s.x == 0, "x is " + str(s.x))
    s.x = 1`, 0, false, ""},
		{"local first", `c = s.x
    require(c == 0)`, 2, true, ""},
		{"locals among requires", `c = s.m[q]
    require(len(c) == 0)
    d = c + (p,)
    require(len(d) == 1, "one")
    e = 3
    s.x = len(d) + e`, 4, true, "one"},
		{"a local with no require after it", `c = s.x
    s.x = c + 1`, 0, true, ""},
		{"a parameter bound again", `p = s.x
    require(p == 0)`, 0, false, ""},
		{"a local not compiled", `c = str(s)
    require(c != "")`, 0, false, ""},
		{"a local, then a require that does not compile", `c = s.x
    require(helper(s) and c == 0)`, 0, false, ""},
		{"a local between compiled conjuncts and one that does not compile", `require(s.x == 0)
    c = s.x
    require(helper(s) and c == 0)`, 1, false, ""},
		{"local not bound yet", `require(c == 0) # compiled, unknown when run: the interpreter raises the error
    c = 1`, 1, true, ""},
		{"a later require", `require(s.x == 0)
    s.x = 1
    require(s.x < 3)`, 1, false, ""},
		{"a helper that requires", `require(s.x == 0)
    helper(s)`, 1, false, ""},
		{"a helper that does not", `require(s.x == 0)
    bump(s)`, 1, true, ""},
		{"a method call", `require(s.x == 0)
    s.set.add(p)`, 1, true, ""},
		{"keyword", `require(cond = s.x == 0)`, 0, false, ""},
		{"globals and constants", `require(s.x < LIMIT and (p, q) != PAIR and KIND[p] == "a" if p in KIND else True)
    s.x = 1`, 1, true, ""},
		{"a function of the model", `require(mylen(s.set) == 0)`, 1, true, ""},
		{"a comprehension and a helper of the state", `require(len(s.set) == 0 and all([beats(s, p, r) for r in KIND if r != q]))
    s.x = 1`, 2, true, ""},
		{"the state as a value", `require(len(str(s)) > 0)`, 0, false, ""},
		{"a method that changes something", `require(s.set.pop() > 0)`, 0, false, ""},
		{"a method that does not", `require(KIND.get(p, "c") == "a")`, 1, true, ""},
		{"no require", `s.x = 1`, 0, true, ""},
		{"a loop of requires", `for k in s.set:
        require(k != p, "not p")
    s.x = 1`, 1, true, ""},
		{"a branch, a loop, a require", `if p == q:
        require(s.x == 0)
    acc = 0
    for k in s.set:
        acc += k
    require(acc < 3, "small")
    s.x = acc`, 4, true, "small"},
		{"a loop after the last require", `require(s.x == 0)
    acc = 0
    for k in s.set:
        acc += k
    s.x = acc`, 1, true, ""},
		{"a loop that returns", `for k in s.set:
        if k == p:
            return
        require(k < 3)`, 0, false, ""},
		{"a loop calling a helper that requires", `for k in s.set:
        helper(s)
    s.x = 1`, 0, false, ""},
		{"a loop whose require does not compile", `require(s.x == 0)
    for k in s.set:
        require(str(k).capitalize() != "")`, 1, false, ""},
		{"a choose after the requires", `require(s.x == 0)
    k = choose([v for v in s.set if v != p])
    s.x = k`, 2, true, "choose from an empty collection at shape.star:19:15"},
		{"a choose first", `k = choose(s.set)
    require(k != p)`, 1, false, "choose from an empty collection at shape.star:18:15"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := `
LIMIT = 3
PAIR = (1, 1)
KIND = {1: "a", 2: "b"}
def mylen(x):
    return 0
def beats(s, p, q):
    return s.m[p] == () or p < q
def helper(s):
    require(s.x > 0)
    return True
def bump(s):
    for i in range(2):
        s.x += 1
def init():
    return {"x": 0, "m": {1: (), 2: ()}, "set": set()}
def A(s, p, q):
    ` + tc.body + `
actions = [A]
domains = {A: {"p": [1, 2], "q": [1, 2]}}
`
			m, err := LoadStarlarkSource("shape.star", []byte(src))
			if err != nil {
				t.Fatal(err)
			}
			g := m.cguards[0]
			if tc.conds == 0 {
				// no conjunct: a guard only when complete (the body may
				// be compiled)
				if g != nil && (len(g.conds) != 0 || !tc.complete) || g == nil && tc.complete {
					t.Fatalf("got %+v, want no conjunct, complete %v", g, tc.complete)
				}
				return
			}
			if g == nil || len(g.conds) != tc.conds || g.complete != tc.complete {
				t.Fatalf("got %+v, want %d conjuncts, complete %v", g, tc.conds, tc.complete)
			}
			if g.whys[len(g.whys)-1] != tc.why {
				t.Errorf("reason %q, want %q", g.whys[len(g.whys)-1], tc.why)
			}
		})
	}
}

// gen writes random expressions over the state, the parameters and
// globals: mostly well typed (ints, strings, sequences, conditions, as
// guards are), some not, and some the compiler leaves alone (min(),
// lists, slices).
type gen struct{ r *rand.Rand }

func (g gen) pick(xs ...string) string { return xs[g.r.Intn(len(xs))] }

func (g gen) intE(d int) string {
	if d <= 0 || g.r.Intn(3) == 0 {
		return g.pick("p", "q", "N", "s.n", "0", "1", "2", "-1", "3")
	}
	switch g.r.Intn(7) {
	case 0:
		return "len(" + g.seqE(d-1) + ")"
	case 1:
		return "(" + g.intE(d-1) + " " + g.pick("+", "-", "*", "//", "%") + " " + g.intE(d-1) + ")"
	case 2:
		return "-" + g.intE(d-1)
	case 3:
		return g.pick("s.t", "s.l", "K") + "[" + g.intE(d-1) + "]"
	case 4:
		return "(" + g.intE(d-1) + " if " + g.boolE(d-1) + " else " + g.intE(d-1) + ")"
	case 5:
		return "s.d[" + g.intE(d-1) + "][0][1]"
	}
	return g.wild(d - 1)
}

func (g gen) strE(d int) string {
	if d <= 0 || g.r.Intn(2) == 0 {
		return g.pick("s.name", `"a"`, `"req"`, "S", `""`)
	}
	switch g.r.Intn(3) {
	case 0:
		return "M[" + g.intE(d-1) + "]"
	case 1:
		return "S[" + g.intE(d-1) + "]"
	}
	return "s.d[" + g.intE(d-1) + "][0][0]"
}

func (g gen) seqE(d int) string {
	if d <= 0 || g.r.Intn(2) == 0 {
		return g.pick("s.t", "s.l", "K", "S", "s.st", "s.d", "M")
	}
	switch g.r.Intn(5) {
	case 0:
		return "s.d[" + g.intE(d-1) + "]"
	case 1:
		return "(" + g.intE(d-1) + ", " + g.strE(d-1) + ")"
	case 2:
		// set() of a list literal (compiled without the list); a list
		// element cannot be hashed
		return "set([" + g.intE(d-1) + ", " + g.pick(g.strE(d-1), g.seqE(d-1)) + "])"
	case 3:
		// a comprehension (len() of one is counted without the list)
		return "[" + g.intE(d-1) + " for y in " + g.seqE(d-1) + " if " + g.boolE(d-1) + "]"
	}
	return "(" + g.seqE(d-1) + " + " + g.seqE(d-1) + ")"
}

func (g gen) boolE(d int) string {
	if d <= 0 {
		return g.pick("True", "False", "s.name == None", "p == q")
	}
	cmp := func() string { return g.pick("==", "!=", "<", "<=", ">", ">=") }
	switch g.r.Intn(11) {
	case 9:
		// all() or any() of a list comprehension (folded without the list),
		// whose elements may fail, over a sequence that may be no sequence
		body := g.pick("(r "+cmp()+" "+g.intE(d-1)+")", g.wild(d-1), "r", "(r in "+g.seqE(d-1)+")")
		cond := ""
		if g.r.Intn(2) == 0 {
			cond = " if " + g.pick("r != p", "(r "+cmp()+" "+g.intE(d-1)+")")
		}
		return g.pick("all", "any") + "([" + body + " for r in " + g.seqE(d-1) + cond + "])"
	case 0, 1:
		return "(" + g.intE(d-1) + " " + cmp() + " " + g.intE(d-1) + ")"
	case 2:
		return "(" + g.strE(d-1) + " " + cmp() + " " + g.strE(d-1) + ")"
	case 3:
		return "(" + g.intE(d-1) + " " + g.pick("in", "not in") + " " + g.seqE(d-1) + ")"
	case 4:
		return "(not " + g.boolE(d-1) + ")"
	case 5:
		return "(" + g.boolE(d-1) + " " + g.pick("and", "or") + " " + g.boolE(d-1) + ")"
	case 6:
		return "((" + g.intE(d-1) + ", " + g.intE(d-1) + ") " + cmp() + " K)"
	case 7:
		return g.seqE(d - 1)
	case 8:
		return "(len(" + g.seqE(d-1) + ") > 0 and " + g.seqE(d-1) + "[0] " + cmp() + " " + g.intE(d-1) + ")"
	}
	return g.wild(d - 1)
}

// wild is anything at all, typed or not.
func (g gen) wild(d int) string {
	if d <= 0 {
		return g.pick("p", "q", "N", "K", "M", "S", "s.n", "s.t", "s.d", "s.st", "s.name", "s.l",
			"0", "1", "-1", `"a"`, `"req"`, "None", "True", "False", "2.5")
	}
	x := func() string { return g.wild(d - 1) }
	switch g.r.Intn(8) {
	case 0:
		return x() + "[" + x() + "]"
	case 1:
		return "(" + x() + " " + g.pick("==", "<", "in", "+", "-", "//", "%", "and", "or") + " " + x() + ")"
	case 2:
		return "min(" + x() + ", " + x() + ")" // not compiled
	case 3:
		return "[" + x() + "]" // not compiled
	case 4:
		return x() + "[0:1]" // not compiled
	case 5:
		return "(" + x() + ", " + x() + ")"
	case 6:
		return "(not " + x() + ")"
	}
	return "-" + x()
}

// Compiled guards against the interpreter on random expressions and
// states: a compiled expression that has a value has the interpreter's
// (and the interpreter raises no error); a guard the compiled conjuncts
// find false is one whose require() fails in the interpreter; a step gives
// the same outcomes, reasons and errors with compiled guards and without.
func TestCompiledGuardsMatchInterpreter(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	valued, unknown, falsified := 0, 0, 0
	for round := 0; round < 8; round++ {
		var src strings.Builder
		src.WriteString(randGlobals + randInit)
		const n = 60
		exprs := make([]string, n)
		for i := range exprs {
			g := gen{r}
			exprs[i] = g.boolE(4)
			if r.Intn(3) == 0 {
				exprs[i] += " and " + g.boolE(3)
			}
			fmt.Fprintf(&src, "def A%d(s, p, q):\n    require(%s)\n    s.n = s.n + 1\n", i, exprs[i])
			fmt.Fprintf(&src, "def V%d(s, p, q):\n    return %s\n", i, exprs[i])
		}
		src.WriteString("actions = [" + joinNames("A", n) + "]\ndomains = {")
		for i := 0; i < n; i++ {
			fmt.Fprintf(&src, "A%d: {\"p\": [0, 1, 2, \"x\"], \"q\": [0, 1, -1]}, ", i)
		}
		src.WriteString("}\n")
		on, off := loadOnOff(t, "rand.star", src.String())
		won, woff, sts := onOffWorkers(t, on, off)
		for i := 0; i < n; i++ {
			g := on.cguards[i]
			vfn := on.globals[fmt.Sprintf("V%d", i)].(*starlark.Function)
			for _, st := range sts {
				for _, p := range []starlark.Value{starlark.MakeInt(0), starlark.MakeInt(1), starlark.MakeInt(2), starlark.String("x")} {
					for _, q := range []starlark.Value{starlark.MakeInt(0), starlark.MakeInt(1), starlark.MakeInt(-1)} {
						w := won.(*starWorker)
						s, _ := on.ensure(st)
						rc, _ := w.readonly(st)
						want, werr := w.call(vfn, starlark.Tuple{rc, p, q})
						if g != nil {
							if len(g.conds) == 1 && g.complete {
								f := (&cctx{thread: w.thread, halt: new(halt)}).start(s, g.nlocals, compileBudget)
								f.locals[1], f.locals[2] = p, q
								v, ok := g.conds[0](f)
								if ok {
									valued++
									if werr != nil {
										t.Fatalf("%s with p=%v q=%v in %s: compiled %v, the interpreter: %v", exprs[i], p, q, st.Key(), v, werr)
									}
									if eq, err := starlark.Equal(v, want); err != nil || !eq {
										t.Fatalf("%s with p=%v q=%v: compiled %v, the interpreter %v", exprs[i], p, q, v, want)
									}
								} else {
									unknown++
								}
							}
							if tr, _ := g.eval(s, []starlark.Value{p, q}, &w.cctx); tr == cFalse {
								falsified++
								if werr != nil || want.Truth() {
									t.Fatalf("%s with p=%v q=%v: compiled false, the interpreter %v %v", exprs[i], p, q, want, werr)
								}
							}
						}
						o1, why1, err1 := won.Step(st, i, []Value{p, q})
						o2, why2, err2 := woff.Step(st, i, []Value{p, q})
						if len(o1) != len(o2) || why1 != why2 || (err1 == nil) != (err2 == nil) {
							t.Fatalf("%s with p=%v q=%v: %d outcomes %q %v with compiled guards, %d %q %v without", exprs[i], p, q, len(o1), why1, err1, len(o2), why2, err2)
						}
						for k := range o1 {
							if (o1[k].Err == nil) != (o2[k].Err == nil) || o1[k].Err != nil && o1[k].Err.Error() != o2[k].Err.Error() {
								t.Fatalf("%s: outcome %d: %v against %v", exprs[i], k, o1[k].Err, o2[k].Err)
							}
							if o1[k].Err == nil && o1[k].Next.Key() != o2[k].Next.Key() {
								t.Fatalf("%s: outcome %d: another state", exprs[i], k)
							}
						}
					}
				}
			}
		}
	}
	t.Logf("%d compiled values checked, %d left to the interpreter, %d tries found disabled", valued, unknown, falsified)
	if valued < 1000 || falsified < 1000 {
		t.Errorf("too few cases checked: %d values, %d disabled tries", valued, falsified)
	}
}

func joinNames(prefix string, n int) string {
	var parts []string
	for i := 0; i < n; i++ {
		parts = append(parts, fmt.Sprintf("%s%d", prefix, i))
	}
	return strings.Join(parts, ", ")
}

// body writes a random function body over the locals x and acc.
func (g gen) body(d int, loops int) string {
	var b strings.Builder
	n := 1 + g.r.Intn(3)
	ind := strings.Repeat("    ", 4-d)
	for i := 0; i < n; i++ {
		switch k := g.r.Intn(9); {
		case k < 2:
			b.WriteString(ind + "x = " + g.intE(2) + "\n")
		case k < 3:
			b.WriteString(ind + "acc " + g.pick("+=", "-=", "*=", "//=", "%=") + " " + g.intE(1) + "\n")
		case k < 5 && d > 0:
			b.WriteString(ind + "if " + g.boolE(2) + ":\n" + g.body(d-1, loops))
			if g.r.Intn(2) == 0 {
				b.WriteString(ind + "else:\n" + g.body(d-1, loops))
			}
		case k < 7 && d > 0:
			b.WriteString(ind + "for v in " + g.pick("s.t", "s.l", "K", "s.st", "s.d", "range(x)", "[y for y in s.l if y != p]", "s.d["+g.intE(1)+"]") + ":\n")
			b.WriteString(ind + "    acc += " + g.pick("1", "x", "v", "len(v)", "H(s, v)") + "\n")
			b.WriteString(g.body(d-1, loops+1))
		case k == 7 && loops > 0:
			b.WriteString(ind + g.pick("break", "continue", "pass") + "\n")
		default:
			b.WriteString(ind + "if " + g.boolE(1) + ":\n" + ind + "    return " + g.pick("x", "acc", "(x, acc)", "G(x, acc)", "H(s, acc)", `"stop"`, g.boolE(2)) + "\n")
		}
	}
	return b.String()
}

// Compiled functions of the state (the invariant's, filters', helpers'
// shape: locals, loops, branches, comprehensions, calls) against the
// interpreter on random bodies: a compiled function that returns a value
// returns the interpreter's.
func TestCompiledFunctionsMatchInterpreter(t *testing.T) {
	r := rand.New(rand.NewSource(11))
	valued, unknown := 0, 0
	for round := 0; round < 6; round++ {
		var src strings.Builder
		src.WriteString(randGlobals + `def H(s, k):
    if k in s.st:
        return k * 2
    return len(s.t) - k
def G(a, b):
    return (a, b) if a < b else [b, a]
def init():
    return [
        {"n": 0, "t": (), "d": {0: (), 1: (("req", 1),)}, "st": set(), "name": None, "l": []},
        {"n": 2, "t": (1, 2, 3), "d": {0: (("ack", 0), ("req", 2)), 2: ()}, "st": set([0, 2]), "name": "a", "l": [1]},
        {"n": -1, "t": (0,), "d": {}, "st": set([1]), "name": "req", "l": [2, 0, 1]},
        {"n": 1, "t": ("a", 1), "d": {1: (), "x": ((),)}, "st": set(["a"]), "name": "", "l": [-1, 3]},
    ]
def A(s):
    s.n = 0
actions = [A]
`)
		const n = 60
		for i := 0; i < n; i++ {
			fmt.Fprintf(&src, "def F%d(s, p, q):\n    x = 1\n    acc = 0\n%s    return acc\n", i, gen{r}.body(3, 0))
		}
		m, err := LoadStarlarkSource("fns.star", []byte(src.String()))
		if err != nil {
			t.Fatalf("%v\n%s", err, src.String())
		}
		wk, _ := m.NewWorker()
		w := wk.(*starWorker)
		sts, err := w.Inits()
		if err != nil {
			t.Fatal(err)
		}
		compiled := 0
		for i := 0; i < n; i++ {
			fn := m.globals[fmt.Sprintf("F%d", i)].(*starlark.Function)
			cf := m.cc.function(fn, true)
			if cf == nil {
				continue
			}
			compiled++
			for _, st := range sts {
				for _, p := range []starlark.Value{starlark.MakeInt(0), starlark.MakeInt(2), starlark.String("a")} {
					s, _ := m.ensure(st)
					f := (&cctx{thread: w.thread, halt: new(halt)}).start(s, cf.nlocals, compileBudget)
					f.locals[1], f.locals[2] = p, starlark.MakeInt(1)
					v, ok := cf.call(f)
					rc, _ := w.readonly(st)
					want, werr := w.call(fn, starlark.Tuple{rc, p, starlark.MakeInt(1)})
					if !ok {
						unknown++
						continue
					}
					valued++
					if werr != nil {
						t.Fatalf("F%d(p=%v) in %s: compiled %v, the interpreter: %v", i, p, st.Key(), v, werr)
					}
					if eq, err := starlark.Equal(v, want); err != nil || !eq {
						t.Fatalf("F%d(p=%v) in state %d: compiled %v, the interpreter %v", i, p, 0, v, want)
					}
				}
			}
		}
		if compiled < n/2 {
			t.Errorf("only %d of %d functions compiled", compiled, n)
		}
	}
	t.Logf("%d compiled values checked, %d left to the interpreter", valued, unknown)
	if valued < 500 {
		t.Errorf("too few values checked: %d", valued)
	}
}

// A compiled init() (the TLA+ ports': loops, list.append, dict displays,
// helpers) gives the interpreter's initial states.
func TestCompiledInitMatchesInterpreter(t *testing.T) {
	for _, tc := range []struct {
		file      string
		constants map[string]Value
		compiled  bool
	}{
		{"Bakery.star", map[string]Value{"MaxNat": Int(1)}, true},
		{"EWD840.star", nil, true},
		{"SyncTerminationDetection.star", nil, true},
		{"CoffeeCan.star", nil, true},
		{"LamportMutex.star", nil, false}, // a dict comprehension
	} {
		m, err := LoadStarlarkWith("../explore/testdata/tla/"+tc.file, nil, tc.constants)
		if err != nil {
			t.Fatal(err)
		}
		// Bakery's init() gives its states by initial(): compared by the
		// keys each run gave.
		th := newThread("test")
		compiledSink, interpSink := newInitSink(m), newInitSink(m)
		th.SetLocal(localInit, compiledSink)
		v, ok := m.compiledInit(m.cc, th, new(halt))
		if ok != tc.compiled {
			t.Errorf("%s: compiled %v, want %v", tc.file, ok, tc.compiled)
		}
		if !ok {
			continue
		}
		th.SetLocal(localInit, interpSink)
		want, err := starlark.Call(th, m.init, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		// A returned comprehension is taken state by state as it is made
		// (streamedReturn): compared with the list's states.
		wantKeys := interpSink.keys
		if interpSink.calls == 0 {
			w, _ := m.NewWorker()
			if wantKeys, err = w.(*starWorker).encodeInits(want); err != nil {
				t.Fatal(err)
			}
		}
		if !compiledSink.streamed {
			if eq, err := starlark.Equal(v, want); err != nil || !eq {
				t.Errorf("%s: compiled init() differs from the interpreter's", tc.file)
			}
		} else if tc.file != "CoffeeCan.star" {
			t.Errorf("%s: a returned list taken state by state", tc.file)
		}
		if compiledSink.calls == 0 && !compiledSink.streamed {
			compiledSink.keys = wantKeys // compared above
		}
		if a, b := strings.Join(compiledSink.keys, "|"), strings.Join(wantKeys, "|"); a != b || interpSink.calls != compiledSink.calls {
			t.Errorf("%s: compiled init() gave %d states, the interpreter's %d", tc.file, len(compiledSink.keys), len(wantKeys))
		}
		if v == starlark.None && len(compiledSink.keys) < 2 {
			t.Errorf("%s: %d initial states given", tc.file, len(compiledSink.keys))
		}
		if n := starlark.Len(v); n < 2 && v.Type() == "list" {
			t.Errorf("%s: %d initial states", tc.file, n)
		}
	}
}

// randGlobals are the globals the random expressions read.
// randInit is the initial states of the random tests: every variable of
// randGlobals' expressions, with values of several types.
const randInit = `def init():
    return [
        {"n": 0, "t": (), "d": {0: (), 1: (("req", 1),)}, "st": set(), "name": None, "l": []},
        {"n": 2, "t": (1, 2, 3), "d": {0: (("ack", 0), ("req", 2)), 2: ()}, "st": set([0, 2]), "name": "a", "l": [1]},
        {"n": -1, "t": (0,), "d": {}, "st": set([1]), "name": "req", "l": [2, 0, 1]},
        {"n": 1, "t": ("a", 1), "d": {1: (), "x": ((),)}, "st": set(["a"]), "name": "", "l": [-1]},
    ]
`

// loadOnOff loads a model twice: with compiled guards and bodies (on), and
// without (off).
func loadOnOff(t *testing.T, name, src string) (on, off *StarModel) {
	t.Helper()
	on, err := LoadStarlarkSource(name, []byte(src))
	if err != nil {
		t.Fatalf("%v\n%s", err, src)
	}
	if off, err = LoadStarlarkSource(name, []byte(src)); err != nil {
		t.Fatal(err)
	}
	off.SetCompiledGuards(false)
	return on, off
}

// onOffWorkers returns a worker of each model, and on's initial states.
func onOffWorkers(t *testing.T, on, off *StarModel) (won, woff Worker, sts []State) {
	t.Helper()
	won, _ = on.NewWorker()
	woff, _ = off.NewWorker()
	sts, err := won.(*starWorker).Inits()
	if err != nil {
		t.Fatal(err)
	}
	return won, woff, sts
}

const randGlobals = `
N = 3
K = (1, 2)
M = {0: "a", 1: "b", "x": (1,)}
S = "abc"
`

// A project's expressions that call the model's functions (a filter
// clock_ok(s)) are compiled, and give the interpreter's values; one whose
// function does not compile is left to the interpreter.
func TestCompiledProjectExpressions(t *testing.T) {
	src := `
LIMIT = 2
def ok(s):
    return all([v <= LIMIT for v in s.c.values()])
def total(s, k):
    return max([v * k for v in s.c.values()]) if k > 0 else len(s.c)
def loud(s):
    print("")
    return True
def init():
    return [{"c": {1: a, 2: b}} for a in range(4) for b in range(4)]
def A(s):
    s.c[1] = 0
actions = [A]
`
	m, w := loadWorker(t, "expr.star", src)
	sts, err := w.Inits()
	if err != nil || len(sts) != 16 {
		t.Fatalf("%d states, %v", len(sts), err)
	}
	for _, tc := range []struct {
		src      string
		compiled bool
	}{
		{"ok(s)", true},
		{"total(s, 2) > 4 or not ok(s)", true},
		{"total(s, 0)", true},
		{"loud(s) and ok(s)", false},
	} {
		e, err := m.Compile(tc.src, Pos{File: "p.toml", Line: 1, Col: 1})
		if err != nil {
			t.Fatal(err)
		}
		x := e.(*starExpr)
		if (x.cf != nil) != tc.compiled {
			t.Fatalf("%s: compiled %v, want %v", tc.src, x.cf != nil, tc.compiled)
		}
		for _, st := range sts {
			got, err := w.Eval(e, st)
			if err != nil {
				t.Fatal(err)
			}
			want, err := w.callOnState(x.fn, st, x.what, x.pos)
			if err != nil {
				t.Fatal(err)
			}
			if eq, _ := starlark.Equal(got, want); !eq {
				t.Errorf("%s in %s: %v, the interpreter %v", tc.src, st.Key(), got, want)
			}
		}
	}
}
