package campaign

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/modex/modex/engine/conform"
)

// bigFailure is a failure of run seed whose path is n bytes of noise (it
// does not compress), with a saved run that reads back.
func bigFailure(t *testing.T, seed uint64, n int) Failure {
	t.Helper()
	noise := make([]byte, n)
	rand.Read(noise)
	saved := &conform.SavedRun{Format: conform.RunFormat, Project: "p", Config: "c", Seed: seed, Verdict: conform.Fail,
		Failure: &conform.SavedFail{Kind: "output-mismatch", Step: 2, Message: "m"},
		Trace:   []conform.SavedStep{{Kind: "controllable", Action: "push", Args: []string{"1"}}, {Kind: "controllable", Action: "pop", Failing: true}}}
	return Failure{Seed: seed, Kind: "output-mismatch", Step: 2, Message: "wrong output", Saved: rawRun(saved), Report: "the report",
		Path: []conform.PathStep{{Kind: "controllable", Label: "push(1)", From: []byte("s0"), To: noise}}}
}

// sameJSON tells whether two JSON documents are the same but for spaces.
func sameJSON(a, b []byte) bool {
	var ca, cb bytes.Buffer
	return json.Compact(&ca, a) == nil && json.Compact(&cb, b) == nil && bytes.Equal(ca.Bytes(), cb.Bytes())
}

// A result too big for a message sends its failures' details apart, in
// parts that each fit: the coordinator puts them back whole when the
// result comes, and says why for a failure whose parts did not all come
// or do not match; the parts held are let go.
func TestDetailsSentApart(t *testing.T) {
	spec := Spec{Key: testKey, Runs: 20, JobRuns: 10, Seed: 100, Steps: 5, TrustWorkers: testWorkers}
	if err := spec.defaults(); err != nil {
		t.Fatal(err)
	}
	const limit = 8 << 10
	mk := func(job int) (Result, []Failure) {
		r := Result{Campaign: "c1", Job: job, Nonce: nonce(testKey, "c1", job), Worker: "w", Runs: 10, Steps: 50,
			Tally: map[conform.Verdict]int{conform.Pass: 6, conform.Fail: 4}}
		for i := range 4 {
			// A path of 20 KB: more than a message, in parts of 5 KB.
			r.Failures = append(r.Failures, bigFailure(t, uint64(100+10*job+i), 20<<10))
		}
		return r, append([]Failure(nil), r.Failures...)
	}
	for _, tc := range []struct {
		name  string
		edit  func(parts []runPart) []runPart
		lost  string // why the failures lost came without their run
		nlost int
	}{
		{"whole", func(p []runPart) []runPart { return p }, "", 0},
		{"a part missing", func(p []runPart) []runPart { return p[1:] }, "parts came", 1},
		{"a part changed", func(p []runPart) []runPart { p[0].Data = bytes.Repeat([]byte("x"), len(p[0].Data)); return p }, "do not match", 1},
		{"no part", func([]runPart) []runPart { return nil }, "none of its parts came", 4},
	} {
		st := newState(spec, "c1", "h")
		r, want := mk(0)
		data, parts := pack(&r, limit)
		if len(data) > limit-1024 || len(parts) < 4*4 || r.Dropped != 0 {
			t.Fatalf("%s: a result of %d bytes, %d parts, %d dropped", tc.name, len(data), len(parts), r.Dropped)
		}
		for _, p := range tc.edit(parts) {
			b, _ := json.Marshal(&p)
			if len(b) > limit-1024 || !isPart(b) {
				t.Fatalf("%s: a part of %d bytes", tc.name, len(b))
			}
			h, b := signed(t, testWorkerKey, nil, string(b))
			st.takePart(h, b)
		}
		if isPart(data) {
			t.Fatal("a result taken for a part")
		}
		h, _ := signed(t, testWorkerKey, nil, string(data))
		st.merge(h, data)
		s := st.sum
		if s.Runs != 10 || len(s.Failures) != 4 || st.partBytes != 0 || len(st.parts) != 0 || s.Untrusted != 0 {
			t.Fatalf("%s: %d runs, %d failures, %d bytes of parts held, %v", tc.name, s.Runs, len(s.Failures), st.partBytes, s.UntrustedWhy)
		}
		lost := 0
		for i, f := range s.Failures {
			switch {
			case f.Lost != "":
				lost++
				if f.Saved != nil || f.Seed != want[i].Seed || !strings.Contains(f.Lost, tc.lost) {
					t.Errorf("%s: failure %d: %q (want %q)", tc.name, i, f.Lost, tc.lost)
				}
			case !bytes.Equal(f.Path[0].To, want[i].Path[0].To) || f.Report != want[i].Report || !sameJSON(f.Saved, want[i].Saved) ||
				f.Worker != "w" || f.Detail != nil:
				t.Errorf("%s: failure %d came back with %d path steps, report %q", tc.name, i, len(f.Path), f.Report)
			}
		}
		if lost != tc.nlost || s.Lost != lost {
			t.Errorf("%s: %d failures lost (%d counted), want %d", tc.name, lost, s.Lost, tc.nlost)
		}
	}
	// Parts of an untrusted sender are ignored and counted; those of a job
	// done already are not held.
	st := newState(spec, "c1", "h")
	r, _ := mk(1)
	data, parts := pack(&r, limit)
	other, _ := NewKey()
	b, _ := json.Marshal(&parts[0])
	st.takePart(signed(t, other, nil, string(b)))
	if st.sum.Untrusted != 1 || st.partBytes != 0 {
		t.Errorf("an untrusted part: %d ignored, %d bytes held", st.sum.Untrusted, st.partBytes)
	}
	h, _ := signed(t, testWorkerKey, nil, string(data))
	st.merge(h, data)
	st.takePart(signed(t, testWorkerKey, nil, string(b)))
	if st.partBytes != 0 || st.sum.Lost != 4 || st.sum.Failures[0].Lost == "" {
		t.Errorf("a part after its result: %d bytes held; %q", st.partBytes, st.sum.Failures[0].Lost)
	}
}

