package campaign

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/modex/modex/engine/conform"
)

func buildChat(t testing.TB) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "chatimpl")
	if msg, err := exec.Command("go", "build", "-o", bin, "../projects/chat/impl").CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, msg)
	}
	return bin
}

// startWorkers runs n workers until the test ends.
func startWorkers(t *testing.T, url string, n int, adapter string) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	t.Cleanup(func() { cancel(); wg.Wait() })
	cache := t.TempDir()
	for i := range n {
		w := &Worker{Name: fmt.Sprintf("w%d", i+1), Command: strings.Fields(adapter), Trust: testTrust, Key: testWorkerKey, CacheDir: cache}
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := w.Run(ctx, url, Auth{}); err != nil {
				t.Error(err)
			}
		}()
	}
}

// coordinateAsync runs a campaign's coordinator in the background; its
// summary comes on the channel (nil when it failed).
func coordinateAsync(ctx context.Context, t *testing.T, url string, spec Spec) <-chan *Summary {
	done := make(chan *Summary, 1)
	go func() {
		sum, err := Coordinate(ctx, url, Auth{}, spec, nil)
		if err != nil {
			t.Error(err)
		}
		done <- sum
	}()
	return done
}

// testKey signs the tests' campaigns; testTrust is what their workers
// trust. testWorkerKey signs their workers' results; testWorkers is what
// their coordinators trust.
var (
	testKey, _       = NewKey()
	testTrust        = Trust{PublicKey(testKey): true}
	testWorkerKey, _ = NewKey()
	testWorkers      = Trust{PublicKey(testWorkerKey): true}
)

// embedded starts a NATS server listening on a port of 127.0.0.1 that
// asks for a user and password (in the URL returned), as a user's own
// server would.
func embedded(t testing.TB) string {
	t.Helper()
	user, password := randomToken(), randomToken()
	s, err := server.NewServer(&server.Options{Host: "127.0.0.1", Port: -1, JetStream: true, StoreDir: t.TempDir(),
		NoSigs: true, NoLog: true, Username: user, Password: password})
	if err != nil {
		t.Fatal(err)
	}
	s.Start()
	if !s.ReadyForConnections(10 * time.Second) {
		t.Fatal("the test's NATS server did not start")
	}
	t.Cleanup(s.Shutdown)
	return strings.Replace(s.ClientURL(), "nats://", "nats://"+user+":"+password+"@", 1)
}

// A campaign of 40 runs in jobs of 10 against the buggy chat server, on an
// embedded server with two workers: every run counted once, the bug found,
// the coverage merged; the fixed server passes.
func TestCampaignFindsTheBug(t *testing.T) {
	bin := buildChat(t)
	url := embedded(t)
	startWorkers(t, url, 2, bin+" adapter")
	spec := Spec{Key: testKey, ProjectFile: "../projects/chat/chat.toml", Config: "hi_bye", Runs: 40, Steps: 30, Seed: 1, JobRuns: 10, TrustWorkers: testWorkers}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var fresh []Failure // as they arrived
	var last Progress
	sum, err := Coordinate(ctx, url, Auth{}, spec, func(p Progress) {
		fresh = append(fresh, p.New...)
		last = p
	})
	if err != nil {
		t.Fatal(err)
	}
	checkProgress(t, sum, fresh, last)
	if sum.Jobs != 4 || sum.Done != 4 || sum.Runs != 40 || len(sum.JobErrors) > 0 {
		t.Fatalf("%d jobs, %d done, %d runs, errors %v", sum.Jobs, sum.Done, sum.Runs, sum.JobErrors)
	}
	if sum.Tally[conform.Fail] == 0 || len(sum.Failures) != sum.Tally[conform.Fail] || len(sum.Covered.States) == 0 {
		t.Fatalf("tally %v, %d failures, %d states covered", sum.Tally, len(sum.Failures), len(sum.Covered.States))
	}
	if _, err := conform.ReadSavedRun(bytes.NewReader(sum.Failures[0].Saved)); err != nil {
		t.Errorf("the failure's saved run does not read back: %v", err)
	}
	fixed := spec
	fixed.Seed = 1000 // another campaign
	// The buggy workers are still there: a campaign of the fixed server
	// needs workers of the fixed server only, so run it on its own server.
	url2 := embedded(t)
	startWorkers(t, url2, 2, bin+" adapter --fixed")
	sum2, err := Coordinate(ctx, url2, Auth{}, fixed, nil)
	if err != nil {
		t.Fatal(err)
	}
	if sum2.Runs != 40 || sum2.Tally[conform.Pass] != 40 {
		t.Errorf("fixed server: %d runs, %v", sum2.Runs, sum2.Tally)
	}
}

