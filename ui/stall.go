package ui

import (
	"sync/atomic"
	"time"

	"fyne.io/fyne/v2"
)

// StallMonitor measures how long the UI goroutine stays busy: it posts a
// heartbeat through fyne.Do every Interval and records the worst delay
// between posting and running. A delay above the interval is a stall.
type StallMonitor struct {
	Interval time.Duration
	worst    atomic.Int64
	beats    atomic.Int64
	stop     chan struct{}
}

// StartStallMonitor starts a monitor; Stop ends it.
func StartStallMonitor(interval time.Duration) *StallMonitor {
	m := &StallMonitor{Interval: interval, stop: make(chan struct{})}
	go func() {
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-m.stop:
				return
			case <-t.C:
				posted := time.Now()
				fyne.Do(func() {
					d := int64(time.Since(posted))
					m.beats.Add(1)
					for {
						old := m.worst.Load()
						if d <= old || m.worst.CompareAndSwap(old, d) {
							break
						}
					}
				})
			}
		}
	}()
	return m
}

// Worst is the longest delay seen.
func (m *StallMonitor) Worst() time.Duration { return time.Duration(m.worst.Load()) }

// Beats is the number of heartbeats that ran.
func (m *StallMonitor) Beats() int64 { return m.beats.Load() }

// Reset forgets the worst delay seen so far.
func (m *StallMonitor) Reset() { m.worst.Store(0) }

// Stop ends the monitor.
func (m *StallMonitor) Stop() { close(m.stop) }
