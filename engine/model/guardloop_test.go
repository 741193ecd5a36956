package model

import (
	"fmt"
	"math/rand"
	"slices"
	"strings"
	"testing"

	"go.starlark.net/syntax"
)

// A model whose actions have require()s in loops and branches among their
// leading requires, and choose()s after them (PaxosCommit's shapes), with
// reasons, errors in the middle of a loop, and choices from lists with
// duplicates, sets and dicts; and set.add and list.append, which compiled
// bodies run without the interpreter's bound methods, with their errors.
const guardLoopModel = `
P = [0, 1, 2]

def init():
    return {"msgs": set(), "n": 0, "lst": [], "d": {}}

def Send(s, p):
    for m in s.msgs:
        require(not (m[0] == "send" and m[1] == p), "sent already")
    s.msgs.add(("send", p, s.n))
    s.n = (s.n + 1) % 3

def Ack(s, p):
    mine = [m for m in s.msgs if m[0] == "send" and m[1] != p]
    for q in P:
        if q == p:
            continue
        require(len([m for m in mine if m[1] == q]) > 0)
    best = -1
    for m in mine:
        if m[2] > best:
            best = m[2]
    s.msgs.add(("ack", p, best))

def Pick(s, p):
    require(s.n != p)
    m = choose([m for m in s.msgs if m[0] == "send" and m[2] >= p])
    s.lst.append(m[1])
    if len(s.lst) > 2:
        s.lst = s.lst[1:]

def Two(s, p):
    if p == 2:
        require(len(s.lst) > 1, "two needed")
    a = choose(s.lst)
    b = choose(s.msgs)
    s.d[a] = b[0]
    c = choose(s.d)
    s.n = (c + p) % 3

def Bad(s, p):
    for x in s.lst:
        require(x != p)
        if s.n == 2:
            require(s.d[x] == "send")   # a key error for some x
    s.n = (s.n + len(s.lst)) % 3

def Early(s, p):
    for x in P:
        if x == p:
            break
        require(x in s.lst, "needs lower")
    require(s.n < 2)
    s.n += 1

def Nested(s, p):
    for m in s.msgs:
        for x in s.lst:
            if x == m[1] and m[0] == "ack":
                require(m[2] != p)
    k = choose([x for x in s.lst if x != p] + [p])
    s.n = k

FROZEN = set([0])

def Adds(s, p):
    require(s.n != p or len(s.lst) == 0)
    s.lst.append(p)
    if len(s.lst) > 3:
        s.lst = s.lst[2:]
    s.msgs.add(("x", p))
    if p == 2 and s.n == 1:
        s.msgs.add([p])   # unhashable: an error
    fz = FROZEN
    if p == 1 and s.n == 2:
        fz.add(0)         # frozen (and 0 is in it): an error
    if p == 0 and s.n == 1:
        for m in s.msgs:
            s.msgs.add(("y", 0))   # while iterating it: an error
    if p == 1 and s.n == 1:
        for x in s.lst:
            s.lst.append(x)        # while iterating it: an error

def Late(s, p):
    require(s.n != p)
    m = choose([x for x in s.lst if x != p])
    require(m != 0, "not zero")   # a require after the choice: the guard is not complete
    s.n = m % 3

def After(s, p):
    for x in s.lst:
        require(x != p + 5)
    s.n = x % 3 if len(s.lst) > 0 else p   # the loop's last x: the body must bind it again

actions = [Send, Ack, Pick, Two, Bad, Early, Nested, Adds, Late, After]
domains = {a: {"p": P} for a in actions}
`

// Guards with require()s in loops and branches, and compiled choose()s,
// give what the interpreter gives: the same outcomes and reasons on every
// state of a breadth-first walk, with every action compiled.
func TestCompiledGuardLoopsMatchInterpreter(t *testing.T) {
	on, off := loadOnOff(t, "loops.star", guardLoopModel)
	late := actionIndex(on, "Late")
	for i, b := range on.cbodies {
		if i != late && (b == nil || on.cguards[i] == nil || !on.cguards[i].complete) {
			t.Fatalf("%s: not compiled: %v", on.fns[i].Name(), on.Compiled())
		}
	}
	// Late's guard ends at its choice and is not complete: the try goes
	// to the interpreter's full run, without its read-only guard run.
	if g := on.cguards[late]; g == nil || !g.atChoose || g.complete || on.cbodies[late] != nil {
		t.Errorf("Late: guard %+v, body %v", g, on.cbodies[late] != nil)
	}
	for _, name := range []string{"Pick", "Nested"} {
		if g := on.cguards[actionIndex(on, name)]; !g.atChoose {
			t.Errorf("%s: the guard does not end at its choose()", name)
		}
	}
	walkCompiled(t, on, off, 10000)
}

