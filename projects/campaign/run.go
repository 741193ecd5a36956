package campaign

import (
	"context"
	"errors"
	"fmt"
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
	url := where.URL
	if url == "" {
		srv, u, err := StartEmbedded(where.Dir)
		if err != nil {
			return nil, fmt.Errorf("embedded NATS server: %w", err)
		}
		defer srv.Shutdown()
		url = u
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
	sum, err := Coordinate(ctx, url, where.Auth, spec, progress)
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

// Withdraw removes a campaign's jobs not yet done from the work queue.
func Withdraw(url string, auth Auth, campaign string) error {
	nc, err := connect(url, "modex coordinator", auth)
	if err != nil {
		return redact(err, url)
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		return err
	}
	return retry(context.Background(), 3, func(c context.Context) error {
		s, err := js.Stream(c, jobsStream)
		if err != nil {
			return err
		}
		return s.Purge(c, jetstream.WithPurgeSubject("modex.jobs."+campaign))
	})
}
