package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// modex replay checks a concurrent history: the verdict, the longest
// linearizable prefix, the operation that cannot be placed and why, the
// timeline; a folder mixes histories, traces and files that are neither.
func TestReplayHistory(t *testing.T) {
	dir := t.TempDir()
	svg := filepath.Join(dir, "t.svg")
	out, errOut, code := cli("replay", "../projects/register/register.toml", "../projects/register/histories/etcd_000.log", "--timeline", svg)
	for _, want := range []string{
		"etcd_000.log: fail: not linearizable (85 operations of 19 processes",
		"the history up to line 85 linearizes (43 operations placed); then",
		"FAIL at line 86: read() → 2 by process 11 (invoked at line 85) cannot be placed",
		"read() returned 2, but after the prefix the model's read() gives 0",
		"model state after the prefix: v = 0",
		"timeline: " + svg,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q\nexit %d\n%s%s", want, code, out, errOut)
		}
	}
	if data, err := os.ReadFile(svg); code != 1 || err != nil || !strings.Contains(string(data), "cannot be placed") {
		t.Errorf("exit %d, timeline %v", code, err)
	}
	// JSON lines, by key; a history with a bad line; a trace; all at once.
	os.WriteFile(filepath.Join(dir, "a.jsonl"), []byte(`{"type": "invoke", "f": "put", "key": "k", "value": "x", "process": 1}
{"type": "invoke", "f": "get", "key": "k", "value": null, "process": 2}
{"type": "ok", "f": "get", "key": "k", "value": "x", "process": 2}
{"type": "invoke", "f": "get", "key": "j", "value": null, "process": 3}
{"type": "ok", "f": "get", "key": "j", "value": "", "process": 3}
`), 0o644)
	os.WriteFile(filepath.Join(dir, "b.edn"), []byte("{:type :invoke, :f :get, :key \"k\", :process 0}\n{:type :ok, :f :put, :key \"k\", :process 0}\n"), 0o644)
	out, errOut, code = cli("replay", "../projects/kv/kv.toml", dir)
	for _, want := range []string{
		"a.jsonl: pass: linearizable (3 operations of 3 processes in 2 independent parts",
		"b.edn: not replayed: " + filepath.Join(dir, "b.edn") + ":2: process 0 completes put but invoked get at line 1",
		"kv [short]: 2 traces: 1 pass, 0 fail, 0 inconclusive, 1 could not be read",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q\nexit %d\n%s%s", want, code, out, errOut)
		}
	}
	// A budget too short to decide: inconclusive, and it says why.
	out, _, code = cli("replay", "../projects/kv/kv.toml", "../projects/kv/histories/c50-ok.edn", "--time-budget", "1ms")
	if code != 0 || !strings.Contains(out, "inconclusive: the search ran out of its time budget (1ms)") {
		t.Errorf("exit %d\n%s", code, out)
	}
}
