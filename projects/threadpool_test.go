package projects

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modex/modex/engine/conform"
)

func replayFile(t testing.TB, path string) *conform.ReplayResult {
	t.Helper()
	p, m, cfg := sample(t, "threadpool", "")
	rc, err := p.ReplayConfig(m)
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	recs, err := conform.ParseTrace(path, data)
	if err != nil {
		t.Fatal(err)
	}
	res, err := conform.Replay(context.Background(), m, cfg, recs, rc)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// Traces recorded from the real pool replay: the correct build's pass, the
// buggy build's fail at the second dequeue of one task.
func TestThreadPoolTraces(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "pool")
	if msg, err := exec.Command("go", "build", "-o", bin, "./threadpool/impl").CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, msg)
	}
	dir := t.TempDir()
	for seed := 1; seed <= 5; seed++ {
		out := filepath.Join(dir, fmt.Sprintf("good-%d.xml", seed))
		if msg, err := exec.Command(bin, "--workers", "3", "--tasks", "15", "--seed", fmt.Sprint(seed), "--out", out).CombinedOutput(); err != nil {
			t.Fatalf("%v\n%s", err, msg)
		}
		if res := replayFile(t, out); res.Verdict != conform.Pass {
			t.Fatalf("correct build, seed %d: %+v %+v", seed, res, res.Failure)
		}
	}
	failed := 0
	for seed := 1; seed <= 10; seed++ {
		out := filepath.Join(dir, fmt.Sprintf("bad-%d.xml", seed))
		if msg, err := exec.Command(bin, "--workers", "3", "--tasks", "15", "--seed", fmt.Sprint(seed), "--buggy", "--out", out).CombinedOutput(); err != nil {
			t.Fatalf("%v\n%s", err, msg)
		}
		res := replayFile(t, out)
		if res.Verdict != conform.Fail {
			continue
		}
		failed++
		// The right event: a dequeue of a task another worker took already.
		data, _ := os.ReadFile(out)
		lines := strings.Split(string(data), "\n")
		bad := res.Failure
		if !strings.HasPrefix(bad.Event, "dequeue(") {
			t.Fatalf("seed %d failed at %s, not at a dequeue", seed, bad.Event)
		}
		i := strings.Index(bad.Event, "info=")
		if i < 0 {
			t.Fatalf("seed %d: the failing event %s names no task", seed, bad.Event)
		}
		task := strings.TrimSuffix(bad.Event[i:], ")") // info="task N - …"
		earlier := 0
		for _, l := range lines[:bad.Line-1] {
			if strings.Contains(l, "<dequeue") && strings.Contains(l, task) {
				earlier++
			}
		}
		if earlier == 0 {
			t.Errorf("seed %d failed at line %d (%s), but no earlier dequeue took %s", seed, bad.Line, bad.Event, task)
		}
	}
	if failed == 0 {
		t.Fatal("no trace of the buggy build failed")
	}
}

// The traces kept with the sample replay as documented.
func TestThreadPoolSampleTraces(t *testing.T) {
	for _, tc := range []struct {
		file    string
		verdict conform.Verdict
	}{
		{"correct-1.xml", conform.Pass}, {"correct-2.xml", conform.Pass}, {"buggy-1.xml", conform.Fail},
		// Exactly the format of seed 004's Figure 5.4: createThreads with
		// number, info attributes, ten-digit thread ids; ten workers.
		{"ask-figure-5.4.xml", conform.Pass},
	} {
		if res := replayFile(t, filepath.Join("threadpool", "traces", tc.file)); res.Verdict != tc.verdict {
			t.Errorf("%s: %s, want %s", tc.file, res.Verdict, tc.verdict)
		}
	}
}

// BenchmarkReplay measures replay throughput on a 100,000-event trace of the
// thread pool, whose scheduling choice (which idle worker takes a task) the
// replay resolves by tracking several candidate states.
func BenchmarkReplay(b *testing.B) {
	bin := filepath.Join(b.TempDir(), "pool")
	if msg, err := exec.Command("go", "build", "-o", bin, "./threadpool/impl").CombinedOutput(); err != nil {
		b.Fatalf("%v\n%s", err, msg)
	}
	out := filepath.Join(b.TempDir(), "big.xml")
	// 4 workers, 33,000 tasks: 3 events a task, about 100,000 events.
	if msg, err := exec.Command(bin, "--workers", "4", "--tasks", "33000", "--seed", "1", "--out", out).CombinedOutput(); err != nil {
		b.Fatalf("%v\n%s", err, msg)
	}
	var res *conform.ReplayResult
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		res = replayFile(b, out)
		if res.Verdict != conform.Pass {
			b.Fatalf("%+v", res.Failure)
		}
	}
	b.ReportMetric(float64(res.Total), "events")
	b.ReportMetric(float64(res.Total)/res.Seconds, "events/s")
	b.ReportMetric(float64(res.MaxStates), "max-candidates")
}
