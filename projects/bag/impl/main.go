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
	"os"
	"sync"
)

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
