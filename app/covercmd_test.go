package main

import (
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/modex/modex/engine/codecov"
	"github.com/modex/modex/internal/langtest"
	"github.com/modex/modex/projects"
)

// reported is the percentage of modex test's coverage line.
func reported(t *testing.T, out string) float64 {
	t.Helper()
	m := regexp.MustCompile(`code coverage of the implementation: ([0-9.]+) % of (\d+) statements`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no coverage line in:\n%s", out)
	}
	v, _ := strconv.ParseFloat(m[1], 64)
	return v
}

// modex test --cover on the chat sample's real server, built with -cover:
// the percentage reported is go tool cover -func's on the profile
// --cover-out wrote, only the server's file counts, and every run's line
// says the coverage so far.
func TestCoverGoImplementation(t *testing.T) {
	dir := t.TempDir()
	prof := filepath.Join(dir, "chat.cov")
	out, errOut, code := cli("test", "../projects/chat/chat.toml", "--config", "hi_bye", "--runs", "3", "--seed", "1",
		"--adapter", "go run -cover -covermode=atomic impl/main.go impl/server.go impl/adapter.go impl/modexadapter.go adapter --fixed",
		"--cover-include", "server.go", "--cover-out", prof, "--junit", filepath.Join(dir, "junit.xml"))
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	got := reported(t, out)
	fn, err := exec.Command("go", "tool", "cover", "-func", prof).CombinedOutput()
	if err != nil {
		t.Fatalf("go tool cover -func: %v\n%s", err, fn)
	}
	m := regexp.MustCompile(`total:\s+\(statements\)\s+([0-9.]+)%`).FindSubmatch(fn)
	if m == nil {
		t.Fatalf("go tool cover -func:\n%s", fn)
	}
	want, _ := strconv.ParseFloat(string(m[1]), 64)
	if got != want || got < 50 {
		t.Errorf("modex says %.1f %%, go tool cover -func %.1f %%", got, want)
	}
	for _, l := range strings.Split(strings.TrimSpace(string(fn)), "\n") {
		if !strings.HasPrefix(l, "total:") && !strings.Contains(l, "chat/impl/server.go:") {
			t.Errorf("a file other than server.go in the profile: %s", l)
		}
	}
	junit := string(readFile(t, filepath.Join(dir, "junit.xml")))
	if want := fmt.Sprintf(`<property name="modex.code.coverage" value="%.1f"></property>`, got); !strings.Contains(junit, want) {
		t.Errorf("the JUnit report lacks %s:\n%s", want, junit)
	}
	if n := strings.Count(out, "; code "); n != 3 {
		t.Errorf("%d run lines with the coverage so far, want 3:\n%s", n, out)
	}
}

