package campaign

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
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
	// MaxDeliver times without one (their workers died or hung); Duplicates
	// the results that came twice (a job redelivered after its result was
	// published), counted once.
	Done, GivenUp, Duplicates int
	Runs, Steps               int
	Tally                     conform.Tally
	Covered                   conform.Covered
	Failures                  []Failure
	JobErrors                 []string // why jobs could not run
	Workers                   map[string]int
	Seconds                   float64
	// Stripped counts the failures kept without their saved run, report
	// and path (those after the first MaxDetailedFailures).
	Stripped int
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
	reported  int // failures already reported as New
}

// MaxDetailedFailures bounds the failures a coordinator keeps whole (a
// failure of a chat run is about 12 KB): later ones keep their seed, kind,
// step and message only.
const MaxDetailedFailures = 1000

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

// Coordinate runs a campaign: it sends the project, publishes the jobs and
// aggregates the results until every job is done or given up. A
// coordinator started again with the same spec resumes the campaign from
// the streams (its consumer is durable, results are keyed by job).
func Coordinate(ctx context.Context, url string, auth Auth, spec Spec, progress func(Progress)) (*Summary, error) {
	if err := spec.defaults(); err != nil {
		return nil, err
	}
	data, hash, err := makeBundle(spec.ProjectFile)
	if err != nil {
		return nil, err
	}
	return coordinate(ctx, url, auth, spec, data, hash, progress)
}

// coordinate is Coordinate with the project already bundled (data, its
// hash) and spec's defaults set.
func coordinate(ctx context.Context, url string, auth Auth, spec Spec, data []byte, hash string, progress func(Progress)) (*Summary, error) {
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
	id, jobs, err := publish(ctx, js, spec, data, hash)
	if err != nil {
		return nil, err
	}
	sum := &Summary{Campaign: id, Jobs: len(jobs), Tally: conform.Tally{}, Workers: map[string]int{},
		Covered: conform.Covered{States: map[string]bool{}, Transitions: map[string]bool{}}, Key: PublicKey(spec.Key)}
	givenUp, sub, err := watchGivenUp(ctx, nc, js, id, len(jobs), Trust{PublicKey(spec.Key): true})
	if err != nil {
		return nil, err
	}
	defer sub.Unsubscribe()
	// Read every result of the campaign from the start: a coordinator
	// started again (after a crash, or for a campaign already done)
	// aggregates what the workers published (results are kept for a week).
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
	done := map[int]bool{}
	for len(done) < len(jobs) {
		if err := ctx.Err(); err != nil {
			sum.Done = len(done) - sum.GivenUp
			sum.Seconds = time.Since(start).Seconds()
			return sum, err
		}
		select {
		case j := <-givenUp:
			if !done[j] {
				done[j] = true
				sum.GivenUp++
			}
			continue
		default:
		}
		// What has arrived, without waiting for a full batch; else wait
		// for the next result.
		batch, err := results.FetchNoWait(64)
		if err == nil {
			if msgs := collect(batch); len(msgs) > 0 {
				for _, m := range msgs {
					sum.take(m, id, jobs, done, spec.TrustWorkers)
				}
				report(progress, sum, done, jobs, start)
				continue
			}
		}
		batch, err = results.Fetch(1, jetstream.FetchMaxWait(500*time.Millisecond))
		if err != nil {
			continue
		}
		for _, m := range collect(batch) {
			sum.take(m, id, jobs, done, spec.TrustWorkers)
		}
		report(progress, sum, done, jobs, start)
	}
	sum.Done = len(done) - sum.GivenUp
	if err := recordEnd(ctx, js, id); err != nil {
		return sum, err
	}
	sort.Slice(sum.Failures, func(i, j int) bool { return sum.Failures[i].Seed < sum.Failures[j].Seed })
	sum.Seconds = time.Since(start).Seconds()
	sum.Size = sizeOf(ctx, spec) // after the campaign's time: it is not part of it
	return sum, nil
}

// watchGivenUp reports the jobs of campaign id given up: the server's
// advisory names their stream message, which must be a job signed by the
// coordinator (trust).
func watchGivenUp(ctx context.Context, nc *nats.Conn, js jetstream.JetStream, id string, jobs int, trust Trust) (chan int, *nats.Subscription, error) {
	givenUp := make(chan int, jobs)
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
				select { // never block the connection's callbacks
				case givenUp <- j.ID:
				default:
				}
			}
			return nil
		})
	})
	return givenUp, sub, err
}

