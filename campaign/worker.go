package campaign

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/nats-io/nkeys"
	"go.starlark.net/starlark"

	"github.com/modex/modex/engine/adapter"
	"github.com/modex/modex/engine/conform"
	"github.com/modex/modex/engine/explore"
	"github.com/modex/modex/engine/model"
	"github.com/modex/modex/internal/safetext"
	"github.com/modex/modex/projects"
)

// Worker pulls jobs and runs them against its own implementation. It runs
// only what its operator gave it: Command (or the adapter at Address), in
// Dir — never a command, folder or address that came with a project. A
// job's project is data: its configuration, its model and the files the
// model loads.
type Worker struct {
	Name string
	// Command is the adapter command line the worker starts, in Dir
	// (default: the worker's working folder); {NAME} in it is replaced by
	// the value of the job's model constant NAME only for the names in
	// Placeholders, and only when the value is an integer, a boolean or a
	// plain word (letters, digits, '.', '_', '-', not starting with '-').
	Command      []string
	Dir          string
	Placeholders []string
	// Address is a running adapter's TCP address, used when Command is
	// empty.
	Address string
	// Index is the worker's number (from 1; 0 counts as 1): {WORKER} in
	// Command and Address stands for it, so that the workers of one
	// machine each start, or reach, an implementation of their own
	// (docs/campaigns.md: workers sharing one stateful server clear each
	// other's data).
	Index int
	// Timeout bounds the adapter's answers (default: the project's
	// [adapter] timeout, within 0.1 to 60 s, or 10 s).
	Timeout time.Duration
	// Trust are the coordinators whose jobs the worker runs; jobs signed
	// by another key, or not at all, are dropped and counted.
	Trust Trust
	// Key signs the worker's results (nil: a fresh key).
	Key nkeys.KeyPair
	// CacheDir holds the projects received (default: modex/campaigns in
	// the user's cache folder).
	CacheDir string
	// OnJob, when set, is called when a job is done; OnIgnored when a job
	// is dropped (untrusted, not a job, expired or come again), with why.
	OnJob     func(Job, Result)
	OnIgnored func(why string)

	// Ignored counts the jobs dropped as untrusted; Refused the trusted
	// ones refused as expired, of a campaign that ended, or run here
	// already (a job captured and published again).
	Ignored atomic.Int64
	Refused atomic.Int64

	// seen remembers the jobs run and the campaigns ended.
	seen seenJobs

	// The implementation stays connected from job to job of the same
	// project, configuration and command (an adapter may take seconds to
	// start); implKey says which it is.
	impl    conform.Implementation
	implKey string
	// noted holds the bundles whose own [adapter] section was reported
	// as ignored.
	noted map[string]bool
	cov   *projects.Coverage // the implementation's code coverage (jobs with Cover)
	// messageLimit, when set, lowers the message size the worker's
	// results are fitted to (tests).
	messageLimit int
}

// connectImpl returns the implementation for a job, reusing the last one
// when it serves the same project, configuration and command.
func (w *Worker) connectImpl(ctx context.Context, p *projects.Project, job Job, info *model.ModelInfo) (conform.Implementation, error) {
	argv, err := w.argv(info)
	if err != nil {
		return nil, err
	}
	key := job.Bundle + "\x00" + job.Config + "\x00" + strings.Join(argv, "\x00") + fmt.Sprintf("\x00%v%q", job.Cover, job.CoverInclude)
	if w.impl != nil && w.implKey == key {
		return w.impl, nil
	}
	w.closeImpl()
	timeout := w.Timeout
	if timeout <= 0 {
		timeout = 10 * time.Second
		if p.Adapter != nil && p.Adapter.Timeout > 0 {
			// The project's own figure, bounded: it came from the network.
			timeout = time.Duration(min(max(p.Adapter.Timeout, 0.1), 60) * float64(time.Second))
		}
	}
	// The implementation outlives the job: it is bound to the worker's
	// run, not to ctx of one job.
	var impl conform.Implementation
	var env []string
	if job.Cover {
		if w.cov, err = projects.NewCoverage(job.CoverInclude); err != nil {
			return nil, err
		}
		env = w.cov.Env()
	}
	if len(argv) > 0 {
		impl, err = adapter.StartProcess(context.WithoutCancel(ctx), adapter.HelloFor(info), argv, w.Dir, timeout, adapter.WithEnv(env...))
	} else if w.Address != "" {
		impl, err = adapter.Dial(context.WithoutCancel(ctx), adapter.HelloFor(info), projects.ExpandWorker(w.Address, w.Index), timeout)
	} else {
		err = errors.New("this worker has no adapter command nor address")
	}
	if err != nil {
		return nil, err
	}
	w.impl, w.implKey = impl, key
	return impl, nil
}

