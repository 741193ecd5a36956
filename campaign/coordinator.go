package campaign

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/modex/modex/engine/codecov"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/modex/modex/engine/conform"
	"github.com/modex/modex/internal/safetext"
	"github.com/modex/modex/projects"
)

// Summary is a campaign's aggregated result.
type Summary struct {
	Campaign string
	Jobs     int
	// Done counts the jobs with a result; GivenUp those handed out
	// MaxDeliver times without one (their workers died or hung) or that
	// expired first (Expired of them: see Spec.JobTTL); Duplicates the
	// results that came twice (a job redelivered after its result was
	// published), counted once.
	Done, GivenUp, Expired, Duplicates int
	Runs, Steps                        int
	Tally                              conform.Tally
	Covered                            conform.Covered
	Failures                           []Failure
	JobErrors                          []string // why jobs could not run
	Workers                            map[string]int
	Seconds                            float64
	// Code is the implementation's code coverage the workers measured
	// (a campaign with Spec.Cover), merged; CodeNote says why a worker
	// sent none (the first such note).
	Code     *codecov.Profile
	CodeNote string
	// Skipped are the controllable actions some worker's adapter does
	// not implement (a result from the network names at most
	// maxSkipped, each a short name).
	Skipped []string
	// Stripped counts the failures kept in memory without their saved run,
	// report and path (those after the first MaxDetailedFailures): Load
	// reads them back from their files.
	Stripped int
	// FailuresDir is the folder where the coordinator kept each failure
	// whole (see Spec.FailuresDir); Kept counts the failures kept there,
	// Lost those whose run is kept nowhere (each says why in its Lost).
	FailuresDir string
	Kept, Lost  int
	// Untrusted counts the results ignored because they were not signed
	// by a trusted worker, or did not match their job (a forged result);
	// Why says why, for the first few.
	Untrusted    int
	UntrustedWhy []string
	// Key is the public key that signed the campaign's jobs (workers
	// trust it with modex worker --trust).
	Key string

	// Size is the configuration's size, when it could be explored whole
	// quickly (conform.SizeOf): the coverage is then given against it.
	Size conform.ModelSize

	perWorker map[string]WorkerStat
	reported  int           // failures already reported as New
	store     *failureStore // nil: failures are kept in memory only
}

// MaxDetailedFailures bounds the failures a coordinator keeps whole in
// memory (a failure of a chat run is about 12 KB): later ones keep their
// seed, kind, step and message there, and their file (Failure.Load).
const MaxDetailedFailures = 1000

// detailedFailures is MaxDetailedFailures, lowered by tests.
var detailedFailures = MaxDetailedFailures

// Progress is reported as results arrive.
type Progress struct {
	Done, Jobs, Runs, Steps, Failures, States int
	Workers                                   int
	Seconds                                   float64
	// PerWorker is what each worker has done so far; New the failures
	// that arrived since the last report.
	PerWorker map[string]WorkerStat
	New       []Failure
}

// WorkerStat is what a worker has done in a campaign: jobs, runs, and the
// seconds its jobs took (its rate is Runs/Busy).
type WorkerStat struct {
	Jobs, Runs int
	Busy       float64
}

// Coordinate runs a campaign: it sends the project, publishes the jobs
// and aggregates the results until every job is done or given up. A
// coordinator started again with the same spec resumes the campaign from
// the streams (its consumer is durable, results are keyed by job).
//
// Only results signed by spec.TrustWorkers count: a campaign with none is
// refused (ErrNoTrustedWorkers), as there is no "any signer" (anyone who
// can read a job could answer it). Jobs are signed and published as they
// are made, at most maxQueued ahead of the results, each valid for
// spec.JobTTL; ctx is honoured between any two. When the campaign is done
// its jobs left on the queue (copies, replays) are purged and the workers
// are told that it ended.
func Coordinate(ctx context.Context, url string, auth Auth, spec Spec, progress func(Progress)) (*Summary, error) {
	if err := spec.defaults(); err != nil {
		return nil, err
	}
	if len(spec.TrustWorkers) == 0 {
		return nil, ErrNoTrustedWorkers
	}
	data, hash, err := makeBundle(spec.ProjectFile)
	if err != nil {
		return nil, err
	}
	return coordinate(ctx, url, auth, spec, data, hash, progress)
}

