// Package campaign runs test campaigns across machines on NATS JetStream:
// a coordinator splits a campaign into jobs (ranges of run seeds) on a
// work-queue stream, workers anywhere pull them, run them against their own
// implementation instance and publish the results, and the coordinator
// aggregates them — runs, steps, verdicts, the union of the model states and
// transitions covered, failures with their saved runs. The project travels
// in a JetStream object store, checked by hash. Without a NATS server of
// the user's, an embedded one (StartEmbedded) and local workers take the
// same path.
package campaign

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/modex/modex/engine/codecov"
	"net"
	"slices"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/nats-io/nkeys"

	"github.com/modex/modex/engine/conform"
)

// Names on the NATS server.
const (
	jobsStream    = "MODEX_JOBS"
	resultsStream = "MODEX_RESULTS"
	bucket        = "modex-projects"
	workersName   = "modex-workers"
)

// Spec is a campaign: what to run, split into jobs of JobRuns runs.
type Spec struct {
	ProjectFile string // the project (.toml) on the coordinator's machine
	Config      string
	Runs        int
	Steps       int
	Seed        uint64
	Strategy    string
	EndWait     float64 // seconds
	JobRuns     int     // runs per job (default 10)
	// AckWait is how long a job may go without a sign of life from its
	// worker before it is given to another (default 30 s); MaxDeliver how
	// many times a job is handed out before it is given up (default 3).
	AckWait    time.Duration
	MaxDeliver int
	// Replicas is how many servers of a NATS cluster keep each stream
	// (default 1; 3 lets a campaign go on when a node of three dies).
	Replicas int
	// Shrink, when set, has each job shrink its first failing run against
	// its worker's implementation (see conform.Shrink).
	Shrink *Shrinking
	// Key signs the campaign's jobs (nil: a fresh key, which no worker
	// started before the campaign can trust: right for local workers
	// only). Its public half is part of the campaign's identity.
	Key nkeys.KeyPair
	// TrustWorkers are the workers whose results count: Coordinate
	// requires at least one key (there is no "any signer": anyone who
	// can read a job could answer it). Run adds its local workers' keys.
	TrustWorkers Trust
	// FailuresDir is the folder under which the coordinator keeps every
	// failure whole as it arrives, a file per failure in a folder named
	// after the campaign ("": modex/campaign-failures in the user's cache
	// folder); see Summary.FailuresDir.
	FailuresDir string
	// JobTTL is how long a job may be run after it is published (default
	// DefaultJobTTL, at most MaxJobTTL): its expiry is signed with it, a
	// worker refuses it afterwards, and the coordinator gives it up.
	JobTTL time.Duration
	// Cover has each worker measure its implementation's code coverage
	// (docs/coverage.md), counting the files CoverInclude names (none:
	// all); the summary merges it.
	Cover        bool
	CoverInclude []string
}

// Bounds of a campaign: its runs, the runs of one job (a worker's bound
// too) and its jobs (the coordinator keeps a bit per job).
const (
	MaxRuns    = 1_000_000_000
	MaxJobRuns = maxJobRuns
	MaxJobs    = 10_000_000
)

// DefaultJobTTL is how long a job stays valid by default: a week, as long
// as the results are kept (a campaign resumes within it); MaxJobTTL bounds
// what a coordinator sets and a worker accepts.
const (
	DefaultJobTTL = 7 * 24 * time.Hour
	MaxJobTTL     = 30 * 24 * time.Hour
)

// Shrinking is how a job shrinks its first failing run: runs per
// candidate, and budgets in runs and seconds.
type Shrinking struct {
	Repeats int     `json:"repeats"`
	Runs    int     `json:"runs"`
	Seconds float64 `json:"seconds"`
}

