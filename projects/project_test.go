package projects

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/modex/modex/engine/explore"
	"github.com/modex/modex/engine/model"
)

const chatModel = "chat/chat.star"

// writeProject writes a project next to a copy of the chat model.
func writeProject(t *testing.T, text string) string {
	t.Helper()
	dir := t.TempDir()
	src, err := os.ReadFile(chatModel)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "chat.star"), src, 0o644); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "p.toml")
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// Every bad project is reported with file:line:col and what is wrong.
func TestProjectErrors(t *testing.T) {
	for _, tc := range []struct {
		name, text, pos, msg string
	}{
		{"malformed", "name = \"x\"\nmodel = \"chat.star\"\n[configs.a\nfilters = []\n", ":3:", "malformed TOML"},
		{"unknown key", "name = \"x\"\nmodel = \"chat.star\"\n[configs.a]\nfilterz = []\n", ":4:1", `unknown key "configs.a.filterz"`},
		{"no model", "name = \"x\"\n", ":1:1", "names no model"},
		{"wrong type", "name = \"x\"\nmodel = \"chat.star\"\n[configs.a]\nmax_states = \"many\"\n", ":4:", "max_states"},
		{"unknown action", "name = \"x\"\nmodel = \"chat.star\"\n[configs.a]\n[configs.a.actions.Shout]\nkind = \"observable\"\n", ":4:20", `unknown action "Shout"`},
		{"unknown param", "name = \"x\"\nmodel = \"chat.star\"\n[configs.a.actions.Post]\nparams = { text = '[\"hi\"]' }\n", ":4:12", `no parameter "text"`},
		{"unknown kind", "name = \"x\"\nmodel = \"chat.star\"\n[configs.a.actions.Post]\nkind = \"sometimes\"\n", ":4:8", `unknown kind "sometimes"`},
		{"bad filter", "name = \"x\"\nmodel = \"chat.star\"\n[configs.a]\nfilters = [\"pending(s) <\"]\n", ":4:", "in expression `pending(s) <`"},
		{"undefined in filter", "name = \"x\"\nmodel = \"chat.star\"\n[configs.a]\nfilters = [\"penDing(s) < 2\"]\n", ":4:13", "undefined: penDing"},
		{"unknown named domain", "name = \"x\"\nmodel = \"chat.star\"\n[configs.a.actions.Post]\nparams = { msg = \"@Msg\" }\n", ":4:18", `unknown named domain "@Msg"`},
		{"unknown include", "name = \"x\"\nmodel = \"chat.star\"\n[configs.a]\ninclude = [\"Create\", \"Leave\"]\n", ":4:22", `unknown action "Leave"`},
		{"extends unknown", "name = \"x\"\nmodel = \"chat.star\"\n[configs.a]\nextends = \"b\"\n", ":4:11", `unknown configuration "b"`},
		{"extends cycle", "name = \"x\"\nmodel = \"chat.star\"\n[configs.a]\nextends = \"b\"\n[configs.b]\nextends = \"a\"\n", ":", "extends itself"},
		{"bad default", "name = \"x\"\nmodel = \"chat.star\"\ndefault = \"zz\"\n[configs.a]\n", ":3:11", `default configuration "zz"`},
		{"negative bound", "name = \"x\"\nmodel = \"chat.star\"\n[configs.a]\nmax_depth = -1\n", ":4:13", "must not be negative"},
		{"missing model file", "name = \"x\"\nmodel = \"nowhere.star\"\n", ":2:9", "nowhere.star"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := writeProject(t, tc.text)
			err := buildAll(path)
			if err == nil {
				t.Fatal("accepted a bad project")
			}
			if !strings.HasPrefix(err.Error(), path+tc.pos) || !strings.Contains(err.Error(), tc.msg) {
				t.Errorf("error:\n  %v\nwant it to start with %s%s and mention %q", err, path, tc.pos, tc.msg)
			}
		})
	}
}

