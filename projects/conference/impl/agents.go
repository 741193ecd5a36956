package main

import (
	"math/rand/v2"
	"sync"
	"time"
)

// Agent is a test agent (seed 002, section IV.A): an entity of its own that
// joins the conference, exchanges a few messages (if any) and leaves, over
// and over, pausing between steps — for a predetermined time, or a random
// one.
type Agent struct {
	CPE    *CPE
	Random bool
	Pause  time.Duration // the predetermined pause, and the mean random one
	rng    *rand.Rand
}

func (a *Agent) pause(stop <-chan struct{}) bool {
	d := a.Pause
	if a.Random {
		d = time.Duration(a.rng.Int64N(int64(2*a.Pause) + 1))
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-stop:
		return false
	case <-t.C:
		return true
	}
}

// Run cycles until stop is closed: join, up to two messages, leave.
func (a *Agent) Run(stop <-chan struct{}, wg *sync.WaitGroup) {
	defer wg.Done()
	for {
		if !a.pause(stop) {
			return
		}
		a.CPE.Join(conferenceName)
		msgs := a.rng.IntN(3)
		if !a.Random {
			msgs = 1
		}
		for range msgs {
			if !a.pause(stop) {
				return
			}
			a.CPE.DataReq("hello")
		}
		if !a.pause(stop) {
			return
		}
		a.CPE.Leave()
	}
}
