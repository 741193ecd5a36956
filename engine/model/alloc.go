package model

import (
	"fmt"
	"math"
	"runtime/metrics"
	"sync"
	"sync/atomic"
	"unsafe"

	"go.starlark.net/starlark"
	"go.starlark.net/syntax"
)

// Allocations sized before they are made. The memory watcher (WatchMemory)
// reads the heap every 10 ms and stops the model's code when it passes the
// budget; one operation of compiled code can allocate far more than the
// budget between two readings (`l + l` forty times over is 2^40 elements
// four hundred milliseconds later). So the operations Modex compiles or
// implements that make a value of a size known beforehand — `+` and `*` on
// lists, tuples and strings, list(), tuple(), sorted(), a comprehension's
// growth, a domain's listing — ask for their bytes first: what the active
// budgets leave (the least of budget − heap at their last reading, less
// what was asked for since). One larger than that is refused before it is
// made: the budget is exceeded (the run stops with ErrMemoryBudget, as
// when the watcher sees it), and the code that asked is stopped at once.

// allocFloor is the least allocation that is sized: smaller ones are left
// to the watcher (a thousand of them between two readings is 64 MiB).
const allocFloor = 64 << 10

// allocLeft is what the active budgets leave (math.MaxInt64 when none is
// watched).
var allocLeft atomic.Int64

func init() { allocLeft.Store(math.MaxInt64) }

// budgets are the watchers active now.
var budgets struct {
	sync.Mutex
	active map[*budgetWatch]struct{}
}

// budgetWatch is one active budget: what it leaves at its last reading,
// and how to exceed it.
type budgetWatch struct {
	left   int64
	budget uint64
	exceed func()
}

// watchBudget adds an active budget; the returned functions set what it
// leaves (at each reading) and remove it.
func watchBudget(b *budgetWatch) (set func(left int64), remove func()) {
	budgets.Lock()
	if budgets.active == nil {
		budgets.active = map[*budgetWatch]struct{}{}
	}
	budgets.active[b] = struct{}{}
	budgets.Unlock()
	set = func(left int64) {
		budgets.Lock()
		b.left = left
		resetLeftLocked()
		budgets.Unlock()
	}
	remove = func() {
		budgets.Lock()
		delete(budgets.active, b)
		resetLeftLocked()
		budgets.Unlock()
	}
	return set, remove
}

// resetLeftLocked sets allocLeft to the least that an active budget leaves.
func resetLeftLocked() {
	least := int64(math.MaxInt64)
	for b := range budgets.active {
		least = min(least, b.left)
	}
	allocLeft.Store(least)
}

// reserve asks for n bytes: an error wrapping ErrMemoryBudget when an
// active budget has not that much left, which exceeds the budget (every
// active one that has not). What the budgets leave is known from their
// last reading less what was asked for since — garbage, much of it, in a
// model that makes and drops big lists — so a request past it is weighed
// against the heap the last collection found live: only a request that
// the live data and n together would take past a budget is refused. (The
// collector runs whenever the heap reaches the budget, the runtime's soft
// limit while it is watched, so that reading lags by less than a budget.
// A collection forced here instead made a model that churns big lists
// near its budget eight times slower.)
func reserve(n int64) error {
	if n < allocFloor || allocLeft.Add(-n) >= 0 {
		return nil
	}
	budgets.Lock()
	live := liveHeap()
	var over []*budgetWatch
	for b := range budgets.active {
		b.left = int64(min(b.budget, math.MaxInt64)) - live
		if b.left < n {
			over = append(over, b)
		}
	}
	resetLeftLocked()
	if len(over) == 0 {
		allocLeft.Add(-n)
	}
	budgets.Unlock()
	if len(over) == 0 {
		return nil
	}
	for _, b := range over {
		b.exceed()
	}
	return fmt.Errorf("%w (%d MiB): an operation of the model needed %s at once", ErrMemoryBudget, over[0].budget>>20, sizeWords(n))
}

// liveHeap is the bytes of the heap the last collection marked live.
func liveHeap() int64 {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return int64(min(s[0].Value.Uint64(), math.MaxInt64))
}