// A coordinator keeps every failure whole on disk as it arrives, the first
// ones whole in memory too: a failure past those loads back whole from its
// file; one it could not keep says why.
func TestFailureFilesLoad(t *testing.T) {
	dir := t.TempDir()
	store := openStore(dir, "c0123456789abcdef")
	s := &Summary{Tally: conform.Tally{}, Workers: map[string]int{}, store: store,
		Covered: conform.Covered{States: map[string]bool{}, Transitions: map[string]bool{}}}
	defer func(n int) { detailedFailures = n }(detailedFailures)
	detailedFailures = 3
	r := &Result{Campaign: "c", Job: 0, Worker: "w", Runs: 10, Tally: map[conform.Verdict]int{conform.Fail: 10}}
	for i := range 10 {
		r.Failures = append(r.Failures, bigFailure(t, uint64(i), 100))
	}
	r.Failures[9].Saved = nil // its worker could not send it
	s.add(r)
	if s.Kept != 9 || s.Lost != 1 || s.Stripped != 7 {
		t.Errorf("%d kept, %d lost, %d stripped", s.Kept, s.Lost, s.Stripped)
	}
	for i, f := range s.Failures {
		if i >= 3 && (f.Saved != nil || f.Report != "") {
			t.Errorf("failure %d kept whole in memory", i)
		}
		whole, err := f.Load()
		if i == 9 {
			if err == nil || !strings.Contains(err.Error(), "did not send its run") {
				t.Errorf("failure %d: %v", i, err)
			}
			continue
		}
		if err != nil || whole.Report != "the report" || len(whole.Path) != 1 || whole.Seed != uint64(i) {
			t.Errorf("failure %d: %v, %+v", i, err, whole)
		}
	}
	files, _ := os.ReadDir(store.dir)
	if len(files) != 9 || filepath.Dir(store.dir) != dir {
		t.Errorf("%d files in %s", len(files), store.dir)
	}
	if info, err := os.Stat(store.dir); err != nil || info.Mode().Perm() != 0o700 {
		t.Errorf("the folder of failures: %v %v", info.Mode(), err)
	}
	// A file gone, or not a failure: said so, with its name.
	os.Remove(s.Failures[5].File)
	os.WriteFile(s.Failures[6].File, []byte("{}"), 0o600)
	for _, i := range []int{5, 6} {
		if _, err := s.Failures[i].Load(); err == nil || !strings.Contains(err.Error(), s.Failures[i].File) {
			t.Errorf("failure %d: %v", i, err)
		}
	}
}

