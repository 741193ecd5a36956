package model

import (
	"strings"
	"testing"
)

// init() may give its states by initial() instead of returning them: the
// same states, in the order given, each once, whether init() runs compiled
// or in the interpreter (print() is not in the compiled subset), and a
// state changed after it was given is the state as it was given.
func TestInitialGivesStates(t *testing.T) {
	const actions = `
def A(s):
    s.x = (s.x + 1) % 3
actions = [A]
`
	returned := `
def init():
    return [{"x": x % 3, "y": [x % 2]} for x in range(7)]
` + actions
	given := `
def init():
    for x in range(7):
        d = {"x": x % 3, "y": [x % 2]}
        initial(d)
        d["x"] = 99   # after it was given: not the state's
        d["y"].append(5)
` + actions
	interpreted := strings.Replace(given, "    for x", "    print(\"\")\n    for x", 1)
	keysOf := func(src string) []string {
		m, err := LoadStarlarkSource("i.star", []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		if len(m.Info().Vars) != 2 {
			t.Fatalf("variables %v", m.Info().Vars)
		}
		w, _ := m.NewWorker()
		sts, err := InitialStates(w)
		if err != nil {
			t.Fatal(err)
		}
		var keys []string
		for _, st := range sts {
			keys = append(keys, st.Key())
		}
		return keys
	}
	want := keysOf(returned)
	if len(want) != 6 {
		t.Fatalf("%d distinct initial states returned, want 6", len(want))
	}
	for name, src := range map[string]string{"compiled": given, "interpreted": interpreted} {
		if got := keysOf(src); strings.Join(got, "|") != strings.Join(want, "|") {
			t.Errorf("%s: initial() gave %q, returning gives %q", name, got, want)
		}
	}
}

// initial() outside init(), with something not a state, with other
// variables, or beside a returned value is an error that says so.
func TestInitialErrors(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{`
def init():
    initial({"x": 0})
    return {"x": 1}
def A(s):
    pass
actions = [A]`, "i.star:2:1: init() gave states by initial() and returned dict: give them one way (return None)"},
		{`
def init():
    initial(5)
def A(s):
    pass
actions = [A]`, "init(): initial() call 1: a state is a dict of the state variables, not int"},
		{`
def init():
    initial({"x": 0})
    initial({"x": 0, "y": 1})
def A(s):
    pass
actions = [A]`, "initial() call 2 returned a different set of variables (\"y\")"},
		{`
def init():
    initial({"x": 0, "y": 1})
    initial({"x": 0})
def A(s):
    pass
actions = [A]`, "initial() call 2 lacks the variable y"},
		{`
def init():
    initial({"x": lambda: 0})
def A(s):
    pass
actions = [A]`, "init(): initial() call 1: "},
		{`
def init():
    pass
def A(s):
    pass
actions = [A]`, "init() must return a dict of state variables (or a non-empty list of them, or give them by initial()), not NoneType"},
	} {
		_, err := LoadStarlarkSource("i.star", []byte(tc.src))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s\nerror %v, want %q", tc.src, err, tc.want)
		}
	}
	// From an action: a model error of the step.
	m, err := LoadStarlarkSource("i.star", []byte(`
def init():
    return {"x": 0}
def A(s):
    initial({"x": 1})
actions = [A]`))
	if err != nil {
		t.Fatal(err)
	}
	w, _ := m.NewWorker()
	s0, _ := w.Init()
	outs, _, err := w.Step(s0, 0, nil)
	if err != nil || len(outs) != 1 || outs[0].Err == nil || !strings.Contains(outs[0].Err.Error(), "only init() may call it") {
		t.Fatalf("initial() in an action: %v %v", outs, err)
	}
}