// plainWord is what a placeholder's value may be.
var plainWord = regexp.MustCompile(`^[A-Za-z0-9_.][A-Za-z0-9_.-]{0,127}$`)

// argv is the worker's command with its allowed placeholders filled from
// the model's constants.
func (w *Worker) argv(info *model.ModelInfo) ([]string, error) {
	out := make([]string, len(w.Command))
	for i, a := range w.Command {
		out[i] = projects.ExpandWorker(a, w.Index)
	}
	for _, name := range w.Placeholders {
		var value string
		found := false
		for _, c := range info.Constants {
			if c.Name != name {
				continue
			}
			found = true
			if s, ok := model.AsString(c.Value); ok {
				value = s
			} else if n, ok := model.AsInt(c.Value); ok {
				value = strconv.Itoa(n)
			} else if b, ok := c.Value.(starlark.Bool); ok {
				value = strconv.FormatBool(bool(b))
			} else {
				return nil, fmt.Errorf("placeholder {%s}: the model's constant is a %s, not an integer, boolean or word", name, c.Value.Type())
			}
		}
		if !found {
			return nil, fmt.Errorf("placeholder {%s}: the job's model declares no constant %s", name, name)
		}
		if !plainWord.MatchString(value) {
			return nil, fmt.Errorf("placeholder {%s}: the value %q is not a plain word (letters, digits, '.', '_', '-')", name, cut(value, 40))
		}
		for i := range out {
			out[i] = strings.ReplaceAll(out[i], "{"+name+"}", value)
		}
	}
	return out, nil
}

