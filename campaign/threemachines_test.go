package campaign

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// The three-machine setup of docs/campaigns.md, as three processes here:
// nats-server (Debian's package, which make test installs) with the
// documented configuration — TLS, a campaign account, a coordinator user
// and a worker user with only a worker's permissions — a coordinator
// (modex campaign --nats, signing with a key from modex keygen, counting
// only the two workers' keys) and two workers (modex worker --trust). The
// campaign finds the chat bug; the worker user cannot publish a job; a
// client without a password cannot connect.
func TestThreeMachineSetup(t *testing.T) {
	if testing.Short() {
		t.Skip("builds modex, runs nats-server")
	}
	natsServer, err := exec.LookPath("nats-server")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("nats-server is not installed (make deps installs Debian's nats-server)")
		}
		t.Skip("nats-server is not installed (make deps installs it)")
	}
	dir := t.TempDir()
	modex := buildModex(t)
	chat := buildChat(t)
	ca, cert, key, _, _ := certs(t, dir)
	port := freePort(t)
	// nats-server reads a variable's value as a configuration value: a
	// password must not look like a number (docs/campaigns.md).
	coordPass, workerPass := "pw"+randomToken(), "pw"+randomToken()
	server := exec.Command(natsServer, "--config", "../docs/campaigns/nats-server.conf")
	server.Env = append(os.Environ(), fmt.Sprintf("MODEX_PORT=%d", port), "MODEX_STORE="+filepath.Join(dir, "store"),
		"MODEX_CERT="+cert, "MODEX_KEY="+key, "MODEX_COORDINATOR_PASSWORD="+coordPass, "MODEX_WORKER_PASSWORD="+workerPass)
	var serverLog syncBuffer
	server.Stdout, server.Stderr = &serverLog, &serverLog
	if err := server.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { server.Wait(); close(exited) }()
	t.Cleanup(func() { server.Process.Kill(); <-exited })
	url := func(user, pass string) string { return fmt.Sprintf("tls://%s:%s@127.0.0.1:%d", user, pass, port) }
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	for {
		nc, err := connect(url("coordinator", coordPass), "probe", Auth{CA: ca})
		if err == nil {
			nc.Close()
			break
		}
		select {
		case <-exited:
			t.Fatalf("nats-server exited: %v\n%s", err, serverLog.String())
		case <-ctx.Done():
			t.Fatalf("nats-server did not come up: %v\n%s", err, serverLog.String())
		case <-time.After(100 * time.Millisecond):
		}
	}
	// Keys: the coordinator's and each worker's, made with modex keygen.
	keygen := func(name string) string {
		out, err := exec.Command(modex, "keygen", filepath.Join(dir, name)).Output()
		if err != nil {
			t.Fatal(err)
		}
		return strings.TrimSpace(string(out))
	}
	coordPub, w1Pub, w2Pub := keygen("coordinator.nk"), keygen("w1.nk"), keygen("w2.nk")
	if st, err := os.Stat(filepath.Join(dir, "w1.nk")); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("a key file's mode: %v %v", st.Mode(), err)
	}
	coordinator := exec.CommandContext(ctx, modex, "campaign", "../projects/chat/chat.toml", "--config", "hi_bye", "--runs", "60", "--job-runs", "10",
		"--steps", "30", "--seed", "1", "--workers", "0", "--nats", url("coordinator", coordPass), "--nats-ca", ca,
		"--key", filepath.Join(dir, "coordinator.nk"), "--trust-worker", w1Pub+","+w2Pub, "--save-failures", filepath.Join(dir, "failures"))
	var coordOut bytes.Buffer
	coordinator.Stdout, coordinator.Stderr = &coordOut, &coordOut
	if err := coordinator.Start(); err != nil {
		t.Fatal(err)
	}
	var workers []*exec.Cmd
	var logs []*syncBuffer
	for i, keyFile := range []string{"w1.nk", "w2.nk"} {
		w := exec.CommandContext(ctx, modex, "worker", "--nats", url("worker", workerPass), "--nats-ca", ca, "--trust", coordPub,
			"--key", filepath.Join(dir, keyFile), "--adapter", chat+" adapter", "--name", fmt.Sprintf("machine-%d", i+2))
		var log syncBuffer
		w.Stdout, w.Stderr = &log, &log
		if err := w.Start(); err != nil {
			t.Fatal(err)
		}
		workers, logs = append(workers, w), append(logs, &log)
	}
	t.Cleanup(func() {
		for _, w := range workers {
			w.Process.Kill()
			w.Wait()
		}
	})
	err = coordinator.Wait()
	out := coordOut.String()
	if !strings.Contains(out, "coordinator key "+coordPub) || !strings.Contains(out, "6 of 6 jobs done") ||
		!strings.Contains(out, "60 runs: ") || !strings.Contains(out, "FAIL unexpected-observable") || strings.Contains(out, "untrusted") {
		t.Fatalf("the campaign (%v):\n%s\nworkers:\n%s\n%s\nserver:\n%s", err, out, logs[0], logs[1], serverLog.String())
	}
	if strings.Contains(out, coordPass) {
		t.Error("the coordinator printed its password")
	}
	// The worker user cannot publish a job, nor connect without its
	// password.
	nc, err := connect(url("worker", workerPass), "rogue worker", Auth{CA: ca})
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	if _, err := nc.Request("$JS.API.STREAM.PURGE.MODEX_JOBS", nil, 2*time.Second); err == nil {
		t.Error("the worker user could purge the jobs")
	}
	sub, _ := nc.SubscribeSync("_INBOX.probe")
	nc.PublishRequest("modex.jobs.cforged", "_INBOX.probe", []byte("{}"))
	if m, err := sub.NextMsg(2 * time.Second); err == nil {
		t.Errorf("the worker user published a job: %s", m.Data)
	}
	if nc, err := connect(fmt.Sprintf("tls://127.0.0.1:%d", port), "anonymous", Auth{CA: ca}); err == nil {
		nc.Close()
		t.Error("a client without credentials connected")
	}
	sc := bufio.NewScanner(strings.NewReader(logs[0].String() + logs[1].String()))
	jobs := 0
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), "job ") {
			jobs++
		}
	}
	if jobs != 6 {
		t.Errorf("the workers did %d jobs:\n%s\n%s", jobs, logs[0], logs[1])
	}
}

// syncBuffer is a bytes.Buffer that a child's output goroutine may write
// while the test reads it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
