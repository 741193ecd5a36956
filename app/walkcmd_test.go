package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// modex explore --walks runs a directed search: its summary says the
// walks, depth and seed and what they visited; the same seed gives the
// same summary; a seed drawn from the clock is told; an invariant
// violation and a deadlock are reported with the walk that reached them;
// the graph written is the visited one, marked as such.
func TestExploreWalks(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	write("c.star", `
def init():
    return {"c": [0, 0, 0, 0]}

def Inc(s, i):
    require(s.c[i] < 5)
    s.c[i] += 1

def invariant(s):
    if s.c[0] + s.c[1] == 9:
        return "c0 + c1 is %d" % (s.c[0] + s.c[1])
    return True

def accepting(s):
    return s.c[2] < 5

actions = [Inc]
domains = {Inc: {"i": [0, 1, 2, 3]}}
`)
	proj := write("c.toml", `name = "c"
model = "c.star"
default = "sim"
[configs.sim]
search = "walks"
walks = 30
walk_depth = 25
seed = 11
stop_on_error = true
check_deadlock = false
[configs.plain]
`)
	summary := regexp.MustCompile(`^c \[sim\]: directed search: 30 walks, depth 25, seed 11: (\d+) states visited, (\d+) on the frontier; \d+ states, \d+ transitions, \d+ tried, [0-9.]+ s, \d+ error states?\n`)
	out, errOut, code := cli("explore", proj)
	if code != 3 || !summary.MatchString(out) {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	report := regexp.MustCompile(`\nerror state S\d+, reached by walk \d+ \(seed 11\) in (\d+) steps: Inc\(\d\)(, Inc\(\d\))*\n  \| c0 \+ c1 is 9\n`)
	if m := report.FindStringSubmatch(out); m == nil || len(m[1]) == 1 && m[1] != "9" {
		t.Errorf("no report of the violation with the walk that reached it (9 steps or more):\n%s", out)
	}
	secs := regexp.MustCompile(`[0-9.]+ s,`)
	again, _, _ := cli("explore", proj, "--workers", "1")
	if secs.ReplaceAllString(again, "") != secs.ReplaceAllString(out, "") {
		t.Errorf("seed 11 again:\n%s\nfirst:\n%s", again, out)
	}
	// Overrides: walks, depth and seed; a deadlock reported with its walk.
	out, _, code = cli("explore", proj, "--walks", "5", "--depth", "40", "--seed", "3", "--config", "plain")
	if code != 3 || !strings.HasPrefix(out, "c [plain]: directed search: 5 walks, depth 40, seed 3: ") ||
		!regexp.MustCompile(`\ndeadlock: nothing is enabled in S\d+, reached by walk \d \(seed 3\) by Inc\(\d\)(, Inc\(\d\)){19} \(check_deadlock`).MatchString(out) {
		t.Errorf("overrides: exit %d\n%s", code, out)
	}
	// No seed: one from the clock, told.
	out, _, _ = cli("explore", proj, "--walks", "2", "--depth", "3", "--config", "plain")
	if !regexp.MustCompile(`^c \[plain\]: directed search: 2 walks, depth 3, seed \d+: `).MatchString(out) {
		t.Errorf("a seed from the clock: %s", out)
	}
	// All walks done, nothing found: exit 0, though partial.
	out, _, code = cli("explore", proj, "--walks", "3", "--depth", "2", "--seed", "1", "--config", "plain")
	if code != 0 || !strings.Contains(out, "3 walks, depth 2, seed 1: ") {
		t.Errorf("exit %d: %s", code, out)
	}
	// --depth and --seed without a directed search are refused.
	if _, errOut, code := cli("explore", proj, "--config", "plain", "--seed", "4"); code != 2 || !strings.Contains(errOut, "--depth and --seed are for a directed search") {
		t.Errorf("--seed alone: exit %d, %s", code, errOut)
	}
	// The graph written is the visited one, its stats say so.
	path := filepath.Join(dir, "g.json")
	if _, errOut, code := cli("explore", proj, "--config", "plain", "--walks", "4", "--depth", "6", "--seed", "2", "--out", path); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var doc struct {
		States []struct {
			Frontier bool `json:"frontier"`
		} `json:"states"`
		Stats struct {
			States    int    `json:"states"`
			Search    string `json:"search"`
			Walks     int    `json:"walks"`
			WalkDepth int    `json:"walk_depth"`
			Frontier  int    `json:"frontier"`
			Seed      int64  `json:"seed"`
		} `json:"stats"`
	}
	data, _ := os.ReadFile(path)
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	frontier := 0
	for _, s := range doc.States {
		if s.Frontier {
			frontier++
		}
	}
	if st := doc.Stats; st.Search != "walks" || st.Walks != 4 || st.WalkDepth != 6 || st.Seed != 2 || st.Frontier == 0 || frontier != st.Frontier || st.States > 4*6+1 {
		t.Errorf("stats %+v, %d frontier states", st, frontier)
	}
}
