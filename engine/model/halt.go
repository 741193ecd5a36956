package model

import (
	"sync/atomic"

	"go.starlark.net/starlark"
)

// halt is what stops a worker's model code, compiled and interpreted
// alike: the reason of the first stop (Ctrl-C, max_seconds, the memory
// budget, a cancelled run), kept for good. The interpreter stops on its
// thread's cancellation, which Starlark checks at every instruction;
// compiled code has no interpreter loop, so it reads the halt at every
// step it counts (cctx.tick: loop iterations, calls, comprehension
// elements) and before every allocation it sizes (alloc.go). A stopped
// evaluation of compiled code says unknown and the interpreter runs it
// instead; its thread, cancelled with the same reason before the halt was
// set, stops at its first instruction with the message the interpreted
// code would have given.
type halt struct {
	reason atomic.Pointer[string]
}

// stop stops the code with a reason (the first reason stays): thread, the
// one the code runs on now, is cancelled first, so that code that sees the
// halt finds its thread cancelled.
func (h *halt) stop(thread *starlark.Thread, reason string) {
	if thread != nil {
		thread.Cancel(reason)
	}
	h.reason.CompareAndSwap(nil, &reason)
}

// stopped reports whether the code was stopped.
func (h *halt) stopped() bool { return h.reason.Load() != nil }

// cancel cancels thread with the halt's reason if it was stopped: a
// thread the code was not running on when it was stopped (init()'s, made
// for one compiled run, or a worker's before its next call).
func (h *halt) cancel(thread *starlark.Thread) {
	if r := h.reason.Load(); r != nil {
		thread.Cancel(*r)
	}
}