// A Python implementation under coverage.py (the stack skeleton, filled
// in, run by python3 -m coverage run): measured, and the complete adapter
// reaches more of its code than the one that leaves Push out (Pop then
// never runs).
func TestCoverPythonImplementation(t *testing.T) {
	langtest.Need(t, "python3")
	tool := codecov.CoveragePy()
	if tool == nil {
		langtest.Need(t, "python3-coverage")
	}
	project, err := projects.ExtractSample("stack", t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if out, errOut, code := cli("adapter", "new", "--lang", "python", project); code != 0 {
		t.Fatalf("%s%s", out, errOut)
	}
	adapterPy := filepath.Join(filepath.Dir(project), "adapter-python", "adapter.py")
	skeleton := string(readFile(t, adapterPy))
	command := strings.Join(append(append([]string(nil), tool...), "run", "adapter-python/adapter.py"), " ")
	measure := func(leave string) float64 {
		writeFile(t, adapterPy, fillIn(t, skeleton, stackImpl["python"], leave))
		out, errOut, _ := cli("test", project, "--runs", "5", "--seed", "1", "--adapter", command, "--cover", "--cover-include", "adapter.py")
		if !strings.Contains(out, "5 runs") {
			t.Fatalf("%s%s", out, errOut)
		}
		return reported(t, out)
	}
	partial, whole := measure("Push"), measure("")
	if !(0 < partial && partial < whole && whole <= 100) {
		t.Errorf("coverage with Push left out %.1f %%, whole %.1f %%", partial, whole)
	}
}

// An adapter may report coverage data it wrote anywhere (here an LCOV
// file): Modex reads it where it says.
func TestCoverReportedByTheAdapter(t *testing.T) {
	bin := fakeAdapter(t)
	out, errOut, code := cli("test", "../projects/stack/stack.toml", "--runs", "3", "--seed", "1", "--adapter", bin+" coverage-lcov", "--cover")
	if code != 0 || reported(t, out) != 66.7 || !strings.Contains(out, "66.7 % of 3 statements") {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	// An adapter that does not offer the coverage request is not sent it
	// (it might exit on a request it does not know): the test runs, and
	// says why there is no figure.
	out, errOut, code = cli("test", "../projects/stack/stack.toml", "--runs", "2", "--seed", "1", "--adapter", bin+" good", "--cover")
	if code != 0 || !strings.Contains(out, "no coverage data came from the implementation: the adapter does not offer the coverage request") {
		t.Fatalf("an adapter without the feature: exit %d\n%s%s", code, out, errOut)
	}
	// An offline suite's run measures it too.
	suite := filepath.Join(t.TempDir(), "suite.json")
	if out, errOut, code := cli("gen", "../projects/stack/stack.toml", "--out", suite); code != 0 {
		t.Fatalf("gen: %s%s", out, errOut)
	}
	out, errOut, code = cli("run", "../projects/stack/stack.toml", suite, "--adapter", bin+" coverage-lcov", "--cover")
	if code != 0 || !strings.Contains(out, "code coverage of the implementation: 66.7 % of 3 statements") {
		t.Fatalf("modex run --cover: exit %d\n%s%s", code, out, errOut)
	}
	// Without --cover, no coverage request reaches the adapter.
	out, _, _ = cli("test", "../projects/stack/stack.toml", "--runs", "1", "--seed", "1", "--adapter", bin+" coverage-lcov")
	if strings.Contains(out, "code coverage") {
		t.Errorf("measured without --cover:\n%s", out)
	}
}

// A campaign's workers measure their implementations' code coverage and
// the coordinator merges it: the summary's figure is go tool cover
// -func's on the merged profile --cover-out wrote.
func TestCampaignCoverage(t *testing.T) {
	dir := t.TempDir()
	prof := filepath.Join(dir, "campaign.cov")
	out, errOut, code := cli("campaign", "../projects/chat/chat.toml", "--config", "hi_bye", "--runs", "20", "--workers", "2", "--seed", "1",
		"--adapter", "go run -cover -covermode=atomic impl/main.go impl/server.go impl/adapter.go impl/modexadapter.go adapter --fixed",
		"--cover-include", "server.go", "--cover-out", prof)
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	m := regexp.MustCompile(`code coverage of the implementation: ([0-9.]+) % of 72 statements`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no code coverage in the summary:\n%s", out)
	}
	fn, err := exec.Command("go", "tool", "cover", "-func", prof).CombinedOutput()
	if err != nil {
		t.Fatalf("go tool cover -func: %v\n%s", err, fn)
	}
	if !strings.Contains(string(fn), m[1]+"%") || !strings.Contains(string(fn), "server.go") {
		t.Errorf("the summary says %s %%, go tool cover -func:\n%s", m[1], fn)
	}
}

// modex test --format json writes the report as JSON on standard output
// (the words go to standard error): each run with its verdict and the code
// coverage so far, and the summary with the model's and the code's.
func TestTestJSONReport(t *testing.T) {
	bin := fakeAdapter(t)
	out, errOut, code := cli("test", "../projects/stack/stack.toml", "--runs", "3", "--seed", "5", "--adapter", bin+" coverage-lcov", "--cover", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	var doc struct {
		Format string `json:"format"`
		Seed   uint64 `json:"seed"`
		Runs   []struct {
			Run     int    `json:"run"`
			Verdict string `json:"verdict"`
			Code    *struct {
				Percent float64 `json:"percent"`
			} `json:"code"`
		} `json:"runs"`
		Summary struct {
			Pass   int `json:"pass"`
			States int `json:"states"`
			Code   struct {
				Reached, Total int
				Files          []struct{ File string }
			} `json:"code"`
		} `json:"summary"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	if doc.Format != TestReportFormat || doc.Seed != 5 || len(doc.Runs) != 3 || doc.Summary.Pass != 3 || doc.Summary.States == 0 {
		t.Errorf("%+v", doc)
	}
	for _, r := range doc.Runs {
		if r.Verdict != "pass" || r.Code == nil || r.Code.Percent <= 0 {
			t.Errorf("run %+v", r)
		}
	}
	if c := doc.Summary.Code; c.Reached != 2 || c.Total != 3 || len(c.Files) != 1 || c.Files[0].File != "fake/stack.go" {
		t.Errorf("summary code %+v", c)
	}
	if !strings.Contains(errOut, "run 3/3 (seed 7): pass") || !strings.Contains(errOut, "code coverage of the implementation: 66.7 %") {
		t.Errorf("the words are not on standard error:\n%s", errOut)
	}
}
