package ui

import (
	"strings"
	"testing"
)

// Once an exploration ends, the status says so, with its counts, while the
// view of its graph is prepared (seconds for a large graph), and then
// gives the result.
func TestStatusWhilePreparingTheView(t *testing.T) {
	b := newBench(t)
	var said []string
	b.wb.onStatus = func(s string) { said = append(said, s) } // on the UI goroutine
	b.open("../projects/chat/chat.toml")
	b.wait()
	if len(said) != 1 {
		t.Fatalf("the status was said %d times: %q", len(said), said)
	}
	want := "Explored: 7 model states, 8 transitions in "
	if !strings.HasPrefix(said[0], want) || !strings.HasSuffix(said[0], "s; preparing the view of the graph…") {
		t.Errorf("while preparing: %q, want %q…", said[0], want)
	}
	if got := b.wb.Status(); strings.Contains(got, "preparing") || !strings.Contains(got, "chat [figure1]: 9 states") {
		t.Errorf("once shown: %q", got)
	}
}
