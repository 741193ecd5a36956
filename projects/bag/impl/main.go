// Command impl is the bag sample's implementation under test — a bag shared
// by goroutines ("threads"), with a missing lock unless --fixed — and its
// Modex adapter on stdin/stdout (or one TCP connection, with --listen), on
// the adapter kit (modexadapter.go, a copy of adapters/go/modexadapter.go):
//
//	impl adapter [--capacity N] [--fixed] [--listen HOST:PORT]
//
// Add(t, x), Delete(t, x) and Lookup(t, x) hand an operation to thread t and
// return at once; when the thread finishes it reports the observable
// Done(t, result). Completions are reported in the order operations took
// effect (the paper's multiplexing), so the model can check them in order.
package main

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"sync"
	"time"
)

// Bag is a fixed-capacity multi-set in an array of slots.
type Bag struct {
	fixed  bool
	slots  []string // "" is a free slot
	locks  []sync.Mutex
	commit sync.Mutex // serialises taking effect and reporting
	report func(t string, result any)
}

func jitter() { time.Sleep(time.Duration(rand.IntN(400)) * time.Microsecond) }

// Add puts x in a free slot and reports whether there was one.
func (b *Bag) Add(t, x string) {
	for i := range b.slots {
		locked := i == 0 || b.fixed // the bug: only slot 0 is locked
		if locked {
			b.locks[i].Lock()
		}
		free := b.slots[i] == ""
		if free {
			jitter() // between checking and claiming: the race window
			b.commit.Lock()
			b.slots[i] = x
			b.report(t, true)
			b.commit.Unlock()
		}
		if locked {
			b.locks[i].Unlock()
		}
		if free {
			return
		}
	}
	b.commit.Lock()
	b.report(t, false)
	b.commit.Unlock()
}

// Delete removes one x and reports whether there was one.
func (b *Bag) Delete(t, x string) {
	for i := range b.slots {
		b.locks[i].Lock()
		if b.slots[i] == x {
			jitter()
			b.commit.Lock()
			b.slots[i] = ""
			b.report(t, true)
			b.commit.Unlock()
			b.locks[i].Unlock()
			return
		}
		b.locks[i].Unlock()
	}
	b.commit.Lock()
	b.report(t, false)
	b.commit.Unlock()
}

// Lookup reports how many x the bag holds.
func (b *Bag) Lookup(t, x string) {
	jitter()
	b.commit.Lock()
	n := 0
	for i := range b.slots {
		if b.slots[i] == x {
			n++
		}
	}
	b.report(t, n)
	b.commit.Unlock()
}

func main() {
	if len(os.Args) < 2 || os.Args[1] != "adapter" {
		fmt.Fprintln(os.Stderr, "usage: impl adapter [--capacity N] [--fixed] [--listen HOST:PORT]")
		os.Exit(2)
	}
	fs := flag.NewFlagSet("adapter", flag.ExitOnError)
	capacity := fs.Int("capacity", 2, "slots in the bag")
	fixed := fs.Bool("fixed", false, "lock every slot")
	fs.String("listen", "", "speak the protocol on one TCP connection at `HOST:PORT` instead")
	fs.Parse(os.Args[2:])
	a := New(fmt.Sprintf("bag (capacity %d, fixed=%v)", *capacity, *fixed))
	var bag *Bag
	var ops sync.WaitGroup // the threads' operations
	var busyMu sync.Mutex
	busy := map[string]bool{}
	reset := func() error {
		ops.Wait() // their Done events come before the reset's answer
		bag = &Bag{fixed: *fixed, slots: make([]string, *capacity), locks: make([]sync.Mutex, *capacity)}
		bag.report = func(t string, result any) {
			busyMu.Lock()
			delete(busy, t)
			busyMu.Unlock()
			a.Emit("Done", t, result)
		}
		return nil
	}
	reset()
	a.OnReset(reset)
	a.OnClose(ops.Wait)
	for action, op := range map[string]func(b *Bag, t, x string){"Add": (*Bag).Add, "Delete": (*Bag).Delete, "Lookup": (*Bag).Lookup} {
		// Hand the operation to thread t, which reports Done when it ends.
		a.Handle(action, func(args Args) (any, error) {
			t, x := args.String(0), args.String(1)
			busyMu.Lock()
			defer busyMu.Unlock()
			if busy[t] {
				return nil, Refuse("thread " + t + " is busy")
			}
			busy[t] = true
			ops.Add(1)
			go func(b *Bag) { defer ops.Done(); op(b, t, x) }(bag)
			return nil, nil
		})
	}
	if err := a.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "adapter:", err)
		os.Exit(1)
	}
}