// A job taken by a worker that dies (never acknowledges) goes to another
// after the ack wait and is counted once; a result published twice counts
// once.
func TestCampaignRedeliveryAndDuplicates(t *testing.T) {
	bin := buildChat(t)
	url := embedded(t)
	workerKey, _ := NewKey()
	spec := Spec{Key: testKey, ProjectFile: "../projects/chat/chat.toml", Config: "hi_bye", Runs: 30, Steps: 20, Seed: 7, JobRuns: 10, AckWait: 2 * time.Second,
		TrustWorkers: Trust{PublicKey(workerKey): true}}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	nc, err := connect(url, "test", Auth{})
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, _ := jetstream.New(nc)
	s := spec
	s.defaults()
	cons, _, err := setup(ctx, js, &s)
	if err != nil {
		t.Fatal(err)
	}
	// A dead worker: it takes the first job published and never answers.
	stolen := make(chan int, 1)
	go func() {
		for ctx.Err() == nil {
			batch, err := cons.Fetch(1, jetstream.FetchMaxWait(time.Second))
			if err != nil {
				continue
			}
			for m := range batch.Messages() {
				var j Job
				json.Unmarshal(m.Data(), &j)
				stolen <- j.ID
				return
			}
		}
	}()
	done := coordinateAsync(ctx, t, url, spec)
	var job int
	select {
	case job = <-stolen:
	case <-time.After(time.Minute):
		t.Fatal("the dead worker took no job")
	}
	// A live worker whose first result is published twice (as by a worker
	// that died after publishing, before acknowledging, and whose job ran
	// again).
	var once sync.Once
	w := &Worker{Key: workerKey, Name: "live", Command: strings.Fields(bin + " adapter"), Trust: testTrust, CacheDir: t.TempDir(), OnJob: func(j Job, r Result) {
		once.Do(func() {
			data, _ := json.Marshal(&r)
			m, _ := signedMsg(workerKey, "modex.results."+j.Campaign, data)
			js.PublishMsg(ctx, m, jetstream.WithMsgID("again"))
		})
	}}
	wctx, stop := context.WithCancel(ctx)
	defer stop()
	go w.Run(wctx, url, Auth{})
	sum := <-done
	if sum == nil {
		t.FailNow()
	}
	if sum.Runs != 30 || sum.Done != 3 || sum.Duplicates != 1 || sum.Workers["live"] != 3 {
		t.Errorf("job %d stolen: %d runs, %d done, %d duplicates, workers %v (want 30, 3, 1, live 3)", job, sum.Runs, sum.Done, sum.Duplicates, sum.Workers)
	}
}

