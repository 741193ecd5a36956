package campaign

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"time"

	"github.com/nats-io/nats-server/v2/server"
)

// Embedded is a single-node NATS server with JetStream inside this
// process, for a campaign with no server of the user's. It listens on no
// port: only connections made in this process reach it, and those must
// also give its user and password, made fresh for each server and never
// written anywhere.
type Embedded struct {
	srv  *server.Server
	auth Auth
}

// StartEmbedded starts an embedded server storing its streams under dir
// (made readable by its owner only). Shut it down with Shutdown.
func StartEmbedded(dir string) (*Embedded, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	// The streams hold the project and the failing runs: the owner's.
	if err := os.Chmod(dir, 0o700); err != nil {
		return nil, err
	}
	user, password := randomToken(), randomToken()
	s, err := server.NewServer(&server.Options{DontListen: true, JetStream: true, StoreDir: dir,
		NoSigs: true, NoLog: true, ServerName: "modex-embedded", Username: user, Password: password})
	if err != nil {
		return nil, err
	}
	s.Start()
	if !s.ReadyForConnections(10 * time.Second) {
		s.Shutdown()
		return nil, fmt.Errorf("the embedded NATS server did not start")
	}
	return &Embedded{srv: s, auth: Auth{User: user, Password: password, inProcess: s}}, nil
}

// Auth is how this process's clients reach the embedded server: in
// process, with its credentials.
func (e *Embedded) Auth() Auth { return e.auth }

// Shutdown stops the server.
func (e *Embedded) Shutdown() { e.srv.Shutdown() }

// randomToken is 128 random bits as hex.
func randomToken() string {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(err) // crypto/rand does not fail on the systems Go supports
	}
	return hex.EncodeToString(b[:])
}
