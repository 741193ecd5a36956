package projects

import (
	"strings"
	"testing"
)

// earliest is compiled like timeout, with file:line:col errors, and
// inherited through extends.
func TestEarliestConfig(t *testing.T) {
	const head = "name = \"x\"\nmodel = \"chat.star\"\n[configs.a]\n"
	for _, tc := range []struct {
		name, text, pos, msg string
	}{
		{"syntax", head + "earliest = \"0.1 if\"\n", ":4:", "in expression `0.1 if`"},
		{"undefined", head + "earliest = \"0.1 if pendng(s) else 0\"\n", ":4:20", "undefined: pendng"},
		{"wrong type", head + "earliest = 0.1\n", ":4:", "earliest"},
		{"in extended", head + "earliest = \"(\"\n[configs.b]\nextends = \"a\"\n", ":4:", "in expression `(`"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := writeProject(t, tc.text)
			err := buildAll(path)
			if err == nil {
				t.Fatal("accepted a bad earliest")
			}
			if !strings.HasPrefix(err.Error(), path+tc.pos) || !strings.Contains(err.Error(), tc.msg) {
				t.Errorf("error:\n  %v\nwant it to start with %s%s and mention %q", err, path, tc.pos, tc.msg)
			}
		})
	}
	path := writeProject(t, head+"earliest = \"0.1 if pending(s) else 0\"\n[configs.b]\nextends = \"a\"\n[configs.c]\n")
	p, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	m, err := p.LoadModel()
	if err != nil {
		t.Fatal(err)
	}
	for conf, want := range map[string]string{"a": "0.1 if pending(s) else 0", "b": "0.1 if pending(s) else 0", "c": ""} {
		cfg, err := p.Build(m, conf)
		if err != nil {
			t.Fatal(err)
		}
		got := ""
		if cfg.Earliest != nil {
			got = cfg.Earliest.Source()
		}
		if got != want {
			t.Errorf("configuration %s: earliest %q, want %q", conf, got, want)
		}
	}
}