// ErrNoTrustedWorkers says that a campaign has no worker whose results
// would count.
var ErrNoTrustedWorkers = errors.New("no worker's results would count: a campaign needs the public keys of the workers it trusts " +
	"(modex campaign --trust-worker KEY|FILE: modex worker prints its key when it starts, and modex keygen FILE makes one for its --key), or local workers")

// maxQueued bounds the jobs a coordinator has published and not yet seen
// done: it publishes more as results come, so that a campaign of a
// billion runs neither signs every job before the first runs nor fills the
// server with them.
const maxQueued = 4096

// publishBatch bounds the jobs published between two looks at the
// results.
const publishBatch = 256

// state is a coordinator's campaign as it runs: what it needs to check a
// result (the spec, from which any job is made again by its id), the jobs
// done (a bit each), the jobs it published and is waiting for, and the
// summary.
type state struct {
	spec  Spec
	id    string
	hash  string
	jobs  int
	trust Trust
	done  []uint64
	ndone int
	// next is the next job to publish; queued the jobs published by this
	// coordinator and not done yet, with their expiry (Unix seconds).
	next   int
	queued map[int]int64
	// names binds a worker's name to the key it first signed with.
	names map[string]string
	sum   *Summary
	// parts holds, by job, the parts of failures' details sent apart,
	// until the job's result comes (partBytes in all).
	parts     map[int]map[partKey]*partial
	partBytes int
}

func newState(spec Spec, id, hash string) *state {
	jobs := spec.jobCount()
	return &state{spec: spec, id: id, hash: hash, jobs: jobs, trust: spec.TrustWorkers, done: make([]uint64, (jobs+63)/64),
		queued: map[int]int64{}, names: map[string]string{},
		sum: &Summary{Campaign: id, Jobs: jobs, Tally: conform.Tally{}, Workers: map[string]int{},
			Covered: conform.Covered{States: map[string]bool{}, Transitions: map[string]bool{}}, Key: PublicKey(spec.Key)}}
}

func (st *state) isDone(j int) bool { return st.done[j/64]&(1<<(j%64)) != 0 }

// markDone marks job j done; false when it already was.
func (st *state) markDone(j int) bool {
	if st.isDone(j) {
		return false
	}
	st.done[j/64] |= 1 << (j % 64)
	st.ndone++
	delete(st.queued, j)
	return true
}

// giveUp marks job j given up (its deliveries used up, or expired).
func (st *state) giveUp(j int, expired bool) {
	if j >= 0 && j < st.jobs && st.markDone(j) {
		st.sum.GivenUp++
		if expired {
			st.sum.Expired++
		}
	}
}

// coordinate is Coordinate with the project already bundled (data, its
// hash) and spec's defaults set.
func coordinate(ctx context.Context, url string, auth Auth, spec Spec, data []byte, hash string, progress func(Progress)) (*Summary, error) {
	if len(spec.TrustWorkers) == 0 {
		return nil, ErrNoTrustedWorkers
	}
	start := time.Now()
	nc, err := connect(url, "modex coordinator", auth)
	if err != nil {
		return nil, fmt.Errorf("connecting to NATS: %w", redact(err, url))
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		return nil, err
	}
	id, err := prepare(ctx, js, spec, data, hash)
	if err != nil {
		return nil, err
	}
	st := newState(spec, id, hash)
	sum := st.sum
	sum.store = openStore(spec.FailuresDir, id)
	sum.FailuresDir = sum.store.dir
	givenUp, sub, err := watchGivenUp(ctx, nc, js, id, Trust{PublicKey(spec.Key): true})
	if err != nil {
		return nil, err
	}
	defer sub.Unsubscribe()
	results, err := readResults(ctx, js, id)
	if err != nil {
		return nil, err
	}
	stopped := func(err error) (*Summary, error) {
		sum.Done = st.ndone - sum.GivenUp
		sum.Seconds = time.Since(start).Seconds()
		return sum, err
	}
	st.takeWaiting(ctx, results)
	var lastExpiry time.Time
	for st.ndone < st.jobs {
		if err := ctx.Err(); err != nil {
			return stopped(err)
		}
		for _, j := range givenUp.drain() {
			st.giveUp(j, false)
		}
		if time.Since(lastExpiry) > time.Second {
			lastExpiry = time.Now()
			st.expire(lastExpiry.Unix())
		}
		if err := st.publish(ctx, js); err != nil {
			if ctx.Err() != nil {
				return stopped(ctx.Err())
			}
			return stopped(err)
		}
		if st.ndone >= st.jobs {
			break
		}
		// What has arrived, without waiting for a full batch; else wait
		// for the next result.
		batch, err := results.FetchNoWait(64)
		if err == nil {
			if msgs := collect(batch); len(msgs) > 0 {
				for _, m := range msgs {
					st.take(m)
				}
				report(progress, st, start)
				continue
			}
		}
		if st.next < st.jobs && len(st.queued) < maxQueued {
			continue // more jobs to publish first
		}
		batch, err = results.Fetch(1, jetstream.FetchMaxWait(500*time.Millisecond))
		if err != nil {
			continue
		}
		for _, m := range collect(batch) {
			st.take(m)
		}
		report(progress, st, start)
	}
	sum.Done = st.ndone - sum.GivenUp
	if err := finish(ctx, js, spec.Key, id); err != nil {
		return sum, err
	}
	sort.Slice(sum.Failures, func(i, j int) bool { return sum.Failures[i].Seed < sum.Failures[j].Seed })
	sum.Seconds = time.Since(start).Seconds()
	sum.Size = sizeOf(ctx, spec) // after the campaign's time: it is not part of it
	return sum, nil
}

