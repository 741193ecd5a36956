package campaign

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/modex/modex/engine/conform"
	"github.com/modex/modex/engine/explore"
	"github.com/modex/modex/engine/model"
	"github.com/modex/modex/projects"
)

// Worker pulls jobs and runs them against its own implementation.
type Worker struct {
	Name string
	// Adapter is the adapter command the worker runs (its own, not the
	// project's). Empty: the project's command, only when
	// AllowProjectAdapter is set (a campaign started on this machine, whose
	// user consented by starting it).
	Adapter             string
	AllowProjectAdapter bool
	// CacheDir holds the projects received (default: modex/campaigns in
	// the user's cache folder).
	CacheDir string
	// OnJob, when set, is called when a job is done.
	OnJob func(Job, Result)

	// The implementation stays connected from job to job of the same
	// project, configuration and command (an adapter may take seconds to
	// start); implKey says which it is.
	impl    conform.Implementation
	implKey string
}

// connectImpl returns the implementation for a job, reusing the last one
// when it serves the same project, configuration and command.
func (w *Worker) connectImpl(ctx context.Context, p *projects.Project, job Job, info *model.ModelInfo, command string) (conform.Implementation, error) {
	key := job.Bundle + "\x00" + job.Config + "\x00" + command
	if w.impl != nil && w.implKey == key {
		return w.impl, nil
	}
	w.closeImpl()
	// The implementation outlives the job: it is bound to the worker's
	// run, not to ctx of one job.
	impl, err := p.Connect(context.WithoutCancel(ctx), info, command, "")
	if err != nil {
		return nil, err
	}
	w.impl, w.implKey = impl, key
	return impl, nil
}

func (w *Worker) closeImpl() {
	if w.impl != nil {
		w.impl.Close()
		w.impl, w.implKey = nil, ""
	}
}

// Run pulls and runs jobs until ctx ends. url names the NATS server (its
// credentials are never logged).
func (w *Worker) Run(ctx context.Context, url string, auth Auth) error {
	nc, err := connect(url, "modex worker "+w.Name, auth)
	if err != nil {
		return fmt.Errorf("connecting to NATS: %w", redact(err, url))
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		return err
	}
	// A worker finds the streams set up by a coordinator, or sets them up
	// with the defaults.
	// Another worker may be creating the streams at the same moment, or
	// the cluster electing a leader: try again for a while.
	var cons jetstream.Consumer
	var obj jetstream.ObjectStore
	if err := retry(ctx, setupTries, func(c context.Context) (err error) {
		cons, obj, err = setup(c, js, nil)
		return err
	}); err != nil {
		return err
	}
	if w.CacheDir == "" {
		cache, err := os.UserCacheDir()
		if err != nil {
			return err
		}
		w.CacheDir = cache + "/modex/campaigns"
	}
	if err := os.MkdirAll(w.CacheDir, 0o755); err != nil {
		return err
	}
	defer w.closeImpl()
	for ctx.Err() == nil {
		batch, err := cons.Fetch(1, jetstream.FetchMaxWait(time.Second))
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			time.Sleep(200 * time.Millisecond) // the server is away: try again
			continue
		}
		for msg := range batch.Messages() {
			w.handle(ctx, js, obj, msg, int(nc.MaxPayload()))
		}
	}
	return nil
}

// handle runs one job, publishes its result, then acknowledges the job —
// in that order, so that a worker that dies in between leaves the job to be
// delivered again (its duplicate result is dropped by the coordinator).
func (w *Worker) handle(ctx context.Context, js jetstream.JetStream, obj jetstream.ObjectStore, msg jetstream.Msg, limit int) {
	var job Job
	if err := json.Unmarshal(msg.Data(), &job); err != nil {
		msg.Term() // not a job: never deliver it again
		return
	}
	// Signs of life while the job runs, so that it is not handed to
	// another worker.
	alive, stop := context.WithCancel(ctx)
	go func() {
		t := time.NewTicker(5 * time.Second)
		defer t.Stop()
		for {
			select {
			case <-alive.Done():
				return
			case <-t.C:
				msg.InProgress()
			}
		}
	}()
	res := w.run(ctx, obj, job)
	stop()
	if ctx.Err() != nil || strings.HasPrefix(res.Error, errFetch.Error()) {
		// Cancelled, or the project could not be fetched: the job goes
		// to a worker again (soon, not after the ack wait).
		msg.NakWithDelay(time.Second)
		return
	}
	data := fit(&res, limit)
	if err := retry(ctx, 3, func(c context.Context) error {
		_, err := js.Publish(c, "modex.results."+job.Campaign, data, jetstream.WithMsgID(fmt.Sprintf("%s/%d", job.Campaign, job.ID)))
		return err
	}); err != nil {
		msg.Nak()
		return
	}
	msg.Ack()
	if w.OnJob != nil {
		w.OnJob(job, res)
	}
}

