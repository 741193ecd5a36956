package codecov

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// A Go program built with -cover, run twice with GOCOVERDIR: ReadDir's
// percentage is go tool cover -func's on the same data, and a second run
// that reaches another branch raises it (the counters merge).
func TestGoCoverDir(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "prog")
	if msg, err := exec.Command("go", "build", "-cover", "-covermode=atomic", "-o", bin, "./testdata/prog.go").CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, msg)
	}
	data := filepath.Join(dir, "data")
	os.Mkdir(data, 0o755)
	run := func(args ...string) {
		cmd := exec.Command(bin, args...)
		cmd.Env = append(os.Environ(), Env(data)...)
		if msg, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%v\n%s", err, msg)
		}
	}
	run("1", "flush")
	p1, err := ReadDir(context.Background(), data)
	if err != nil {
		t.Fatal(err)
	}
	c1, files := p1.Summary()
	if want := coverFunc(t, data); round1(c1.Percent()) != want {
		t.Errorf("after one run: %s, go tool cover -func says %.1f %%", c1, want)
	}
	if len(files) != 1 || !strings.HasSuffix(files[0].File, "prog.go") {
		t.Errorf("files %+v", files)
	}
	run("7")
	p2, err := ReadDir(context.Background(), data)
	if err != nil {
		t.Fatal(err)
	}
	c2, _ := p2.Summary()
	if want := coverFunc(t, data); round1(c2.Percent()) != want || c2.Reached <= c1.Reached || c2.Total != c1.Total {
		t.Errorf("after two runs: %s (was %s), go tool cover -func says %.1f %%", c2, c1, want)
	}
	// Its Go text form reads back the same, and go tool cover reads it.
	var buf bytes.Buffer
	if err := p2.WriteGo(&buf); err != nil {
		t.Fatal(err)
	}
	back, err := ReadGo(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if c, _ := back.Summary(); c != c2 {
		t.Errorf("written and read back: %s, want %s", c, c2)
	}
}

// coverFunc is go tool cover -func's total on a GOCOVERDIR.
func coverFunc(t *testing.T, data string) float64 {
	t.Helper()
	prof := filepath.Join(t.TempDir(), "p.txt")
	if msg, err := exec.Command("go", "tool", "covdata", "textfmt", "-i", data, "-o", prof).CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, msg)
	}
	out, err := exec.Command("go", "tool", "cover", "-func", prof).CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	m := regexp.MustCompile(`total:\s+\(statements\)\s+([0-9.]+)%`).FindSubmatch(out)
	if m == nil {
		t.Fatalf("no total in %s", out)
	}
	v, _ := strconv.ParseFloat(string(m[1]), 64)
	got, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'f', 1, 64), 64)
	return got
}

func round1(v float64) float64 {
	r, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'f', 1, 64), 64)
	return r
}
