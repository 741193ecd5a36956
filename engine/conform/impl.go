package conform

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// ProtocolVersion is the adapter protocol spoken (docs/adapter-protocol.md).
const ProtocolVersion = "modex-adapter/1"

// Event is an observable action the implementation did on its own.
type Event struct {
	Action string
	Args   []any // wire values
	// Bytes is the event's size as received (its protocol line), for
	// the queue's byte bound; 0: estimated from its values.
	Bytes int
	// At is when the event arrived: EventQueue.Push sets it (when zero);
	// the tester measures earliest (explore.Config.Earliest) with it. Zero
	// for an event that did not pass through a queue: the tester takes the
	// time it read the event.
	At time.Time
}

// size is the event's size for the queue's byte bound.
func (e *Event) size() int {
	if e.Bytes > 0 {
		return e.Bytes
	}
	n := len(e.Action) + 16
	var walk func(v any, depth int)
	walk = func(v any, depth int) {
		n += 16
		switch x := v.(type) {
		case string:
			n += len(x)
		case []any:
			if depth < 64 {
				for _, y := range x {
					walk(y, depth+1)
				}
			}
		case map[string]any:
			if depth < 64 {
				for k, y := range x {
					n += len(k)
					walk(y, depth+1)
				}
			}
		}
	}
	for _, a := range e.Args {
		walk(a, 0)
	}
	return n
}

// Implementation is a system under test, reached in process or through an
// adapter. Values are wire values (see Binding).
type Implementation interface {
	// Reset brings the implementation back to its initial state (the
	// paper's finish/reset between test runs) and drops pending events.
	Reset(ctx context.Context) error
	// Invoke performs a controllable action and returns its output; a
	// *RefusedError when the implementation does not accept it now; an
	// *ImplError when it crashed, timed out or broke the protocol.
	Invoke(ctx context.Context, action string, args []any) (any, error)
	// Next waits up to wait for the next observable event (buffered, in
	// order); nil when none came.
	Next(ctx context.Context, wait time.Duration) (*Event, error)
	// Close shuts the implementation down and releases it.
	Close() error
}

// RefusedError is an implementation refusing a controllable action.
type RefusedError struct{ Reason string }

// Error says what was refused and why.
func (e *RefusedError) Error() string { return "refused: " + e.Reason }

// NotImplementedError is an adapter saying it has no code for a
// controllable action yet (an incremental adapter): nothing was done. The
// tester takes the action out of its choices for the rest of the test,
// and the step does not count.
type NotImplementedError struct {
	Action string
	Reason string
}

// Error says which action is not implemented.
func (e *NotImplementedError) Error() string {
	msg := "the adapter does not implement " + e.Action
	if e.Reason != "" {
		msg += ": " + e.Reason
	}
	return msg
}

// Unimplemented is an implementation that says, when it starts, which
// controllable actions it does not implement (the adapter protocol's
// hello answer): the tester never chooses them.
type Unimplemented interface {
	NotImplemented() []string
}

// CoverageReport is an adapter's answer to Modex's coverage request: where
// it wrote the implementation's coverage data (Format "gocoverdir",
// "coverage.py" or "lcov", at Path), or, with Format "none", why it wrote
// none.
type CoverageReport struct {
	Format, Path, Reason string
}

// CoverageFlusher is an implementation that can write its code coverage
// data on request, between runs (the adapter protocol's coverage request).
type CoverageFlusher interface {
	FlushCoverage(ctx context.Context) (*CoverageReport, error)
}

// Skip is a controllable action the tester took out of its choices
// because the adapter does not implement it.
type Skip struct {
	Action string
	// Run is the run in which the adapter first said so (0: at start).
	Run    int
	Reason string
}

// ImplError is a failure of the implementation itself: crash, timeout or
// protocol violation.
type ImplError struct {
	Kind FailureKind
	Msg  string
	// Crash is how the implementation's process ended, for a crash whose
	// exit the adapter saw (nil otherwise).
	Crash *Crash
}

// Error prints the failure kind and message.
func (e *ImplError) Error() string { return string(e.Kind) + ": " + e.Msg }

// InProcess is an implementation living in the same process, for Go users
// and for tests: Do performs controllable actions; the implementation calls
// Emit for observable events (from any goroutine).
type InProcess struct {
	// ResetFunc brings the implementation back to its initial state.
	ResetFunc func() error
	// Do performs an action; return a *RefusedError to refuse it.
	Do func(action string, args []any) (any, error)

	events EventQueue
}

