package campaign

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/nats-io/nkeys"

	"github.com/modex/modex/engine/conform"
)

// The attacks of issue 51 (items 3 and 8) on the coordinator and the
// workers: forged and malformed results, replayed jobs, jobs left on the
// queue, a campaign of a billion runs.

// There is no "any signer": a campaign needs the workers it trusts. On a
// server of the user's, Run with no local workers and no trusted keys
// refuses to start; with local workers, only theirs count.
func TestCampaignNeedsTrustedWorkers(t *testing.T) {
	url := embedded(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	spec := Spec{Key: testKey, ProjectFile: "../projects/chat/chat.toml", Config: "hi_bye", Runs: 20, Steps: 10, Seed: 3, JobRuns: 5}
	if _, err := Coordinate(ctx, url, Auth{}, spec, nil); !errors.Is(err, ErrNoTrustedWorkers) {
		t.Errorf("Coordinate with no trusted workers: %v", err)
	}
	empty := spec
	empty.TrustWorkers = Trust{}
	if _, err := Coordinate(ctx, url, Auth{}, empty, nil); !errors.Is(err, ErrNoTrustedWorkers) {
		t.Errorf("Coordinate with an empty trust: %v", err)
	}
	if _, err := Run(ctx, spec, Where{URL: url}, nil); !errors.Is(err, ErrNoTrustedWorkers) || !strings.Contains(err.Error(), "--trust-worker") {
		t.Errorf("Run on a server with no workers: %v", err)
	}
	if _, err := Run(ctx, spec, Where{Dir: t.TempDir()}, nil); err == nil || !strings.Contains(err.Error(), "at least one local worker") {
		t.Errorf("Run on the embedded server with no workers: %v", err)
	}
	// One local worker against the buggy server; an attacker reads every
	// job (and its nonce) and answers it first with a pass, and with a
	// "fail: -N" meant to cancel the worker's failures, signed by its own
	// key. Only the local worker's results count: the bug is reported.
	bin := buildChat(t)
	nc, err := connect(url, "attacker", Auth{})
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	attacker, _ := NewKey()
	var forged atomic.Int64
	sub, err := nc.Subscribe("modex.jobs.>", func(m *nats.Msg) {
		var j Job
		if json.Unmarshal(m.Data, &j) != nil {
			return
		}
		for _, tally := range []map[conform.Verdict]int{{conform.Pass: j.Runs}, {conform.Pass: 2 * j.Runs, conform.Fail: -j.Runs}} {
			data, _ := json.Marshal(&Result{Campaign: j.Campaign, Job: j.ID, Nonce: j.Nonce, Worker: "local-1", Runs: j.Runs, Tally: tally})
			if out, err := signedMsg(attacker, "modex.results."+j.Campaign, data); err == nil && nc.PublishMsg(out) == nil {
				forged.Add(1)
			}
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Unsubscribe()
	sum, err := Run(ctx, spec, Where{URL: url, Workers: 1, Adapter: bin + " adapter"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if forged.Load() < 8 {
		t.Fatalf("the attacker forged %d results", forged.Load())
	}
	if sum.Runs != 20 || sum.Done != 4 || sum.Tally[conform.Fail] == 0 || sum.Tally[conform.Fail] != len(sum.Failures) ||
		len(sum.Workers) != 1 || sum.Workers["local-1"] != 4 || sum.Untrusted < 4 {
		t.Errorf("forged results counted: %d runs, %d done, %v, workers %v, %d ignored", sum.Runs, sum.Done, sum.Tally, sum.Workers, sum.Untrusted)
	}
}

// A result counts only when every verdict is a known one with a count of
// 0 to the job's runs, the counts add up to its runs, its other figures
// are not negative and its failures are runs of its job: an honest
// worker's 6 failures are not cancelled by a trusted key's "fail: -6".
func TestResultChecks(t *testing.T) {
	spec := Spec{Key: testKey, Runs: 20, JobRuns: 10, Seed: 100, Steps: 5, TrustWorkers: testWorkers}
	if err := spec.defaults(); err != nil {
		t.Fatal(err)
	}
	good := func(job int) Result {
		return Result{Campaign: "c1", Job: job, Nonce: nonce(testKey, "c1", job), Worker: "w", Runs: 10, Steps: 50, Seconds: 1,
			Tally:    map[conform.Verdict]int{conform.Pass: 4, conform.Fail: 6},
			Failures: []Failure{{Seed: uint64(100 + 10*job), Kind: "k", Step: 3}}}
	}
	for _, tc := range []struct {
		name string
		edit func(*Result)
		raw  string // instead of the result, when set
		want string // "" : counted
	}{
		{"honest", func(*Result) {}, "", ""},
		{"fail -6", func(r *Result) { r.Tally = map[conform.Verdict]int{conform.Pass: 16, conform.Fail: -6} }, "", "not 0 to 10"},
		{"an unknown verdict", func(r *Result) { r.Tally = map[conform.Verdict]int{conform.Pass: 9, "maybe": 1} }, "", `unknown verdict "maybe"`},
		{"an empty verdict", func(r *Result) { r.Tally = map[conform.Verdict]int{"": 10} }, "", `unknown verdict ""`},
		{"too few verdicts", func(r *Result) { r.Tally = map[conform.Verdict]int{conform.Pass: 9} }, "", "do not add up"},
		{"runs not the job's", func(r *Result) { r.Runs, r.Tally = 9, map[conform.Verdict]int{conform.Pass: 9} }, "", "do not add up"},
		{"negative steps", func(r *Result) { r.Steps = -1 }, "", "negative figures"},
		{"negative seconds", func(r *Result) { r.Seconds = -3 }, "", "negative figures"},
		{"negative dropped", func(r *Result) { r.Dropped = -5 }, "", "negative figures"},
		{"more dropped than runs", func(r *Result) { r.Dropped = 10 }, "", "do not add up"},
		{"negative runs in an error", func(r *Result) { r.Error, r.Runs = "no adapter", -1 }, "", "negative figures"},
		{"a failure of another job's run", func(r *Result) { r.Failures[0].Seed = 110 }, "", "not one of its runs"},
		{"a failure at a negative step", func(r *Result) { r.Failures[0].Step = -1 }, "", "not one of its runs"},
		{"a job the campaign does not have", func(r *Result) { r.Job = 2 }, "", "does not have"},
		{"a negative job", func(r *Result) { r.Job = -1 }, "", "does not have"},
		{"another job's nonce", func(r *Result) { r.Nonce = nonce(testKey, "c1", 1) }, "", "without the job's nonce"},
		{"a fractional count", nil, `{"campaign":"c1","job":0,"runs":10,"tally":{"pass":9.5,"fail":0.5}}`, "cannot unmarshal"},
	} {
		st := newState(spec, "c1", "h")
		// The honest worker's job 1 first: 6 failures.
		honest := good(1)
		st.merge(signed(t, testWorkerKey, &honest, ""))
		r := good(0)
		if tc.edit != nil {
			tc.edit(&r)
		}
		st.merge(signed(t, testWorkerKey, &r, tc.raw))
		s := st.sum
		switch {
		case tc.want == "" && (s.Untrusted != 0 || s.Runs != 20 || s.Tally[conform.Fail] != 12):
			t.Errorf("%s: not counted: %d runs, %v, %v", tc.name, s.Runs, s.Tally, s.UntrustedWhy)
		case tc.want != "" && (s.Untrusted != 1 || s.Runs != 10 || s.Tally[conform.Fail] != 6 || s.Tally[conform.Pass] != 4 ||
			len(s.UntrustedWhy) != 1 || !strings.Contains(s.UntrustedWhy[0], tc.want)):
			t.Errorf("%s: %d runs, %v, %d ignored: %v (want %q)", tc.name, s.Runs, s.Tally, s.Untrusted, s.UntrustedWhy, tc.want)
		}
	}
	// A trusted key's result under another worker's name is shown with
	// its key; the failures are the signer's.
	st := newState(spec, "c1", "h")
	other, _ := NewKey()
	st.trust = Trust{PublicKey(testWorkerKey): true, PublicKey(other): true}
	r0, r1 := good(0), good(1)
	r1.Failures[0].Worker = "w"
	st.merge(signed(t, testWorkerKey, &r0, ""))
	st.merge(signed(t, other, &r1, ""))
	impostor := "w (" + short(PublicKey(other)) + ")"
	if st.sum.Workers["w"] != 1 || st.sum.Workers[impostor] != 1 || st.sum.Failures[1].Worker != impostor {
		t.Errorf("workers %v, failures by %q", st.sum.Workers, st.sum.Failures[1].Worker)
	}
}

// signed is a result's JSON (or raw, when set) with the headers that sign
// it with key.
func signed(t *testing.T, key nkeys.KeyPair, r *Result, raw string) (nats.Header, []byte) {
	t.Helper()
	data, _ := json.Marshal(r)
	if raw != "" {
		data = []byte(raw)
	}
	m, err := signedMsg(key, "", data)
	if err != nil {
		t.Fatal(err)
	}
	return m.Header, data
}

// A worker refuses a trusted job that has no expiry, expired, expires
// further ahead than a coordinator sets, was run here already (published
// again), or belongs to a campaign it was told ended.
func TestStaleJobsRefused(t *testing.T) {
	w := &Worker{}
	now := time.Now()
	w.seen.ran("c1", 3)
	w.seen.end("c2")
	for _, tc := range []struct {
		job  Job
		want string
	}{
		{Job{Campaign: "c1", ID: 4, Expires: now.Add(time.Hour).Unix()}, ""},
		{Job{Campaign: "c1", ID: 4}, "no expiry"},
		{Job{Campaign: "c1", ID: 4, Expires: now.Add(-time.Second).Unix()}, "expired at"},
		{Job{Campaign: "c1", ID: 4, Expires: -1}, "expired at"},
		{Job{Campaign: "c1", ID: 4, Expires: now.Add(MaxJobTTL + 2*time.Hour).Unix()}, "later than a coordinator sets"},
		{Job{Campaign: "c1", ID: 3, Expires: now.Add(time.Hour).Unix()}, "ran it already"},
		{Job{Campaign: "c2", ID: 0, Expires: now.Add(time.Hour).Unix()}, "campaign ended"},
	} {
		if got := w.stale(&tc.job, now); (got == "") != (tc.want == "") || !strings.Contains(got, tc.want) {
			t.Errorf("%+v: %q, want %q", tc.job, got, tc.want)
		}
	}
	// On a real worker: an expired job and one that lies too far ahead
	// are refused and said so; the job after them runs.
	url := embedded(t)
	bin := buildChat(t)
	w2, results, notes := worker(t, url, bin+" adapter --fixed")
	files := bundle{Project: "chat.toml", Files: chatFiles(t, "", nil)}
	jobOn(t, url, testKey, files, Job{Campaign: "cold", ID: 0, Config: "hi_bye", Runs: 2, Steps: 10, Nonce: "n", Expires: now.Add(-time.Minute).Unix()})
	jobOn(t, url, testKey, files, Job{Campaign: "cold", ID: 1, Config: "hi_bye", Runs: 2, Steps: 10, Nonce: "n", Expires: now.Add(365 * 24 * time.Hour).Unix()})
	// A valid job, published three times (as by an attacker who
	// captured it): it runs once.
	for range 3 {
		jobOn(t, url, testKey, files, Job{Campaign: "cnew", ID: 0, Config: "hi_bye", Runs: 2, Steps: 10, Nonce: "n"})
	}
	jobOn(t, url, testKey, files, Job{Campaign: "cnew", ID: 1, Config: "hi_bye", Runs: 2, Steps: 10, Nonce: "n"})
	for want := range 2 {
		select {
		case r := <-results:
			if r.Campaign != "cnew" || r.Job != want {
				t.Errorf("ran %s/%d", r.Campaign, r.Job)
			}
		case <-time.After(time.Minute):
			t.Fatal("the valid jobs were not run")
		}
	}
	if n := w2.Refused.Load(); n != 4 {
		t.Errorf("%d jobs refused, want 4", n)
	}
	said := ""
	for len(notes) > 0 {
		said += <-notes + "\n"
	}
	if !strings.Contains(said, "job 0 of campaign cold refused: it expired at") || !strings.Contains(said, "job 1 of campaign cold refused: it expires at") ||
		strings.Count(said, "job 0 of campaign cnew refused: this worker ran it already") != 2 {
		t.Errorf("the operator was told:\n%s", said)
	}
}

// A signed job captured and published again (without its message id,
// so that the server keeps every copy) runs once on a worker: copies
// during the campaign are refused as run already, copies after it as of a
// campaign that ended — and a job of that campaign the worker never ran
// too. The campaign's end leaves no job on the queue.
func TestReplayedJobRunsOnce(t *testing.T) {
	url := embedded(t)
	bin := buildChat(t)
	var mu sync.Mutex
	ran := map[string]int{}
	w, results, notes := worker(t, url, bin+" adapter --fixed")
	var said strings.Builder
	go func() {
		for n := range notes {
			mu.Lock()
			said.WriteString(n + "\n")
			mu.Unlock()
		}
	}()
	// The attacker captures every job as it is published.
	nc, err := connect(url, "attacker", Auth{})
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, _ := jetstream.New(nc)
	var capMu sync.Mutex
	var captured []*nats.Msg
	sub, err := nc.Subscribe("modex.jobs.>", func(m *nats.Msg) {
		capMu.Lock()
		captured = append(captured, m)
		capMu.Unlock()
	})
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Unsubscribe()
	nc.Flush()
	capturedJobs := func() []*nats.Msg {
		capMu.Lock()
		defer capMu.Unlock()
		return append([]*nats.Msg(nil), captured...)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	replay := func(m *nats.Msg, times int) {
		for range times {
			again := nats.NewMsg(m.Subject)
			again.Data = m.Data
			for _, h := range []string{hdrSigner, hdrSignature} { // not its message id
				again.Header.Set(h, m.Header.Get(h))
			}
			if _, err := js.PublishMsg(ctx, again); err != nil {
				t.Fatal(err)
			}
		}
	}
	spec := Spec{Key: testKey, ProjectFile: "../projects/chat/chat.toml", Config: "hi_bye", Runs: 20, Steps: 10, Seed: 9, JobRuns: 5, TrustWorkers: testWorkers}
	done := coordinateAsync(ctx, t, url, spec)
	// Job 0 again, five times, once the worker ran it (the campaign's
	// four jobs captured first).
	for len(capturedJobs()) < 4 {
		if ctx.Err() != nil {
			t.Fatal("the jobs were not published")
		}
		time.Sleep(10 * time.Millisecond)
	}
	sub.Unsubscribe()
	all := capturedJobs()
	first := all[0]
	count := func(r Result) {
		mu.Lock()
		ran[fmt.Sprintf("%s/%d", r.Campaign, r.Job)]++
		mu.Unlock()
	}
	for r := range results {
		count(r)
		if r.Job == 0 {
			break
		}
	}
	replay(first, 5)
	sum := <-done
	if sum == nil {
		t.FailNow()
	}
	if sum.Runs != 20 || sum.Done != 4 || sum.Duplicates != 0 {
		t.Errorf("%d runs, %d jobs done, %d duplicates", sum.Runs, sum.Done, sum.Duplicates)
	}
	// The copies the worker had not come to yet went with the campaign's
	// end.
	if n := queued(t, js, "modex.jobs."+sum.Campaign); n != 0 {
		t.Errorf("%d jobs left on the queue after the campaign", n)
	}
	// After the end: every job again, four times each; and a job of the
	// campaign that no worker ran (signed by its coordinator).
	for _, m := range all {
		replay(m, 4)
	}
	var j Job
	json.Unmarshal(first.Data, &j)
	j.ID, j.Expires = 99, time.Now().Add(time.Hour).Unix()
	data, _ := json.Marshal(&j)
	unseen, _ := signedMsg(testKey, first.Subject, data)
	replay(unseen, 1)
	after := 4*len(all) + 1
	told := func() (again, ended int) {
		mu.Lock()
		defer mu.Unlock()
		return strings.Count(said.String(), "refused: this worker ran it already"), strings.Count(said.String(), "refused: its campaign ended")
	}
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if again, ended := told(); again+ended >= after {
			break
		}
	}
	time.Sleep(300 * time.Millisecond) // any job run would show meanwhile
	for len(results) > 0 {
		count(<-results)
	}
	// Every copy is refused, never run: the 17 sent after the end, and
	// those of the 5 sent during the campaign that were not purged with its
	// queue. A copy of a job the worker ran is refused as run already or as
	// of an ended campaign, whichever the worker tells first (the end's
	// notice reaches it on its own), so only the total is fixed.
	again, ended := told()
	during := again + ended - after
	if during < 0 || during > 5 || w.Refused.Load() != int64(again+ended) {
		mu.Lock()
		t.Errorf("%d copies refused as run already, %d as of a campaign that ended: want %d after the end and at most 5 more, %d in all; the operator was told:\n%s",
			again, ended, after, w.Refused.Load(), said.String())
		mu.Unlock()
	}
	t.Logf("%d copies refused as run already, %d as of an ended campaign; of the 5 copies sent during the campaign, %d refused and %d purged", again, ended, during, 5-during)
	for job, n := range ran {
		if n != 1 {
			t.Errorf("job %s ran %d times", job, n)
		}
	}
	if len(ran) != 4 {
		t.Errorf("jobs run: %v", ran)
	}
	if n := queued(t, js, "modex.jobs."+sum.Campaign); n != 0 {
		t.Errorf("%d jobs left on the queue", n)
	}
}

// queued is how many messages the jobs stream holds on subject (which
// may end in >).
func queued(t *testing.T, js jetstream.JetStream, subject string) uint64 {
	t.Helper()
	c, stop := context.WithTimeout(context.Background(), 10*time.Second)
	defer stop()
	s, err := js.Stream(c, jobsStream)
	if err != nil {
		t.Fatal(err)
	}
	info, err := s.Info(c, jetstream.WithSubjectFilter(subject))
	if err != nil {
		t.Fatal(err)
	}
	n := uint64(0)
	for _, k := range info.State.Subjects {
		n += k
	}
	return n
}

// A campaign done while copies of its jobs wait on the queue (published
// again, by an attacker or after the deduplication window) purges them:
// no later worker runs them.
func TestFinishedCampaignLeavesNoJobs(t *testing.T) {
	url := embedded(t)
	spec := Spec{Key: testKey, ProjectFile: "../projects/chat/chat.toml", Config: "hi_bye", Runs: 10, Steps: 10, Seed: 4, JobRuns: 5, TrustWorkers: testWorkers}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	done := coordinateAsync(ctx, t, url, spec)
	// A trusted worker of the test's own: it takes each job, and before
	// answering the last one publishes three copies of each.
	nc, err := connect(url, "worker", Auth{})
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, _ := jetstream.New(nc)
	var cons jetstream.Consumer
	for ctx.Err() == nil {
		if _, err := js.Stream(ctx, jobsStream); err == nil {
			if cons, _, err = setup(ctx, js, nil); err == nil {
				break
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	var jobs []jetstream.Msg
	for len(jobs) < 2 && ctx.Err() == nil {
		batch, err := cons.Fetch(1, jetstream.FetchMaxWait(time.Second))
		if err != nil {
			continue
		}
		jobs = append(jobs, collect(batch)...)
	}
	var id string
	for i, m := range jobs {
		var j Job
		json.Unmarshal(m.Data(), &j)
		id = j.Campaign
		if i == len(jobs)-1 {
			for _, c := range jobs {
				for range 3 {
					again := nats.NewMsg(c.Subject())
					again.Data = c.Data()
					for _, h := range []string{hdrSigner, hdrSignature} { // not its message id
						again.Header.Set(h, c.Headers().Get(h))
					}
					if _, err := js.PublishMsg(ctx, again); err != nil {
						t.Fatal(err)
					}
				}
			}
			if n := queued(t, js, "modex.jobs."+id); n != 7 {
				t.Fatalf("%d jobs on the queue, want 7 (the job taken and 6 copies)", n)
			}
		}
		data, _ := json.Marshal(&Result{Campaign: j.Campaign, Job: j.ID, Nonce: j.Nonce, Worker: "own", Runs: j.Runs, Tally: map[conform.Verdict]int{conform.Pass: j.Runs}})
		out, _ := signedMsg(testWorkerKey, "modex.results."+j.Campaign, data)
		if _, err := js.PublishMsg(ctx, out); err != nil {
			t.Fatal(err)
		}
		m.Ack()
	}
	sum := <-done
	if sum == nil {
		t.FailNow()
	}
	if sum.Runs != 10 || sum.Done != 2 || sum.Campaign != id {
		t.Errorf("%s: %d runs, %d done", sum.Campaign, sum.Runs, sum.Done)
	}
	if n := queued(t, js, "modex.jobs."+id); n != 0 {
		t.Errorf("%d jobs left on the queue after the campaign ended", n)
	}
}

// A campaign of a billion runs publishes its jobs as it goes, never more
// than maxQueued waiting, without holding them in memory, and stops at
// once when cancelled (issue 51, 8: it used to sign every job first, at
// 18 MB/s, deaf to Ctrl-C).
func TestHugeCampaignPublishesProgressively(t *testing.T) {
	url := embedded(t)
	spec := Spec{Key: testKey, ProjectFile: "../projects/chat/chat.toml", Config: "hi_bye", Runs: MaxRuns, Steps: 10, Seed: 1, JobRuns: MaxRuns / MaxJobs,
		TrustWorkers: testWorkers}
	nc, err := connect(url, "watcher", Auth{})
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, _ := jetstream.New(nc)
	var before runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	type outcome struct {
		sum *Summary
		err error
		at  time.Time
	}
	out := make(chan outcome, 1)
	start := time.Now()
	go func() {
		sum, err := Coordinate(ctx, url, Auth{}, spec, nil)
		out <- outcome{sum, err, time.Now()}
	}()
	// The first jobs are on the queue within seconds; the queue stops at
	// maxQueued.
	var first time.Duration
	var n uint64
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if _, err := js.Stream(ctx, jobsStream); err != nil {
			continue
		}
		if n = queued(t, js, "modex.jobs.>"); n > 0 && first == 0 {
			first = time.Since(start)
		}
		if n >= maxQueued {
			break
		}
	}
	full := time.Since(start)
	time.Sleep(time.Second)
	if n = queued(t, js, "modex.jobs.>"); n != maxQueued {
		t.Errorf("%d jobs on the queue, want %d", n, maxQueued)
	}
	var after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&after)
	cancel()
	cancelled := time.Now()
	var o outcome
	select {
	case o = <-out:
	case <-time.After(10 * time.Second):
		t.Fatal("the coordinator did not stop when cancelled")
	}
	grown := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	t.Logf("first job queued after %v, %d after %v; heap grew %d KiB (with the server's); stopped %v after the cancel",
		first, maxQueued, full, grown>>10, o.at.Sub(cancelled))
	if !errors.Is(o.err, context.Canceled) || o.sum == nil || o.sum.Jobs != MaxJobs || o.sum.Done != 0 {
		t.Errorf("%v, %+v", o.err, o.sum)
	}
	if d := o.at.Sub(cancelled); d > 2*time.Second {
		t.Errorf("stopped %v after the cancel", d)
	}
	if grown > 64<<20 {
		t.Errorf("the heap grew %d MiB", grown>>20)
	}
}

// What a worker remembers is bounded: campaigns used longest ago are
// forgotten first, then the lowest jobs of the one in use; a campaign
// that ended keeps no jobs.
func TestSeenJobsBounded(t *testing.T) {
	var s seenJobs
	for i := range maxSeenCampaigns + 10 {
		s.ran(fmt.Sprint("c", i), i)
	}
	if len(s.campaigns) != maxSeenCampaigns || s.campaigns["c0"] != nil || s.refused("c1033", 1033) == "" {
		t.Errorf("%d campaigns kept", len(s.campaigns))
	}
	for j := 0; j < (maxSeenBlocks+5)*seenBlock; j += seenBlock / 2 {
		s.ran("big", j)
	}
	total := 0
	for _, c := range s.campaigns {
		total += len(c.jobs)
	}
	if total != s.blocks || s.blocks > maxSeenBlocks || len(s.campaigns) != 1 {
		t.Errorf("%d blocks (%d counted), %d campaigns", total, s.blocks, len(s.campaigns))
	}
	last := (maxSeenBlocks+5)*seenBlock - seenBlock/2
	if s.refused("big", last) == "" || s.refused("big", 0) != "" || s.refused("big", last+1) != "" {
		t.Error("the latest job forgotten, or the first one kept")
	}
	s.end("big")
	if s.blocks != 0 || s.refused("big", 12345) != "its campaign ended" {
		t.Errorf("%d blocks after the end", s.blocks)
	}
}
