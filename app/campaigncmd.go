package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/modex/modex/campaign"
	"github.com/modex/modex/engine/conform"
	"github.com/modex/modex/internal/safetext"
	"github.com/modex/modex/projects"
)

// cmdCampaign runs a test campaign on NATS JetStream: on the user's server
// (--nats) with workers started anywhere (modex worker), or on an embedded
// server with local workers.
func cmdCampaign(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("campaign", flag.ContinueOnError)
	config := fs.String("config", "", "the configuration `NAME` (default: the project's default)")
	runs := intFlag(fs, "runs", 100, 1, campaign.MaxRuns, fmt.Sprintf("at least 1 and at most %d", campaign.MaxRuns),
		fmt.Sprintf("test runs in all, 1 to %d", campaign.MaxRuns))
	steps := intFlag(fs, "steps", 0, 1, math.MaxInt, fmt.Sprintf("at least 1 (leave it out for the project's [test] steps, or %d)", projects.DefaultSteps),
		fmt.Sprintf("steps per run, at least 1 (default: [test] steps, else %d)", projects.DefaultSteps))
	seed := seedFlag(fs, "seed of the first run, 0 or more (-1: the project's seed, else one from the clock)")
	strategy := fs.String("strategy", "", "the runs' `STRATEGY`: random or coverage (default: [test] strategy, else random)")
	workers := intFlag(fs, "workers", 2, 0, maxWorkers, fmt.Sprintf("0 to %d (0 with --nats only: no local worker)", maxWorkers),
		fmt.Sprintf("local workers, 0 to %d (0, with --nats only: none here)", maxWorkers))
	jobRuns := intFlag(fs, "job-runs", 10, 1, campaign.MaxJobRuns, fmt.Sprintf("at least 1 and at most %d", campaign.MaxJobRuns),
		fmt.Sprintf("runs per job, 1 to %d (at most %d jobs in all)", campaign.MaxJobRuns, campaign.MaxJobs))
	jobTTL := durationFlag(fs, "job-ttl", campaign.DefaultJobTTL, 0, fmt.Sprintf("above 0, at most %v", campaign.MaxJobTTL),
		fmt.Sprintf("how long after it is published a job may run, at most %v (later, workers refuse it)", campaign.MaxJobTTL))
	natsURL := fs.String("nats", "", "the NATS server at `URL`, never printed (default: an embedded server with local workers)")
	auth := natsFlags(fs)
	adapterCmd := fs.String("adapter", "", "the local workers' adapter `CMD` (default: the project's)")
	ackWait := secondsFlag(fs, "ack-wait", 30, 0, false, maxFlagSeconds, "a number of seconds above 0, at most a week",
		"seconds a job may go without a sign of life from its worker before another gets it, above 0")
	maxDeliver := intFlag(fs, "max-deliver", 3, 1, math.MaxInt, "at least 1", "times a job is handed out before it is given up, at least 1")
	replicas := intFlag(fs, "replicas", 1, 1, 5, "1 to 5 (NATS keeps a stream on at most 5 servers)", "servers of a NATS cluster that keep each stream, 1 to 5 (3: the campaign survives a node's loss)")
	sh := addShrinkFlags(fs, "each job's first failing run, on its worker,")
	cover := addCoverFlags(fs)
	saveDir := fs.String("save-failures", "", "save the failing runs in folder `DIR` (default: modex/failures in the user's cache folder)")
	keyFile := fs.String("key", "", "the coordinator's signing key `FILE`, from modex keygen (default: with --nats, modex/coordinator.nk in the user's config folder; else a fresh key)")
	var trustWorkers listFlag
	fs.Var(&trustWorkers, "trust-worker", "count the results of the worker whose public key (U...) is `KEY|FILE`, or of those in the file (repeatable; required with --nats and --workers 0)")
	path, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	switch {
	case *workers == 0 && *natsURL == "":
		return usagef("campaign: --workers 0 runs no job: the embedded server has only this process's workers (0 is for --nats, where workers elsewhere run the jobs)")
	case (*runs+*jobRuns-1) / *jobRuns > campaign.MaxJobs:
		return usagef("campaign: --runs %d in jobs of %d make more than %d jobs: give --job-runs %d or more", *runs, *jobRuns, campaign.MaxJobs, (*runs+campaign.MaxJobs-1)/campaign.MaxJobs)
	case *jobTTL > campaign.MaxJobTTL:
		return usagef("campaign: --job-ttl must be at most %v, not %v", campaign.MaxJobTTL, *jobTTL)
	case *natsURL != "" && *workers == 0 && len(trustWorkers) == 0:
		return usagef("campaign: with --nats and --workers 0, name the workers whose results count: --trust-worker KEY|FILE " +
			"(modex worker prints its key when it starts; or make one with modex keygen FILE and give the worker --key FILE)")
	}
	ctx, stop := signalContext()
	defer stop()
	p, m, _, name, err := openConfig(ctx, path, *config)
	if err != nil {
		return err
	}
	if p.Path == "" {
		return fmt.Errorf("a campaign needs a project file (.toml), not a bare model")
	}
	tc, _, err := p.TestSetup(projects.TestOverrides{Steps: *steps, Seed: *seed, Strategy: *strategy})
	if err == nil && tc.Strategy == conform.StrategyCode {
		return usagef("a campaign cannot use the code strategy: its workers do not measure the implementation's code coverage (use modex test --strategy code --cover)")
	}
	if err != nil {
		return err
	}
	spec := campaign.Spec{ProjectFile: p.Path, Config: name, Runs: *runs, Steps: tc.Steps, Seed: tc.Seed, Strategy: string(tc.Strategy),
		EndWait: tc.EndWait.Seconds(), JobRuns: *jobRuns, JobTTL: *jobTTL, AckWait: time.Duration(*ackWait * float64(time.Second)), MaxDeliver: *maxDeliver, Replicas: *replicas}
	if sh.on {
		spec.Shrink = &campaign.Shrinking{Repeats: sh.repeats, Runs: sh.runs, Seconds: sh.seconds}
	}
	spec.Cover, spec.CoverInclude = cover.spec(p)
	if err := spec.Check(); err != nil {
		return usagef("%v", err)
	}
	if err := campaignKeys(&spec, *keyFile, trustWorkers, *natsURL, *workers, stdout, stderr); err != nil {
		return err
	}
	where, on, err := campaignWhere(campaign.Where{URL: *natsURL, Auth: auth(), Workers: *workers, Adapter: *adapterCmd}, stderr)
	if err != nil {
		return err
	}
	printAdapter(stdout, p, m.Info(), *adapterCmd, "")
	fmt.Fprintf(stdout, "campaign %s [%s]: %d runs of %d steps in jobs of %d, strategy %s, seed %d, %d local workers, %s\n",
		safetext.Term(p.Name), safetext.Term(name), spec.Runs, spec.Steps, spec.JobRuns, spec.Strategy, spec.Seed, *workers, on)
	last := time.Now()
	sum, err := campaign.Run(ctx, spec, where, func(pr campaign.Progress) {
		if time.Since(last) > 2*time.Second {
			last = time.Now()
			fmt.Fprintf(stderr, "  %d of %d jobs, %d runs (%.0f runs/s), %d failures, %d states, %d workers\n",
				pr.Done, pr.Jobs, pr.Runs, float64(pr.Runs)/max(pr.Seconds, 0.001), pr.Failures, pr.States, pr.Workers)
		}
	})
	if errors.Is(err, context.Canceled) && sum != nil {
		// Stopped: what was done is reported (and saved); the jobs not
		// done were withdrawn.
		sig := orDefault(stopSignal(ctx), "a stop")
		fmt.Fprintf(stdout, "%s; the others were withdrawn from the queue\n", stoppedAfter(sum.Done, sum.Jobs, "job", sig, false))
		reportCampaign(stdout, p, spec, path, *saveDir, sum, *cover.out)
		return stopErr("campaign stopped by %s after %d of %d jobs%s", sig, sum.Done, sum.Jobs, failedBefore(sum.Tally))
	}
	if err != nil {
		return orStopped(ctx, err, "campaign", "")
	}
	return reportCampaign(stdout, p, spec, path, *saveDir, sum, *cover.out)
}