// Emit reports an observable event.
func (p *InProcess) Emit(action string, args ...any) {
	p.events.Push(&Event{Action: action, Args: args}) // past the bound, the run fails
}

// Reset implements Implementation.
func (p *InProcess) Reset(ctx context.Context) error {
	p.events.Clear()
	if p.ResetFunc != nil {
		return p.ResetFunc()
	}
	return nil
}

// Invoke implements Implementation.
func (p *InProcess) Invoke(ctx context.Context, action string, args []any) (any, error) {
	return p.Do(action, args)
}

// Next implements Implementation.
func (p *InProcess) Next(ctx context.Context, wait time.Duration) (*Event, error) {
	return p.events.Next(ctx, wait)
}

// Close implements Implementation.
func (p *InProcess) Close() error { return nil }

// EventQueue buffers observable events in order and lets one reader wait
// for the next. After fail, the reader gets the error once the buffer is
// drained.
type EventQueue struct {
	mu     sync.Mutex
	events []*Event
	bytes  int // the unread events' sizes
	err    error
	wake   chan struct{}
}

func (q *EventQueue) signal() {
	select {
	case q.wakeCh() <- struct{}{}:
	default:
	}
}

func (q *EventQueue) wakeCh() chan struct{} {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.wake == nil {
		q.wake = make(chan struct{}, 1)
	}
	return q.wake
}

// MaxQueuedEvents bounds the events an implementation may have sent that
// the tester has not read yet; MaxQueuedBytes their sizes.
const (
	MaxQueuedEvents = 100_000
	MaxQueuedBytes  = 64 << 20
)

// Push appends an event, stamping its arrival (Event.At) when unset, and
// wakes the reader. Past MaxQueuedEvents unread events, or MaxQueuedBytes
// of them, the queue fails with a protocol error (an implementation
// flooding events must not exhaust memory) and Push returns that error.
func (q *EventQueue) Push(ev *Event) error {
	n := ev.size()
	ev.Bytes = n // counted once: the same size comes off when it is read
	q.mu.Lock()
	if len(q.events) >= MaxQueuedEvents || q.bytes+n > MaxQueuedBytes {
		what := fmt.Sprintf("more than %d events", MaxQueuedEvents)
		if len(q.events) < MaxQueuedEvents {
			what = fmt.Sprintf("more than %d MiB of events", MaxQueuedBytes>>20)
		}
		q.events, q.bytes = nil, 0 // the verdict now, not after reading them all
		q.mu.Unlock()
		err := &ImplError{Kind: FailProtocol, Msg: "the implementation sent " + what + " that were not read yet"}
		q.Fail(err)
		return err
	}
	if ev.At.IsZero() {
		ev.At = time.Now() // under the lock: arrivals are in queue order
	}
	q.events = append(q.events, ev)
	q.bytes += n
	q.mu.Unlock()
	q.signal()
	return nil
}

// Clear drops the buffered events.
func (q *EventQueue) Clear() {
	q.mu.Lock()
	q.events, q.bytes = nil, 0
	q.mu.Unlock()
}

// Fail ends the queue with err: the reader gets it once the buffer is drained.
func (q *EventQueue) Fail(err error) {
	q.mu.Lock()
	if q.err == nil {
		q.err = err
	}
	q.mu.Unlock()
	q.signal()
}

// Next returns the next event, waiting up to wait; nil when none came.
func (q *EventQueue) Next(ctx context.Context, wait time.Duration) (*Event, error) {
	wake := q.wakeCh()
	deadline := time.Now().Add(wait)
	for {
		q.mu.Lock()
		if len(q.events) > 0 {
			ev := q.events[0]
			q.events[0] = nil
			q.events = q.events[1:]
			q.bytes -= ev.size()
			q.mu.Unlock()
			return ev, nil
		}
		err := q.err
		q.mu.Unlock()
		if err != nil {
			return nil, err
		}
		left := time.Until(deadline)
		if left <= 0 {
			return nil, nil
		}
		t := time.NewTimer(left)
		select {
		case <-wake:
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return nil, ctx.Err()
		}
		t.Stop()
	}
}
