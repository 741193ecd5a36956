package projects

import (
	"os"
	"strings"
	"testing"

	"github.com/modex/modex/engine/explore"
)

func TestParseCombine(t *testing.T) {
	for _, tc := range []struct {
		v    any
		want int
		err  string
	}{
		{nil, 0, ""},
		{"pairwise", 2, ""},
		{" Pairwise ", 2, ""},
		{"3-wise", 3, ""},
		{"3", 3, ""},
		{int64(3), 3, ""},
		{int64(2), 2, ""},
		{"6-wise", 6, ""},
		{"full", 1, ""},
		{"full product", 1, ""},
		{int64(1), 1, ""},
		{"1-wise", 1, ""},
		{"triplewise", 0, `not "triplewise"`},
		{"7-wise", 0, `not "7-wise"`},
		{int64(7), 0, "not 7"},
		{int64(0), 0, "not 0"},
		{int64(-2), 0, "not -2"},
		{"-wise", 0, `not "-wise"`},
		{"", 0, `not ""`},
		{"2.5", 0, `not "2.5"`},
		{2.5, 0, "not 2.5"},
		{true, 0, "not true"},
		{[]any{int64(2)}, 0, "not an array"},
		{map[string]any{"n": int64(2)}, 0, "not a table"},
	} {
		n, err := ParseCombine(tc.v)
		switch {
		case tc.err == "" && (err != nil || n != tc.want):
			t.Errorf("%#v: %d, %v; want %d", tc.v, n, err, tc.want)
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err) || !strings.Contains(err.Error(), `"pairwise"`)):
			t.Errorf("%#v: %d, %v; want an error saying %q and what is accepted", tc.v, n, err, tc.err)
		}
	}
}

// combine is read in each action's table, inherited with extends and
// overridden ("full" undoes an inherited pairwise), and saved back as
// written; a bad value is an error at its position that names the key.
func TestCombineProject(t *testing.T) {
	path := writeProject(t, `name = "x"
model = "chat.star"

[configs.base.actions.Deliver]
combine = "pairwise"

[configs.more]
extends = "base"
[configs.more.actions.Post]
combine = 3

[configs.less]
extends = "more"
[configs.less.actions.Deliver]
combine = "full"
`)
	p, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	m, err := p.LoadModel()
	if err != nil {
		t.Fatal(err)
	}
	info := m.Info()
	for _, tc := range []struct {
		config        string
		deliver, post int
	}{{"base", 2, 0}, {"more", 2, 3}, {"less", 1, 3}} {
		cfg, err := p.Build(m, tc.config)
		if err != nil {
			t.Fatal(err)
		}
		if d, po := cfg.Actions[info.Action("Deliver")].Combine, cfg.Actions[info.Action("Post")].Combine; d != tc.deliver || po != tc.post {
			t.Errorf("%s: Deliver combine %d, Post %d; want %d and %d", tc.config, d, po, tc.deliver, tc.post)
		}
	}
	p.Configs["base"].Actions["Post"] = &ActionSpec{Combine: CombineSetting(4)}
	if err := p.Save(path); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	if !strings.Contains(string(data), `combine = '4-wise'`) || !strings.Contains(string(data), "combine = 3\n") {
		t.Errorf("saved:\n%s", data)
	}
	q, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if cfg, err := q.Build(m, "base"); err != nil || cfg.Actions[info.Action("Post")].Combine != 4 {
		t.Errorf("read back: %v", err)
	}

	for _, tc := range []struct{ value, pos, msg string }{
		{`"triplewise"`, ":4:11", `[configs.a.actions.Deliver] combine must be "pairwise", "full" or a strength from 2 to 6 ("3-wise" or 3), not "triplewise"`},
		{`9`, ":4:11", "not 9"},
		{`2.0`, ":4:11", "not 2"},
		{`[2]`, ":4:1", "not an array"},
		{`{ n = 2 }`, ":4:1", "not a table"},
	} {
		path := writeProject(t, "name = \"x\"\nmodel = \"chat.star\"\n[configs.a.actions.Deliver]\ncombine = "+tc.value+"\n")
		err := buildAll(path)
		if err == nil || !strings.HasPrefix(err.Error(), path+tc.pos+": ") || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("combine = %s: %v; want it at %s%s saying %q", tc.value, err, path, tc.pos, tc.msg)
		}
	}
}

// ParseCombine reads any text without failing on it, and what it accepts
// CombineSetting writes back.
func FuzzParseCombine(f *testing.F) {
	for _, s := range []string{"pairwise", "3-wise", "3", "full", "full product", "07", "-wise", "99-wise", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := ParseCombine(s)
		if err != nil {
			if !strings.Contains(err.Error(), "combine must be") {
				t.Errorf("%q: %v", s, err)
			}
			return
		}
		if n < 1 || n > explore.MaxCombine {
			t.Fatalf("%q: %d", s, n)
		}
		if back, err := ParseCombine(CombineSetting(n)); err != nil || back != n {
			t.Errorf("%q: %d written as %q reads %d, %v", s, n, CombineSetting(n), back, err)
		}
	})
}
