package model

import (
	"testing"

	"go.starlark.net/starlark"
)

// memberModel's functions test tuples built in the scratch against sets,
// dicts, lists and tuples, nested, with calls inside that test tuples of
// their own, and with errors.
const memberModel = `
MSGS = set([("a", 1, 2), ("b", 2, 1), (("a", 1), 3)])
def Inner(s, p):
    return (p, s.n) in s.st
def Count(s, p, q):
    return len([m for m in s.st if m[0] == p]) + (1 if (p, q) in s.st else 0)
def init():
    return [{"n": 1, "st": set([(1, 1), (2, 1), ("x", 0)]), "d": {(1, 2): 3}, "l": [(2, 3)]}]
def A(s):
    s.n = 0
actions = [A]

def F0(s, p, q):
    return ("a", p, q) in MSGS
def F1(s, p, q):
    return ("a", p, q) not in MSGS
def F2(s, p, q):
    return ((("a", p), q) in MSGS, (p, q) in s.d, (p + 1, q + 1) in s.l, (p, q) in ((1, 2), (2, 1)))
def F3(s, p, q):
    return (Inner(s, p), Inner(s, q), p) in set([(True, False, 1), (False, True, 2)])
def F4(s, p, q):
    return [(p, Count(s, p, q), (q, p) in s.st) in set([(1, 1, True)]) for q in [0, 1, 2]]
def F5(s, p, q):
    return ([p], q) in MSGS
def F6(s, p, q):
    return all([(p, k) in s.st for k in [1, 1]]) or any([(k, q) in s.st for k in [1, 2, "x"]])
`

// A compiled membership test of a tuple built in the scratch gives the
// interpreter's value or error, and leaves the scratch as it found it.
func TestMemberTuplesMatchInterpreter(t *testing.T) {
	m, w, st, s := memberState(t)
	ctx := &cctx{thread: w.thread, halt: new(halt)}
	args := []starlark.Value{starlark.MakeInt(0), starlark.MakeInt(1), starlark.MakeInt(2), starlark.String("x")}
	for _, name := range []string{"F0", "F1", "F2", "F3", "F4", "F5", "F6"} {
		fn := m.globals[name].(*starlark.Function)
		cf := m.cc.function(fn, true)
		if cf == nil {
			t.Fatalf("%s: not compiled", name)
		}
		for _, p := range args {
			for _, q := range args {
				f := ctx.start(s, cf.nlocals, compileBudget)
				f.locals[1], f.locals[2] = p, q
				got, ok := cf.call(f)
				rc, _ := w.readonly(st)
				want, werr := w.call(fn, starlark.Tuple{rc, p, q})
				if len(ctx.tmp) != 0 {
					t.Fatalf("%s(%v, %v) left %d values on the scratch", name, p, q, len(ctx.tmp))
				}
				switch {
				case werr != nil && ok:
					t.Fatalf("%s(%v, %v): compiled %v, the interpreter: %v", name, p, q, got, werr)
				case werr == nil && !ok:
					t.Fatalf("%s(%v, %v): compiled gave up, the interpreter: %v", name, p, q, want)
				case werr == nil:
					if eq, err := starlark.Equal(got, want); err != nil || !eq {
						t.Fatalf("%s(%v, %v): compiled %v, the interpreter %v", name, p, q, got, want)
					}
				}
			}
		}
	}
}

// A membership test of a tuple in a set allocates nothing: neither its
// elements' array (the scratch) nor its boxing (the context's box).
func TestMemberTupleAllocations(t *testing.T) {
	m, w, _, s := memberState(t)
	cf := m.cc.function(m.globals["F0"].(*starlark.Function), true)
	ctx := &cctx{thread: w.thread, halt: new(halt)}
	run := func() {
		f := ctx.start(s, cf.nlocals, compileBudget)
		f.locals[1], f.locals[2] = starlark.MakeInt(1), starlark.MakeInt(2)
		if v, ok := cf.call(f); !ok || v != starlark.True {
			t.Fatalf("F0(1, 2) = %v, %v", v, ok)
		}
	}
	if n := testing.AllocsPerRun(100, run); n > 0 {
		t.Errorf("F0 allocates %.0f times an evaluation, want none", n)
	}
}

// memberState loads memberModel and returns it, a worker, its initial
// state and that state's record.
func memberState(t *testing.T) (*StarModel, *starWorker, State, *sstate) {
	t.Helper()
	m, err := LoadStarlarkSource("member.star", []byte(memberModel))
	if err != nil {
		t.Fatal(err)
	}
	wk, _ := m.NewWorker()
	w := wk.(*starWorker)
	sts, err := w.Inits()
	if err != nil {
		t.Fatal(err)
	}
	s, err := m.ensure(sts[0])
	if err != nil {
		t.Fatal(err)
	}
	return m, w, sts[0], s
}