// A coordinator stopped in the middle and started again with the same spec
// resumes the campaign: every job counted once.
func TestCoordinatorRestartResumes(t *testing.T) {
	bin := buildChat(t)
	url := embedded(t)
	startWorkers(t, url, 1, bin+" adapter --fixed")
	spec := Spec{Key: testKey, ProjectFile: "../projects/chat/chat.toml", Config: "hi_bye", Runs: 60, Steps: 20, Seed: 11, JobRuns: 10, TrustWorkers: testWorkers}
	ctx, cancel := context.WithCancel(context.Background())
	first, err := Coordinate(ctx, url, Auth{}, spec, func(p Progress) {
		if p.Done >= 2 {
			cancel() // the coordinator "crashes" with jobs left
		}
	})
	if err == nil || first.Runs >= 60 {
		t.Fatalf("the first coordinator was not stopped midway: %v, %d runs", err, first.Runs)
	}
	ctx2, cancel2 := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel2()
	sum, err := Coordinate(ctx2, url, Auth{}, spec, nil)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Runs != 60 || sum.Done != 6 || sum.Tally[conform.Pass] != 60 || sum.Campaign != first.Campaign {
		t.Errorf("after the restart: %s (was %s), %d runs, %d jobs done, %v", sum.Campaign, first.Campaign, sum.Runs, sum.Done, sum.Tally)
	}
	// Once it ended, the same campaign started again runs afresh (a new
	// run id; its jobs are published again, not taken for duplicates):
	// twice.
	for n := 1; n <= 2; n++ {
		again, err := Coordinate(ctx2, url, Auth{}, spec, nil)
		if err != nil {
			t.Fatal(err)
		}
		if want := fmt.Sprintf("%s-%d", first.Campaign, n); again.Campaign != want || again.Runs != 60 || again.Done != 6 || again.Duplicates != 0 {
			t.Errorf("started again: %s (want %s), %d runs, %d jobs done, %d duplicates", again.Campaign, want, again.Runs, again.Done, again.Duplicates)
		}
	}
}

// A bundle is untrusted input: a wrong hash, a path leaving its folder and
// a missing project file are refused; a good one extracts once.
func TestBundleChecks(t *testing.T) {
	data, hash, err := makeBundle("../projects/chat/chat.toml")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if _, err := extractBundle(data, strings.Repeat("0", 64), dir); err == nil {
		t.Error("a bundle with the wrong hash was extracted")
	}
	path, err := extractBundle(data, hash, dir)
	if err != nil || filepath.Base(path) != "chat.toml" {
		t.Fatalf("%s, %v", path, err)
	}
	if again, ok := extracted(dir, hash); !ok || again != path {
		t.Errorf("not found again: %s %v", again, ok)
	}
	for name, b := range map[string]bundle{
		"escape":  {Project: "p.toml", Files: map[string][]byte{"p.toml": nil, "../evil": []byte("x")}},
		"no file": {Project: "p.toml", Files: map[string][]byte{"q.toml": nil}},
	} {
		raw, _ := json.Marshal(&b)
		sum := sha256.Sum256(raw)
		if _, err := extractBundle(raw, hex.EncodeToString(sum[:]), dir); err == nil {
			t.Errorf("%s: extracted", name)
		}
	}
}

// checkProgress checks the live reports of a campaign against its summary:
// every failure reported once as it arrived, with what the workbench draws
// and shows; the workers' runs adding up.
func checkProgress(t *testing.T, sum *Summary, fresh []Failure, last Progress) {
	t.Helper()
	if len(fresh) != len(sum.Failures) {
		t.Errorf("%d failures reported as they came, %d in the summary", len(fresh), len(sum.Failures))
	}
	for _, f := range fresh {
		if f.Report == "" || len(f.Path) == 0 || f.Worker == "" || !strings.Contains(f.Report, f.Kind) {
			t.Errorf("failure of seed %d: report %q, %d path steps, worker %q", f.Seed, f.Report, len(f.Path), f.Worker)
		}
	}
	runs, jobs := 0, 0
	for _, st := range last.PerWorker {
		runs += st.Runs
		jobs += st.Jobs
		if st.Busy <= 0 {
			t.Errorf("a worker with %d jobs was never busy", st.Jobs)
		}
	}
	if runs != sum.Runs || jobs != sum.Done || last.Done != sum.Jobs {
		t.Errorf("per worker: %d runs, %d jobs; summary %d runs, %d jobs; last report %d done", runs, jobs, sum.Runs, sum.Done, last.Done)
	}
}