// readResults makes the consumer of campaign id's results, from the
// start: a coordinator started again (after a crash, or for a campaign
// already done) aggregates what the workers published (results are kept
// for a week).
func readResults(ctx context.Context, js jetstream.JetStream, id string) (jetstream.Consumer, error) {
	var results jetstream.Consumer
	if err := retry(ctx, setupTries, func(c context.Context) (err error) {
		if err = js.DeleteConsumer(c, resultsStream, "coord-"+id); err != nil && !errors.Is(err, jetstream.ErrConsumerNotFound) {
			return err
		}
		results, err = js.CreateOrUpdateConsumer(c, resultsStream, jetstream.ConsumerConfig{Durable: "coord-" + id,
			FilterSubject: "modex.results." + id, AckPolicy: jetstream.AckExplicitPolicy, DeliverPolicy: jetstream.DeliverAllPolicy})
		return err
	}); err != nil {
		return nil, fmt.Errorf("reading results: %w", err)
	}
	return results, nil
}

// takeWaiting takes the results already there, so that a resumed
// campaign does not publish again the jobs they did.
func (st *state) takeWaiting(ctx context.Context, results jetstream.Consumer) {
	for ctx.Err() == nil {
		batch, err := results.FetchNoWait(256)
		if err != nil {
			return
		}
		msgs := collect(batch)
		if len(msgs) == 0 {
			return
		}
		for _, m := range msgs {
			st.take(m)
		}
	}
}

// publish signs and publishes the next jobs, as long as fewer than
// maxQueued are waiting and at most publishBatch at a time, skipping the
// jobs done (a resumed campaign's); ctx is honoured between any two.
func (st *state) publish(ctx context.Context, js jetstream.JetStream) error {
	for n := 0; n < publishBatch && st.next < st.jobs && len(st.queued) < maxQueued; n++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		i := st.next
		st.next++
		if st.isDone(i) {
			continue
		}
		expires := time.Now().Add(st.spec.JobTTL).Unix()
		j := st.spec.job(st.id, st.hash, i, expires)
		b, _ := json.Marshal(&j)
		msg, err := signedMsg(st.spec.Key, "modex.jobs."+st.id, b)
		if err != nil {
			return err
		}
		// Published again after a lost acknowledgement, a job is kept once
		// (its message id is deduplicated).
		if err := retry(ctx, setupTries, func(c context.Context) error {
			_, err := js.PublishMsg(c, msg, jetstream.WithMsgID(fmt.Sprintf("%s/job/%d", st.id, i)))
			return err
		}); err != nil {
			return fmt.Errorf("publishing job %d: %w", i, err)
		}
		st.queued[i] = expires
	}
	return nil
}

// expire gives up the jobs published that expired by now (Unix seconds):
// workers refuse them.
func (st *state) expire(now int64) {
	for j, at := range st.queued {
		if now > at {
			st.giveUp(j, true)
		}
	}
}