// run runs a job's test runs; problems become the result's Error.
func (w *Worker) run(ctx context.Context, obj jetstream.ObjectStore, job Job) Result {
	start := time.Now()
	res := Result{Campaign: job.Campaign, Job: job.ID, Worker: w.Name, Tally: map[conform.Verdict]int{}}
	fail := func(err error) Result {
		res.Error = err.Error()
		res.Seconds = time.Since(start).Seconds()
		return res
	}
	if err := job.check(); err != nil {
		return fail(err)
	}
	path, err := w.project(ctx, obj, job.Bundle)
	if err != nil {
		return fail(err)
	}
	p, err := projects.Load(path)
	if err != nil {
		return fail(err)
	}
	m, err := p.LoadModelFor(job.Config)
	if err != nil {
		return fail(err)
	}
	cfg, err := p.Build(m, job.Config)
	if err != nil {
		return fail(err)
	}
	tc, _, err := p.TestSetup(projects.TestOverrides{Runs: job.Runs, Steps: job.Steps, Seed: int64(job.Seed), Strategy: job.Strategy, EndWait: job.EndWait})
	if err != nil {
		return fail(err)
	}
	tc.Runs, tc.Seed = job.Runs, job.Seed
	command := w.Adapter
	if command == "" && !w.AllowProjectAdapter {
		return fail(errors.New("this worker runs only its own adapter command (modex worker --adapter \"CMD ...\")"))
	}
	impl, err := w.connectImpl(ctx, p, job, m.Info(), command)
	if err != nil {
		return fail(err)
	}
	tr, err := conform.Test(ctx, m, cfg, impl, tc)
	if err != nil {
		w.closeImpl()
		return fail(err)
	}
	for _, r := range tr.Runs {
		if r.Failure != nil && r.Failure.Kind.Fatal() {
			w.closeImpl() // crashed or unusable: a fresh one for the next job
			break
		}
	}
	res.Runs, res.Steps = len(tr.Runs), tr.Steps
	shrunk := job.Shrink == nil
	for _, r := range tr.Runs {
		res.Tally[r.Verdict]++
		if r.Failure == nil {
			continue
		}
		saved := conform.SaveRun(p.Name, job.Config, tc, r)
		f := Failure{Seed: r.Seed, Kind: string(r.Failure.Kind), Step: r.Failure.Step, Message: r.Failure.Message,
			Saved: rawRun(saved), Report: conform.FailureReport(r, ""), Path: r.Path(), Worker: w.Name}
		if !shrunk && r.Verdict == conform.Fail && ctx.Err() == nil {
			shrunk = true // the job's first failing run
			w.shrink(ctx, p, job, m, cfg, tc, command, saved, &f)
		}
		res.Failures = append(res.Failures, f)
	}
	c := tr.Covered()
	for k := range c.States {
		res.States = append(res.States, []byte(k))
	}
	for k := range c.Transitions {
		res.Transitions = append(res.Transitions, []byte(k))
	}
	res.Seconds = time.Since(start).Seconds()
	return res
}

// Bounds on a job received: jobs come from the network.
const (
	maxJobRuns  = 100_000
	maxJobSteps = 1_000_000
)