// publish sets up the streams, sends the project (once: it is stored by
// its hash) and publishes the campaign's jobs (once: their message ids are
// deduplicated), returning the campaign's id and jobs.
func publish(ctx context.Context, js jetstream.JetStream, spec Spec, bundle []byte, hash string) (string, []Job, error) {
	var obj jetstream.ObjectStore
	if err := retry(ctx, setupTries, func(c context.Context) (err error) {
		_, obj, err = setup(c, js, &spec)
		return err
	}); err != nil {
		return "", nil, err
	}
	if err := retry(ctx, setupTries, func(c context.Context) error {
		if _, err := obj.GetInfo(c, hash); err == nil {
			return nil
		}
		_, err := obj.PutBytes(c, hash, bundle)
		return err
	}); err != nil {
		return "", nil, fmt.Errorf("sending the project: %w", err)
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
		return "", nil, err
	}
	if ends > 0 {
		id = fmt.Sprintf("%s-%d", id, ends)
	}
	jobs := spec.jobs(id, hash)
	for _, j := range jobs {
		b, _ := json.Marshal(&j)
		msg, err := signedMsg(spec.Key, "modex.jobs."+id, b)
		if err != nil {
			return "", nil, err
		}
		// Published again after a lost acknowledgement, a job is kept once
		// (its message id is deduplicated).
		if err := retry(ctx, setupTries, func(c context.Context) error {
			_, err := js.PublishMsg(c, msg, jetstream.WithMsgID(fmt.Sprintf("%s/job/%d", id, j.ID)))
			return err
		}); err != nil {
			return "", nil, fmt.Errorf("publishing job %d: %w", j.ID, err)
		}
	}
	return id, jobs, nil
}

// add merges a job's result.
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
		if len(s.Failures) >= MaxDetailedFailures {
			// Bounded memory: the seed, kind and message still say which
			// run failed and how (its choices come again with its seed).
			f = Failure{Seed: f.Seed, Kind: f.Kind, Step: f.Step, Message: f.Message, Worker: f.Worker}
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

// take merges a result message, once per job, and acknowledges it.
func (s *Summary) take(msg jetstream.Msg, id string, jobs []Job, done map[int]bool, trust Trust) {
	s.merge(msg.Headers(), msg.Data(), id, jobs, done, trust)
	msg.Ack()
}

// maxUntrustedWhy bounds the reasons kept for ignored results.
const maxUntrustedWhy = 5

// merge merges a result (JSON) of campaign id, once per job, when it is
// signed by a trusted worker (trust nil: any signer) and matches its job:
// the job's nonce, a run count that adds up. Anything else is counted as
// untrusted and dropped.
func (s *Summary) merge(h nats.Header, data []byte, id string, jobs []Job, done map[int]bool, trust Trust) {
	signer, err := verify(h, data, trust)
	var r Result
	if err == nil {
		err = json.Unmarshal(data, &r)
	}
	if err == nil && r.Campaign != id {
		return // another campaign's, on a shared stream
	}
	if err == nil {
		err = r.check(jobs)
	}
	if err != nil {
		s.Untrusted++
		if len(s.UntrustedWhy) < maxUntrustedWhy {
			who := "a sender"
			if signer != "" {
				who = short(signer)
			}
			s.UntrustedWhy = append(s.UntrustedWhy, safetext.Term(fmt.Sprintf("%s: %v", who, err)))
		}
		return
	}
	if done[r.Job] {
		s.Duplicates++
	} else {
		done[r.Job] = true
		s.add(&r)
	}
}

// check matches a result with its job: the job exists, the nonce is its,
// and the runs add up.
func (r *Result) check(jobs []Job) error {
	if r.Job < 0 || r.Job >= len(jobs) {
		return fmt.Errorf("a result for job %d, which the campaign does not have", r.Job)
	}
	if r.Nonce != jobs[r.Job].Nonce {
		return fmt.Errorf("a result for job %d without the job's nonce (forged)", r.Job)
	}
	if r.Error != "" {
		return nil
	}
	n := 0
	for _, k := range r.Tally {
		n += k
	}
	if r.Runs != jobs[r.Job].Runs || n != r.Runs || len(r.Failures) > r.Runs {
		return fmt.Errorf("a result for job %d whose runs do not add up (%d runs of %d, verdicts for %d)", r.Job, r.Runs, jobs[r.Job].Runs, n)
	}
	return nil
}

func report(progress func(Progress), sum *Summary, done map[int]bool, jobs []Job, start time.Time) {
	if progress == nil {
		return
	}
	per := make(map[string]WorkerStat, len(sum.perWorker))
	for w, st := range sum.perWorker {
		per[w] = st
	}
	fresh := append([]Failure(nil), sum.Failures[sum.reported:]...)
	sum.reported = len(sum.Failures)
	progress(Progress{Done: len(done), Jobs: len(jobs), Runs: sum.Runs, Steps: sum.Steps, Failures: len(sum.Failures),
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