// The campaign in small: many failing runs, jobs whose results do
// not fit the server's messages (lowered to 24 KiB) and failures whose
// path alone is bigger than a message. Every failure can be opened: the
// ones past those kept in memory load back whole from their files, each
// with its saved run ending at its failing step, its report and its path.
func TestEveryFailureOpens(t *testing.T) {
	defer func(n int) { detailedFailures = n }(detailedFailures)
	detailedFailures = 5
	bin := buildChat(t)
	url := embedded(t)
	const limit = 24 << 10 // the job's coverage takes 13 KB of it
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	var wg sync.WaitGroup
	wctx, stop := context.WithCancel(ctx)
	defer func() { stop(); wg.Wait() }()
	cache := t.TempDir()
	for i := range 2 {
		w := &Worker{Name: fmt.Sprintf("w%d", i+1), Command: []string{bin, "adapter"}, Trust: testTrust, Key: testWorkerKey, CacheDir: cache,
			messageLimit: limit}
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := w.Run(wctx, url, Auth{}); err != nil {
				t.Error(err)
			}
		}()
	}
	dir := t.TempDir()
	spec := Spec{Key: testKey, ProjectFile: "../projects/chat/chat.toml", Config: "hi_bye", Runs: 60, Steps: 100, Seed: 7, JobRuns: 10,
		TrustWorkers: testWorkers, FailuresDir: dir}
	var fresh []Failure
	sum, err := Coordinate(ctx, url, Auth{}, spec, func(p Progress) { fresh = append(fresh, p.New...) })
	if err != nil {
		t.Fatal(err)
	}
	fails := sum.Tally[conform.Fail]
	if fails < 20 || len(sum.Failures) != fails || len(fresh) != fails || len(sum.JobErrors) > 0 || sum.Kept != fails || sum.Lost != 0 ||
		sum.Stripped != fails-detailedFailures || sum.FailuresDir != filepath.Join(dir, sum.Campaign) {
		t.Fatalf("%v: %d failures (%d reported), %d kept, %d lost, %d stripped, in %s; %v", sum.Tally, len(sum.Failures), len(fresh),
			sum.Kept, sum.Lost, sum.Stripped, sum.FailuresDir, sum.JobErrors)
	}
	longer := 0 // failures whose path alone is more than a message
	kinds := map[string]int{}
	for _, f := range fresh {
		whole, err := f.Load()
		if err != nil {
			t.Errorf("seed %d: %v", f.Seed, err)
			continue
		}
		saved, err := conform.ReadSavedRun(bytes.NewReader(whole.Saved))
		if err != nil || saved.Failure == nil || saved.Failure.Step != f.Step || string(saved.Failure.Kind) != f.Kind || saved.Seed != f.Seed {
			t.Errorf("seed %d: its saved run: %v %+v", f.Seed, err, saved)
			continue
		}
		kinds[f.Kind]++
		if last := saved.Trace[len(saved.Trace)-1]; (saved.Failure.Kind == conform.FailOutput || saved.Failure.Kind == conform.FailUnexpected) && !last.Failing {
			t.Errorf("seed %d: its saved run ends with %+v, not its failing step", f.Seed, last)
		}
		path, _ := json.Marshal(whole.Path)
		if len(path) > limit {
			longer++
		}
		if whole.Report == "" || len(whole.Path) == 0 || whole.Worker == "" {
			t.Errorf("seed %d: report %q, %d path steps, worker %q", f.Seed, whole.Report, len(whole.Path), whole.Worker)
		}
	}
	if longer == 0 {
		t.Error("no failure's path was longer than a message: the test tests nothing")
	}
	t.Logf("%d failures (%v), %d with a path longer than a message", fails, kinds, longer)
	// Details went apart, and every file is whole: no temporary file left.
	if n := countParts(ctx, t, url, sum.Campaign); n == 0 {
		t.Error("no failure's details were sent apart")
	}
	files, _ := os.ReadDir(sum.FailuresDir)
	if len(files) != fails {
		t.Errorf("%d files for %d failures in %s", len(files), fails, sum.FailuresDir)
	}
	for _, f := range files {
		if !strings.HasPrefix(f.Name(), "seed") || !strings.HasSuffix(f.Name(), ".json") {
			t.Errorf("%s in the folder of failures", f.Name())
		}
	}
}

// countParts counts the parts of failures' details of campaign on the
// results stream.
func countParts(ctx context.Context, t *testing.T, url, campaign string) int {
	t.Helper()
	nc, err := connect(url, "test", Auth{})
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, _ := jetstream.New(nc)
	c, err := js.OrderedConsumer(ctx, resultsStream, jetstream.OrderedConsumerConfig{FilterSubjects: []string{"modex.results." + campaign}})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for {
		batch, err := c.FetchNoWait(100)
		if err != nil {
			t.Fatal(err)
		}
		got := 0
		for m := range batch.Messages() {
			got++
			if isPart(m.Data()) {
				n++
			}
		}
		if got == 0 {
			return n
		}
	}
}
