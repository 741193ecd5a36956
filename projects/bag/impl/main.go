// Command impl is the bag sample's implementation under test — a bag shared
// by goroutines ("threads"), with a missing lock unless --fixed — and its
// Modex adapter on stdin/stdout:
//
//	impl adapter [--capacity N] [--fixed]
//
// Add(t, x), Delete(t, x) and Lookup(t, x) hand an operation to thread t and
// return at once; when the thread finishes it reports the observable
// Done(t, result). Completions are reported in the order operations took
// effect (the paper's multiplexing), so the model can check them in order.
package main

import (
	"bufio"
	"encoding/json"
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
		fmt.Fprintln(os.Stderr, "usage: impl adapter [--capacity N] [--fixed]")
		os.Exit(2)
	}
	fs := flag.NewFlagSet("adapter", flag.ExitOnError)
	capacity := fs.Int("capacity", 2, "slots in the bag")
	fixed := fs.Bool("fixed", false, "lock every slot")
	fs.Parse(os.Args[2:])
	var outMu sync.Mutex
	out := json.NewEncoder(os.Stdout)
	send := func(m map[string]any) {
		outMu.Lock()
		out.Encode(m)
		outMu.Unlock()
	}
	var bag *Bag
	var wg sync.WaitGroup
	busy := map[string]bool{}
	var busyMu sync.Mutex
	reset := func() {
		wg.Wait()
		bag = &Bag{fixed: *fixed, slots: make([]string, *capacity), locks: make([]sync.Mutex, *capacity)}
		bag.report = func(t string, result any) {
			busyMu.Lock()
			delete(busy, t)
			busyMu.Unlock()
			send(map[string]any{"type": "event", "action": "Done", "args": []any{t, result}})
		}
	}
	reset()
	sc := bufio.NewScanner(os.Stdin)
	for sc.Scan() {
		var msg map[string]any
		if err := json.Unmarshal(sc.Bytes(), &msg); err != nil {
			fmt.Fprintln(os.Stderr, "bad request:", err)
			os.Exit(1)
		}
		id := msg["id"]
		switch msg["type"] {
		case "hello":
			send(map[string]any{"type": "hello", "id": id, "protocol": "modex-adapter/1", "name": fmt.Sprintf("bag (capacity %d, fixed=%v)", *capacity, *fixed)})
		case "reset":
			reset()
			send(map[string]any{"type": "ok", "id": id})
		case "invoke":
			action, _ := msg["action"].(string)
			args, _ := msg["args"].([]any)
			if len(args) != 2 {
				send(map[string]any{"type": "error", "id": id, "message": "want (thread, element)"})
				continue
			}
			t, _ := args[0].(string)
			x, _ := args[1].(string)
			busyMu.Lock()
			if busy[t] {
				busyMu.Unlock()
				send(map[string]any{"type": "refused", "id": id, "reason": "thread " + t + " is busy"})
				continue
			}
			busy[t] = true
			busyMu.Unlock()
			op := map[string]func(string, string){"Add": bag.Add, "Delete": bag.Delete, "Lookup": bag.Lookup}[action]
			if op == nil {
				send(map[string]any{"type": "error", "id": id, "message": "unknown action " + action})
				continue
			}
			send(map[string]any{"type": "result", "id": id, "output": nil})
			wg.Add(1)
			go func() { defer wg.Done(); op(t, x) }()
		case "shutdown":
			return
		}
	}
}