// givenUpJobs collects the jobs the server gave up, from its advisories.
type givenUpJobs struct {
	mu   sync.Mutex
	jobs []int
}

func (g *givenUpJobs) add(j int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if len(g.jobs) < 4*maxQueued { // never more than the jobs waiting
		g.jobs = append(g.jobs, j)
	}
}

func (g *givenUpJobs) drain() []int {
	g.mu.Lock()
	defer g.mu.Unlock()
	out := g.jobs
	g.jobs = nil
	return out
}

// watchGivenUp collects the jobs of campaign id given up: the server's
// advisory names their stream message, which must be a job signed by the
// coordinator (trust).
func watchGivenUp(ctx context.Context, nc *nats.Conn, js jetstream.JetStream, id string, trust Trust) (*givenUpJobs, *nats.Subscription, error) {
	givenUp := &givenUpJobs{}
	sub, err := nc.Subscribe("$JS.EVENT.ADVISORY.CONSUMER.MAX_DELIVERIES."+jobsStream+"."+workersName, func(m *nats.Msg) {
		var adv struct {
			StreamSeq uint64 `json:"stream_seq"`
		}
		if json.Unmarshal(m.Data, &adv) != nil {
			return
		}
		_ = call(ctx, func(c context.Context) error {
			raw, err := js.Stream(c, jobsStream)
			if err != nil {
				return err
			}
			msg, err := raw.GetMsg(c, adv.StreamSeq)
			if err != nil {
				return err
			}
			if _, err := verify(msg.Header, msg.Data, trust); err != nil {
				return nil // not one of ours
			}
			var j Job
			if json.Unmarshal(msg.Data, &j) == nil && j.Campaign == id {
				givenUp.add(j.ID)
			}
			return nil
		})
	})
	return givenUp, sub, err
}

// prepare sets up the streams and sends the project (once: it is stored
// by its hash), returning the campaign's id.
func prepare(ctx context.Context, js jetstream.JetStream, spec Spec, bundle []byte, hash string) (string, error) {
	var obj jetstream.ObjectStore
	if err := retry(ctx, setupTries, func(c context.Context) (err error) {
		_, obj, err = setup(c, js, &spec)
		return err
	}); err != nil {
		return "", err
	}
	if err := retry(ctx, setupTries, func(c context.Context) error {
		if _, err := obj.GetInfo(c, hash); err == nil {
			return nil
		}
		_, err := obj.PutBytes(c, hash, bundle)
		return err
	}); err != nil {
		return "", fmt.Errorf("sending the project: %w", err)
	}
	// A campaign that ended (done, or stopped on purpose) runs afresh when
	// started again: the run's id counts the ends recorded; one that did
	// not end (its coordinator crashed) resumes.
	id := spec.ID(hash)
	var ends uint64
	if err := retry(ctx, setupTries, func(c context.Context) (err error) {
		ends, err = countEnds(c, js, id)
		return err
	}); err != nil {
		return "", err
	}
	if ends > 0 {
		id = fmt.Sprintf("%s-%d", id, ends)
	}
	return id, nil
}

// add merges a job's result.
// maxSummaryBlocks bounds the code coverage blocks a summary merges.
const maxSummaryBlocks = 1_000_000

// maxSkipped bounds the skipped actions one result may name.
const maxSkipped = 64

