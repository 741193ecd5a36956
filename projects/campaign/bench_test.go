package campaign

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/modex/modex/engine/conform"
)

// BenchmarkCoordinatorMerge measures what the coordinator spends on one
// job's result: decoding it and merging its verdicts, coverage and
// failures. The results are real: jobs of 10 runs of the buggy chat server
// (hi_bye, 30 steps), each failure with its saved run, report and path,
// and of the fixed one (no failures).
func BenchmarkCoordinatorMerge(b *testing.B) {
	bin := buildChat(b)
	b.Run("buggy", func(b *testing.B) { benchMerge(b, bin+" adapter") })
	b.Run("fixed", func(b *testing.B) { benchMerge(b, bin+" adapter --fixed") })
}

func benchMerge(b *testing.B, adapter string) {
	url := embedded(b)
	var results [][]byte
	var headers []nats.Header
	key, _ := NewKey()
	w := &Worker{Key: key, Name: "bench", Command: strings.Fields(adapter), Trust: testTrust, CacheDir: b.TempDir(), OnJob: func(j Job, r Result) {
		data, _ := json.Marshal(&r)
		m, _ := signedMsg(key, "", data)
		results = append(results, data)
		headers = append(headers, m.Header)
	}}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	wctx, stop := context.WithCancel(ctx)
	go w.Run(wctx, url, Auth{})
	spec := Spec{Key: testKey, ProjectFile: "../chat/chat.toml", Config: "hi_bye", Runs: 100, Steps: 30, Seed: 1, JobRuns: 10}
	sum, err := Coordinate(ctx, url, Auth{}, spec, nil)
	stop()
	if err != nil {
		b.Fatal(err)
	}
	size := 0
	for _, r := range results {
		size += len(r)
	}
	jobs := make([]Job, len(results))
	for i := range jobs {
		jobs[i] = Job{ID: i, Runs: 10, Nonce: nonce(testKey, sum.Campaign, i)}
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		s := &Summary{Tally: conform.Tally{}, Workers: map[string]int{},
			Covered: conform.Covered{States: map[string]bool{}, Transitions: map[string]bool{}}}
		done := map[int]bool{}
		for i, r := range results {
			s.merge(headers[i], r, sum.Campaign, jobs, done, Trust{PublicKey(key): true})
		}
		if s.Runs != 100 || s.Untrusted != 0 {
			b.Fatalf("merged %d runs", s.Runs)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(results))/1e3, "µs/result")
	b.ReportMetric(float64(size)/float64(len(results)), "bytes/result")
	b.ReportMetric(float64(len(sum.Failures))/float64(len(results)), "failures/result")
}