// campaignWhere completes where a campaign runs: its local workers'
// errors told on stderr, the embedded server's folder in the user's cache
// when no server is given; on says where, for the campaign's first line.
func campaignWhere(where campaign.Where, stderr io.Writer) (_ campaign.Where, on string, err error) {
	where.WorkerError = func(name string, err error) {
		fmt.Fprintf(stderr, "worker %s: %s\n", safetext.Term(name), safetext.Term(err.Error()))
	}
	on = "on the NATS server given"
	if where.URL == "" {
		cache, err := os.UserCacheDir()
		if err != nil {
			return where, "", err
		}
		where.Dir = filepath.Join(cache, "modex", "nats")
		on = "on an embedded NATS server (" + safetext.Term(where.Dir) + ")"
	}
	return where, on, nil
}

// campaignKeys sets the campaign's signing key (--key; with --nats the
// user's default coordinator key; embedded: left to the campaign) and the
// workers it trusts (--trust-worker; the local ones are added by
// campaign.Run), and says which key workers must trust.
func campaignKeys(spec *campaign.Spec, keyFile string, trustWorkers listFlag, natsURL string, workers int, stdout, stderr io.Writer) error {
	var err error
	if keyFile == "" && natsURL != "" {
		if keyFile, err = campaign.DefaultKeyFile(); err != nil {
			return err
		}
		if spec.Key, err = campaign.LoadOrCreateKey(keyFile); err != nil {
			return err
		}
	} else if keyFile != "" {
		if spec.Key, err = campaign.ReadKeyFile(keyFile); err != nil {
			return err
		}
	}
	if len(trustWorkers) > 0 {
		if natsURL == "" {
			return usagef("--trust-worker is for a campaign on a NATS server of yours (--nats): the embedded server's workers are this process's")
		}
		if spec.TrustWorkers, err = campaign.ParseTrust(trustWorkers); err != nil {
			return err
		}
	}
	if spec.Key != nil {
		fmt.Fprintf(stdout, "coordinator key %s (workers: modex worker --trust %s)\n", campaign.PublicKey(spec.Key), campaign.PublicKey(spec.Key))
	}
	if natsURL != "" && len(spec.TrustWorkers) == 0 {
		fmt.Fprintf(stderr, "note: only the %d local workers' results count; give --trust-worker KEY|FILE to count other workers' (modex worker prints its key)\n", workers)
	}
	return nil
}

