package campaign

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modex/modex/engine/conform"
)

// A worker process (modex worker) killed in the middle of the campaign:
// its job goes to another worker after the ack wait; no job is lost or
// counted twice.
func TestWorkerProcessKilled(t *testing.T) {
	if testing.Short() {
		t.Skip("builds modex")
	}
	modex := buildModex(t)
	chat := buildChat(t)
	url := embedded(t)
	spec := Spec{Key: testKey, ProjectFile: "../projects/chat/chat.toml", Config: "hi_bye", Runs: 80, Steps: 60, Seed: 31, JobRuns: 10, AckWait: 2 * time.Second, TrustWorkers: testWorkers}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	done := coordinateAsync(ctx, t, url, spec)
	seed, _ := testWorkerKey.Seed()
	keyFile := filepath.Join(t.TempDir(), "worker.nk")
	if err := os.WriteFile(keyFile, seed, 0o600); err != nil {
		t.Fatal(err)
	}
	worker := exec.Command(modex, "worker", "--nats", url, "--trust", PublicKey(testKey), "--key", keyFile, "--adapter", chat+" adapter --fixed", "--name", "doomed")
	out, _ := worker.StdoutPipe()
	if err := worker.Start(); err != nil {
		t.Fatal(err)
	}
	// Kill it while it runs its second job.
	sc := bufio.NewScanner(out)
	jobs := 0
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), "job ") {
			jobs++
			if jobs == 1 {
				time.Sleep(20 * time.Millisecond)
				worker.Process.Kill()
				break
			}
		}
	}
	worker.Wait()
	if jobs == 0 {
		t.Fatal("the worker process did no job")
	}
	startWorkers(t, url, 1, chat+" adapter --fixed")
	sum := <-done
	if sum == nil {
		t.FailNow()
	}
	if sum.Runs != 80 || sum.Done != 8 || sum.Tally[conform.Pass] != 80 || sum.Workers["doomed"] < 1 || sum.Workers["w1"] < 1 {
		t.Errorf("%d runs, %d of %d jobs done, %v, jobs per worker %v", sum.Runs, sum.Done, sum.Jobs, sum.Tally, sum.Workers)
	}
}

// buildModex builds the command line (without the workbench) for a test.
func buildModex(t *testing.T) string {
	t.Helper()
	modex := filepath.Join(t.TempDir(), "modex")
	if msg, err := exec.Command("go", "build", "-tags", "headless", "-o", modex, "../app").CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, msg)
	}
	return modex
}
