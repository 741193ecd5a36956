package campaign

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/modex/modex/engine/conform"
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
}

// Progress is reported as results arrive.
type Progress struct {
	Done, Jobs, Runs, Steps, Failures, States int
	Workers                                   int
	Seconds                                   float64
}

// Coordinate runs a campaign: it sends the project, publishes the jobs and
// aggregates the results until every job is done or given up. A
// coordinator started again with the same spec resumes the campaign from
// the streams (its consumer is durable, results are keyed by job).
func Coordinate(ctx context.Context, url, creds string, spec Spec, progress func(Progress)) (*Summary, error) {
	spec.defaults()
	start := time.Now()
	data, hash, err := makeBundle(spec.ProjectFile)
	if err != nil {
		return nil, err
	}
	nc, err := connect(url, "modex coordinator", creds)
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
		Covered: conform.Covered{States: map[string]bool{}, Transitions: map[string]bool{}}}
	// Jobs given up: the server's advisory names the stream message.
	givenUp := make(chan int, len(jobs))
	sub, err := nc.Subscribe("$JS.EVENT.ADVISORY.CONSUMER.MAX_DELIVERIES."+jobsStream+"."+workersName, func(m *nats.Msg) {
		var adv struct {
			StreamSeq uint64 `json:"stream_seq"`
		}
		if json.Unmarshal(m.Data, &adv) != nil {
			return
		}
		if raw, err := js.Stream(ctx, jobsStream); err == nil {
			if msg, err := raw.GetMsg(ctx, adv.StreamSeq); err == nil {
				var j Job
				if json.Unmarshal(msg.Data, &j) == nil && j.Campaign == id {
					givenUp <- j.ID
				}
			}
		}
	})
	if err != nil {
		return nil, err
	}
	defer sub.Unsubscribe()
	// Read every result of the campaign from the start: a coordinator
	// started again (after a crash, or for a campaign already done)
	// aggregates what the workers published (results are kept for a week).
	_ = js.DeleteConsumer(ctx, resultsStream, "coord-"+id)
	results, err := js.CreateOrUpdateConsumer(ctx, resultsStream, jetstream.ConsumerConfig{Durable: "coord-" + id,
		FilterSubject: "modex.results." + id, AckPolicy: jetstream.AckExplicitPolicy, DeliverPolicy: jetstream.DeliverAllPolicy})
	if err != nil {
		return nil, err
	}
	done := map[int]bool{}
	for len(done) < len(jobs) {
		if err := ctx.Err(); err != nil {
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
					sum.take(m, id, jobs, done)
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
			sum.take(m, id, jobs, done)
		}
		report(progress, sum, done, jobs, start)
	}
	sum.Done = len(done) - sum.GivenUp
	sort.Slice(sum.Failures, func(i, j int) bool { return sum.Failures[i].Seed < sum.Failures[j].Seed })
	sum.Seconds = time.Since(start).Seconds()
	return sum, nil
}

// publish sets up the streams, sends the project (once: it is stored by
// its hash) and publishes the campaign's jobs (once: their message ids are
// deduplicated), returning the campaign's id and jobs.
func publish(ctx context.Context, js jetstream.JetStream, spec Spec, bundle []byte, hash string) (string, []Job, error) {
	var obj jetstream.ObjectStore
	var err error
	for try := 0; ; try++ { // a cluster may be electing leaders: try again for a while
		if _, obj, err = setup(ctx, js, &spec); err == nil {
			break
		}
		if try == 20 || ctx.Err() != nil {
			return "", nil, err
		}
		time.Sleep(500 * time.Millisecond)
	}
	if _, err := obj.GetInfo(ctx, hash); err != nil {
		if _, err := obj.PutBytes(ctx, hash, bundle); err != nil {
			return "", nil, fmt.Errorf("sending the project: %w", err)
		}
	}
	id := spec.ID(hash)
	jobs := spec.jobs(id, hash)
	for _, j := range jobs {
		b, _ := json.Marshal(&j)
		if _, err := js.Publish(ctx, "modex.jobs."+id, b, jetstream.WithMsgID(fmt.Sprintf("%s/job/%d", id, j.ID))); err != nil {
			return "", nil, fmt.Errorf("publishing job %d: %w", j.ID, err)
		}
	}
	return id, jobs, nil
}

// add merges a job's result.
func (s *Summary) add(r *Result) {
	s.Workers[r.Worker]++
	if r.Error != "" {
		s.JobErrors = append(s.JobErrors, fmt.Sprintf("job %d on %s: %s", r.Job, r.Worker, r.Error))
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
	s.Failures = append(s.Failures, r.Failures...)
}

func collect(batch jetstream.MessageBatch) []jetstream.Msg {
	var out []jetstream.Msg
	for m := range batch.Messages() {
		out = append(out, m)
	}
	return out
}

// take merges a result message, once per job, and acknowledges it.
func (s *Summary) take(msg jetstream.Msg, id string, jobs []Job, done map[int]bool) {
	var r Result
	if json.Unmarshal(msg.Data(), &r) == nil && r.Campaign == id && r.Job >= 0 && r.Job < len(jobs) {
		if done[r.Job] {
			s.Duplicates++
		} else {
			done[r.Job] = true
			s.add(&r)
		}
	}
	msg.Ack()
}

func report(progress func(Progress), sum *Summary, done map[int]bool, jobs []Job, start time.Time) {
	if progress != nil {
		progress(Progress{Done: len(done), Jobs: len(jobs), Runs: sum.Runs, Steps: sum.Steps, Failures: len(sum.Failures),
			States: len(sum.Covered.States), Workers: len(sum.Workers), Seconds: time.Since(start).Seconds()})
	}
}
