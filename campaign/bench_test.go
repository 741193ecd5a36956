package campaign

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
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
	spec := Spec{Key: testKey, ProjectFile: "../projects/chat/chat.toml", Config: "hi_bye", Runs: 100, Steps: 30, Seed: 1, JobRuns: 10, TrustWorkers: Trust{PublicKey(key): true}}
	sum, err := Coordinate(ctx, url, Auth{}, spec, nil)
	stop()
	if err != nil {
		b.Fatal(err)
	}
	size := 0
	for _, r := range results {
		size += len(r)
	}
	spec.defaults()
	hash := bundleHash(b, spec.ProjectFile)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		st := newState(spec, sum.Campaign, hash)
		for i, r := range results {
			st.merge(headers[i], r)
		}
		if s := st.sum; s.Runs != 100 || s.Untrusted != 0 {
			b.Fatalf("merged %d runs", s.Runs)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(results))/1e3, "µs/result")
	b.ReportMetric(float64(size)/float64(len(results)), "bytes/result")
	b.ReportMetric(float64(len(sum.Failures))/float64(len(results)), "failures/result")
}