// Job is one unit of work: runs Seed … Seed+Runs-1 of the campaign.
type Job struct {
	Campaign string  `json:"campaign"`
	ID       int     `json:"id"`
	Bundle   string  `json:"bundle"` // the project's object (its hash)
	Config   string  `json:"config"`
	Seed     uint64  `json:"seed"`
	Runs     int     `json:"runs"`
	Steps    int     `json:"steps"`
	Strategy string  `json:"strategy"`
	EndWait  float64 `json:"end_wait"`
	// Shrink is set when the job shrinks its first failing run.
	Shrink *Shrinking `json:"shrink,omitempty"`
	// Cover has the worker measure its implementation's code coverage,
	// of the files CoverInclude names (Spec.Cover).
	Cover        bool     `json:"cover,omitempty"`
	CoverInclude []string `json:"cover_include,omitempty"`
	// Nonce binds the job's result to it: a result counts only with it.
	Nonce string `json:"nonce"`
	// Expires is when the job stops being valid (Unix seconds): signed
	// with it, so that a job captured and published again later is
	// refused by every worker.
	Expires int64 `json:"expires"`
}

// Result is what a worker reports for a job.
type Result struct {
	Campaign string                  `json:"campaign"`
	Job      int                     `json:"job"`
	Nonce    string                  `json:"nonce"` // the job's`
	Worker   string                  `json:"worker"`
	Runs     int                     `json:"runs"`
	Steps    int                     `json:"steps"`
	Tally    map[conform.Verdict]int `json:"tally"`
	// States and Transitions are the keys of what the job covered
	// (binary: base64 in JSON).
	States      [][]byte  `json:"states"`
	Transitions [][]byte  `json:"transitions"`
	Failures    []Failure `json:"failures,omitempty"`
	// Error says why the job could not run (no adapter, a bad project):
	// the job counts as done, its runs as not run.
	Error   string  `json:"error,omitempty"`
	Seconds float64 `json:"seconds"`
	// Dropped counts failures left out to keep the result under the
	// server's message size (their runs are in Tally).
	Dropped int `json:"dropped,omitempty"`
	// Skipped are the controllable actions the worker's adapter does not
	// implement (conform.TestResult.Skipped).
	Skipped []string `json:"skipped,omitempty"`
	// Code is the code coverage of the worker's implementation so far (a
	// job with Cover), at most maxCodeBlocks blocks; CodeNote says why
	// there is none, or what was left out.
	Code     []codecov.Block `json:"code,omitempty"`
	CodeNote string          `json:"code_note,omitempty"`
}

// Failure is a failing run of a job, with its saved run (modex test
// --rerun reads it).
type Failure struct {
	Seed    uint64          `json:"seed"`
	Kind    string          `json:"kind"`
	Step    int             `json:"step"`
	Message string          `json:"message"`
	Saved   json.RawMessage `json:"saved,omitempty"`
	// Report is the failure as modex test prints it (trace, model state,
	// what the model allowed); Path the run's steps as the tester met them,
	// to draw it (either may be left out to keep a result under the
	// server's message size).
	Report string             `json:"report,omitempty"`
	Path   []conform.PathStep `json:"path,omitempty"`
	Worker string             `json:"worker,omitempty"`
	// Shrunk is the shortest run found that fails the same way (when the
	// campaign shrinks, for a job's first failing run); ShrunkNote says
	// how short and how often it fails, or why it was not shrunk.
	Shrunk      json.RawMessage `json:"shrunk,omitempty"`
	ShrunkNote  string          `json:"shrunk_note,omitempty"`
	ShrunkSteps int             `json:"shrunk_steps,omitempty"`
	// Detail, in a result, says that the failure's saved run, report, path
	// and shrunk run did not fit the result's message and were sent apart,
	// before it (see Detail).
	Detail *Detail `json:"detail,omitempty"`
	// File is where the coordinator keeps the failure whole (see
	// Spec.FailuresDir), and Lost why it keeps its run nowhere ("": it
	// does): set by the coordinator, never taken from a message. Load
	// reads a failure kept without its run back whole.
	File string `json:"-"`
	Lost string `json:"-"`
}

