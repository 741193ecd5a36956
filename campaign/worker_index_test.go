package campaign

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modex/modex/engine/conform"
)

// {WORKER} in the local workers' adapter command gives each worker its
// own implementation: two stack servers, one per worker, each reached
// (its log has connections) and every run passes — workers sharing one
// stateful server would pop each other's values.
func TestWorkerPlaceholderGivesEachWorkerItsOwnServer(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "sharedstack")
	if msg, err := exec.Command("go", "build", "-o", bin, "./testdata/sharedstack").CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, msg)
	}
	for _, i := range []string{"1", "2"} {
		srv := exec.Command(bin, "server", filepath.Join(dir, "stack-"+i+".sock"), filepath.Join(dir, "server-"+i+".log"))
		if err := srv.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { srv.Process.Kill(); srv.Wait() })
	}
	for _, i := range []string{"1", "2"} {
		for start := time.Now(); ; time.Sleep(10 * time.Millisecond) {
			if _, err := os.Stat(filepath.Join(dir, "stack-"+i+".sock")); err == nil {
				break
			} else if time.Since(start) > 10*time.Second {
				t.Fatal("the stack server did not start")
			}
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	spec := Spec{Key: testKey, ProjectFile: "../projects/stack/stack.toml", Config: "all", Runs: 80, Steps: 40, Seed: 1, JobRuns: 5}
	sum, err := Run(ctx, spec, Where{Dir: t.TempDir(), Workers: 2, Adapter: bin + " adapter " + filepath.Join(dir, "stack-{WORKER}.sock")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Runs != 80 || sum.Tally[conform.Pass] != 80 || len(sum.JobErrors) > 0 {
		t.Fatalf("%d runs: %v; errors %v; failures %+v", sum.Runs, sum.Tally, sum.JobErrors, sum.Failures)
	}
	for _, i := range []string{"1", "2"} {
		log, _ := os.ReadFile(filepath.Join(dir, "server-"+i+".log"))
		if !strings.Contains(string(log), "connection") {
			t.Errorf("server %s was never reached: each worker should have its own (jobs per worker: %v)", i, sum.Workers)
		}
	}
}
