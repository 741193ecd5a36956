package model

import (
	"fmt"
	"testing"
	"unsafe"

	"go.starlark.net/starlark"
)

// A slab hands out the dicts and sets of its last step again, empty and
// mutable though they were frozen and iterated, unless the step was pinned.
func TestRecycledDicts(t *testing.T) {
	if !htLayout.ok {
		t.Fatal("Starlark's hashtable has no frozen flag and itercount where recycle.go looks: nothing is recycled")
	}
	var s valSlab
	d, st := s.dict(3), s.set(2)
	for i := 0; i < 3; i++ {
		_ = d.SetKey(starlark.MakeInt(i), starlark.MakeInt(i))
		_ = st.Insert(starlark.MakeInt(i))
	}
	it := d.Iterate() // left running: a later change must not see it
	_ = it
	d.Freeze()
	st.Freeze()
	s.reset()
	d2, st2 := s.dict(2), s.set(1)
	if d2 != d || st2 != st || s.reused != 2 {
		t.Fatalf("not handed out again: %p %p, %p %p, reused %d", d, d2, st, st2, s.reused)
	}
	if d2.Len() != 0 || st2.Len() != 0 {
		t.Fatalf("recycled with entries: %v %v", d2, st2)
	}
	if err := d2.SetKey(starlark.String("k"), starlark.None); err != nil {
		t.Fatalf("recycled dict: %v", err)
	}
	if err := st2.Insert(starlark.String("k")); err != nil {
		t.Fatalf("recycled set: %v", err)
	}
	if got := d2.String() + st2.String(); got != `{"k": None}set(["k"])` {
		t.Fatalf("recycled values hold %s", got)
	}
	s.pinned = true // the step's outputs may share them
	s.reset()
	if d3 := s.dict(1); d3 == d || s.reused != 2 {
		t.Fatal("a pinned step's dict was handed out again")
	}
	s.pinned = false
	big := s.dict(20)
	for i := 0; i < 20; i++ {
		_ = big.SetKey(starlark.MakeInt(i), starlark.None)
	}
	s.reset()
	if s.dict(1) == big {
		t.Fatal("a dict with a table of four buckets was handed out for one entry")
	}
	if s.dict(20) != big {
		t.Fatal("a dict with a table of four buckets was not handed out again for twenty entries")
	}
}

// The size classes are the tables Starlark makes: a new set for n entries
// has a table of 2^sizeClass(n) buckets, one that grew from empty to n
// entries too, and the recycled values are kept by their tables.
func TestSizeClasses(t *testing.T) {
	for _, tc := range []struct{ n, class int }{
		{0, 0}, {1, 0}, {7, 0}, {8, 1}, {12, 1}, {13, 2}, {25, 2}, {26, 3},
		{51, 3}, {52, 4}, {103, 4}, {104, 5}, {207, 5}, {208, 6}, {1000, 8},
	} {
		if got := sizeClass(tc.n); got != tc.class {
			t.Errorf("sizeClass(%d) = %d, want %d", tc.n, got, tc.class)
		}
		made := starlark.NewSet(tc.n)
		if got := tableClass(unsafe.Pointer(made), tc.n); got != tc.class {
			t.Errorf("NewSet(%d)'s table: class %d, want %d", tc.n, got, tc.class)
		}
		grown := new(starlark.Set)
		for i := range tc.n {
			_ = grown.Insert(starlark.MakeInt(i))
		}
		// Inserting one at a time grows the table before an insert finds
		// it full: the class of n-1 entries at least.
		if got := tableClass(unsafe.Pointer(grown), tc.n); got < sizeClass(max(tc.n-1, 0)) || got > tc.class {
			t.Errorf("a set grown to %d entries: class %d, want %d or %d", tc.n, got, sizeClass(max(tc.n-1, 0)), tc.class)
		}
	}
	var s valSlab
	var sets []*starlark.Set
	for _, n := range []int{3, 20, 60, 300} {
		st := s.set(n)
		for i := range n {
			_ = st.Insert(starlark.MakeInt(i))
		}
		st.Freeze()
		sets = append(sets, st)
	}
	s.reset()
	for i, n := range []int{3, 20, 60} {
		if got := s.set(n); got != sets[i] || got.Len() != 0 {
			t.Errorf("a set of %d entries: %p (%d entries) handed out, want %p", n, got, got.Len(), sets[i])
		}
	}
	if got := s.set(300); got == sets[3] {
		t.Error("a set with a table of 64 buckets was recycled")
	}
}

// Steps whose copies are recycled give what steps with new copies give, on
// a walk of the thaw test's model (its actions change nested dicts, lists
// and sets, alias them, fail, and return the state's dict as output).
func TestRecyclingMatchesFreshCopies(t *testing.T) {
	a, states, steps := walkRecycled(t, "thaw.star", thawModel)
	t.Logf("%d states, %d steps, %d reused", states, steps, a.slab.reused)
}