func (s *Summary) add(r *Result) {
	s.Workers[r.Worker]++
	if s.perWorker == nil {
		s.perWorker = map[string]WorkerStat{}
	}
	ws := s.perWorker[r.Worker]
	ws.Jobs++
	ws.Runs += r.Runs
	ws.Busy += r.Seconds
	s.perWorker[r.Worker] = ws
	if r.Error != "" {
		s.JobErrors = append(s.JobErrors, fmt.Sprintf("job %d on %s: %s", r.Job, safetext.Term(r.Worker), safetext.Term(r.Error)))
		return
	}
	s.Runs += r.Runs
	s.Steps += r.Steps
	if len(r.Code) > 0 && s.Code.Len() < maxSummaryBlocks {
		if s.Code == nil {
			s.Code = codecov.New("")
		}
		s.Code.AddBlocks(r.Code)
	}
	if r.CodeNote != "" && s.CodeNote == "" {
		s.CodeNote = fmt.Sprintf("%s: %s", safetext.Term(r.Worker), safetext.Term(cut(r.CodeNote, 300)))
	}
	for i, name := range r.Skipped {
		if i < maxSkipped && len(name) <= 128 && !slices.Contains(s.Skipped, name) {
			s.Skipped = append(s.Skipped, name)
		}
	}
	for v, n := range r.Tally {
		s.Tally[v] += n
	}
	for _, k := range r.States {
		s.Covered.States[string(k)] = true
	}
	for _, k := range r.Transitions {
		s.Covered.Transitions[string(k)] = true
	}
	for _, f := range r.Failures {
		if s.store != nil {
			s.store.keep(&f)
		}
		if f.File != "" {
			s.Kept++
		} else if f.Lost != "" {
			s.Lost++
		}
		if len(s.Failures) >= detailedFailures {
			// Bounded memory: the seed, kind and message still say which
			// run failed and how; its file holds it whole (else its
			// choices come again with its seed).
			f = Failure{Seed: f.Seed, Kind: f.Kind, Step: f.Step, Message: f.Message, Worker: f.Worker, ShrunkNote: f.ShrunkNote,
				ShrunkSteps: f.ShrunkSteps, File: f.File, Lost: f.Lost}
			s.Stripped++
		}
		s.Failures = append(s.Failures, f)
	}
	if r.Dropped > 0 {
		s.JobErrors = append(s.JobErrors, fmt.Sprintf("job %d on %s: %d more failures not sent (the result would exceed the server's message size)", r.Job, safetext.Term(r.Worker), r.Dropped))
	}
}

func collect(batch jetstream.MessageBatch) []jetstream.Msg {
	var out []jetstream.Msg
	for m := range batch.Messages() {
		out = append(out, m)
	}
	return out
}

// take merges a result message, once per job, or keeps a part of a
// failure's details sent apart, and acknowledges it.
func (st *state) take(msg jetstream.Msg) {
	if isPart(msg.Data()) {
		st.takePart(msg.Headers(), msg.Data())
	} else {
		st.merge(msg.Headers(), msg.Data())
	}
	msg.Ack()
}

// maxUntrustedWhy bounds the reasons kept for ignored results.
const maxUntrustedWhy = 5

// merge merges a result (JSON) of the campaign, once per job, when it is
// signed by a trusted worker and matches its job (see check); anything
// else is counted as untrusted and dropped. The result is the signer's:
// its worker name is bound to the key that first signed with it (another
// key's results under that name are shown with the key).
func (st *state) merge(h nats.Header, data []byte) {
	s := st.sum
	signer, err := verify(h, data, st.trust)
	var r Result
	if err == nil {
		err = json.Unmarshal(data, &r)
	}
	if err == nil && r.Campaign != st.id {
		return // another campaign's, on a shared stream
	}
	if err == nil {
		err = st.check(&r)
	}
	if err != nil {
		st.untrusted(signer, err)
		return
	}
	if !st.markDone(r.Job) {
		s.Duplicates++
		return
	}
	name := cut(r.Worker, 64)
	if name == "" {
		name = short(signer)
	}
	if key, ok := st.names[name]; !ok {
		st.names[name] = signer
	} else if key != signer {
		name += " (" + short(signer) + ")"
	}
	r.Worker = name
	st.resolve(&r)
	for i := range r.Failures {
		r.Failures[i].Worker = name
	}
	s.add(&r)
}

// untrusted counts a message ignored (signer "" : unsigned), with why for
// the first few.
func (st *state) untrusted(signer string, err error) {
	s := st.sum
	s.Untrusted++
	if len(s.UntrustedWhy) < maxUntrustedWhy {
		who := "a sender"
		if signer != "" {
			who = short(signer)
		}
		s.UntrustedWhy = append(s.UntrustedWhy, safetext.Term(fmt.Sprintf("%s: %v", who, err)))
	}
}

// knownVerdicts are the verdicts a result may count.
var knownVerdicts = map[conform.Verdict]bool{conform.Pass: true, conform.Fail: true, conform.Inconclusive: true, conform.ModelError: true}

