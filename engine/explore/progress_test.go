package explore

import (
	"regexp"
	"testing"
)

func TestThousandsAndProgressWords(t *testing.T) {
	for n, want := range map[int64]string{0: "0", 999: "999", 1000: "1,000", 1234567: "1,234,567", -45000: "-45,000"} {
		if got := Thousands(n); got != want {
			t.Errorf("Thousands(%d) = %q, want %q", n, got, want)
		}
	}
	got := Progress{States: 1234567, Transitions: 9876543, Tried: 12345678, Rate: 150000.4, Seconds: 25}.String()
	if !regexp.MustCompile(`^1,234,567 states, 9,876,543 transitions, 12,345,678 tried \(150,000/s\), heap \d+(\.\d)? [MG]B, 25\.0 s$`).MatchString(got) {
		t.Errorf("progress in words: %q", got)
	}
}