// sizeWords is a size in bytes, in MiB or GiB.
func sizeWords(n int64) string {
	if n >= 10<<30 {
		return fmt.Sprintf("%d GiB", n>>30)
	}
	return fmt.Sprintf("%d MiB", max(n>>20, 1))
}

// alloc asks for the bytes of a value compiled code is about to make:
// false (the code stopped, with the budget's message) when the budget
// cannot take them.
func (c *cctx) alloc(n int64) bool {
	if n < allocFloor {
		return true
	}
	if err := reserve(n); err != nil {
		c.halt.stop(c.thread, err.Error())
		return false
	}
	return true
}

// Sizes of what compiled code makes, in bytes: a list's or tuple's element
// is an interface value.
const valueSize = int64(unsafe.Sizeof(starlark.Value(nil)))

// sizeOf is a rough size of n elements of a sequence like v (1 byte a
// character for strings and bytes, an interface value each for the rest),
// saturating instead of overflowing.
func sizeOf(v starlark.Value, n int64) int64 {
	per := valueSize
	switch v.(type) {
	case starlark.String, starlark.Bytes:
		per = 1
	}
	if n <= 0 {
		return 0
	}
	if n > math.MaxInt64/per {
		return math.MaxInt64
	}
	return n * per
}

// binary is starlark.Binary for compiled code, sizing first what `+` and
// `*` make of lists, tuples and strings; false for an error or a stop.
func (c *cctx) binary(op syntax.Token, u, v starlark.Value) (starlark.Value, bool) {
	if op == syntax.PLUS || op == syntax.STAR {
		_, ui := u.(starlark.Int)
		_, vi := v.(starlark.Int)
		if !(ui && vi) && !c.alloc(binarySize(op, u, v)) { // ints: the common case, sized by nothing
			return nil, false
		}
	}
	r, err := starlark.Binary(op, u, v)
	return r, err == nil
}

// binarySize is the size of what `u op v` makes when it concatenates or
// repeats a sequence (0: it does not).
func binarySize(op syntax.Token, u, v starlark.Value) int64 {
	switch op {
	case syntax.PLUS:
		nu, nv := seqLen(u), seqLen(v)
		if nu < 0 || nv < 0 {
			return 0
		}
		return sizeOf(u, nu+nv)
	case syntax.STAR:
		seq, times := u, v
		if seqLen(seq) < 0 {
			seq, times = v, u
		}
		n := seqLen(seq)
		var k int64
		if n <= 0 || starlark.AsInt(times, &k) != nil || k <= 0 {
			return 0 // an error, or an int past 64 bits: Starlark refuses it
		}
		if n > math.MaxInt64/k {
			return math.MaxInt64
		}
		return sizeOf(seq, n*k)
	}
	return 0
}

// copying are the builtins and methods that make a value as large as
// their receiver and arguments together (list(xs), sorted(xs), d.keys(),
// a.union(b), l.extend(xs) ...): compiled code sizes what they make first.
var copying = map[string]bool{
	"list": true, "tuple": true, "sorted": true, "reversed": true, "set": true, "enumerate": true, "zip": true,
	"dict": true, "keys": true, "values": true, "items": true, "union": true, "difference": true,
	"intersection": true, "symmetric_difference": true, "extend": true, "split": true, "join": true,
}

// copySize is the size of what a copying builtin or method makes of its
// receiver (nil for a builtin) and arguments: an element a value.
func copySize(recv starlark.Value, args starlark.Tuple) int64 {
	var n int64
	if recv != nil {
		n = int64(max(starlark.Len(recv), 0))
	}
	for _, a := range args {
		if k := starlark.Len(a); k > 0 {
			n += int64(k)
		}
	}
	return sizeOf(nil, n)
}

// seqLen is the length of a list, tuple, string or bytes value (-1 for
// anything else).
func seqLen(v starlark.Value) int64 {
	switch x := v.(type) {
	case *starlark.List:
		return int64(x.Len())
	case starlark.Tuple:
		return int64(len(x))
	case starlark.String:
		return int64(len(x))
	case starlark.Bytes:
		return int64(len(x))
	}
	return -1
}