func buildAll(path string) error {
	p, err := Load(path)
	if err != nil {
		return err
	}
	m, err := p.LoadModel()
	if err != nil {
		return err
	}
	for _, c := range p.ConfigNames() {
		if _, err := p.Build(m, c); err != nil {
			return err
		}
	}
	return nil
}

// A configuration extending another inherits its settings and overrides
// some; named domains reach the parameters that point to them.
func TestExtendsAndNamedDomains(t *testing.T) {
	p, err := Load("chat/chat.toml")
	if err != nil {
		t.Fatal(err)
	}
	if got := p.ConfigNames(); !reflect.DeepEqual(got, []string{"figure1", "hi_bye", "table1", "ordered", "offline", "figure1_scenario", "figure1_machine"}) {
		t.Errorf("configs %v", got)
	}
	spec, err := p.resolve("hi_bye", nil)
	if err != nil {
		t.Fatal(err)
	}
	if spec.Domains["Message"] != `["hi", "bye"]` || spec.Groupings[0] != "ignore_entering_order(s)" || spec.Filters[0] != "pending(s) < 3" {
		t.Errorf("resolved %+v", spec)
	}
	m, _ := p.LoadModel()
	cfg, err := p.Build(m, "hi_bye")
	if err != nil {
		t.Fatal(err)
	}
	post := cfg.Actions[m.Info().Action("Post")]
	if post.Domains[1] == nil || post.Domains[1].Source() != `["hi", "bye"]` {
		t.Errorf("Post.msg domain %v", post.Domains[1])
	}
}

// Save writes atomically and the file reads back to the same project.
func TestSaveRoundTrip(t *testing.T) {
	p, err := Load("webshop/webshop.toml")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	out := filepath.Join(dir, "webshop.toml")
	if err := p.Save(out); err != nil {
		t.Fatal(err)
	}
	q, err := Load(out)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(p.Configs, q.Configs) || p.Name != q.Name || p.Model != q.Model || p.Default != q.Default {
		t.Errorf("round trip changed the project")
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("temporary files left behind: %v", entries)
	}
	// Saving over a read-only folder fails and leaves the old file intact.
	if os.Getuid() != 0 {
		os.Chmod(dir, 0o500)
		defer os.Chmod(dir, 0o755)
		if err := p.Save(out); err == nil {
			t.Error("save into a read-only folder succeeded")
		}
	}
}

// A bare model is a project with one configuration using its own
// declarations.
func TestBareModel(t *testing.T) {
	p, err := Load("stack/stack.star")
	if err != nil {
		t.Fatal(err)
	}
	m, err := p.LoadModel()
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := p.Build(m, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.Filters) != 0 || cfg.Actions[0].Domains[0] != nil {
		t.Error("bare model configuration is not the model's own")
	}
	var _ model.Model = m
}

func FuzzParseProject(f *testing.F) {
	for _, name := range SampleNames() {
		data, _ := os.ReadFile(filepath.Join(name, name+".toml"))
		f.Add(data)
	}
	f.Add([]byte("name = \"x\"\nmodel = \"m.star\"\n[configs.a]\nextends = \"a\"\n"))
	f.Add([]byte("[[configs]]\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := Parse("fuzz.toml", data)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "fuzz.toml") {
				t.Errorf("error without the file name: %v", err)
			}
			return
		}
		if _, err := p.Marshal(); err != nil {
			t.Errorf("parsed project does not marshal: %v", err)
		}
	})
}

