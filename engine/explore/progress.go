package explore

import (
	"fmt"
	"runtime/metrics"
	"strings"
)

// String is the progress in words, as modex explore prints it and the
// workbench shows it: "1,234,567 states, 9,876,543 transitions, 12,345,678
// tried (150,000/s), heap 1.2 GB, 25.0 s" (the heap read now).
func (p Progress) String() string {
	return fmt.Sprintf("%s states, %s transitions, %s tried (%s/s), heap %s, %.1f s",
		Thousands(int64(p.States)), Thousands(int64(p.Transitions)), Thousands(p.Tried), Thousands(int64(p.Rate)), heapSize(), p.Seconds)
}

// heapSize is the Go heap's objects now, in MB or GB.
func heapSize() string {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	b := float64(s[0].Value.Uint64())
	if b >= 1<<30 {
		return fmt.Sprintf("%.1f GB", b/(1<<30))
	}
	return fmt.Sprintf("%.0f MB", b/(1<<20))
}

// Thousands writes n with commas between thousands: 1,234,567.
func Thousands(n int64) string {
	s := fmt.Sprint(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}