// ID is the campaign's identity: the same spec, key and project give the
// same id, so a restarted coordinator resumes its campaign.
func (s Spec) ID(bundleHash string) string {
	id := fmt.Sprintf("%s|%s|%d|%d|%d|%s|%g|%d", bundleHash, s.Config, s.Runs, s.Steps, s.Seed, s.Strategy, s.EndWait, s.JobRuns)
	if s.Key != nil {
		// Another key, another campaign: jobs signed by a key no longer
		// used are never waited for.
		id += "|" + PublicKey(s.Key)
	}
	if sh := s.Shrink; sh != nil {
		id += fmt.Sprintf("|shrink %d %d %g", sh.Repeats, sh.Runs, sh.Seconds)
	}
	sum := sha256.Sum256([]byte(id))
	return "c" + hex.EncodeToString(sum[:8])
}

// The defaults of Spec.AckWait and Spec.MaxDeliver.
const (
	defaultAckWait    = 30 * time.Second
	defaultMaxDeliver = 3
)

func (s *Spec) defaults() error {
	if s.Key == nil {
		kp, err := NewKey()
		if err != nil {
			return err
		}
		s.Key = kp
	}
	if s.JobRuns <= 0 {
		s.JobRuns = 10
	}
	if s.AckWait <= 0 {
		s.AckWait = defaultAckWait
	}
	if s.MaxDeliver <= 0 {
		s.MaxDeliver = defaultMaxDeliver
	}
	if s.JobTTL <= 0 {
		s.JobTTL = DefaultJobTTL
	}
	return s.Check()
}

// Check checks the campaign's sizes against their bounds (Runs, JobRuns,
// the jobs they make, Steps, EndWait, JobTTL), saying which is out and
// what is allowed. A JobRuns or JobTTL of 0 stands for its default.
func (s Spec) Check() error {
	switch {
	case s.Runs < 1 || s.Runs > MaxRuns:
		return fmt.Errorf("a campaign has 1 to %d runs, not %d", MaxRuns, s.Runs)
	case s.JobRuns < 0 || s.JobRuns > MaxJobRuns:
		return fmt.Errorf("a job has 1 to %d runs, not %d", MaxJobRuns, s.JobRuns)
	case s.JobRuns > 0 && s.jobCount() > MaxJobs:
		return fmt.Errorf("%d runs in jobs of %d make %d jobs, more than the %d a campaign has: make jobs of at least %d runs",
			s.Runs, s.JobRuns, s.jobCount(), MaxJobs, (s.Runs+MaxJobs-1)/MaxJobs)
	case s.Steps < 0 || s.Steps > maxJobSteps:
		return fmt.Errorf("a run has 0 to %d steps, not %d", maxJobSteps, s.Steps)
	case s.EndWait < 0 || s.EndWait > 3600:
		return fmt.Errorf("the end wait is 0 to 3600 s, not %g", s.EndWait)
	case s.JobTTL < 0 || s.JobTTL > MaxJobTTL:
		return fmt.Errorf("a job stays valid at most %v, not %v", MaxJobTTL, s.JobTTL)
	}
	return nil
}

// jobCount is how many jobs the campaign has (JobRuns set).
func (s Spec) jobCount() int { return (s.Runs + s.JobRuns - 1) / s.JobRuns }

// job is the campaign's job i (0 ≤ i < jobCount), expiring at expires;
// the coordinator makes each when it publishes it, and again from its id
// to check a result, keeping no list of them.
func (s Spec) job(campaign, bundleHash string, i int, expires int64) Job {
	first := i * s.JobRuns
	return Job{Campaign: campaign, ID: i, Bundle: bundleHash, Config: s.Config, Seed: s.Seed + uint64(first),
		Runs: min(s.JobRuns, s.Runs-first), Steps: s.Steps, Strategy: s.Strategy, EndWait: s.EndWait, Shrink: s.Shrink, Cover: s.Cover, CoverInclude: s.CoverInclude,
		Nonce: nonce(s.Key, campaign, i), Expires: expires}
}

