package main

import (
	"regexp"
	"strings"
	"testing"
)

// modex explore says, under its summary, how many combinations of an
// action's parameters pairwise takes against the full product: four
// parameters of ten values, 10,000 orders.
func TestExploreCombinedSummary(t *testing.T) {
	out, errOut, code := cli("explore", "--config", "pairwise", "testdata/pairwise/shop.toml")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	re := regexp.MustCompile(`^shop \[pairwise\]: ([0-9]+) states, ([0-9]+) transitions, [0-9]+ tried, [0-9.]+ s, complete\nOrder: pairwise, ([0-9]+) of 10,000 parameter combinations \(at the initial state\)\n$`)
	m := re.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("summary %q", out)
	}
	if m[2] != m[3] || len(m[3]) > 3 {
		t.Errorf("%s transitions for %s combinations: want as many, fewer than 1,000", m[2], m[3])
	}
	t.Logf("%s", out)
	out, _, code = cli("explore", "testdata/pairwise/shop.toml")
	if code != 0 || !strings.Contains(out, "10000 transitions") || strings.Contains(out, "combinations") {
		t.Errorf("the full product: exit %d, %q", code, out)
	}
}
