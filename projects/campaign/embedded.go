package campaign

import (
	"fmt"
	"time"

	"github.com/nats-io/nats-server/v2/server"
)

// StartEmbedded starts a single-node NATS server with JetStream in this
// process, on a free port of 127.0.0.1, storing its streams under dir, and
// returns it and its URL. Shut it down with Shutdown.
func StartEmbedded(dir string) (*server.Server, string, error) {
	s, err := server.NewServer(&server.Options{Host: "127.0.0.1", Port: -1, JetStream: true, StoreDir: dir,
		NoSigs: true, NoLog: true, ServerName: "modex-embedded"})
	if err != nil {
		return nil, "", err
	}
	s.Start()
	if !s.ReadyForConnections(10 * time.Second) {
		s.Shutdown()
		return nil, "", fmt.Errorf("the embedded NATS server did not start")
	}
	return s, s.ClientURL(), nil
}
