package model

import (
	"fmt"
	"strings"
	"testing"
)

const bodyModel = `
P = [0, 1, 2]

def init():
    return {"d": {p: {"a": 0, "q": ()} for p in P}, "crit": set(), "n": 0,
            "lst": [0, 1, 2], "t": (1, 2, 3)}

def push(s, p, m):
    for r in P:
        if r != p:
            s.d[r]["q"] = s.d[r]["q"] + (m,)

def Send(s, p):
    require(all([len(s.d[r]["q"]) < 2 for r in P]))
    push(s, p, ("m", s.n))
    s.n = (s.n + 1) % 3

def Recv(s, p):
    require(len(s.d[p]["q"]) > 0)
    m = s.d[p]["q"][0]
    s.d[p]["q"] = s.d[p]["q"][1:]
    s.d[p]["a"] += m[1]
    s.d[p]["a"] %= 4
    return m

def Join(s, p):
    require(p not in s.crit)
    s.crit.add(p)
    if len(s.crit) == 3:
        s.crit.clear()

def Leave(s, p):
    require(p in s.crit)
    s.crit.remove(p)

def Rot(s, p):
    require(p == 0 or s.n == p)
    s.lst[-1] = s.lst[0]
    s.lst[p] = (s.lst[p] + 1) % 3
    s.t = s.t[-2:] + s.t[:1]
    s.n -= 0
    return s.lst[p - 3:]

def Bad(s, p):
    require(p != 1)
    if s.n == 2:
        return s.d[p]["missing"]   # a key error: the interpreter reports it
    if s.n == 1:
        s.lst[p + 5] = 0           # out of range
    return s.t[p:p]

def Ins(s, p):
    require(s.n == p)
    xs = [1, 2, 3]
    ys = [xs.insert(0, x) for x in xs]   # changes the list it runs over
    s.n = (len(ys) + 1) % 3

def Pop(s, p):
    require(s.n != p)
    xs = [1, 2, 3]
    ys = [xs.pop() for x in xs]          # changes the list it runs over
    s.n = len(ys) % 3

def Pass(s, p):
    nxt = (p + 1) % 3                    # locals among the leading requires
    q = s.d[nxt]["q"]
    require(len(q) > 0, "nothing to pass")
    m = q[0]
    require(m[1] != p or s.n == 0)
    w = s.d[nxt]["missing"] if s.n == 2 and p == 2 else m  # a key error, once
    s.d[nxt]["q"] = q[1:]
    s.d[p]["a"] = (s.d[p]["a"] + w[1] + len(q)) % 4
    return w

def Fold(s, p):
    require(s.n != p)
    xs = [1]
    # any() reads the list once it is whole: by then the pop has emptied
    # the first element (any() is False)
    if any([xs if i == 0 else xs.pop() * 0 for i in range(2)]):
        s.n = p
    ys = [2]
    if all([ys for i in range(2) if i == 0 or ys.append(0) == None]):
        s.n = (s.n + 1) % 3

actions = [Send, Recv, Join, Leave, Rot, Bad, Ins, Pop, Pass, Fold]
domains = {a: {"p": P} for a in actions}
`

// An action's compiled body gives what the interpreter gives: the same
// outcomes (states, outputs, errors) on every state of a breadth-first
// walk, with helpers that change the state, slices, index assignments,
// augmented assignments and methods that change values.
func TestCompiledBodiesMatchInterpreter(t *testing.T) {
	on, err := LoadStarlarkSource("body.star", []byte(bodyModel))
	if err != nil {
		t.Fatal(err)
	}
	off, err := LoadStarlarkSource("body.star", []byte(bodyModel))
	if err != nil {
		t.Fatal(err)
	}
	off.SetCompiledGuards(false)
	for i, b := range on.cbodies {
		if b == nil {
			t.Fatalf("%s: no compiled body", on.fns[i].Name())
		}
	}
	walkCompiled(t, on, off, 1000)
}

// walkCompiled walks on (compiled) and off (the interpreter) with walkBoth
// and fails when the walk took fewer than minSteps steps or met no error.
func walkCompiled(t *testing.T, on, off *StarModel, minSteps int) {
	t.Helper()
	won, _ := on.NewWorker()
	woff, _ := off.NewWorker()
	states, steps, errs := walkBoth(t, on, won, woff, "compiled", "the interpreter")
	if steps < minSteps || errs == 0 {
		t.Fatalf("%d steps, %d errors: the walk is too short", steps, errs)
	}
	t.Logf("%d states, %d steps, %d errors", states, steps, errs)
}

// walkBoth steps every action, with each p in 0..2, from every state of a
// breadth-first walk of the model (up to 3,000 states) on two workers, and
// fails at the first step whose outcomes (states, outputs, errors) or
// reason differ; the names say which is which.
func walkBoth(t *testing.T, m Model, a, b Worker, aName, bName string) (states, steps, errs int) {
	t.Helper()
	describe := func(w Worker, key string, act int, p Value) (string, []string) {
		st, err := w.(ScratchStepper).DecodeScratch(key)
		if err != nil {
			t.Fatal(err)
		}
		outs, why, err := w.(ScratchStepper).StepScratch(st, act, []Value{p})
		if err != nil {
			t.Fatal(err)
		}
		var sb strings.Builder
		var next []string
		fmt.Fprintf(&sb, "why=%q", why)
		for _, o := range outs {
			if o.Err != nil {
				fmt.Fprintf(&sb, " err=%v", o.Err)
				continue
			}
			fmt.Fprintf(&sb, " out=%s next=%q", Format(o.Output), o.Next.Key())
			next = append(next, strings.Clone(o.Next.Key()))
		}
		return sb.String(), next
	}
	s0, _ := a.Init()
	queue, seen := []string{s0.Key()}, map[string]bool{s0.Key(): true}
	for len(queue) > 0 && len(seen) < 3000 {
		key := queue[0]
		queue = queue[1:]
		for act := range m.Info().Actions {
			for p := 0; p < 3; p++ {
				got, next := describe(a, key, act, Int(p))
				want, _ := describe(b, key, act, Int(p))
				if got != want {
					t.Fatalf("%s(%d): %s %s, %s %s", m.Info().Actions[act].Name, p, aName, got, bName, want)
				}
				steps++
				if strings.Contains(got, "err=") {
					errs++
				}
				for _, k := range next {
					if !seen[k] {
						seen[k] = true
						queue = append(queue, k)
					}
				}
			}
		}
	}
	return len(seen), steps, errs
}
