package campaign

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/nats-io/nkeys"

	"github.com/modex/modex/projects"
)

// Where says where a campaign runs: on the NATS server at URL (with Auth),
// or, when URL is "", on an embedded server in this process storing its
// streams under Dir; and how many local workers run its jobs here, with
// which adapter command ("" : the project's own, from the user's own
// project file, which the user starting the campaign consented to).
type Where struct {
	URL     string
	Auth    Auth
	Dir     string
	Workers int
	Adapter string
	// WorkerError, when set, is told why a local worker stopped early.
	WorkerError func(worker string, err error)
}

// Run runs a campaign from this process: it starts the embedded server when
// no URL is given and the local workers, coordinates the campaign (see
// Coordinate), then stops them. The local workers trust the campaign's key
// only, run the adapter of the user's own project (never one that came
// with a bundle), and their results are trusted by key: on the embedded
// server only theirs count (no one else reaches it); on a server of the
// user's, theirs and spec.TrustWorkers' count — with neither, Run refuses
// (ErrNoTrustedWorkers).
func Run(ctx context.Context, spec Spec, where Where, progress func(Progress)) (sum *Summary, err error) {
	if where.URL == "" && where.Workers <= 0 {
		return nil, errors.New("a campaign on the embedded server needs at least one local worker: no one else reaches it")
	}
	if where.URL != "" && where.Workers <= 0 && len(spec.TrustWorkers) == 0 {
		return nil, ErrNoTrustedWorkers
	}
	if err := spec.Check(); err != nil {
		return nil, err
	}
	data, hash, err := makeBundle(spec.ProjectFile)
	if err != nil {
		return nil, err
	}
	if where.URL == "" && spec.Key == nil {
		// A key of this campaign's own, kept (mode 600) beside the
		// embedded server's streams while the campaign runs: a campaign
		// whose process was killed resumes when started again, and its
		// key is removed when it ends.
		keyFile := filepath.Join(where.Dir, "keys", spec.ID(hash)+".nk")
		if spec.Key, err = LoadOrCreateKey(keyFile); err != nil {
			return nil, err
		}
		defer func() {
			if err == nil || errors.Is(err, context.Canceled) {
				os.Remove(keyFile)
			}
		}()
	}
	if err := spec.defaults(); err != nil {
		return nil, err
	}
	workers, err := localWorkers(spec, where)
	if err != nil {
		return nil, err
	}
	// The workers whose results count: a copy of the caller's, with the
	// local workers' keys.
	trust := Trust{}
	for k := range spec.TrustWorkers {
		trust[k] = true
	}
	url, auth := where.URL, where.Auth
	if url == "" {
		srv, err := StartEmbedded(where.Dir)
		if err != nil {
			return nil, fmt.Errorf("embedded NATS server: %w", err)
		}
		defer srv.Shutdown()
		auth = srv.Auth()
		// Only this process reaches the embedded server: its workers
		// are the campaign's, and only theirs are trusted.
		trust = Trust{}
		// The built-in server serves one campaign at a time: jobs left
		// by another (a coordinator killed) are withdrawn; this
		// campaign's own are kept, so that it resumes.
		if err := withdrawOthers(url, auth, spec.ID(hash)); err != nil {
			return nil, fmt.Errorf("embedded NATS server: %w", err)
		}
	}
	for _, w := range workers {
		trust[PublicKey(w.Key)] = true
	}
	spec.TrustWorkers = trust
	var wg sync.WaitGroup
	wctx, stopWorkers := context.WithCancel(ctx)
	defer func() { stopWorkers(); wg.Wait() }()
	for _, w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := w.Run(wctx, url, auth); err != nil && where.WorkerError != nil {
				where.WorkerError(w.Name, err)
			}
		}()
	}
	sum, err = coordinate(ctx, url, auth, spec, data, hash, progress)
	if errors.Is(err, context.Canceled) && sum != nil {
		// Stopped on purpose (a coordinator that crashes leaves its jobs,
		// and resumes when started again): its jobs are withdrawn, so
		// that workers do not run them for nobody.
		if perr := Withdraw(url, auth, sum.Campaign, spec.Key); perr != nil {
			return sum, fmt.Errorf("%w; its jobs could not be withdrawn: %v", err, perr)
		}
	}
	return sum, err
}

// localWorkers makes the campaign's local workers, each with a key of
// its own, trusting the campaign's key only.
func localWorkers(spec Spec, where Where) ([]*Worker, error) {
	if where.Workers <= 0 {
		return nil, nil
	}
	command, dir, address, timeout, err := localAdapter(spec, where.Adapter)
	if err != nil {
		return nil, err
	}
	var workers []*Worker
	for i := range where.Workers {
		key, err := NewKey()
		if err != nil {
			return nil, err
		}
		cache := ""
		if where.Dir != "" {
			cache = filepath.Join(where.Dir, "bundles")
		}
		workers = append(workers, &Worker{Name: fmt.Sprintf("local-%d", i+1), Index: i + 1, Command: command, Dir: dir, Address: address,
			Timeout: timeout, Trust: Trust{PublicKey(spec.Key): true}, Key: key, CacheDir: cache})
	}
	return workers, nil
}

