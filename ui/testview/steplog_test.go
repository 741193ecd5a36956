package testview

import (
	"fmt"
	"strconv"
	"testing"
)

// The step log keeps at most MaxLogLines lines: the newest, behind one line
// that counts those let go.
func TestStepLogBounded(t *testing.T) {
	tv := &View{}
	n := 0
	for batch := 0; batch < 400; batch++ {
		lines := make([]logLine, 0, 100)
		for i := 0; i < 100; i++ {
			n++
			lines = append(lines, logLine{text: strconv.Itoa(n)})
		}
		tv.appendLines(lines...)
		if len(tv.lines) > MaxLogLines {
			t.Fatalf("after %d lines the log holds %d", n, len(tv.lines))
		}
	}
	body := tv.lines[1:]
	if tv.lines[0].text != fmt.Sprintf("… %d earlier lines not kept (the log keeps the last %d)", n-len(body), MaxLogLines*9/10) || !tv.lines[0].title {
		t.Errorf("first line %q with %d lines kept of %d", tv.lines[0].text, len(body), n)
	}
	for i, l := range body {
		if want := strconv.Itoa(n - len(body) + 1 + i); l.text != want {
			t.Fatalf("line %d is %q, want %q: not the newest lines in order", i, l.text, want)
		}
	}
}