// A result too big for the server's messages sheds paths, reports, saved
// runs, then failures, and says how many failures it dropped.
func TestFitResult(t *testing.T) {
	big := strings.Repeat("x", 3000)
	mk := func() *Result {
		r := &Result{Campaign: "c", Job: 1, Worker: "w", Runs: 4, Tally: map[conform.Verdict]int{conform.Fail: 4}}
		for i := range 4 {
			r.Failures = append(r.Failures, Failure{Seed: uint64(i), Kind: "k", Report: big,
				Saved: json.RawMessage(`"` + big + `"`), Path: []conform.PathStep{{Kind: "controllable", Label: big, From: []byte("a"), To: []byte("b")}}})
		}
		return r
	}
	for _, tc := range []struct {
		limit              int
		paths, reports     int
		saved, kept, dropd int
	}{
		{100000, 4, 4, 4, 4, 0},
		{1024 + 4*6500, 0, 4, 4, 4, 0},
		{1024 + 4*3500, 0, 0, 4, 4, 0},
		{1024 + 3*3500 + 200, 0, 0, 3, 4, 0},
		{1024 + 600, 0, 0, 0, 4, 0},
		{1024 + 150, 0, 0, 0, 1, 3},
	} {
		r := mk()
		data := fit(r, tc.limit)
		var back Result
		if err := json.Unmarshal(data, &back); err != nil {
			t.Fatal(err)
		}
		count := func(f func(Failure) bool) (n int) {
			for _, x := range back.Failures {
				if f(x) {
					n++
				}
			}
			return
		}
		got := []int{count(func(f Failure) bool { return f.Path != nil }), count(func(f Failure) bool { return f.Report != "" }),
			count(func(f Failure) bool { return f.Saved != nil }), len(back.Failures), back.Dropped}
		want := []int{tc.paths, tc.reports, tc.saved, tc.kept, tc.dropd}
		if fmt.Sprint(got) != fmt.Sprint(want) || (len(data) > tc.limit-1024 && len(back.Failures) > 1) {
			t.Errorf("limit %d: paths, reports, saved, kept, dropped = %v, want %v (%d bytes)", tc.limit, got, want, len(data))
		}
	}
}

// A campaign stopped on purpose withdraws its jobs: none is left on the
// queue for workers to run for nobody.
func TestStoppedCampaignWithdrawsItsJobs(t *testing.T) {
	bin := buildChat(t)
	url := embedded(t)
	spec := Spec{Key: testKey, ProjectFile: "../projects/chat/chat.toml", Config: "hi_bye", Runs: 400, Steps: 20, Seed: 11, JobRuns: 5}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sum, err := Run(ctx, spec, Where{URL: url, Workers: 1, Adapter: bin + " adapter --fixed"}, func(p Progress) {
		if p.Done >= 2 {
			cancel()
		}
	})
	if !errors.Is(err, context.Canceled) || sum == nil || sum.Done < 2 || sum.Done >= sum.Jobs {
		t.Fatalf("%v: %+v", err, sum)
	}
	nc, err := connect(url, "test", Auth{})
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, _ := jetstream.New(nc)
	c, stop := context.WithTimeout(context.Background(), 10*time.Second)
	defer stop()
	s, err := js.Stream(c, jobsStream)
	if err != nil {
		t.Fatal(err)
	}
	info, err := s.Info(c, jetstream.WithSubjectFilter("modex.jobs.>"))
	if err != nil {
		t.Fatal(err)
	}
	if info.State.Msgs != 0 {
		t.Errorf("%d jobs left on the queue after the campaign stopped (%d of %d done)", info.State.Msgs, sum.Done, sum.Jobs)
	}
}