// reportCampaign prints a campaign's summary and failures (the first ones
// saved as files, each read back from the campaign's folder when the
// coordinator kept it there only; one whose run was not kept says why and
// how to run its choices again). What the workers sent (errors, failures'
// kinds and messages, notes) is escaped for the terminal: a worker is a
// network peer.
func reportCampaign(stdout io.Writer, p *projects.Project, spec campaign.Spec, path, saveDir string, sum *campaign.Summary, coverOut string) error {
	config := spec.Config
	if err := writeProfile(stdout, sum.Code, coverOut); err != nil {
		return err
	}
	for _, e := range sum.JobErrors {
		fmt.Fprintf(stdout, "job error: %s\n", safetext.Term(e))
	}
	for i, f := range sum.Failures {
		fmt.Fprintf(stdout, "run with seed %d: FAIL %s at step %d: %s\n", f.Seed, safetext.Term(string(f.Kind)), f.Step, safetext.TermIndented(f.Message, "  | "))
		if f.ShrunkNote != "" {
			fmt.Fprintf(stdout, "  %s\n", safetext.Term(f.ShrunkNote))
		}
		if i >= projects.MaxSavedFailures { // as modex test: the first ones
			if i == projects.MaxSavedFailures {
				fmt.Fprintf(stdout, "  (not saved, nor the later failing runs: a campaign saves its first %d)\n", projects.MaxSavedFailures)
			}
			continue
		}
		f, err := f.Load()
		if err != nil {
			fmt.Fprintf(stdout, "  its run was not kept: %s\n  run its choices again: %s\n", safetext.Term(err.Error()),
				projects.SameChoicesCommand(path, config, f.Seed, spec.Steps, conform.Strategy(spec.Strategy)))
			continue
		}
		if file, err := campaign.SaveFailure(p.Name, config, saveDir, f); err == nil {
			fmt.Fprintf(stdout, "  saved: %s\n  rerun its steps: %s\n", safetext.Term(file), projects.RerunCommand(path, "", file))
		}
		if file, err := campaign.SaveShrunk(p.Name, config, saveDir, f); err == nil {
			fmt.Fprintf(stdout, "  saved: %s\n  rerun it: %s\n", safetext.Term(file), projects.RerunCommand(path, "", file))
		}
	}
	for _, f := range sum.Failures {
		if f.File != "" { // the files are named by seed
			fmt.Fprintf(stdout, "the runs of %d failures are kept whole in %s, a file per seed (rerun one: %s)\n", sum.Kept,
				safetext.Term(sum.FailuresDir), projects.RerunCommand(path, "", f.File))
			break
		}
	}
	if sum.Lost > 0 {
		fmt.Fprintf(stdout, "the runs of %d failures could not be kept (run one's choices again with modex test --runs 1 --seed S)\n", sum.Lost)
	}
	for _, why := range sum.UntrustedWhy {
		fmt.Fprintf(stdout, "result ignored: %s\n", safetext.Term(why))
	}
	fmt.Fprintln(stdout, sum)
	switch {
	case sum.Tally[conform.ModelError] > 0:
		return fmt.Errorf("model error in %d runs", sum.Tally[conform.ModelError])
	case sum.Tally[conform.Fail] > 0:
		return fmt.Errorf("%d of %d runs failed", sum.Tally[conform.Fail], sum.Runs)
	case sum.GivenUp > 0 || len(sum.JobErrors) > 0:
		return fmt.Errorf("%d jobs given up, %d could not run", sum.GivenUp, len(sum.JobErrors))
	}
	return nil
}

