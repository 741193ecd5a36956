package projects

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/modex/modex/engine/conform"
)

// Coverage counts only the states and transitions of the configuration's
// graph: with a grouping (chat's figure1 keeps one state per entering
// order) the test meets more concrete states than the graph has, and those
// are said apart, never counted as covering it (no "8 of 7").
func TestCoverageCountsTheGraphsStates(t *testing.T) {
	bin := buildChatImpl(t)
	res := chatTest(t, bin, "figure1", true, conform.TestConfig{Runs: 20, Steps: 30, Seed: 1})
	_, m, cfg := sample(t, "chat", "figure1")
	size, err := conform.SizeOf(context.Background(), m, cfg, 1000, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	got := res.Coverage(size)
	var x, y, a, b int
	if _, err := fmt.Sscanf(got, "covered %d of %d states and %d of %d transitions", &x, &y, &a, &b); err != nil {
		t.Fatalf("%q: %v", got, err)
	}
	if y != 7 || x > y || a > b || x == 0 {
		t.Errorf("%q", got)
	}
	if res.States > x && !strings.Contains(got, fmt.Sprintf("%d more state", res.States-x)) {
		t.Errorf("%d states met, %d in the graph, but %q does not say so", res.States, x, got)
	}
}