// localAdapter is what the local workers of a campaign run: the command
// given, or the adapter of the user's own project (not the bundle's), with
// the configuration's constants filled in, in the project's adapter folder.
func localAdapter(spec Spec, command string) (argv []string, dir, address string, timeout time.Duration, err error) {
	p, err := projects.Load(spec.ProjectFile)
	if err != nil {
		return nil, "", "", 0, err
	}
	m, err := p.LoadModelFor(spec.Config)
	if err != nil {
		return nil, "", "", 0, err
	}
	argv, dir, address = p.AdapterLaunch(m.Info(), command, "")
	if argv != nil && len(argv) == 0 {
		return nil, "", "", 0, fmt.Errorf("%s has no [adapter]: name an adapter command for the local workers", p.Name)
	}
	timeout = 10 * time.Second
	if p.Adapter != nil && p.Adapter.Timeout > 0 {
		timeout = time.Duration(p.Adapter.Timeout * float64(time.Second))
	}
	return argv, dir, address, timeout, nil
}

// Withdraw ends a run of a campaign (id as in Summary.Campaign): its jobs
// not yet done leave the work queue, its end is recorded, so that the
// campaign started again runs afresh, and, with the campaign's key (nil:
// not), the workers are told that it ended, so that they refuse its jobs
// if they come again.
func Withdraw(url string, auth Auth, campaign string, key nkeys.KeyPair) error {
	return withJS(url, auth, func(js jetstream.JetStream) error {
		return finish(context.Background(), js, key, campaign)
	})
}

// finish ends a run of a campaign: its jobs left on the queue (not done,
// or copies and replays of jobs done) are purged, its end is recorded and
// announced to the workers, signed by key (nil: not announced).
func finish(ctx context.Context, js jetstream.JetStream, key nkeys.KeyPair, campaign string) error {
	if err := purgeJobs(js, func(c string) bool { return c == campaign }); err != nil {
		return fmt.Errorf("withdrawing the campaign's jobs: %w", err)
	}
	if err := recordEnd(ctx, js, campaign); err != nil {
		return err
	}
	if key != nil {
		announceEnd(js.Conn(), key, campaign)
	}
	return nil
}

// endedSubject prefixes the subject on which a coordinator tells the
// workers that a campaign ended (a signed notice, on no stream: the
// workers connected then hear it).
const endedSubject = "modex.ended."

// ended is the notice that a campaign ended.
type ended struct {
	Campaign string `json:"ended"`
}

// announceEnd tells the workers connected that campaign ended.
func announceEnd(nc *nats.Conn, key nkeys.KeyPair, campaign string) {
	data, _ := json.Marshal(ended{Campaign: campaign})
	if m, err := signedMsg(key, endedSubject+campaign, data); err == nil {
		nc.PublishMsg(m)
		nc.FlushTimeout(callTimeout)
	}
}

// withdrawOthers removes the jobs of every campaign but keep.
func withdrawOthers(url string, auth Auth, keep string) error {
	return withJS(url, auth, func(js jetstream.JetStream) error {
		return purgeJobs(js, func(c string) bool {
			base, _, _ := strings.Cut(c, "-") // without the run number
			return base != keep
		})
	})
}

// purgeJobs removes from the work queue the jobs of the campaigns drop
// says yes to.
func purgeJobs(js jetstream.JetStream, drop func(campaign string) bool) error {
	return retry(context.Background(), 3, func(c context.Context) error {
		s, err := js.Stream(c, jobsStream)
		if errors.Is(err, jetstream.ErrStreamNotFound) {
			return nil // no campaign yet
		}
		if err != nil {
			return err
		}
		info, err := s.Info(c, jetstream.WithSubjectFilter("modex.jobs.>"))
		if err != nil {
			return err
		}
		for subject := range info.State.Subjects {
			if id := strings.TrimPrefix(subject, "modex.jobs."); drop(id) {
				if err := s.Purge(c, jetstream.WithPurgeSubject(subject)); err != nil {
					return err
				}
			}
		}
		return nil
	})
}

// withJS runs f with a JetStream context on a connection of its own.
func withJS(url string, auth Auth, f func(jetstream.JetStream) error) error {
	nc, err := connect(url, "modex coordinator", auth)
	if err != nil {
		return redact(err, url)
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		return err
	}
	return f(js)
}