func actionIndex(m *StarModel, name string) int {
	for i, a := range m.info.Actions {
		if a.Name == name {
			return i
		}
	}
	return -1
}

// The reasons a compiled guard gives: a require()'s in a loop, and a
// choose()'s from an empty collection, with the interpreter's position.
func TestCompiledGuardLoopReasons(t *testing.T) {
	m, err := LoadStarlarkSource("loops.star", []byte(guardLoopModel))
	if err != nil {
		t.Fatal(err)
	}
	w, _ := m.NewWorker()
	st, _ := w.Init()
	// Send once for p = 0; then Send(0) is disabled by the loop's require.
	outs, _, err := w.Step(st, actionIndex(m, "Send"), []Value{Int(0)})
	if err != nil || len(outs) != 1 || outs[0].Err != nil {
		t.Fatalf("Send: %v %v", outs, err)
	}
	next := outs[0].Next
	for _, tc := range []struct {
		st     State
		action string
		p      int
		why    string
	}{
		{next, "Send", 0, "sent already"},
		{st, "Pick", 1, "choose from an empty collection at loops.star:27:15"},
		{st, "Two", 2, "two needed"},
		{st, "Early", 2, "needs lower"},
	} {
		outs, why, err := w.Step(tc.st, actionIndex(m, tc.action), []Value{Int(tc.p)})
		if err != nil || len(outs) != 0 || why != tc.why {
			t.Errorf("%s(%d): %d outcomes, %q, %v; want none, %q", tc.action, tc.p, len(outs), why, err, tc.why)
		}
	}
	if !strings.Contains(strings.Join(m.Compiled(), " "), "Pick body") {
		t.Errorf("Pick's body is not compiled: %v", m.Compiled())
	}
}

// guardStmts writes random leading statements of an action: requires,
// loops and branches of requires (some with reasons, break and continue),
// local assignments, and sometimes a choose() to end them.
func (g gen) guardStmts(d int, ind string) string {
	var b strings.Builder
	n := 1 + g.r.Intn(3)
	for i := 0; i < n; i++ {
		switch k := g.r.Intn(8); {
		case k < 2:
			b.WriteString(ind + "require(" + g.boolE(2) + g.pick("", `, "why"`) + ")\n")
		case k < 4 && d > 0:
			b.WriteString(ind + "for v in " + g.pick("s.t", "s.l", "K", "s.st", "s.d", "S", "s.d["+g.intE(1)+"]", "range(p)") + ":\n")
			inner := ind + "    "
			if g.r.Intn(3) == 0 {
				b.WriteString(inner + "if " + g.pick("v == p", "v == q", g.boolE(1)) + ":\n" + inner + "    " + g.pick("break", "continue") + "\n")
			}
			b.WriteString(inner + "require(" + g.pick("v != p", "v in s.l", "(v, q) != K", "len(v) > 0") + " or " + g.boolE(1) + g.pick("", `, "in loop"`) + ")\n")
			if g.r.Intn(2) == 0 {
				b.WriteString(g.guardStmts(d-1, inner))
			}
		case k < 6 && d > 0:
			cond := g.boolE(2)
			if g.r.Intn(2) == 0 { // one that reads p alone: a prefix of the arguments
				cond = "p == " + g.pick("0", "1", "2", `"x"`)
			}
			b.WriteString(ind + "if " + cond + ":\n" + g.guardStmts(d-1, ind+"    "))
		default:
			b.WriteString(ind + "x = " + g.intE(2) + "\n")
		}
	}
	return b.String()
}