// The built-in server serves one campaign at a time: jobs another
// campaign left (its coordinator killed) are withdrawn before the workers
// start, so none of them is run.
func TestBuiltInServerDropsOtherCampaignsJobs(t *testing.T) {
	bin := buildChat(t)
	dir := t.TempDir()
	srv, err := StartEmbedded(dir)
	if err != nil {
		t.Fatal(err)
	}
	nc, err := connect("", "test", srv.Auth())
	if err != nil {
		t.Fatal(err)
	}
	js, _ := jetstream.New(nc)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	other := Spec{Runs: 30, JobRuns: 10, Key: testKey}
	other.defaults()
	if _, _, err := setup(ctx, js, &other); err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		b, _ := json.Marshal(Job{Campaign: "cother", ID: i, Bundle: "nothing", Config: "hi_bye", Seed: uint64(i), Runs: 10, Steps: 20})
		if _, err := js.Publish(ctx, "modex.jobs.cother", b); err != nil {
			t.Fatal(err)
		}
	}
	nc.Close()
	srv.Shutdown()
	spec := Spec{Key: testKey, ProjectFile: "../projects/chat/chat.toml", Config: "hi_bye", Runs: 10, Steps: 20, Seed: 2, JobRuns: 5}
	var ran []string
	sum, err := Run(ctx, spec, Where{Dir: dir, Workers: 1, Adapter: bin + " adapter --fixed"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for w, n := range sum.Workers {
		ran = append(ran, fmt.Sprintf("%s %d", w, n))
	}
	if sum.Runs != 10 || sum.Done != 2 || len(sum.JobErrors) > 0 {
		t.Errorf("%d runs, %d jobs, %v", sum.Runs, sum.Done, sum.JobErrors)
	}
	srv, err = StartEmbedded(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Shutdown()
	nc, err = connect("", "test", srv.Auth())
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, _ = jetstream.New(nc)
	for stream, subject := range map[string]string{jobsStream: "modex.jobs.cother", resultsStream: "modex.results.cother"} {
		s, err := js.Stream(ctx, stream)
		if err != nil {
			t.Fatal(err)
		}
		info, err := s.Info(ctx, jetstream.WithSubjectFilter(subject))
		if err != nil {
			t.Fatal(err)
		}
		if n := info.State.Subjects[subject]; n != 0 {
			t.Errorf("%s: %d messages of the other campaign (jobs per worker: %v)", subject, n, ran)
		}
	}
}

// A coordinator keeps the first MaxDetailedFailures failures whole and the
// rest without their saved runs, reports and paths: its memory is bounded
// however many runs fail.
func TestFailuresKeptBounded(t *testing.T) {
	s := &Summary{Tally: conform.Tally{}, Workers: map[string]int{},
		Covered: conform.Covered{States: map[string]bool{}, Transitions: map[string]bool{}}}
	for job := 0; job*10 < MaxDetailedFailures+30; job++ {
		r := &Result{Campaign: "c", Job: job, Worker: "w", Runs: 10, Tally: map[conform.Verdict]int{conform.Fail: 10}}
		for i := range 10 {
			r.Failures = append(r.Failures, Failure{Seed: uint64(job*10 + i), Kind: "k", Message: "m", Report: "r",
				Saved: json.RawMessage(`{}`), Path: []conform.PathStep{{Kind: "controllable"}}})
		}
		s.add(r)
	}
	whole := 0
	for _, f := range s.Failures {
		if f.Report != "" && f.Saved != nil && f.Path != nil {
			whole++
		} else if f.Message != "m" || f.Kind != "k" {
			t.Fatalf("a stripped failure lost its kind or message: %+v", f)
		}
	}
	if len(s.Failures) != MaxDetailedFailures+30 || whole != MaxDetailedFailures || s.Stripped != 30 {
		t.Errorf("%d failures, %d whole, %d stripped", len(s.Failures), whole, s.Stripped)
	}
}

// Jobs come from the network: sizes out of bounds are refused with a
// sentence, before any project is fetched.
func TestJobBounds(t *testing.T) {
	for _, tc := range []struct {
		job Job
		ok  bool
	}{
		{Job{Runs: 10, Steps: 30}, true},
		{Job{Runs: 1, Steps: 0, EndWait: 2}, true},
		{Job{Runs: 0, Steps: 30}, false},
		{Job{Runs: maxJobRuns + 1, Steps: 30}, false},
		{Job{Runs: 10, Steps: -1}, false},
		{Job{Runs: 10, Steps: maxJobSteps + 1}, false},
		{Job{Runs: 10, Steps: 30, EndWait: 1e9}, false},
	} {
		err := tc.job.check()
		if (err == nil) != tc.ok || (err != nil && !strings.Contains(err.Error(), "out of bounds")) {
			t.Errorf("%+v: %v", tc.job, err)
		}
		if !tc.ok {
			w := &Worker{Name: "w", CacheDir: t.TempDir()}
			if res := w.run(context.Background(), nil, tc.job); !strings.Contains(res.Error, "out of bounds") {
				t.Errorf("%+v ran: %q", tc.job, res.Error)
			}
		}
	}
}