// check refuses a job whose sizes are out of bounds.
func (j *Job) check() error {
	if j.Runs <= 0 || j.Runs > maxJobRuns || j.Steps < 0 || j.Steps > maxJobSteps || j.EndWait < 0 || j.EndWait > 3600 {
		return fmt.Errorf("job %d out of bounds: %d runs (1 to %d), %d steps (0 to %d), end wait %g s (0 to 3600)",
			j.ID, j.Runs, maxJobRuns, j.Steps, maxJobSteps, j.EndWait)
	}
	return nil
}

// shrink shrinks a failing run against the worker's implementation (see
// conform.Shrink) and adds the shortest run found to its failure.
func (w *Worker) shrink(ctx context.Context, p *projects.Project, job Job, m model.Model, cfg *explore.Config, tc conform.TestConfig,
	command string, saved *conform.SavedRun, f *Failure) {
	impl, err := w.connectImpl(ctx, p, job, m.Info(), command)
	if err != nil {
		f.ShrunkNote = "not shrunk: " + err.Error()
		return
	}
	// A job's budgets come from the network: bounded here.
	sh := *job.Shrink
	sh.Repeats, sh.Runs, sh.Seconds = min(max(sh.Repeats, 1), 20), min(max(sh.Runs, 1), 10000), min(max(sh.Seconds, 1), 3600)
	tc.OnStep, tc.OnRun = nil, nil
	res, err := conform.Shrink(ctx, m, cfg, impl, tc, saved, conform.ShrinkConfig{Repeats: sh.Repeats, MaxRuns: sh.Runs,
		MaxTime: time.Duration(sh.Seconds * float64(time.Second))})
	if err != nil {
		w.closeImpl()
		f.ShrunkNote = "not shrunk: " + err.Error()
		return
	}
	f.Shrunk, f.ShrunkSteps, f.ShrunkNote = rawRun(res.Saved(saved)), res.Steps, res.Summary()
}

// rawRun is a saved run as JSON.
func rawRun(s *conform.SavedRun) json.RawMessage {
	var b strings.Builder
	s.Write(&b)
	return json.RawMessage(b.String())
}

// fit encodes a result within limit bytes (the server's message size),
// leaving out what it must, last failures first: their paths, then their
// reports, then their saved runs, then the failures beyond the first (the
// verdicts are still counted; Result.Dropped says how many went).
func fit(res *Result, limit int) []byte {
	data, _ := json.Marshal(res)
	limit -= 1024 // the message's headers
	shed := []func(f *Failure) bool{
		func(f *Failure) bool { ok := f.Path != nil; f.Path = nil; return ok },
		func(f *Failure) bool { ok := f.Shrunk != nil; f.Shrunk = nil; return ok },
		func(f *Failure) bool { ok := f.Report != ""; f.Report = ""; return ok },
		func(f *Failure) bool { ok := f.Saved != nil; f.Saved = nil; return ok },
	}
	for _, drop := range shed {
		for i := len(res.Failures) - 1; i >= 0 && len(data) > limit; i-- {
			if drop(&res.Failures[i]) {
				data, _ = json.Marshal(res)
			}
		}
	}
	for len(data) > limit && len(res.Failures) > 1 {
		res.Failures = res.Failures[:len(res.Failures)-1]
		res.Dropped++
		data, _ = json.Marshal(res)
	}
	return data
}

// errFetch marks a failure to fetch the project: the server's trouble, not
// the job's, so the job is handed out again rather than reported.
var errFetch = errors.New("fetching the project")

// project returns the path of the job's project, fetching and extracting
// it the first time (it is stored by its hash).
func (w *Worker) project(ctx context.Context, obj jetstream.ObjectStore, hash string) (string, error) {
	if path, ok := extracted(w.CacheDir, hash); ok {
		return path, nil
	}
	var data []byte
	if err := retry(ctx, 3, func(c context.Context) (err error) {
		data, err = obj.GetBytes(c, hash)
		return err
	}); err != nil {
		return "", fmt.Errorf("%w %s: %v", errFetch, hash, err)
	}
	return extractBundle(data, hash, w.CacheDir)
}

// redact removes the URL (which may hold credentials) from an error.
func redact(err error, url string) error {
	if url == "" {
		return err
	}
	return errors.New(strings.ReplaceAll(err.Error(), url, "<the --nats URL>"))
}