// walkRecycled walks the model src (walkBoth) on a worker that recycles
// its dicts and sets and on one that makes new copies, and checks that at
// least a quarter of the steps reused one; it returns the first worker.
func walkRecycled(t *testing.T, name, src string) (a *starWorker, states, steps int) {
	t.Helper()
	m, err := LoadStarlarkSource(name, []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	wa, _ := m.NewWorker()
	wb, _ := m.NewWorker()
	wb.(*starWorker).slab.fresh = true
	states, steps, _ = walkBoth(t, m, wa, wb, "recycling", "with new copies")
	a = wa.(*starWorker)
	if a.slab.reused < steps/4 {
		t.Fatalf("%d dicts and sets reused in %d steps", a.slab.reused, steps)
	}
	return a, states, steps
}

// An output that shares a step's copies stays as it was through later
// steps (the step is pinned: its copies are not recycled).
func TestRecycledOutputsKept(t *testing.T) {
	m, err := LoadStarlarkSource("thaw.star", []byte(thawModel))
	if err != nil {
		t.Fatal(err)
	}
	w, _ := m.NewWorker()
	ss := w.(ScratchStepper)
	act := func(name string) int {
		for i, a := range m.Info().Actions {
			if a.Name == name {
				return i
			}
		}
		t.Fatalf("no action %s", name)
		return -1
	}
	s0, _ := w.Init()
	key := s0.Key()
	// Bump, then Read a state where d[1]["a"] > 0: Read returns s.d.
	st, _ := ss.DecodeScratch(key)
	outs, _, _ := ss.StepScratch(st, act("Bump"), []Value{Int(0)})
	key = string([]byte(outs[0].Next.Key()))
	st, _ = ss.DecodeScratch(key)
	outs, why, err := ss.StepScratch(st, act("Read"), []Value{Int(1)})
	if err != nil || len(outs) != 1 {
		t.Fatalf("Read(1): %v %q %v", outs, why, err)
	}
	out := outs[0].Output
	want := Format(out)
	for i := 0; i < 200; i++ {
		st, _ := ss.DecodeScratch(key)
		for _, name := range []string{"Bump", "Alias", "Join", "Local"} {
			if _, _, err := ss.StepScratch(st, act(name), []Value{Int(i % 3)}); err != nil {
				t.Fatal(err)
			}
		}
	}
	if got := Format(out); got != want || !frozen(out) {
		t.Fatalf("Read's output was %s, is %s after later steps (frozen %v)", want, got, frozen(out))
	}
}

// An input taken from the source state's variables (a domain that lists
// them) stays as it was through later states and steps: the source whose
// values a step took as inputs is not recycled.
func TestRecycledSourceInputsKept(t *testing.T) {
	m, err := LoadStarlarkSource("inputs.star", []byte(`
def init():
    return {"a": {1: 2}, "b": {3: 4}, "n": 0}

def Take(s, v):
    s.n = (s.n + 1) % 5
    return len(v)

def Other(s):
    s.n = (s.n + 2) % 5

actions = [Take, Other]
domains = {Take: {"v": lambda s: [s.a, s.b]}}
`))
	if err != nil {
		t.Fatal(err)
	}
	w, _ := m.NewWorker()
	ss := w.(ScratchStepper)
	s0, _ := w.Init()
	st, _ := ss.DecodeScratch(s0.Key())
	vals, _, err := w.Domain(st, 0, 0)
	if err != nil || len(vals) != 2 {
		t.Fatalf("domain %v, %v", vals, err)
	}
	kept, want := vals[0], Format(vals[0])
	outs, _, err := ss.StepScratch(st, 0, []Value{kept})
	if err != nil || len(outs) != 1 {
		t.Fatalf("Take: %v %v", outs, err)
	}
	key := string([]byte(outs[0].Next.Key()))
	read, err := m.Compile("s.a[1] + s.b[3]", Pos{})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 50; i++ {
		st, _ := ss.DecodeScratch(key)
		if _, err := w.Eval(read, st); err != nil { // the variables read: decoded
			t.Fatal(err)
		}
		outs, _, err := ss.StepScratch(st, 1, nil)
		if err != nil {
			t.Fatal(err)
		}
		key = string([]byte(outs[0].Next.Key()))
	}
	if got := Format(kept); got != want {
		t.Fatalf("the input was %s, is %s after later states", want, got)
	}
	if w.(*starWorker).slab.reused == 0 {
		t.Fatal("no source's variables recycled")
	}
}

// Sources decoded one after another with no step between (the explorer
// evaluating initial states) leave no more than one source's values
// waiting to be recycled: the list of them does not grow with every
// source (it held every dict decoded, half a million states' worth).
func TestRetiredSourcesWithoutSteps(t *testing.T) {
	m, err := LoadStarlarkSource("many.star", []byte(`
def init():
    return [{"d": {"k": i}, "e": {i: True}} for i in range(300)]

def A(s):
    s.d = {"k": 0}

actions = [A]
`))
	if err != nil {
		t.Fatal(err)
	}
	w, _ := m.NewWorker()
	keys, err := w.(InitKeyser).InitKeys()
	if err != nil || len(keys) != 300 {
		t.Fatalf("%d initial keys, %v", len(keys), err)
	}
	read, err := m.Compile("s.d['k'] + len(s.e)", Pos{})
	if err != nil {
		t.Fatal(err)
	}
	slab := &w.(*starWorker).slab
	for i, k := range keys {
		st, err := w.(ScratchStepper).DecodeScratch(k)
		if err != nil {
			t.Fatal(err)
		}
		v, err := w.Eval(read, st)
		if err != nil || Format(v) != fmt.Sprint(i+1) {
			t.Fatalf("state %d: %v, %v", i, v, err)
		}
		if n := len(slab.dicts.retiring) + len(slab.dicts.reads); n > 4 {
			t.Fatalf("after %d sources, %d dicts held for recycling", i+1, n)
		}
	}
}