// A configuration's constants reach the model (constant(name, default)) and
// the adapter command ({NAME}); constants the model does not declare, or of
// another type than the default, are errors at the project file's position.
func TestConfigConstants(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "m.star"), []byte(`N = constant("N", 2)

def init():
    return {"x": 0}

def Inc(s):
    require(s.x < N)
    s.x += 1

actions = [Inc]
`), 0o644)
	toml := `name = "m"
model = "m.star"

[configs.default]
[configs.three.constants]
N = 3
[configs.undeclared.constants]
M = 1
[configs.wrongtype.constants]
N = "many"
`
	path := filepath.Join(dir, "m.toml")
	os.WriteFile(path, []byte(toml), 0o644)
	p, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		config string
		states int
		err    string
	}{
		{"default", 3, ""},
		{"three", 4, ""},
		{"undeclared", 0, "m.toml:8:5: constant M: the model declares no constant(\"M\", default)"},
		{"wrongtype", 0, "m.toml:10:5: constant N must be a int like its default 2, not a string"},
	} {
		m, err := p.LoadModelFor(tc.config)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: %v, want %q", tc.config, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", tc.config, err)
		}
		cfg, err := p.Build(m, tc.config)
		if err != nil {
			t.Fatal(err)
		}
		x, err := explore.Explore(context.Background(), m, cfg)
		if err != nil || len(x.States) != tc.states {
			t.Errorf("%s: %v, %d states, want %d", tc.config, err, len(x.States), tc.states)
		}
	}
	m, _ := p.LoadModelFor("three")
	if got := expandConstants([]string{"impl", "--n={N}", "{N}"}, m.Info().Constants); strings.Join(got, " ") != "impl --n=3 3" {
		t.Errorf("adapter arguments %v", got)
	}
}

// BenchmarkParseManyConfigs parses a project of 16,000 configurations: the
// position index is built in one pass (it was quadratic: 47 s).
func BenchmarkParseManyConfigs(b *testing.B) {
	var sb strings.Builder
	sb.WriteString("name = \"big\"\nmodel = \"m.star\"\n")
	for i := 0; i < 16000; i++ {
		fmt.Fprintf(&sb, "[configs.c%d]\ndescription = \"configuration %d\"\nfilters = [\"pending(s) < %d\"]\n\n", i, i, i%5+1)
	}
	data := []byte(sb.String())
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		p, err := Parse("big.toml", data)
		if err != nil || len(p.ConfigNames()) != 16000 {
			b.Fatal(err)
		}
	}
}

// Saving keeps the file's comments, its order of configurations and the
// text of every table that did not change; it writes through a symbolic
// link; added and deleted configurations land where they belong.
func TestSaveKeepsCommentsAndLayout(t *testing.T) {
	orig, err := os.ReadFile("chat/chat.toml")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	real := filepath.Join(dir, "real.toml")
	os.WriteFile(real, orig, 0o644)
	os.WriteFile(filepath.Join(dir, "chat.star"), mustRead(t, "chat/chat.star"), 0o644)
	link := filepath.Join(dir, "chat.toml")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	p, err := Load(link)
	if err != nil {
		t.Fatal(err)
	}
	p.Configs["figure1"].Filters = []string{"pending(s) < 3"}
	if err := p.AddConfig("extra", "figure1"); err != nil {
		t.Fatal(err)
	}
	if err := p.DeleteConfig("ordered"); err != nil {
		t.Fatal(err)
	}
	if err := p.Save(link); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the symbolic link was replaced by a file")
	}
	saved := string(mustRead(t, real))
	comments := func(s string) int {
		n := 0
		for _, l := range strings.Split(s, "\n") {
			if strings.HasPrefix(strings.TrimSpace(l), "#") {
				n++
			}
		}
		return n
	}
	// The deleted configuration's comment block goes with it.
	if got, was := comments(saved), comments(string(orig)); got < was-3 || got == 0 {
		t.Errorf("%d comment lines left of %d:\n%s", got, was, saved)
	}
	for _, keep := range []string{"# Section 4.5: two messages", "[configs.hi_bye.domains]\nMessage = '[\"hi\", \"bye\"]'", "[adapter]\ncommand = [\"go\", \"run\""} {
		if !strings.Contains(saved, keep) {
			t.Errorf("lost %q:\n%s", keep, saved)
		}
	}
	if strings.Contains(saved, "[configs.ordered]") || !strings.Contains(saved, "pending(s) < 3") {
		t.Errorf("edits not saved:\n%s", saved)
	}
	back, err := Load(link)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(back.ConfigNames(), " "); got != "figure1 hi_bye table1 offline figure1_scenario figure1_machine extra" {
		t.Errorf("configurations in the order %q", got)
	}
	if f := back.Configs["figure1"].Filters; len(f) != 1 || f[0] != "pending(s) < 3" {
		t.Errorf("figure1 filters %v", f)
	}
}

