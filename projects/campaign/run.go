package campaign

import (
	"context"
	"fmt"
	"sync"
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
	return Coordinate(ctx, url, where.Auth, spec, progress)
}