// check matches a result with its job, made again from the spec: the job
// exists, the nonce is its, the figures are not negative, every verdict is
// a known one with a count that is not negative, the verdicts add up to
// the job's runs, and the failures are runs of the job.
func (st *state) check(r *Result) error {
	if r.Job < 0 || r.Job >= st.jobs {
		return fmt.Errorf("a result for job %d, which the campaign does not have", r.Job)
	}
	job := st.spec.job(st.id, st.hash, r.Job, 0)
	if r.Nonce != job.Nonce {
		return fmt.Errorf("a result for job %d without the job's nonce (forged)", r.Job)
	}
	if r.Runs < 0 || r.Steps < 0 || r.Seconds < 0 || r.Dropped < 0 {
		return fmt.Errorf("a result for job %d with negative figures (%d runs, %d steps, %g s, %d dropped)", r.Job, r.Runs, r.Steps, r.Seconds, r.Dropped)
	}
	if r.Error != "" {
		return nil
	}
	n := 0
	for v, k := range r.Tally {
		if !knownVerdicts[v] {
			return fmt.Errorf("a result for job %d with an unknown verdict %q", r.Job, cut(string(v), 40))
		}
		if k < 0 || k > job.Runs {
			return fmt.Errorf("a result for job %d with %d runs of verdict %s, not 0 to %d", r.Job, k, v, job.Runs)
		}
		n += k
	}
	if r.Runs != job.Runs || n != r.Runs || r.Dropped > r.Runs || len(r.Failures)+r.Dropped > r.Runs {
		return fmt.Errorf("a result for job %d whose runs do not add up (%d runs of %d, verdicts for %d, %d failures and %d dropped)",
			r.Job, r.Runs, job.Runs, n, len(r.Failures), r.Dropped)
	}
	for _, f := range r.Failures {
		if f.Seed < job.Seed || f.Seed-job.Seed >= uint64(job.Runs) || f.Step < 0 || f.ShrunkSteps < 0 {
			return fmt.Errorf("a result for job %d with a failure that is not one of its runs (seed %d, step %d; its seeds are %d to %d)",
				r.Job, f.Seed, f.Step, job.Seed, job.Seed+uint64(job.Runs)-1)
		}
	}
	return nil
}

func report(progress func(Progress), st *state, start time.Time) {
	if progress == nil {
		return
	}
	sum := st.sum
	per := make(map[string]WorkerStat, len(sum.perWorker))
	for w, ws := range sum.perWorker {
		per[w] = ws
	}
	fresh := append([]Failure(nil), sum.Failures[sum.reported:]...)
	sum.reported = len(sum.Failures)
	progress(Progress{Done: st.ndone, Jobs: st.jobs, Runs: sum.Runs, Steps: sum.Steps, Failures: len(sum.Failures),
		States: len(sum.Covered.States), Workers: len(sum.Workers), Seconds: time.Since(start).Seconds(), PerWorker: per, New: fresh})
}

// endsSubject prefixes the subjects on the results stream that record the
// ends of a campaign's runs (one message per end).
const endsSubject = "modex.results._ends."

// countEnds counts the recorded ends of campaign base (its id without the
// run number).
func countEnds(ctx context.Context, js jetstream.JetStream, base string) (uint64, error) {
	s, err := js.Stream(ctx, resultsStream)
	if err != nil {
		return 0, err
	}
	info, err := s.Info(ctx, jetstream.WithSubjectFilter(endsSubject+base))
	if err != nil {
		return 0, err
	}
	return info.State.Subjects[endsSubject+base], nil
}

// recordEnd records that a run of campaign id ended: started again, the
// campaign runs afresh.
func recordEnd(ctx context.Context, js jetstream.JetStream, id string) error {
	base, _, _ := strings.Cut(id, "-")
	return retry(ctx, setupTries, func(c context.Context) error {
		// The message id makes a repeated record count once.
		_, err := js.Publish(c, endsSubject+base, []byte(id), jetstream.WithMsgID("end/"+id))
		return err
	})
}

// sizeOf sizes the campaign's configuration for its coverage figures (the
// zero size when it cannot be explored whole quickly).
func sizeOf(ctx context.Context, spec Spec) conform.ModelSize {
	p, err := projects.Load(spec.ProjectFile)
	if err != nil {
		return conform.ModelSize{}
	}
	m, err := p.LoadModelFor(spec.Config)
	if err != nil {
		return conform.ModelSize{}
	}
	cfg, err := p.Build(m, spec.Config)
	if err != nil {
		return conform.ModelSize{}
	}
	size, _ := conform.SizeOf(ctx, m, cfg, conform.SizeStates, conform.SizeTime)
	return size
}
