package campaign

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/nats-io/nats.go/jetstream"
)

// Where says where a campaign runs: on the NATS server at URL (with Auth),
// or, when URL is "", on an embedded server storing its streams under Dir;
// and how many local workers run its jobs here, with which adapter command
// ("" : the project's, which the user starting the campaign consented to).
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
// Coordinate), then stops them.
func Run(ctx context.Context, spec Spec, where Where, progress func(Progress)) (*Summary, error) {
	spec.defaults()
	data, hash, err := makeBundle(spec.ProjectFile)
	if err != nil {
		return nil, err
	}
	url := where.URL
	if url == "" {
		srv, u, err := StartEmbedded(where.Dir)
		if err != nil {
			return nil, fmt.Errorf("embedded NATS server: %w", err)
		}
		defer srv.Shutdown()
		url = u
		// The built-in server serves one campaign at a time: jobs left
		// by another (a coordinator killed) are withdrawn; this
		// campaign's own are kept, so that it resumes.
		if err := withdrawOthers(url, where.Auth, spec.ID(hash)); err != nil {
			return nil, fmt.Errorf("embedded NATS server: %w", err)
		}
	}
	var wg sync.WaitGroup
	wctx, stopWorkers := context.WithCancel(ctx)
	defer func() { stopWorkers(); wg.Wait() }()
	for i := range where.Workers {
		w := &Worker{Name: fmt.Sprintf("local-%d", i+1), Adapter: where.Adapter, AllowProjectAdapter: true}
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := w.Run(wctx, url, where.Auth); err != nil && where.WorkerError != nil {
				where.WorkerError(w.Name, err)
			}
		}()
	}
	sum, err := coordinate(ctx, url, where.Auth, spec, data, hash, progress)
	if errors.Is(err, context.Canceled) && sum != nil {
		// Stopped on purpose (a coordinator that crashes leaves its jobs,
		// and resumes when started again): its jobs are withdrawn, so
		// that workers do not run them for nobody.
		if perr := Withdraw(url, where.Auth, sum.Campaign); perr != nil {
			return sum, fmt.Errorf("%w; its jobs could not be withdrawn: %v", err, perr)
		}
	}
	return sum, err
}

// Withdraw ends a run of a campaign (id as in Summary.Campaign): its jobs
// not yet done leave the work queue, and its end is recorded, so that the
// campaign started again runs afresh.
func Withdraw(url string, auth Auth, campaign string) error {
	return withJS(url, auth, func(js jetstream.JetStream) error {
		if err := purgeJobs(js, func(c string) bool { return c == campaign }); err != nil {
			return err
		}
		return recordEnd(context.Background(), js, campaign)
	})
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