// A project saved without changes is the same file, byte for byte, for
// every bundled sample.
func TestSaveUnchangedIsIdentical(t *testing.T) {
	for _, name := range SampleNames() {
		path := filepath.Join(name, name+".toml")
		orig := mustRead(t, path)
		p, err := Load(path)
		if err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(t.TempDir(), name+".toml")
		if err := p.Save(out); err != nil {
			t.Fatal(err)
		}
		if got := mustRead(t, out); string(got) != string(orig) {
			t.Errorf("%s changed on a save without edits", name)
		}
	}
}

func mustRead(t testing.TB, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// Whatever the original file looks like, a save means exactly what the
// project holds.
func FuzzPreserveLayout(f *testing.F) {
	for _, name := range SampleNames() {
		f.Add(mustRead(f, filepath.Join(name, name+".toml")))
	}
	f.Add([]byte("name = \"x\"\nmodel = \"m.star\"\n[configs.a]\nfilters = []\n# c\n[configs.a.actions.B]\nparams = { p = \"1\" }\n"))
	f.Fuzz(func(t *testing.T, orig []byte) {
		p, err := Parse("f.toml", orig)
		if err != nil {
			return
		}
		if len(p.Configs) > 0 {
			for _, c := range p.Configs {
				c.Filters = append(c.Filters, "True")
				break
			}
		}
		fresh, err := p.Marshal()
		if err != nil {
			return
		}
		if got := preserveLayout(orig, fresh); !sameMeaning(got, fresh) {
			t.Fatalf("the saved file means something else:\n%s\n---\n%s", got, fresh)
		}
	})
}

// Bounds that keep a hostile project file from taking seconds or minutes:
// keys per table (the TOML decoder's duplicate check is quadratic) and the
// depth of extends, each refused with where; a chain within the bound is
// validated once per configuration.
func TestProjectBounds(t *testing.T) {
	head := "name = \"p\"\nmodel = \"m.star\"\ndefault = \"c0\"\n"
	var consts strings.Builder
	consts.WriteString(head + "[configs.c0.constants]\n")
	for i := 0; i <= MaxTableKeys; i++ {
		fmt.Fprintf(&consts, "K%d = %d\n", i, i)
	}
	_, err := Parse("p.toml", []byte(consts.String()))
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("p.toml:%d:1: the table [configs.c0.constants] has more than %d keys", MaxTableKeys+5, MaxTableKeys)) {
		t.Errorf("many keys: %v", err)
	}
	chain := func(n int) string {
		var b strings.Builder
		b.WriteString(head + "[configs.c0]\n")
		for i := 1; i < n; i++ {
			fmt.Fprintf(&b, "[configs.c%d]\nextends = \"c%d\"\n", i, i-1)
		}
		return b.String()
	}
	if _, err := Parse("p.toml", []byte(chain(MaxExtendsDepth+1))); err != nil {
		t.Errorf("a chain of %d: %v", MaxExtendsDepth, err)
	}
	if _, err := Parse("p.toml", []byte(chain(MaxExtendsDepth+2))); err == nil || !strings.Contains(err.Error(), "is longer than 256") {
		t.Errorf("a chain too deep: %v", err)
	}
	for _, v := range []string{"inf", "nan", "-1.0", "1e9"} {
		_, err := Parse("p.toml", []byte(head+"[adapter]\ncommand = [\"x\"]\ntimeout = "+v+"\n"))
		if err == nil || !strings.Contains(err.Error(), "p.toml:6:11: [adapter] timeout must be a number of seconds") {
			t.Errorf("timeout = %s: %v", v, err)
		}
	}
	if _, err := Parse("p.toml", append([]byte{0xef, 0xbb, 0xbf}, head+"[configs.c0]\n"...)); err != nil {
		t.Errorf("a byte-order mark: %v", err)
	}
}
