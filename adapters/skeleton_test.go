package adapters

import (
	"bytes"
	"context"
	"flag"
	"go/format"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modex/modex/internal/langtest"
	"github.com/modex/modex/projects"
)

var update = flag.Bool("update", false, "rewrite the golden skeletons in testdata/")

// describe loads a bundled sample's configuration and describes its
// actions.
func describe(t *testing.T, sample, config string) Spec {
	t.Helper()
	p, err := projects.Load(filepath.Join("..", "projects", sample, sample+".toml"))
	if err != nil {
		t.Fatal(err)
	}
	m, err := p.LoadModelFor(config)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := p.Build(m, config)
	if err != nil {
		t.Fatal(err)
	}
	acts, err := Describe(context.Background(), m, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return Spec{Project: p.Name, Model: m.Info().Name, File: filepath.Base(m.Info().Path), Config: config, Dir: "adapter", Actions: acts}
}

// The skeletons of two samples in every language, against golden files
// (go test ./adapters -run TestSkeletonGolden -update rewrites them): the
// chat sample has model objects, strings and an observable action; the
// stack sample integers. The Go skeleton is gofmt-clean; each parses in its
// language where the language is installed.
func TestSkeletonGolden(t *testing.T) {
	for _, sc := range []struct{ sample, config string }{{"chat", "hi_bye"}, {"stack", "all"}} {
		spec := describe(t, sc.sample, sc.config)
		for _, lang := range Langs {
			t.Run(sc.sample+"-"+lang, func(t *testing.T) {
				sk, err := Generate(lang, spec)
				if err != nil {
					t.Fatal(err)
				}
				main := map[string]string{"python": "adapter.py", "go": "adapter.go", "ts": "adapter.ts", "js": "adapter.js"}[lang]
				src := sk.Files[main]
				if src == nil {
					t.Fatalf("no %s in %v", main, sk.Names())
				}
				golden := filepath.Join("testdata", sc.sample+"-"+main)
				if *update {
					if err := os.WriteFile(golden, src, 0o644); err != nil {
						t.Fatal(err)
					}
				}
				want, err := os.ReadFile(golden)
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(src, want) {
					t.Errorf("%s differs from %s (-update rewrites it):\n%s", main, golden, src)
				}
				checkSyntax(t, lang, sk)
			})
		}
	}
}

// checkSyntax parses a skeleton in its language: Go with go/format (it
// must be gofmt-clean), Python with ast, JavaScript with node --check.
func checkSyntax(t *testing.T, lang string, sk *Skeleton) {
	t.Helper()
	dir := t.TempDir()
	for name, data := range sk.Files {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var cmd *exec.Cmd
	switch lang {
	case "go":
		src := sk.Files["adapter.go"]
		formatted, err := format.Source(src)
		if err != nil {
			t.Fatalf("the Go skeleton does not parse: %v", err)
		}
		if !bytes.Equal(formatted, src) {
			t.Errorf("the Go skeleton is not gofmt-clean")
		}
		cmd = exec.Command("go", "vet", "adapter.go", "modexadapter.go")
	case "python":
		cmd = exec.Command("python3", "-c", "import ast,sys; ast.parse(open('adapter.py').read()); import py_compile; py_compile.compile('adapter.py', doraise=True)")
	case "js":
		cmd = exec.Command("node", "--check", "adapter.js")
	default:
		return // TypeScript: compiled and run by app's TestAdapterSkeletons
	}
	langtest.Need(t, cmd.Args[0])
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=", "GO111MODULE=auto")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("%s: %v\n%s", strings.Join(cmd.Args, " "), err, out)
	}
}

// Names the languages reserve, or the skeleton uses itself, never name
// an action's function or a parameter; CamelCase reads as snake_case in
// Python.
func TestIdentifiers(t *testing.T) {
	for _, tc := range []struct {
		name  string
		taken map[string]bool
		want  string
	}{
		{"Push", nil, "Push"},
		{"reset", pythonTaken, "reset_"},
		{"type", goTaken, "type_"},
		{"2fa", nil, "_2fa"},
		{"a-b", nil, "a_b"},
		{"", nil, "_"},
		{"delete", jsTaken, "delete_"},
	} {
		if got := identifier(tc.name, tc.taken); got != tc.want {
			t.Errorf("identifier(%q) = %q, want %q", tc.name, got, tc.want)
		}
	}
	for in, want := range map[string]string{"Push": "push", "PostMessage": "post_message", "Get_X": "get_x", "already_snake": "already_snake"} {
		if got := snake(in); got != want {
			t.Errorf("snake(%q) = %q, want %q", in, got, want)
		}
	}
}

// defText takes a def and its body, to the next line at column 0, keeping
// inner blank lines and comments and dropping trailing ones.
func TestDefText(t *testing.T) {
	src := strings.Split("x = 1\ndef A(s):\n    s.x = 1\n\n    # inner\n    s.y = 2\n\n# trailing\ndef B(s):\n    pass", "\n")
	if got, want := defText(src, 2), "def A(s):\n    s.x = 1\n\n    # inner\n    s.y = 2"; got != want {
		t.Errorf("defText = %q, want %q", got, want)
	}
	if got := defText(src, 99); got != "" {
		t.Errorf("out of range: %q", got)
	}
}
