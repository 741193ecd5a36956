package projects

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/modex/modex/engine/conform"
)

// BenchmarkOnlineCoverage compares the random and coverage-directed
// strategies: distinct model states and transitions covered after 1,000 and
// 10,000 test steps against the (fixed) chat server and bag, as child
// processes over TCP and goroutines.
func BenchmarkOnlineCoverage(b *testing.B) {
	dir := b.TempDir()
	bins := map[string]string{}
	for _, s := range []string{"chat", "bag"} {
		bins[s] = filepath.Join(dir, s)
		if msg, err := exec.Command("go", "build", "-o", bins[s], "./"+s+"/impl").CombinedOutput(); err != nil {
			b.Fatalf("%v\n%s", err, msg)
		}
	}
	type target struct{ sample, config string }
	for _, tg := range []target{{"chat", "hi_bye"}, {"bag", "two_threads"}} {
		for _, total := range []int{1000, 10000} {
			for _, strategy := range conform.Strategies() {
				b.Run(fmt.Sprintf("%s/%d/%s", tg.sample, total, strategy), func(b *testing.B) {
					var res *conform.TestResult
					for i := 0; i < b.N; i++ {
						tc := conform.TestConfig{Runs: total / 25, Steps: 25, TotalSteps: total, Seed: 1, Strategy: strategy}
						if tg.sample == "chat" {
							res = chatTest(b, bins["chat"], tg.config, true, tc)
						} else {
							res = bagTest(b, bins["bag"], tg.config, true, tc)
						}
					}
					b.ReportMetric(float64(res.States), "states")
					b.ReportMetric(float64(res.Transitions), "transitions")
					b.ReportMetric(float64(res.Steps)/res.Seconds, "steps/s")
				})
			}
		}
	}
}