// cmdWorker pulls campaign jobs from a NATS server and runs them against
// this machine's implementation, with its own adapter command, only for
// coordinators it trusts.
func cmdWorker(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("worker", flag.ContinueOnError)
	natsURL := fs.String("nats", "", "the NATS server at `URL` (required), never printed")
	auth := natsFlags(fs)
	adapterCmd := fs.String("adapter", "", "the adapter `CMD` this worker runs (required, or --address: a worker runs no command a campaign sends)")
	address := fs.String("address", "", "dial a running adapter at `HOST:PORT` instead of starting one")
	dir := fs.String("dir", "", "run the adapter command in folder `DIR` (default: this one)")
	index := intFlag(fs, "index", 1, 1, 1<<20, "from 1", "this worker's number `N` on its machine: {WORKER} in the adapter command or address stands for it")
	placeholders := fs.String("placeholders", "", "the model constants `NAMES` (comma-separated) whose values may fill {NAME} in the adapter command")
	var trust listFlag
	fs.Var(&trust, "trust", "run the jobs of the coordinator whose public key (U...) is `KEY|FILE`, or of those in the file (required, repeatable)")
	keyFile := fs.String("key", "", "this worker's signing key `FILE`, from modex keygen (default: a fresh key, printed)")
	name := fs.String("name", "", "this worker's `NAME` in reports (default: the host name and process id)")
	if _, err := parseArgs(fs, args); err != nil {
		return err
	}
	if *natsURL == "" || (*adapterCmd == "" && *address == "") || len(trust) == 0 {
		return usagef("worker needs --nats URL, --trust KEY|FILE (the coordinator's key) and --adapter \"CMD ...\" (or --address)")
	}
	if *name == "" {
		host, _ := os.Hostname()
		*name = fmt.Sprintf("%s-%d", host, os.Getpid())
	}
	w := &campaign.Worker{Name: *name, Index: *index, Command: strings.Fields(*adapterCmd), Address: *address, Dir: *dir, OnJob: func(j campaign.Job, r campaign.Result) {
		status := fmt.Sprintf("%d runs: %s", r.Runs, conform.Tally(r.Tally))
		if r.Error != "" {
			status = "could not run: " + safetext.Term(r.Error)
		}
		fmt.Fprintf(stdout, "job %d of campaign %s (seeds %d-%d): %s, %.1f s\n", j.ID, safetext.Term(j.Campaign), j.Seed, j.Seed+uint64(j.Runs)-1, status, r.Seconds)
	}}
	w.OnIgnored = func(why string) {
		fmt.Fprintf(stderr, "%s (%d jobs from untrusted senders ignored, %d refused as expired, run already or of a campaign that ended)\n",
			safetext.Term(why), w.Ignored.Load(), w.Refused.Load())
	}
	for _, p := range strings.Split(*placeholders, ",") {
		if p = strings.TrimSpace(p); p != "" {
			w.Placeholders = append(w.Placeholders, p)
		}
	}
	var err error
	if w.Trust, err = campaign.ParseTrust(trust); err != nil {
		return err
	}
	if *keyFile != "" {
		if w.Key, err = campaign.ReadKeyFile(*keyFile); err != nil {
			return err
		}
	} else if w.Key, err = campaign.NewKey(); err != nil {
		return err
	}
	ctx, stop := signalContext()
	defer stop()
	what := *adapterCmd
	if what == "" {
		what = "the adapter at " + *address
	}
	fmt.Fprintf(stdout, "worker %s (key %s): running jobs of %s with %s\n", safetext.Term(*name), campaign.PublicKey(w.Key),
		safetext.Term(strings.Join(w.Trust.Keys(), ", ")), safetext.Term(what))
	err = w.Run(ctx, *natsURL, auth())
	if n := w.Ignored.Load(); n > 0 {
		fmt.Fprintf(stdout, "%d jobs from untrusted senders ignored\n", n)
	}
	if n := w.Refused.Load(); n > 0 {
		fmt.Fprintf(stdout, "%d jobs refused as expired, run already or of a campaign that ended\n", n)
	}
	return err
}

