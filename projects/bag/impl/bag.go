package main

import (
	"math/rand/v2"
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
