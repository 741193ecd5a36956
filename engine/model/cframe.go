package model

import "go.starlark.net/starlark"

// cframe is a compiled function's activation.
type cframe struct {
	s      *sstate
	locals []starlark.Value
	ctx    *cctx
	r      *rec // an action body's run (nil: a function of the state)
	// why: the reason of the guard's require() that failed (flowDisabled)
	why string
}

// cctx is what one evaluation of compiled code shares: its thread (for the
// builtins called), its budget of steps, and the locals and frames of the
// functions it calls, kept from one evaluation to the next (a worker has
// one), so that an evaluation allocates no frame.
type cctx struct {
	thread *starlark.Thread
	budget int
	// limit, when positive, caps every evaluation's budget: the step
	// budget the user set (a compiled step is at least one of the
	// interpreter's)
	limit int
	stack []starlark.Value
	// tmp is scratch for values an operator uses and lets go, pushed and
	// popped as the evaluation nests (memberTuple's tuples)
	tmp []starlark.Value
	// tbox: a tuple boxed once, whose header memberTuple points at its
	// scratch tuple (see boxedTuple)
	tbox   starlark.Value
	frames []*cframe
	depth  int
	memo   []memoSlot // see memo.go
	// par: the goroutines a loop of init() may run on (parinit.go)
	par int
	// halt is the worker's (or the load's) stop: never nil (see halt.go)
	halt *halt
}

// tick counts one step of compiled code — a loop's iteration, a call, a
// comprehension's element — and reports whether it may go on: false past
// the evaluation's budget of steps or once the code is stopped (Ctrl-C,
// max_seconds, the memory budget). The caller then says unknown; the
// interpreter, which runs it instead, stops at once on its cancelled
// thread, with the message the cancellation gave.
func (c *cctx) tick() bool {
	c.budget--
	return c.budget > 0 && !c.halt.stopped()
}

// start begins an evaluation with the budget and returns its first frame,
// with n cleared locals.
func (c *cctx) start(s *sstate, n, budget int) *cframe {
	if c.limit > 0 {
		budget = min(budget, c.limit)
	}
	c.budget, c.stack, c.depth = budget, c.stack[:0], 0
	return c.push(s, n)
}

// push returns the frame of a function called now, with n cleared locals
// (the caller's locals stay where they are if the stack grows).
func (c *cctx) push(s *sstate, n int) *cframe {
	base := len(c.stack)
	if cap(c.stack)-base < n {
		grown := make([]starlark.Value, base, max(2*cap(c.stack), base+n, 64))
		copy(grown, c.stack)
		c.stack = grown
	}
	c.stack = c.stack[:base+n]
	locals := c.stack[base : base+n : base+n]
	for i := range locals { // a few: no bulk write barrier, as clear takes
		locals[i] = nil
	}
	if c.depth == len(c.frames) {
		c.frames = append(c.frames, &cframe{ctx: c})
	}
	f := c.frames[c.depth]
	c.depth++
	f.s, f.locals, f.r, f.why = s, locals, nil, "" // field by field, for the same reason
	return f
}

// pop ends the frame push returned last.
func (c *cctx) pop(f *cframe) {
	c.depth--
	c.stack = c.stack[:len(c.stack)-len(f.locals)]
}
