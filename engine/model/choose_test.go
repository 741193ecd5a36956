package model

import (
	"path/filepath"
	"testing"
)

// choose() over a list of tuples forks once per tuple (it panicked: two
// tuples compared with ==), and over a list with a repeated tuple once per
// distinct one.
func TestChooseTuples(t *testing.T) {
	m, err := LoadStarlarkSource(filepath.Join(t.TempDir(), "t.star"), []byte(`
def init():
    return {"m": None}

def Pick(s):
    s.m = choose([(1, "a"), (2, "b"), (1, "a"), ([3], 4)])

actions = [Pick]
`))
	if err != nil {
		t.Fatal(err)
	}
	w, err := m.NewWorker()
	if err != nil {
		t.Fatal(err)
	}
	st, err := w.Init()
	if err != nil {
		t.Fatal(err)
	}
	outs, why, err := w.Step(st, 0, nil)
	if err != nil || why != "" {
		t.Fatal(err, why)
	}
	var got []string
	for _, o := range outs {
		if o.Err != nil {
			t.Fatal(o.Err)
		}
		got = append(got, Format(w.Vars(o.Next)[0].Value))
	}
	if len(got) != 3 || got[0] != `(1, "a")` || got[1] != `(2, "b")` || got[2] != `([3], 4)` {
		t.Errorf("outcomes %v", got)
	}
}
