package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modex/modex/campaign"
	"github.com/modex/modex/engine/explore"
	"github.com/modex/modex/graph"
	"github.com/modex/modex/projects"
)

func cli(args ...string) (stdout, stderr string, code int) {
	var o, e bytes.Buffer
	err := run(args, &o, &e)
	if err != nil {
		e.WriteString(err.Error())
	}
	return o.String(), e.String(), exitCode(err)
}

func TestExploreSummary(t *testing.T) {
	out, _, code := cli("explore", "../projects/chat/chat.toml")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	re := regexp.MustCompile(`^chat \[figure1\]: 9 states \(7 model states, 2 passive\), 10 transitions \(2 timeouts\), 38 tried, [0-9.]+ s, complete\n$`)
	if !re.MatchString(out) {
		t.Errorf("summary %q", out)
	}
	out, _, _ = cli("explore", "--config", "more_items", "../projects/webshop/webshop.toml")
	if !strings.Contains(out, "1111 states") || !strings.HasSuffix(out, "complete\n") {
		t.Errorf("summary %q", out)
	}
}

func TestExploreFormats(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"json", "dot", "svg", "png"} {
		path := filepath.Join(dir, "g."+f)
		if _, errOut, code := cli("explore", "../projects/stack/stack.toml", "--out", path); code != 0 {
			t.Fatalf("%s: exit %d: %s", f, code, errOut)
		}
		data, err := os.ReadFile(path)
		if err != nil || len(data) < 100 {
			t.Fatalf("%s: %d bytes, %v", f, len(data), err)
		}
		prefix := map[string]string{"json": "{", "dot": "digraph", "svg": "<?xml", "png": "\x89PNG"}[f]
		if !strings.HasPrefix(string(data), prefix) {
			t.Errorf("%s output starts %q", f, data[:10])
		}
	}
	// --format without --out writes to stdout, the summary to stderr.
	out, errOut, code := cli("explore", "../projects/stack/stack.toml", "--format", "json", "--no-timing")
	var doc struct {
		States []struct{ ID string } `json:"states"`
		Stats  struct {
			States   int  `json:"states"`
			Complete bool `json:"complete"`
		} `json:"stats"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &doc) != nil || doc.Stats.States != 15 || !doc.Stats.Complete {
		t.Errorf("exit %d, json %q", code, out[:min(len(out), 80)])
	}
	if !strings.Contains(errOut, "15 states") {
		t.Errorf("summary on stderr %q", errOut)
	}
}

func TestBareModel(t *testing.T) {
	out, _, code := cli("explore", "../projects/switch/switch.star")
	if code != 0 || !strings.HasPrefix(out, "switch [default]: 5 states") {
		t.Errorf("exit %d: %q", code, out)
	}
}

func TestExitCodes(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "bad.toml")
	abs, _ := filepath.Abs("../projects/chat/chat.star")
	os.WriteFile(bad, []byte("name = \"x\"\nmodel = \""+abs+"\"\n[configs.a.actions.Shout]\n"), 0o644)
	for _, tc := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"check", "../projects/chat/chat.toml"}, 0, ""},
		{[]string{"explore"}, 2, "exactly one PROJECT"},
		{[]string{"explore", "--format", "gif", "../projects/chat/chat.toml"}, 2, `unknown format "gif"`},
		{[]string{"explore", "--bogus", "../projects/chat/chat.toml"}, 2, "flag provided but not defined"},
		{[]string{"frobnicate"}, 2, "unknown command"},
		{[]string{"explore", "../engine/explore/testdata/bad/syntax.star"}, 1, "syntax.star:4:11: syntax error"},
		{[]string{"check", bad}, 1, "unknown action \"Shout\""},
		{[]string{"explore", "--config", "nope", "../projects/chat/chat.toml"}, 1, `no configuration "nope"`},
		{[]string{"check", "../engine/explore/testdata/bad/nodomain.star"}, 1, "missing domain for parameter v of Set"},
		{[]string{"help"}, 0, ""},
	} {
		_, errOut, code := cli(tc.args...)
		if code != tc.code || !strings.Contains(errOut, tc.msg) {
			t.Errorf("modex %s: exit %d (want %d), stderr %q (want %q)", strings.Join(tc.args, " "), code, tc.code, errOut, tc.msg)
		}
	}
}

func TestTestCommand(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "fakeadapter")
	if msg, err := exec.Command("go", "build", "-o", bin, "../engine/adapter/testdata/fakeadapter").CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, msg)
	}
	junit := filepath.Join(dir, "junit.xml")
	logf := filepath.Join(dir, "steps.jsonl")
	chart := filepath.Join(dir, "run.svg")
	out, errOut, code := cli("test", "../projects/stack/stack.toml", "--adapter", bin+" good", "--runs", "4", "--steps", "20", "--seed", "5", "--junit", junit, "--log", logf, "--chart", chart)
	if code != 0 || !strings.Contains(out, "4 runs: 4 pass, 0 fail") || !strings.Contains(out, "run 1/4 (seed 5): pass") {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	// No run failed: the chart is the last run's, with its steps.
	if svg := string(readFile(t, chart)); !strings.Contains(out, "sequence chart of run 4") || strings.Count(svg, "<title>Push(") < 5 {
		t.Errorf("the last run's chart has %d pushes:\n%.500s", strings.Count(svg, "<title>Push("), svg)
	}
	data, _ := os.ReadFile(junit)
	if !strings.Contains(string(data), `<testsuite name="stack [all]" tests="4" failures="0"`) {
		t.Errorf("junit:\n%s", data)
	}
	// Steps are actions (seed 000 Table 1): the stack has no observable
	// actions, so 20 steps per run are 20 controllable actions, then the
	// cleanup phase; no timeouts are logged or counted.
	perRun := map[float64]int{}
	for _, line := range strings.Split(strings.TrimSpace(string(readFile(t, logf))), "\n") {
		var rec struct {
			Run     float64 `json:"run"`
			Kind    string  `json:"kind"`
			Step    int     `json:"step"`
			Cleanup bool    `json:"cleanup"`
		}
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("log line %q: %v", line, err)
		}
		if rec.Kind != "controllable" || rec.Step == 0 {
			t.Errorf("log line %q is not a numbered controllable step", line)
		}
		if !rec.Cleanup {
			perRun[rec.Run]++
		}
	}
	for run := 1.0; run <= 4; run++ {
		if perRun[run] != 20 {
			t.Errorf("run %v logged %d steps before the cleanup phase, want 20", run, perRun[run])
		}
	}
	// On one CPU (Linux): the same runs, step for step.
	if runtime.GOOS == "linux" {
		pinned, errOut, code := cli("test", "--one-cpu", "../projects/stack/stack.toml", "--adapter", bin+" good", "--runs", "4", "--steps", "20", "--seed", "5")
		if code != 0 || runLines(pinned) == "" || runLines(pinned) != runLines(out) {
			t.Errorf("--one-cpu: exit %d\n%s\n%s\nwithout it:\n%s", code, pinned, errOut, out)
		}
	}
	saveDir := filepath.Join(dir, "failures")
	out, _, code = cli("test", "../projects/stack/stack.toml", "--adapter", bin+" wrong-pop", "--runs", "3", "--steps", "20", "--seed", "5", "--junit", junit, "--save-failures", saveDir)
	if code != 1 || !strings.Contains(out, "FAIL output-mismatch") || !strings.Contains(out, "same choices again (timing may differ): modex test ../projects/stack/stack.toml --config all --runs 1 --seed ") {
		t.Errorf("exit %d:\n%s", code, out)
	}
	data, _ = os.ReadFile(junit)
	if !strings.Contains(string(data), `<failure type="output-mismatch"`) {
		t.Errorf("junit lacks the failure:\n%s", data)
	}
	// Every failing run is saved; --rerun drives its steps again and says
	// whether the failure reproduced (exit 1) or not (exit 0).
	saved, _ := filepath.Glob(filepath.Join(saveDir, "*.json"))
	if len(saved) != 3 || !strings.Contains(out, "rerun its steps: modex test ../projects/stack/stack.toml --rerun "+saveDir) {
		t.Fatalf("saved %v:\n%s", saved, out)
	}
	// A long test against a broken implementation saves its first
	// MaxSavedFailures failing runs, not one file per run.
	manyDir := filepath.Join(dir, "many")
	out, _, code = cli("test", "../projects/stack/stack.toml", "--adapter", bin+" wrong-pop", "--runs", strconv.Itoa(projects.MaxSavedFailures+5), "--steps", "5", "--seed", "5", "--save-failures", manyDir)
	many, _ := filepath.Glob(filepath.Join(manyDir, "*.json"))
	if code != 1 || len(many) != projects.MaxSavedFailures || strings.Count(out, "not saved, nor the later failing runs") != 1 {
		t.Errorf("exit %d, %d files saved of %d failing runs:\n%s", code, len(many), projects.MaxSavedFailures+5, out)
	}
	out, _, code = cli("test", "../projects/stack/stack.toml", "--adapter", bin+" wrong-pop", "--rerun", saved[0])
	if code != 1 || !strings.Contains(out, "reproduced: the run failed again with output-mismatch") {
		t.Errorf("rerun against the same bug: exit %d\n%s", code, out)
	}
	out, _, code = cli("test", "../projects/stack/stack.toml", "--adapter", bin+" good", "--rerun", saved[0])
	if code != 0 || !strings.Contains(out, "could not reproduce: the rerun ended pass") {
		t.Errorf("rerun against a correct implementation: exit %d\n%s", code, out)
	}
	// --shrink: the saved run shrinks to a shorter one that fails the same
	// way, saved next to it; its rerun fails again.
	out, _, code = cli("test", "../projects/stack/stack.toml", "--adapter", bin+" wrong-pop", "--rerun", saved[0], "--shrink", "--shrink-repeats", "2")
	shrunkFile := strings.TrimSuffix(saved[0], ".json") + "-shrunk.json"
	var n, from, fails, of int
	if i := strings.Index(out, "shrunk: "); i >= 0 {
		fmt.Sscanf(out[i:], "shrunk: %d steps (from %d), fails %d of %d re-runs", &n, &from, &fails, &of)
	}
	// Re-run 10 times (conform.MinReruns, more than --shrink-repeats).
	if code != 1 || n == 0 || n > from || fails != 10 || of != 10 || !strings.Contains(out, "FAIL output-mismatch") || !strings.Contains(out, "saved: "+shrunkFile) {
		t.Fatalf("shrink: exit %d, %d steps from %d, fails %d of %d\n%s", code, n, from, fails, of, out)
	}
	out, _, code = cli("test", "../projects/stack/stack.toml", "--adapter", bin+" wrong-pop", "--rerun", shrunkFile)
	if code != 1 || !strings.Contains(out, "reproduced: the run failed again with output-mismatch at step "+fmt.Sprint(n)) {
		t.Errorf("rerun of the shrunk run: exit %d\n%s", code, out)
	}
	if _, errOut, code := cli("test", "../projects/stack/stack.toml"); code != 1 || !strings.Contains(errOut, "has no [adapter]") {
		t.Errorf("no adapter: exit %d %q", code, errOut)
	}
}

func TestCheckValidatesReplay(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "bad.toml")
	abs, _ := filepath.Abs("../projects/threadpool/threadpool.star")
	os.WriteFile(bad, []byte("name = \"x\"\nmodel = \""+abs+"\"\n[replay.events.enqueue]\nrole = \"sometimes\"\n"), 0o644)
	if _, errOut, code := cli("check", bad); code != 1 || !strings.Contains(errOut, "bad.toml:4:8: role must be action, event or ignore") {
		t.Errorf("exit %d: %q", code, errOut)
	}
	if out, _, code := cli("check", "../projects/threadpool/threadpool.toml"); code != 0 || !strings.HasPrefix(out, "ok: threadpool") {
		t.Errorf("exit %d: %q", code, out)
	}
	// The keys of concurrent histories, with their place.
	reg, _ := filepath.Abs("../projects/register/register.star")
	for _, tc := range []struct{ toml, want string }{
		{"[replay.events.cas]\nok_output = \"Tru e\"\n", "bad.toml:4:13: ok_output: not a literal"},
		{"[replay.events.read]\noutput = \"result\"\n", "bad.toml:4:10: output must be value or none"},
		{"[replay]\ntime_budget = -1\n", "bad.toml:4:15: time_budget must be a number of seconds"},
	} {
		os.WriteFile(bad, []byte("name = \"x\"\nmodel = \""+reg+"\"\n"+tc.toml), 0o644)
		if _, errOut, code := cli("check", bad); code != 1 || !strings.Contains(errOut, tc.want) {
			t.Errorf("exit %d: %q, want %q", code, errOut, tc.want)
		}
	}
}

// TestMain lets the test binary stand in for modex in child processes (the
// layout process of the GUI).
func TestMain(m *testing.M) {
	if os.Getenv("MODEX_TEST_AS_CLI") == "1" {
		os.Exit(report(run(os.Args[1:], os.Stdout, os.Stderr)))
	}
	code := m.Run()
	if fakeBin != "" {
		os.RemoveAll(filepath.Dir(fakeBin)) // fakeAdapter's build
	}
	os.Exit(code)
}

// Graphviz runs in a child process for the GUI: the layout is the same, and
// a cancelled layout ends at once.
func TestLayoutProcess(t *testing.T) {
	p, m, cfg, _, err := openConfig(context.Background(), "../projects/chat/chat.toml", "")
	if err != nil {
		t.Fatal(err)
	}
	_ = p
	x, err := explore.Explore(context.Background(), m, cfg)
	if err != nil {
		t.Fatal(err)
	}
	doc, _ := graph.FromExploration(x)
	inProc, err := graph.LayoutDoc(context.Background(), doc, "")
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("MODEX_TEST_AS_CLI", "1")
	graph.LayoutCommand = []string{os.Args[0], "__layout"}
	defer func() { graph.LayoutCommand = nil }()
	child, err := graph.LayoutDoc(context.Background(), doc, "")
	if err != nil {
		t.Fatal(err)
	}
	if child.Width != inProc.Width || child.Height != inProc.Height || len(child.Nodes) != len(inProc.Nodes) {
		t.Errorf("child layout %vx%v %d nodes, in process %vx%v %d", child.Width, child.Height, len(child.Nodes), inProc.Width, inProc.Height, len(inProc.Nodes))
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := graph.LayoutDoc(ctx, doc, ""); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled layout: %v", err)
	}
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// SIGTERM and SIGHUP end `modex test` like Ctrl-C: the run stops and the
// adapter's process group is killed, not left running.
func TestTerminationCleansUp(t *testing.T) {
	dir := t.TempDir()
	fake := filepath.Join(dir, "fakeadapter-term")
	if msg, err := exec.Command("go", "build", "-o", fake, "../engine/adapter/testdata/fakeadapter").CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, msg)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGHUP} {
		cmd := exec.Command(self, "test", "../projects/stack/stack.toml", "--adapter", fake+" hang-after 1", "--runs", "1", "--seed", "1")
		cmd.Env = append(os.Environ(), "MODEX_TEST_AS_CLI=1")
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// Wait until the adapter runs and hangs in a call.
		deadline := time.Now().Add(20 * time.Second)
		for !running(fake) && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
		if !running(fake) {
			t.Fatalf("the adapter never started:\n%s", out.String())
		}
		time.Sleep(200 * time.Millisecond)
		cmd.Process.Signal(sig)
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			cmd.Process.Kill()
			t.Fatalf("%v: modex did not end:\n%s", sig, out.String())
		}
		for i := 0; i < 100 && running(fake); i++ {
			time.Sleep(20 * time.Millisecond)
		}
		if running(fake) {
			exec.Command("pkill", "-f", fake).Run()
			t.Errorf("%v: the adapter is still running after modex ended:\n%s", sig, out.String())
		}
	}
}

// running reports whether a process runs the program at path.
func running(path string) bool {
	return exec.Command("pgrep", "-f", path).Run() == nil
}

// Without a display the workbench says so in one line; a project folder
// holding one .toml stands for that project.
func TestNoDisplayAndProjectFolders(t *testing.T) {
	t.Setenv("DISPLAY", "")
	t.Setenv("WAYLAND_DISPLAY", "")
	_, errOut, code := cli()
	if code == 0 || !strings.HasPrefix(errOut, "no display found") || strings.Count(errOut, "\n") > 0 {
		t.Errorf("no display: exit %d, %q", code, errOut)
	}
	out, _, code := cli("check", "../projects/chat")
	if code != 0 || !strings.HasPrefix(out, "ok: chat") {
		t.Errorf("a project folder: exit %d %q", code, out)
	}
	_, errOut, code = cli("check", "../projects")
	if code == 0 || !strings.Contains(errOut, "is a folder with 0 project files") {
		t.Errorf("a folder without a project: exit %d %q", code, errOut)
	}
}

// --quotient writes the overview of a graph: one node per value of the
// expression with its number of states (the web shop's MoreItemsInCart by
// the number of clients: 1, 10, 100 and 1,000 states).
func TestExploreQuotient(t *testing.T) {
	// auto chooses the number of clients from the model's structure and
	// says why; the overview is the same as asked by name.
	out, errOut, code := cli("explore", "../projects/webshop/webshop.toml", "--config", "more_items", "--quotient", "auto", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(errOut, "overview by len(s.clients), chosen from the model's structure") || !strings.Contains(errOut, "len(s.clients): 4 classes, 3 arcs") {
		t.Errorf("auto: %s", errOut)
	}
	var d struct {
		States []struct {
			Label string `json:"label"`
			Count int    `json:"count"`
		} `json:"states"`
		Transitions []struct{ Label string } `json:"transitions"`
	}
	if err := json.Unmarshal([]byte(out), &d); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range d.States {
		got = append(got, fmt.Sprintf("%s:%d", s.Label, s.Count))
	}
	if strings.Join(got, " ") != "len(s.clients) = 0:1 len(s.clients) = 1:10 len(s.clients) = 2:100 len(s.clients) = 3:1000" || len(d.Transitions) != 6 {
		t.Errorf("classes %v, %d arcs", got, len(d.Transitions))
	}
	if _, errOut, code := cli("explore", "../projects/webshop/webshop.toml", "--quotient", "len(s.nope)", "--format", "dot"); code == 0 || !strings.Contains(errOut, "nope") {
		t.Errorf("bad quotient expression: exit %d %q", code, errOut)
	}
	out, _, code = cli("explore", "../projects/chat/chat.toml", "--quotient", "depth", "--format", "dot")
	if code != 0 || !strings.Contains(out, "depth 0") || !strings.Contains(out, "states") {
		t.Errorf("by depth: exit %d\n%s", code, out)
	}
}

// replay --shrink: the thread pool's buggy trace already fails after its
// first 11 records (of 116).
func TestReplayShrink(t *testing.T) {
	out, errOut, code := cli("replay", "../projects/threadpool/threadpool.toml", "../projects/threadpool/traces/buggy-1.xml", "--shrink")
	if code != 1 || !strings.Contains(out, "shrunk: 11 records (from 116): the first 11 already fail, up to line 12") {
		t.Errorf("exit %d:\n%s", code, out)
	}
	// One trace is said in the singular.
	if !strings.Contains(out, "threadpool [small]: 1 trace: 0 pass, 1 fail") || !strings.Contains(errOut, "1 of 1 trace failed") {
		t.Errorf("summary:\n%s\n%s", out, errOut)
	}
}

// A picture of a graph too big to read is refused with what to do instead;
// its overview is drawn.
func TestPictureTooBig(t *testing.T) {
	out := filepath.Join(t.TempDir(), "shop.png")
	_, errOut, code := cli("explore", "../projects/webshop/webshop.toml", "--config", "more_items", "--out", out)
	if code != 1 || !strings.Contains(errOut, "1111 states are too many for a readable picture (at most 500)") || !strings.Contains(errOut, "--quotient") {
		t.Errorf("exit %d: %s", code, errOut)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("a picture was written")
	}
	if _, errOut, code := cli("explore", "../projects/webshop/webshop.toml", "--config", "more_items", "--quotient", "len(s.clients)", "--out", out); code != 0 {
		t.Errorf("the overview: exit %d: %s", code, errOut)
	}
	if fi, err := os.Stat(out); err != nil || fi.Size() == 0 {
		t.Errorf("no overview picture: %v", err)
	}
}

// modex campaign on the embedded server with two local workers: the bug is
// found, every run counted once, each failure reported and the first ones
// saved for --rerun (which reproduces it); the correct implementation passes; TLS flags are checked.
func TestCampaignCommand(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", filepath.Join(dir, "cache"))
	bin := filepath.Join(dir, "fakeadapter")
	if msg, err := exec.Command("go", "build", "-o", bin, "../engine/adapter/testdata/fakeadapter").CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, msg)
	}
	saveDir := filepath.Join(dir, "failures")
	out, errOut, code := cli("campaign", "../projects/stack/stack.toml", "--adapter", bin+" wrong-pop", "--runs", "25", "--job-runs", "5",
		"--steps", "20", "--seed", "5", "--workers", "2", "--save-failures", saveDir)
	saved, _ := filepath.Glob(filepath.Join(saveDir, "*-campaign-seed*.json"))
	// Every failure reported, the first MaxSavedFailures saved.
	if code != 1 || !strings.Contains(out, "5 of 5 jobs done, 0 given up") || !strings.Contains(out, "25 runs: 0 pass, 25 fail") ||
		strings.Count(out, "FAIL output-mismatch") != 25 || len(saved) != projects.MaxSavedFailures || strings.Count(out, "a campaign saves its first") != 1 ||
		!strings.Contains(out, "on an embedded NATS server ("+filepath.Join(dir, "cache")) {
		t.Fatalf("exit %d, %d saved\n%s\n%s", code, len(saved), out, errOut)
	}
	out2, _, code := cli("test", "../projects/stack/stack.toml", "--adapter", bin+" wrong-pop", "--rerun", saved[0])
	if code != 1 || !strings.Contains(out2, "reproduced: the run failed again with output-mismatch") {
		t.Errorf("rerun of a campaign's failure: exit %d\n%s", code, out2)
	}
	// Every failure is kept whole in the campaign's folder, and the file
	// of any reruns it.
	kept, _ := filepath.Glob(filepath.Join(dir, "cache", "modex", "campaign-failures", "c*", "seed*.json"))
	if len(kept) != 25 || !strings.Contains(out, "the runs of 25 failures are kept whole in ") {
		t.Fatalf("%d kept\n%s", len(kept), out)
	}
	out2, _, code = cli("test", "../projects/stack/stack.toml", "--adapter", bin+" wrong-pop", "--rerun", kept[len(kept)-1])
	if code != 1 || !strings.Contains(out2, "reproduced: the run failed again with output-mismatch") {
		t.Errorf("rerun of a campaign's kept failure: exit %d\n%s", code, out2)
	}
	// --shrink: each job shrinks its first failing run on its worker.
	shrunkDir := filepath.Join(dir, "shrunk")
	out, errOut, code = cli("campaign", "../projects/stack/stack.toml", "--adapter", bin+" wrong-pop", "--runs", "10", "--job-runs", "5",
		"--steps", "20", "--seed", "5", "--workers", "2", "--save-failures", shrunkDir, "--shrink", "--shrink-repeats", "2")
	shrunk, _ := filepath.Glob(filepath.Join(shrunkDir, "*-shrunk-*.json"))
	if code != 1 || len(shrunk) != 2 || strings.Count(out, "shrunk: 2 steps (from ") != 2 || !strings.Contains(out, "fails 10 of 10 re-runs") || strings.Contains(out, "stopped early") {
		t.Fatalf("shrinking campaign: exit %d, shrunk %v\n%s\n%s", code, shrunk, out, errOut)
	}
	out, _, code = cli("test", "../projects/stack/stack.toml", "--adapter", bin+" wrong-pop", "--rerun", shrunk[0])
	if code != 1 || !strings.Contains(out, "reproduced: the run failed again with output-mismatch at step 2") {
		t.Errorf("rerun of a shrunk campaign failure: exit %d\n%s", code, out)
	}
	out, errOut, code = cli("campaign", "../projects/stack/stack.toml", "--adapter", bin+" good", "--runs", "10", "--job-runs", "5", "--steps", "20", "--seed", "5")
	// Coverage in the words of modex test: against the configuration's
	// size.
	if code != 0 || !strings.Contains(out, "10 runs: 10 pass, 0 fail") || !regexp.MustCompile(`covered \d+ of \d+ states and \d+ of \d+ transitions`).MatchString(out) {
		t.Errorf("correct implementation: exit %d\n%s\n%s", code, out, errOut)
	}
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(dir, "config")) // the default coordinator key
	worker, _ := campaign.NewKey()
	_, errOut, code = cli("campaign", "../projects/stack/stack.toml", "--nats", "tls://user:secret@127.0.0.1:1", "--nats-cert", "c.pem", "--workers", "0",
		"--trust-worker", campaign.PublicKey(worker))
	if code == 0 || !strings.Contains(errOut, "needs its key") || strings.Contains(errOut, "secret") {
		t.Errorf("a certificate without its key: exit %d %q", code, errOut)
	}
	// Sizes out of range, and a campaign whose results no one could be
	// trusted for, are usage errors (issue 51).
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--runs", "0"}, "must be at least 1 and at most 1000000000"},
		{[]string{"--runs", "1000000001"}, "must be at least 1 and at most 1000000000"},
		{[]string{"--job-runs", "0"}, "must be at least 1 and at most 100000"},
		{[]string{"--job-runs", "100001"}, "must be at least 1 and at most 100000"},
		{[]string{"--runs", "1000000000", "--job-runs", "10"}, "make more than 10000000 jobs: give --job-runs 100 or more"},
		{[]string{"--job-ttl", "0s"}, "must be above 0, at most 720h0m0s"},
		{[]string{"--job-ttl", "1000h"}, "--job-ttl must be at most 720h0m0s"},
		{[]string{"--steps", "1000001"}, "a run has 0 to 1000000 steps"},
		{[]string{"--workers", "0"}, "--workers 0 runs no job"},
		{[]string{"--nats", "nats://127.0.0.1:1", "--workers", "0"}, "--trust-worker KEY|FILE (modex worker prints its key"},
	} {
		_, errOut, code := cli(append([]string{"campaign", "../projects/stack/stack.toml"}, tc.args...)...)
		if code != 2 || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d %q, want %q", tc.args, code, errOut, tc.want)
		}
	}
}

// modex explore's exit code says what a script needs to know: 0 complete
// and clean, 3 error states or deadlocks (the first deadlock's path
// printed), 4 incomplete; with JSON out, the same codes.
func TestExploreExitCodes(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	write("dl.star", `
def init():
    return [{"x": x, "y": 0} for x in range(3)]

def IncY(s):
    require(s.y < 2)
    s.y += 1

def accepting(s):
    return s.x == 0

def invariant(s):
    return s.y < 3

actions = [IncY]
`)
	proj := write("dl.toml", `name = "dl"
model = "dl.star"
default = "deadlocks"
[configs.deadlocks]
[configs.nocheck]
check_deadlock = false
[configs.bounded]
check_deadlock = false
max_states = 4
`)
	bad := write("bad.star", "def init():\n    return {\"n\": 0}\ndef A(s):\n    s.n += 1\ndef invariant(s):\n    return s.n < 2\nactions = [A]\ndef state_filter(s):\n    return s.n < 4\n")
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"explore", proj}, 3, "deadlock: nothing is enabled in S7, reached by IncY(), IncY()"},
		{[]string{"explore", proj, "--workers", "1"}, 3, "deadlock: nothing is enabled in S7, reached by IncY(), IncY()"},
		{[]string{"explore", proj, "--minimize"}, 3, "deadlock: nothing is enabled in S7, reached by IncY(), IncY()"},
		{[]string{"explore", proj, "--config", "nocheck"}, 0, "3 initial"},
		{[]string{"explore", proj, "--config", "bounded"}, 4, "incomplete: stopped by max states (exit 4)"},
		{[]string{"explore", proj, "--config", "bounded", "--format", "json", "--out", filepath.Join(dir, "x.json")}, 4, "stopped by max states"},
		{[]string{"explore", bad}, 3, "the exploration found 2 error states (exit 3)"},
		{[]string{"explore", "../projects/chat/chat.toml"}, 0, "complete"},
	} {
		out, errOut, code := cli(tc.args...)
		if code != tc.code || !strings.Contains(out+errOut, tc.want) {
			t.Errorf("%v: exit %d (want %d)\n%s%s", tc.args, code, tc.code, out, errOut)
		}
	}
	data, err := os.ReadFile(filepath.Join(dir, "x.json"))
	if err != nil || !strings.Contains(string(data), `"initial_states": 3`) || !strings.Contains(string(data), `"model_states": 4`) {
		t.Errorf("JSON stats: %v\n%.400s", err, data)
	}
}

// A folder of traces with a file that is no trace and a named pipe: the
// good trace is replayed, the bad file reported in the summary and the
// pipe skipped, never opened; a pipe named on its own is refused at once.
func TestReplayFolderWithBadFilesAndPipes(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "good.trace"), []byte("Create()/Client1\nCreate()/Client2\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("this is { not a trace\n"), 0o644)
	if err := syscall.Mkfifo(filepath.Join(dir, "pipe.trace"), 0o600); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	var out, errOut string
	var code int
	go func() {
		out, errOut, code = cli("replay", "../projects/chat/chat.toml", dir)
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("replaying a folder with a named pipe hangs")
	}
	if code != 1 || !strings.Contains(out, "good.trace                       pass") || !strings.Contains(out, "notes.txt                        error") ||
		!strings.Contains(out, "2 traces: 1 pass, 0 fail, 0 inconclusive, 1 could not be read") {
		t.Errorf("exit %d\n%s%s", code, out, errOut)
	}
	_, errOut, code = cli("replay", "../projects/chat/chat.toml", filepath.Join(dir, "pipe.trace"))
	if code != 1 || !strings.Contains(errOut, "is not a regular file") {
		t.Errorf("a pipe: exit %d %s", code, errOut)
	}
}

// Output to a device or a named pipe is written into it, never replaced by
// a regular file (the atomic replace is for regular files only).
func TestOutputToSpecialFiles(t *testing.T) {
	before, err := os.Stat("/dev/null")
	if err != nil {
		t.Skip("no /dev/null")
	}
	if _, errOut, code := cli("explore", "../projects/chat/chat.toml", "--format", "json", "--out", "/dev/null"); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	after, err := os.Stat("/dev/null")
	if err != nil || after.Mode() != before.Mode() || after.Mode()&os.ModeCharDevice == 0 {
		t.Fatalf("/dev/null is now %v (was %v): %v", after.Mode(), before.Mode(), err)
	}
	fifo := filepath.Join(t.TempDir(), "out.fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	got := make(chan []byte, 1)
	go func() {
		f, err := os.Open(fifo)
		if err != nil {
			got <- nil
			return
		}
		data, _ := io.ReadAll(f)
		f.Close()
		got <- data
	}()
	if _, errOut, code := cli("explore", "../projects/chat/chat.toml", "--format", "dot", "--out", fifo); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if data := <-got; !strings.HasPrefix(string(data), "digraph modex") {
		t.Errorf("the pipe's reader got %.60q", data)
	}
	if st, err := os.Stat(fifo); err != nil || st.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("the pipe was replaced: %v %v", st.Mode(), err)
	}
}

// replay --chart writes the replay as a sequence chart: the trace's
// threads as lifelines, the diverging event in red; --minimize writes the
// minimised graph and says both sizes.
func TestReplayChartAndMinimize(t *testing.T) {
	file := filepath.Join(t.TempDir(), "buggy.svg")
	out, errOut, code := cli("replay", "../projects/threadpool/threadpool.toml", "../projects/threadpool/traces/buggy-1.xml", "--chart", file)
	if code != 1 || !strings.Contains(out, "sequence chart: "+file) {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	svg, err := os.ReadFile(file)
	if err != nil || !strings.Contains(string(svg), "fail at event 11 (line 12)") || !strings.Contains(string(svg), "#c62828") || !strings.Contains(string(svg), ">Environment<") {
		t.Errorf("chart: %v\n%.600s", err, svg)
	}
	out, errOut, code = cli("explore", "../projects/conference/conference.toml", "--config", "agents-6", "--minimize", "--format", "json", "--no-timing")
	var d struct {
		States []struct {
			Kind  string `json:"kind"`
			Count int    `json:"count"`
		} `json:"states"`
	}
	if err := json.Unmarshal([]byte(out), &d); err != nil || code != 0 || !strings.Contains(errOut, "-> 4 states (2 model states, 2 passive)") {
		t.Fatalf("minimize: exit %d %v\n%s", code, err, errOut)
	}
	total := 0
	for _, st := range d.States {
		if st.Kind != "passive" {
			total += st.Count
		}
	}
	if len(d.States) != 4 || total != 65 {
		t.Errorf("the minimised graph's %d states stand for %d model states, want 65", len(d.States), total)
	}
}

// runLines is what a test command printed about its runs and its summary,
// less the time it took.
func runLines(out string) string {
	var b strings.Builder
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "run ") || strings.Contains(l, " runs: ") {
			if i := strings.LastIndex(l, "; "); i > 0 && strings.HasSuffix(l, " s") {
				l = l[:i]
			}
			b.WriteString(l + "\n")
		}
	}
	return b.String()
}