// cut shortens s to n bytes for a message.
func cut(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

func (w *Worker) closeImpl() {
	if w.impl != nil {
		w.impl.Close()
		w.impl, w.implKey = nil, ""
	}
	if w.cov != nil {
		w.cov.Close()
		w.cov = nil
	}
}

// maxCodeBlocks bounds the code coverage blocks a result carries.
const maxCodeBlocks = 50_000

// measure adds the code coverage of the worker's implementation so far to
// a job's result (a job with Cover).
func (w *Worker) measure(ctx context.Context, impl conform.Implementation, res *Result) {
	if w.cov == nil {
		return
	}
	if _, _, err := w.cov.Measure(ctx, impl, true); err != nil {
		res.CodeNote = err.Error()
		return
	}
	res.Code = w.cov.Profile.Blocks()
	if len(res.Code) == 0 {
		res.CodeNote = w.cov.Report()
	}
	if n := len(res.Code); n > maxCodeBlocks {
		res.Code = res.Code[:maxCodeBlocks]
		res.CodeNote = fmt.Sprintf("%d of %d code blocks sent (at most %d a result)", maxCodeBlocks, n, maxCodeBlocks)
	}
}

// Run pulls and runs jobs until ctx ends. url names the NATS server (its
// credentials are never logged).
func (w *Worker) Run(ctx context.Context, url string, auth Auth) error {
	if len(w.Trust) == 0 {
		return errors.New("a worker needs the public key of the coordinator whose jobs it runs (modex worker --trust KEY|FILE)")
	}
	if w.Key == nil {
		kp, err := NewKey()
		if err != nil {
			return err
		}
		w.Key = kp
	}
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
		if ctx.Err() != nil {
			return nil // stopped while it set up: not an error
		}
		return err
	}
	if w.CacheDir == "" {
		cache, err := os.UserCacheDir()
		if err != nil {
			return err
		}
		w.CacheDir = cache + "/modex/campaigns"
	}
	if err := os.MkdirAll(w.CacheDir, 0o700); err != nil {
		return err
	}
	// The coordinators' notices that a campaign ended: its jobs are
	// refused from then on (a server that does not let this worker hear
	// them leaves the jobs' expiry to refuse them).
	sub, err := nc.Subscribe(endedSubject+">", func(m *nats.Msg) {
		var e ended
		if _, err := verify(m.Header, m.Data, w.Trust); err == nil && json.Unmarshal(m.Data, &e) == nil && e.Campaign != "" {
			w.seen.end(e.Campaign)
		}
	})
	if err == nil {
		defer sub.Unsubscribe()
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
	_, err := verify(msg.Headers(), msg.Data(), w.Trust)
	if err == nil {
		if err = json.Unmarshal(msg.Data(), &job); err != nil {
			err = fmt.Errorf("not a job: %v", err)
		}
	}
	if err != nil {
		msg.Term() // never deliver it again
		w.Ignored.Add(1)
		if w.OnIgnored != nil {
			w.OnIgnored(fmt.Sprintf("a job ignored (%s)", safetext.Term(err.Error())))
		}
		return
	}
	if why := w.stale(&job, time.Now()); why != "" {
		msg.Term()
		w.Refused.Add(1)
		if w.OnIgnored != nil {
			w.OnIgnored(fmt.Sprintf("job %d of campaign %s refused: %s", job.ID, cut(job.Campaign, 40), why))
		}
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
	if w.messageLimit > 0 {
		limit = min(limit, w.messageLimit)
	}
	// The details of failures that do not fit the result's message go
	// first, in parts: the coordinator holds them until the result comes.
	data, parts := pack(&res, limit)
	subject := "modex.results." + job.Campaign
	for _, p := range parts {
		b, _ := json.Marshal(&p)
		id := fmt.Sprintf("%s/%d/part/%d/%s/%d", job.Campaign, job.ID, p.Part.Seed, p.Part.Sum[:16], p.Part.Index)
		if err := w.publish(ctx, js, subject, id, b); err != nil {
			msg.Nak()
			return
		}
	}
	if err := w.publish(ctx, js, subject, fmt.Sprintf("%s/%d", job.Campaign, job.ID), data); err != nil {
		msg.Nak()
		return
	}
	w.seen.ran(job.Campaign, job.ID)
	msg.Ack()
	if w.OnJob != nil {
		w.OnJob(job, res)
	}
}

// publish signs data and publishes it on subject, with message id (a
// message published again after a lost acknowledgement is kept once).
func (w *Worker) publish(ctx context.Context, js jetstream.JetStream, subject, id string, data []byte) error {
	out, err := signedMsg(w.Key, subject, data)
	if err != nil {
		return err
	}
	return retry(ctx, 3, func(c context.Context) error {
		_, err := js.PublishMsg(c, out, jetstream.WithMsgID(id))
		return err
	})
}

// expirySlack is how far apart the clocks of a coordinator and a worker
// may be.
const expirySlack = time.Hour

// stale says why a trusted job must not run ("" : it may): it has no
// expiry or it passed (at now), or it lies further ahead than a
// coordinator sets; its campaign ended; this worker ran it already.
func (w *Worker) stale(job *Job, now time.Time) string {
	switch {
	case job.Expires == 0:
		return "it has no expiry (a coordinator older than this worker, or a forgery)"
	case now.Unix() > job.Expires:
		return fmt.Sprintf("it expired at %s", time.Unix(job.Expires, 0).UTC().Format(time.RFC3339))
	case job.Expires > now.Add(MaxJobTTL+expirySlack).Unix():
		return fmt.Sprintf("it expires at %s, later than a coordinator sets", time.Unix(job.Expires, 0).UTC().Format(time.RFC3339))
	}
	return w.seen.refused(job.Campaign, job.ID)
}

// run runs a job's test runs; problems become the result's Error. A
// panic in the job (a model the interpreter chokes on) ends the job with
// an error, never the worker.
func (w *Worker) run(ctx context.Context, obj jetstream.ObjectStore, job Job) (res Result) {
	start := time.Now()
	res = Result{Campaign: job.Campaign, Job: job.ID, Nonce: job.Nonce, Worker: w.Name, Tally: map[conform.Verdict]int{}}
	fail := func(err error) Result {
		res.Error = err.Error()
		res.Seconds = time.Since(start).Seconds()
		return res
	}
	defer func() {
		if r := recover(); r != nil {
			w.closeImpl()
			res = Result{Campaign: job.Campaign, Job: job.ID, Nonce: job.Nonce, Worker: w.Name, Tally: map[conform.Verdict]int{}}
			res = fail(fmt.Errorf("model error: the job stopped: %v", r))
		}
	}()
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
	if err := confined(p, filepath.Join(w.CacheDir, job.Bundle)); err != nil {
		return fail(err)
	}
	w.noteAdapter(job.Bundle, p)
	m, err := p.LoadModelContext(ctx, job.Config, 0)
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
	impl, err := w.connectImpl(ctx, p, job, m.Info())
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
	w.measure(ctx, impl, &res)
	res.Runs, res.Steps = len(tr.Runs), tr.Steps
	for _, sk := range tr.Skipped {
		res.Skipped = append(res.Skipped, sk.Action)
	}
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
			w.shrink(ctx, p, job, m, cfg, tc, saved, &f)
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
	if j.ID < 0 || j.ID >= MaxJobs {
		return fmt.Errorf("job %d out of bounds: a campaign has at most %d jobs", j.ID, MaxJobs)
	}
	if j.Runs <= 0 || j.Runs > maxJobRuns || j.Steps < 0 || j.Steps > maxJobSteps || j.EndWait < 0 || j.EndWait > 3600 {
		return fmt.Errorf("job %d out of bounds: %d runs (1 to %d), %d steps (0 to %d), end wait %g s (0 to 3600)",
			j.ID, j.Runs, maxJobRuns, j.Steps, maxJobSteps, j.EndWait)
	}
	if len(j.CoverInclude) > 32 || slices.ContainsFunc(j.CoverInclude, func(s string) bool { return len(s) > 256 }) {
		return fmt.Errorf("job %d out of bounds: at most 32 coverage file patterns of 256 bytes", j.ID)
	}
	return nil
}

// shrink shrinks a failing run against the worker's implementation (see
// conform.Shrink) and adds the shortest run found to its failure.
func (w *Worker) shrink(ctx context.Context, p *projects.Project, job Job, m model.Model, cfg *explore.Config, tc conform.TestConfig,
	saved *conform.SavedRun, f *Failure) {
	impl, err := w.connectImpl(ctx, p, job, m.Info())
	if err != nil {
		f.ShrunkNote = "not shrunk: " + err.Error()
		return
	}
	// A job's budgets come from the network: bounded here.
	sh := *job.Shrink
	// Runs 0: no bound in runs, the time alone (as modex test --shrink).
	sh.Repeats, sh.Runs, sh.Seconds = min(max(sh.Repeats, 1), 20), min(max(sh.Runs, 0), 10000), min(max(sh.Seconds, 1), 3600)
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
// verdicts are still counted; Result.Dropped says how many went). pack
// sends the details apart first: fit is for what still does not fit.
func fit(res *Result, limit int) []byte {
	data, _ := json.Marshal(res)
	limit -= 1024 // the message's headers
	if len(data) > limit && res.Code != nil {
		res.Code, res.CodeNote = nil, "the code coverage was left out: the result would exceed the server's message size"
		data, _ = json.Marshal(res)
	}
	for _, drop := range shedders {
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
// it the first time (it is stored by its hash). The object's size is
// checked from its metadata before it is read, and read within it.
func (w *Worker) project(ctx context.Context, obj jetstream.ObjectStore, hash string) (string, error) {
	if !validHash(hash) {
		return "", fmt.Errorf("the job names no project bundle (%q is not a SHA-256 hash)", cut(hash, 70))
	}
	if path, ok := extracted(w.CacheDir, hash); ok {
		return path, nil
	}
	var data []byte
	var tooLarge error
	if err := retry(ctx, 3, func(c context.Context) (err error) {
		info, err := obj.GetInfo(c, hash)
		if err != nil {
			return err
		}
		if info.Size > maxBundleObject {
			tooLarge = fmt.Errorf("the project bundle is %d MiB, more than the %d MiB a worker takes", info.Size>>20, maxBundleObject>>20)
			return nil
		}
		r, err := obj.Get(c, hash)
		if err != nil {
			return err
		}
		defer r.Close()
		data, err = io.ReadAll(io.LimitReader(r, maxBundleObject+1))
		if err == nil && len(data) > maxBundleObject {
			tooLarge = fmt.Errorf("the project bundle is larger than the %d MiB a worker takes", maxBundleObject>>20)
		}
		return err
	}); err != nil {
		return "", fmt.Errorf("%w %s: %v", errFetch, hash, err)
	}
	if tooLarge != nil {
		return "", tooLarge
	}
	return extractBundle(data, hash, w.CacheDir)
}

// noteAdapter tells the operator, once per bundle, that the project's own
// [adapter] section is ignored.
func (w *Worker) noteAdapter(bundle string, p *projects.Project) {
	a := p.Adapter
	if a == nil || (len(a.Command) == 0 && a.Dir == "" && a.Address == "") || w.noted[bundle] || w.OnIgnored == nil {
		return
	}
	if w.noted == nil {
		w.noted = map[string]bool{}
	}
	w.noted[bundle] = true
	what := strings.Join(a.Command, " ")
	if what == "" {
		what = a.Address + a.Dir
	}
	w.OnIgnored(fmt.Sprintf("project %s names its own adapter (%s): ignored, this worker runs only its own", safetext.Term(p.Name), safetext.Term(cut(what, 60))))
}

// userinfo matches the credentials of a URL in a message.
var userinfo = regexp.MustCompile(`([A-Za-z][A-Za-z0-9+.-]*://)[^@\s/"']+@`)

// redact removes the URL (which may hold credentials) from an error: the
// whole list, each server of it, and any user and password of a URL.
func redact(err error, url string) error {
	msg := err.Error()
	if url != "" {
		msg = strings.ReplaceAll(msg, url, "<the --nats URL>")
		for _, part := range strings.Split(url, ",") {
			part = strings.TrimSpace(part)
			if part == "" {
				continue
			}
			if at := strings.LastIndex(part, "@"); at >= 0 {
				creds := part[:at]
				if i := strings.Index(creds, "://"); i >= 0 {
					creds = creds[i+3:]
				}
				for _, secret := range append([]string{creds}, strings.Split(creds, ":")...) {
					if len(secret) >= 3 {
						msg = strings.ReplaceAll(msg, secret, "***")
					}
				}
			}
			msg = strings.ReplaceAll(msg, part, "<a --nats server>")
		}
	}
	return errors.New(userinfo.ReplaceAllString(msg, "${1}***@"))
}