// setup creates or updates the streams, the workers' consumer and the
// bucket with the coordinator's settings (spec non-nil); a worker (spec nil)
// takes them as it finds them, creating with the defaults only what is
// missing, so that it never changes a coordinator's settings.
func setup(ctx context.Context, js jetstream.JetStream, spec *Spec) (jetstream.Consumer, jetstream.ObjectStore, error) {
	defaults := Spec{AckWait: defaultAckWait, MaxDeliver: defaultMaxDeliver}
	coordinator := spec != nil
	if !coordinator {
		spec = &defaults
	}
	replicas := max(spec.Replicas, 1)
	streams := []jetstream.StreamConfig{
		{Name: jobsStream, Subjects: []string{"modex.jobs.>"}, Retention: jetstream.WorkQueuePolicy, Storage: jetstream.FileStorage,
			Duplicates: time.Hour, Replicas: replicas},
		{Name: resultsStream, Subjects: []string{"modex.results.>"}, Storage: jetstream.FileStorage, Duplicates: time.Hour,
			MaxAge: 7 * 24 * time.Hour, Replicas: replicas},
	}
	// A worker creates only what the server says is missing (a lookup that
	// failed otherwise, say while a cluster elects a leader, is tried
	// again), and with Create, which never changes what another client
	// made meanwhile: an update with a worker's defaults would take a
	// coordinator's replicas away.
	for _, sc := range streams {
		var err error
		if coordinator {
			err = ensureStream(ctx, js, sc)
		} else if _, err = js.Stream(ctx, sc.Name); errors.Is(err, jetstream.ErrStreamNotFound) {
			_, err = js.CreateStream(ctx, sc)
		}
		if err != nil {
			return nil, nil, fmt.Errorf("stream %s: %w", sc.Name, err)
		}
	}
	cc := jetstream.ConsumerConfig{Durable: workersName, AckPolicy: jetstream.AckExplicitPolicy, AckWait: spec.AckWait, MaxDeliver: spec.MaxDeliver}
	var cons jetstream.Consumer
	var err error
	if coordinator {
		cons, err = js.CreateOrUpdateConsumer(ctx, jobsStream, cc)
	} else if cons, err = js.Consumer(ctx, jobsStream, workersName); errors.Is(err, jetstream.ErrConsumerNotFound) {
		cons, err = js.CreateConsumer(ctx, jobsStream, cc)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("workers' consumer: %w", err)
	}
	oc := jetstream.ObjectStoreConfig{Bucket: bucket, Storage: jetstream.FileStorage, Replicas: replicas}
	var obj jetstream.ObjectStore
	if coordinator {
		obj, err = js.CreateOrUpdateObjectStore(ctx, oc)
	} else if obj, err = js.ObjectStore(ctx, bucket); errors.Is(err, jetstream.ErrBucketNotFound) {
		obj, err = js.CreateObjectStore(ctx, oc)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("project store: %w", err)
	}
	return cons, obj, nil
}

// callTimeout bounds one JetStream API call: a request lost while a
// cluster elects a leader, or sent to a node that just died, must not hang
// for the campaign's whole context.
const callTimeout = 10 * time.Second

// setupTries is how many times setting up a campaign's streams, sending its
// project or publishing a job is tried before giving up.
const setupTries = 20

// call runs f with a context bounded by callTimeout.
func call(ctx context.Context, f func(context.Context) error) error {
	c, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	return f(c)
}

// retry runs f (each try bounded by callTimeout) until it succeeds, ctx
// ends or the tries are used up, pausing between tries: a cluster may be
// electing leaders, or another client creating the same streams.
func retry(ctx context.Context, tries int, f func(context.Context) error) error {
	var err error
	for try := 0; try < tries; try++ {
		if err = call(ctx, f); err == nil || ctx.Err() != nil {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(500 * time.Millisecond):
		}
	}
	return err
}

// errNoJob says a fetch found no job within its wait.
var errNoJob = errors.New("no job")

