package model

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync"
	"time"
)

// ErrMemoryBudget is the cause of a run stopped because the process's heap
// grew past the memory budget: model code allocating without bound
// ([0]*200000000 in a filter) must end with a message, not exhaust the
// machine. Starlark's step budget bounds time only.
var ErrMemoryBudget = errors.New("model exceeded its memory budget")

// memoryPoll is how often the heap is read while a run watches it.
const memoryPoll = 10 * time.Millisecond

var (
	defaultBudgetOnce sync.Once
	defaultBudget     uint64
)

// DefaultMemoryBudget is a quarter of the machine's memory (MemTotal on
// Linux), or 4 GiB where that cannot be read.
func DefaultMemoryBudget() uint64 {
	defaultBudgetOnce.Do(func() {
		defaultBudget = 4 << 30
		f, err := os.Open("/proc/meminfo")
		if err != nil {
			return
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			fs := strings.Fields(sc.Text())
			if len(fs) >= 2 && fs[0] == "MemTotal:" {
				if kb, err := strconv.ParseUint(fs[1], 10, 64); err == nil && kb > 0 {
					defaultBudget = kb * 1024 / 4
				}
			}
		}
	})
	return defaultBudget
}

// WatchMemory returns a context that is cancelled, with cause
// ErrMemoryBudget (wrapped with the budget), when the Go heap exceeds
// budget bytes (0: DefaultMemoryBudget) while ctx lives; stop releases it.
func WatchMemory(ctx context.Context, budget uint64) (watched context.Context, stop func()) {
	if budget == 0 {
		budget = DefaultMemoryBudget()
	}
	ctx, cancel := context.WithCancelCause(ctx)
	done := make(chan struct{})
	go func() {
		t := time.NewTicker(memoryPoll)
		defer t.Stop()
		sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
		for {
			select {
			case <-done:
				return
			case <-ctx.Done():
				return
			case <-t.C:
				metrics.Read(sample)
				if sample[0].Value.Kind() == metrics.KindUint64 && sample[0].Value.Uint64() > budget {
					cancel(fmt.Errorf("%w (%d MiB)", ErrMemoryBudget, budget>>20))
					return
				}
			}
		}
	}()
	return ctx, func() { close(done); cancel(nil) }
}

// MemoryExceeded reports whether ctx was cancelled by WatchMemory, and the
// message to report.
func MemoryExceeded(ctx context.Context) (string, bool) {
	if err := context.Cause(ctx); err != nil && errors.Is(err, ErrMemoryBudget) {
		return err.Error(), true
	}
	return "", false
}