// cmdKeygen writes a fresh signing key and prints its public half.
func cmdKeygen(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("keygen", flag.ContinueOnError)
	rest, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(rest) != 1 {
		return usagef("keygen needs the file to write the key to")
	}
	kp, err := campaign.WriteKeyFile(rest[0])
	if err != nil {
		return err
	}
	fmt.Fprintln(stdout, campaign.PublicKey(kp))
	return nil
}

// listFlag is a flag that may be given several times.
type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, ",") }
func (l *listFlag) Set(v string) error { *l = append(*l, v); return nil }

// natsFlags declares the flags that say how to authenticate to a NATS
// server and check it (their values are never printed) and returns a
// function that reads them once parsed.
func natsFlags(fs *flag.FlagSet) func() campaign.Auth {
	creds := fs.String("nats-creds", "", "NATS credentials `FILE` (a user's JWT and key)")
	ca := fs.String("nats-ca", "", "PEM `FILE` of the certificate authorities to trust for a tls:// server (default: the system's)")
	cert := fs.String("nats-cert", "", "PEM `FILE` of this client's TLS certificate (with --nats-key)")
	key := fs.String("nats-key", "", "PEM `FILE` of this client's TLS key (with --nats-cert)")
	insecure := fs.Bool("insecure", false, "allow a NATS server on another machine that asks no credentials or speaks no TLS")
	return func() campaign.Auth {
		return campaign.Auth{Creds: *creds, CA: *ca, Cert: *cert, Key: *key, Insecure: *insecure}
	}
}
