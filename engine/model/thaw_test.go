package model

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"go.starlark.net/starlark"
)

// What a run with deep copies did to a variable becomes the way the next
// runs get it.
func TestLearnThaw(t *testing.T) {
	m, err := LoadStarlarkSource("v.star", []byte(`
def init():
    return {"x": 0}
def A(s):
    pass
actions = [A]
`))
	if err != nil {
		t.Fatal(err)
	}
	w, _ := m.NewWorker()
	eval := func(src string) starlark.Value {
		v, err := starlark.Eval(w.(*starWorker).thread, "t", src, nil)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	for _, tc := range []struct {
		orig, change string // change mutates x, a deep copy of orig
		mode         thawMode
		keys         string
	}{
		{"1", "", thawNone, ""},
		{"(1, 'a')", "", thawNone, ""},
		{"{1: {2: 3}, 2: {2: 3}}", "", thawNone, ""},
		{"{1: {2: 3}, 2: {2: 3}}", "x[1][2] = 4", thawShallow, "1"},
		{"{1: {2: 3}, 2: {2: 3}}", "x[1][2] = 4; x[2][5] = 1", thawShallow, "1,2"},
		{"{1: {2: 3}, 2: {2: 3}}", "x[3] = {}", thawShallow, ""},
		{"{1: {2: 3}, 2: {2: 3}}", "x[1] = {}", thawShallow, "1"},
		{"{1: (1, 2), 2: (3,)}", "x[1] = ()", thawShallow, ""},
		{"{1: ([],), 2: ([],)}", "x[2][0].append(1)", thawShallow, "2"},
		{"[[1], [2], [3]]", "x[2].append(1)", thawShallow, "2"},
		{"[[1], [2], [3]]", "x.pop()", thawShallow, "2"},
		{"set([1, 2])", "x.add(3)", thawShallow, ""},
		{"([1], 2)", "x[0].append(1)", thawFull, ""},
	} {
		orig := eval(tc.orig)
		orig.Freeze()
		cp := deepCopy(orig)
		if tc.change != "" {
			thread := &starlark.Thread{}
			g, err := starlark.ExecFile(thread, "c", "def f(x):\n    "+strings.ReplaceAll(tc.change, "; ", "\n    ")+"\n", nil)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := starlark.Call(thread, g["f"], starlark.Tuple{cp}, nil); err != nil {
				t.Fatal(err)
			}
		}
		got := learnThaw(cp, orig)
		var keys []string
		for _, k := range got.keys {
			keys = append(keys, k.String())
		}
		if got.mode != tc.mode || strings.Join(keys, ",") != tc.keys {
			t.Errorf("%s, %s: mode %d keys %v, want %d %s", tc.orig, tc.change, got.mode, keys, tc.mode, tc.keys)
		}
	}
}

const thawModel = `
P = [0, 1, 2]

def init():
    return {"d": {p: {"a": 0, "l": []} for p in P}, "crit": set(), "flag": {p: False for p in P},
            "lst": [[0], [0], [0]], "n": 0, "t": ([], 0)}

def Bump(s, p):
    # the inner dict changed depends on the state
    q = p if s.flag[p] else (p + 1) % 3
    s.d[q]["a"] = (s.d[q]["a"] + 1) % 3
    s.flag[p] = not s.flag[p]

def Join(s, p):
    # adds an element that may be in the set already: no change, but an
    # error on a frozen set
    s.crit.add(p)
    if len(s.crit) == 3:
        s.crit.clear()

def Restore(s, p):
    # changes and restores
    s.d[p]["a"] += 1
    s.d[p]["a"] -= 1
    return s.d[p]["a"]

def Alias(s, p):
    # a local alias of a nested value, read after a change through the state
    x = s.d[p]
    s.d[p]["a"] = (s.d[p]["a"] + 1) % 3
    return x["a"]

def Local(s, p):
    # changes through a local alias only
    x = s.lst[p]
    if len(x) < 2:
        x.append(p)
    else:
        x.pop()

def Tup(s, p):
    if len(s.t[0]) < 1:
        s.t[0].append(p)
    else:
        s.t[0].clear()

def Fail(s, p):
    # an error in some states, after a change undone
    s.lst[p].append(1)
    s.lst[p].pop()
    if s.d[p]["a"] == 2:
        return s.d[p]["missing"]
    return "ok"

def Read(s, p):
    require(s.d[p]["a"] > 0)
    s.n = (s.n + s.d[p]["a"] + len(s.crit)) % 4
    return s.d

actions = [Bump, Join, Restore, Alias, Local, Tup, Fail, Read]
domains = {a: {"p": P} for a in actions}
`

// Steps under thaw plans give what steps with deep copies give: the same
// outcomes (states, outputs, errors) and reasons, on every state of a
// breadth-first walk, with actions whose changes depend on the state, that
// restore what they change, alias nested values, fail.
func TestThawPlansMatchDeepCopies(t *testing.T) {
	on, err := LoadStarlarkSource("thaw.star", []byte(thawModel))
	if err != nil {
		t.Fatal(err)
	}
	off, err := LoadStarlarkSource("thaw.star", []byte(thawModel))
	if err != nil {
		t.Fatal(err)
	}
	off.SetThawPlans(false)
	won, _ := on.NewWorker()
	woff, _ := off.NewWorker()
	states, steps, errs := walkBoth(t, on, won, woff, "under plans", "with deep copies")
	if steps < 10000 || errs == 0 {
		t.Fatalf("%d steps, %d errors: the walk is too short", steps, errs)
	}
	// The plans are used: Read only reads d and crit; Alias(1) copies d[1]
	// deeply and shares the rest; Join copies the set; Restore's and Fail's
	// plans, which fail without learning, are off.
	w := won.(*starWorker)
	plan := func(action string, p int) *thawPlan {
		for i, a := range on.Info().Actions {
			if a.Name == action {
				k, _ := AppendValue(appendUvarint(nil, uint64(i)), Int(p))
				return w.plans[string(k)]
			}
		}
		return nil
	}
	d, _ := on.varOf("d")
	crit, _ := on.varOf("crit")
	if r := plan("Read", 1); r == nil || r.vars[d].mode != thawNone || r.vars[crit].mode != thawNone || r.off {
		t.Errorf("Read(1)'s plan: %+v", r)
	}
	if a := plan("Alias", 1); a == nil || a.vars[d].mode != thawShallow || len(a.vars[d].keys) != 1 || a.vars[d].keys[0] != Int(1) || a.off {
		t.Errorf("Alias(1)'s plan: %+v", a)
	}
	if j := plan("Join", 0); j == nil || j.vars[crit].mode != thawShallow || j.off {
		t.Errorf("Join(0)'s plan: %+v", j)
	}
	if r := plan("Restore", 0); r == nil || !r.off {
		t.Errorf("Restore(0)'s plan: %+v", r)
	}
	if f := plan("Fail", 0); f == nil || !f.off {
		t.Errorf("Fail(0)'s plan: %+v", f)
	}
	t.Logf("%d states, %d steps, %d errors", states, steps, errs)
}

// Decoding through a worker's cache gives values equal to a plain decode's,
// frozen, and the same value for the same inner encoding; the entries it
// records as known have the encodings the encoder gives them.
func TestValCache(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	var cache valCache
	shared, entries := 0, 0
	for i := 0; i < 3000; i++ {
		v := randValue(r, 4, false)
		enc, err := AppendValue(nil, v)
		if err != nil {
			t.Fatal(err)
		}
		var known [2][]knownEnc
		for round := range known {
			d := decoder{b: string(enc), cache: &cache, known: &known[round]}
			got, err := d.value()
			if err != nil {
				t.Fatal(err)
			}
			if eq, err := starlark.Equal(got, v); err != nil || !eq {
				t.Fatalf("decoded %v through the cache, encoded %v", got, v)
			}
			if !frozen(got) {
				t.Fatalf("%v: not frozen", got)
			}
		}
		if len(known[0]) != len(known[1]) {
			t.Fatalf("%v: known %d, then %d", v, len(known[0]), len(known[1]))
		}
		for j, k := range known[0] {
			entries++
			if e, err := AppendValue(nil, k.v); err != nil || string(e) != k.enc {
				t.Fatalf("known %v as %q, encoded %q", k.v, k.enc, e)
			}
			if known[1][j].v == k.v {
				shared++
			}
		}
	}
	if entries < 100 || shared != entries {
		t.Fatalf("%d of %d inner containers shared by the second decode", shared, entries)
	}
}

// frozen tells whether a dict, list or set refuses a change.
func frozen(v starlark.Value) bool {
	switch x := v.(type) {
	case *starlark.List:
		return x.Append(starlark.None) != nil
	case *starlark.Dict:
		return x.SetKey(starlark.String("new"), starlark.None) != nil
	case *starlark.Set:
		return x.Insert(starlark.String("new")) != nil
	}
	return true
}

// A variable's whole list or tuple is shared through a worker's cache when
// its values repeat: equal encodings give the same frozen value, equal to a
// fresh decode. A variable whose values do not repeat stops being looked
// up after the probe, and dicts and sets (recycled after a source state)
// are never shared whole.
func TestWholeValuesShared(t *testing.T) {
	src := `
def init():
    return [{"l": [a % 3, "x"], "t": (a % 2,), "u": [a], "d": {"k": a % 2}, "st": set([a % 2])} for a in range(3000)]
def A(s):
    s.l = []
actions = [A]
`
	m, w := loadWorker(t, "whole.star", src)
	sts, err := w.Inits()
	if err != nil || len(sts) != 3000 {
		t.Fatalf("%d states, %v", len(sts), err)
	}
	idx := func(name string) int {
		for i, v := range m.info.Vars {
			if v == name {
				return i
			}
		}
		t.Fatalf("no variable %s", name)
		return -1
	}
	l, tu, u, d, st := idx("l"), idx("t"), idx("u"), idx("d"), idx("st")
	cache := &valCache{}
	first := map[string]starlark.Value{} // per variable and encoding, the value first read
	var dst sstate
	for n, s := range sts {
		dst.cache = cache
		if err := m.decodeLazy(&dst, s.Key()); err != nil {
			t.Fatal(err)
		}
		for _, i := range []int{l, tu, u, d, st} {
			v, err := dst.val(i)
			if err != nil {
				t.Fatal(err)
			}
			want, _ := (&decoder{b: dst.encs[i]}).value()
			if eq, err := starlark.Equal(v, want); err != nil || !eq || !frozen(v) {
				t.Fatalf("state %d, variable %s: %v, decoded %v", n, m.info.Vars[i], v, want)
			}
			k := fmt.Sprint(i, dst.encs[i])
			p, seen := first[k]
			if !seen {
				first[k] = v
				continue
			}
			same := identical(p, v)
			switch {
			case (i == l || i == tu) && !same:
				t.Fatalf("state %d: %s not shared", n, m.info.Vars[i])
			case (i == d || i == st) && same:
				t.Fatalf("state %d: %s shared whole", n, m.info.Vars[i])
			}
		}
	}
	if w := cache.wholes[u]; w.tries <= wholeProbe || w.hits != 0 {
		t.Errorf("u: %d tries, %d hits", w.tries, w.hits)
	}
	for k := range cache.m { // u's lists of states past the probe are not kept
		v, _ := (&decoder{b: k}).value()
		if l, ok := v.(*starlark.List); ok && l.Len() == 1 {
			if n, ok := smallInt(l.Index(0)); ok && n > wholeProbe+10 {
				t.Fatalf("u's value %v kept whole", v)
			}
		}
	}
}

// A whole value with a long encoding is not kept: the cache is bounded by
// entries, not bytes.
func TestLongWholeValuesNotKept(t *testing.T) {
	cache := &valCache{}
	long := string(rune(tagList)) + strings.Repeat("x", maxWhole)
	if cache.whole(0, long) != nil {
		t.Fatal("a value found in an empty cache")
	}
	cache.keepWhole(0, long, starlark.NewList(nil))
	if len(cache.m) != 0 {
		t.Errorf("a %d-byte encoding kept", len(long))
	}
	short := string(rune(tagList)) + strings.Repeat("x", 10)
	cache.keepWhole(0, short, starlark.NewList(nil))
	if cache.whole(0, short) == nil {
		t.Error("a short encoding not kept")
	}
}