// Auth is how a client proves itself to a NATS server and checks it: a
// credentials file (user JWT and key) or a user and password, and for TLS
// the certificate authorities to trust (default: the system's) and a
// client certificate and key. Empty fields are not used; none of them is
// ever logged.
type Auth struct {
	Creds          string
	User, Password string
	CA             string
	Cert, Key      string
	// Insecure lets a client use a server on another machine that asks no
	// credentials or speaks no TLS (refused otherwise: anyone who reaches
	// such a server reads the project and could forge jobs' transport).
	Insecure bool

	inProcess nats.InProcessConnProvider // an Embedded server's
}

// connect opens a connection, naming the client, and checks that a server
// on another machine asks for credentials and speaks TLS.
func connect(url, name string, auth Auth) (*nats.Conn, error) {
	opts := []nats.Option{nats.Name(name), nats.MaxReconnects(-1), nats.ReconnectWait(250 * time.Millisecond)}
	if auth.inProcess != nil {
		opts = append(opts, nats.InProcessServer(auth.inProcess))
	}
	if auth.User != "" {
		opts = append(opts, nats.UserInfo(auth.User, auth.Password))
	}
	if auth.Creds != "" {
		// It holds the user's seed: checked as a key file.
		if _, _, err := readChecked(auth.Creds, "NATS credentials file", true); err != nil {
			return nil, err
		}
		opts = append(opts, nats.UserCredentials(auth.Creds))
	}
	if auth.CA != "" {
		opts = append(opts, nats.RootCAs(auth.CA))
	}
	if (auth.Cert == "") != (auth.Key == "") {
		return nil, errors.New("a TLS client certificate needs its key, and a key its certificate")
	}
	if auth.Cert != "" {
		opts = append(opts, nats.ClientCert(auth.Cert, auth.Key))
	}
	nc, err := nats.Connect(url, opts...)
	if err != nil {
		return nil, err
	}
	if auth.inProcess == nil && !auth.Insecure {
		if err := checkSecure(nc); err != nil {
			nc.Close()
			return nil, err
		}
	}
	return nc, nil
}

// checkSecure refuses a server on another machine that asks for no
// credentials or speaks no TLS. A server on this machine (loopback) is
// taken as it is: jobs and results are signed whatever the transport.
func checkSecure(nc *nats.Conn) error {
	_, tlsErr := nc.TLSConnectionState()
	return secureEnough(nc.ConnectedAddr(), nc.AuthRequired(), tlsErr == nil)
}

// secureEnough is checkSecure's rule: a server on another machine than
// this one must ask for credentials and speak TLS.
func secureEnough(addr string, auth, tls bool) error {
	host := addr
	if h, _, err := net.SplitHostPort(addr); err == nil {
		host = h
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return nil
	}
	var missing []string
	if !auth {
		missing = append(missing, "asks for no credentials")
	}
	if !tls {
		missing = append(missing, "speaks no TLS")
	}
	if len(missing) == 0 {
		return nil
	}
	return fmt.Errorf("the NATS server at %s %s: anyone who reaches it could read the project and the results, "+
		"and the project's files would cross the network in clear (configure its accounts and TLS, see docs/campaigns.md, or give --insecure)",
		host, strings.Join(missing, " and "))
}

// ensureStream creates a coordinator's stream, or updates it when its
// settings differ: an update that changes nothing is not sent (the server
// takes it while workers create their consumer, and nats-server 2.15's
// file store then reads and writes its config concurrently).
func ensureStream(ctx context.Context, js jetstream.JetStream, sc jetstream.StreamConfig) error {
	s, err := js.Stream(ctx, sc.Name)
	if errors.Is(err, jetstream.ErrStreamNotFound) {
		_, err = js.CreateOrUpdateStream(ctx, sc)
		return err
	}
	if err != nil {
		return err
	}
	have := s.CachedInfo().Config
	if slices.Equal(have.Subjects, sc.Subjects) && have.Retention == sc.Retention && have.Storage == sc.Storage &&
		have.Duplicates == sc.Duplicates && have.Replicas == sc.Replicas && have.MaxAge == sc.MaxAge {
		return nil
	}
	_, err = js.CreateOrUpdateStream(ctx, sc)
	return err
}