// Random leading statements (requires in loops and branches, errors in
// them, choose()s after them) step as the interpreter steps them: the
// same outcomes, errors and reasons.
func TestCompiledGuardStatementsMatchInterpreter(t *testing.T) {
	r := rand.New(rand.NewSource(13))
	disabled, enabled := 0, 0
	loops, probes, bodies := 0, 0, 0 // compiled guards with loops, ending at a choose(); compiled bodies
	pruned := 0                      // tries a prefix of the arguments found disabled
	for round := 0; round < 6; round++ {
		var src strings.Builder
		src.WriteString(randGlobals + randInit)
		const n = 50
		for i := 0; i < n; i++ {
			g := gen{r}
			fmt.Fprintf(&src, "def A%d(s, p, q):\n%s", i, g.guardStmts(2, "    "))
			if r.Intn(2) == 0 {
				fmt.Fprintf(&src, "    c = choose(%s)\n    s.name = c\n", g.pick("s.t", "s.l", "s.st", "s.d", "[v for v in s.l if v != p]", "K", "s.d[q]", "range(p)", "s.d[p]"))
			}
			src.WriteString("    s.n = s.n + 1\n")
		}
		src.WriteString("actions = [" + joinNames("A", n) + "]\ndomains = {")
		for i := 0; i < n; i++ {
			fmt.Fprintf(&src, "A%d: {\"p\": [0, 1, 2, \"x\"], \"q\": [0, 1, -1]}, ", i)
		}
		src.WriteString("}\n")
		on, off := loadOnOff(t, "stmts.star", src.String())
		for i, g := range on.cguards {
			if g != nil && g.atChoose {
				probes++
			}
			if g != nil && slices.ContainsFunc(g.assigns, func(st syntax.Stmt) bool { _, ok := st.(*syntax.ForStmt); return ok }) {
				loops++
			}
			if on.cbodies[i] != nil {
				bodies++
			}
		}
		won, woff, sts := onOffWorkers(t, on, off)
		for i := 0; i < n; i++ {
			for _, st := range sts {
				for _, p := range []Value{Int(0), Int(1), Int(2), Str("x")} {
					for _, q := range []Value{Int(0), Int(1), Int(-1)} {
						o1, why1, err1 := won.Step(st, i, []Value{p, q})
						o2, why2, err2 := woff.Step(st, i, []Value{p, q})
						got, want := describeOutcomes(o1, why1, err1), describeOutcomes(o2, why2, err2)
						if got != want {
							t.Fatalf("A%d with p=%v q=%v in %s: compiled %s, the interpreter %s\n%s", i, p, q, st.Key(), got, want, src.String())
						}
						if len(o1) == 0 {
							disabled++
						} else {
							enabled++
						}
					}
					pruned += checkPrefix(t, won, woff, st, i, p)
				}
			}
		}
	}
	t.Logf("%d tries disabled, %d enabled; %d guards with loops, %d ending at a choose, %d bodies; %d disabled by a prefix", disabled, enabled, loops, probes, bodies, pruned)
	if disabled < 1000 || enabled < 1000 || loops < 50 || probes < 30 || bodies < 100 || pruned < 50 {
		t.Errorf("too few cases: %d disabled, %d enabled; %d guards with loops, %d ending at a choose, %d bodies", disabled, enabled, loops, probes, bodies)
	}
}

// checkPrefix asks won whether action i is disabled in st by a prefix of
// its arguments (p alone, or none) and, when it says so, checks that the
// interpreter (woff) finds every try with that p disabled; it returns the
// tries so checked.
func checkPrefix(t *testing.T, won, woff Worker, st State, i int, p Value) int {
	t.Helper()
	pg := won.(PrefixGuard)
	k, ok := pg.GuardPrefix(i)
	if !ok || !pg.DisabledByPrefix(st, i, []Value{p}[:k]) {
		return 0
	}
	for _, q := range []Value{Int(0), Int(1), Int(-1)} {
		if outs, _, err := woff.Step(st, i, []Value{p, q}); len(outs) != 0 || err != nil {
			t.Fatalf("A%d with p=%v: disabled by the prefix, but the interpreter with q=%v: %s", i, p, q, describeOutcomes(outs, "", err))
		}
	}
	return 3
}

// describeOutcomes writes a step's outcomes, reason and error.
func describeOutcomes(outs []Outcome, why string, err error) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "why=%q err=%v", why, err)
	for _, o := range outs {
		if o.Err != nil {
			fmt.Fprintf(&sb, " error=%v", o.Err)
			continue
		}
		fmt.Fprintf(&sb, " out=%s next=%q", Format(o.Output), o.Next.Key())
	}
	return sb.String()
}
