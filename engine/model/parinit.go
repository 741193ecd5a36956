package model

import (
	"slices"
	"sync"
	"sync/atomic"

	"go.starlark.net/starlark"
	"go.starlark.net/syntax"
)

// A loop of init() run in parallel. A TLA+ port whose initial states are
// every state of an inductive invariant (MCBakery's ISpec) lists them in
// one loop of init() that calls initial() per state: half a million
// iterations, each building and encoding a dict, on one core while the
// others wait. Such a loop's iterations are independent when none reads
// what an earlier one left, so they run in parallel, a contiguous chunk of
// the iterations per task, and the states each chunk gives are taken in
// the chunks' order: the keys, their order and the variables after the
// loop are the serial loop's.
//
// Independence is not assumed but checked as the loop runs, as the thaw
// plans are (thaw.go):
//   - the values the locals held before the loop are frozen, so an
//     iteration that would change one (append to a list made before the
//     loop) fails;
//   - every local the body binds is unbound at the start of each iteration,
//     so one that reads a value an earlier iteration left fails;
//   - a body with return or with break of this loop is not run in parallel.
//
// A failure anywhere discards every chunk's work, and the loop runs
// serially from where the parallel run began: the frame and the sink are
// the ones it started with. (Only the freezing stays: a serial run that
// then changes a frozen value fails too, and init() runs in the
// interpreter from the start, as any compiled failure does.)

// parMinIterations is the fewest iterations per task worth a goroutine.
const parMinIterations = 64

// parRefill is the compiled budget a task takes from the loop's at a time.
const parRefill = 1 << 20

// parRuns counts the loops run in parallel to the end (for tests).
var parRuns atomic.Int64

// parLoop is a for loop of init() that may run in parallel.
type parLoop struct {
	m        *StarModel
	assigned []int // the locals the body binds (the loop's variables too)
}

// parallelLoop returns x as a loop to run in parallel, or nil: the
// outermost loops of init() whose body gives initial states, has no return
// and no break of its own, and appends to no list made before it.
func (c *gcomp) parallelLoop(x *syntax.ForStmt) *parLoop {
	if !c.init || c.loops > 0 {
		return nil
	}
	bound := map[int]bool{}
	c.bind(x.Vars, bound)
	gives, ok := false, true
	depth := 0 // nested loops: a break there ends that loop only
	var walk func(n syntax.Node) bool
	walk = func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.ReturnStmt, *syntax.DefStmt, *syntax.LambdaExpr:
			ok = false
		case *syntax.BranchStmt:
			if n.Token == syntax.BREAK && depth == 0 {
				ok = false
			}
		case *syntax.ForStmt:
			c.bind(n.Vars, bound)
			syntax.Walk(n.X, walk)
			depth++
			for _, st := range n.Body {
				syntax.Walk(st, walk)
			}
			depth--
			return false
		case *syntax.AssignStmt:
			c.bind(n.LHS, bound)
		case *syntax.CallExpr:
			if id, isId := n.Fn.(*syntax.Ident); isId && id.Name == "initial" {
				gives = true
			}
		}
		return ok
	}
	for _, st := range x.Body {
		syntax.Walk(st, walk)
	}
	if !ok || !gives || bound[-1] {
		return nil
	}
	// An append to a list bound before the loop would fail on the frozen
	// list: left serial rather than tried and discarded.
	appends := func(n syntax.Node) bool {
		if call, isCall := n.(*syntax.CallExpr); isCall {
			if dot, isDot := call.Fn.(*syntax.DotExpr); isDot {
				if id, isId := dot.X.(*syntax.Ident); isId {
					if i, local := c.local(id); local && !bound[i] && dot.Name.Name == "append" {
						ok = false
					}
				}
			}
		}
		return ok
	}
	for _, st := range x.Body {
		syntax.Walk(st, appends)
	}
	if !ok {
		return nil
	}
	p := &parLoop{m: c.cc.m}
	for i := range bound {
		p.assigned = append(p.assigned, i)
	}
	return p
}

// bind adds the locals a target binds to bound; -1 when it binds anything
// else (a closure's cell, an index).
func (c *gcomp) bind(e syntax.Expr, bound map[int]bool) {
	switch x := e.(type) {
	case *syntax.Ident:
		if i, ok := c.local(x); ok {
			bound[i] = true
		} else {
			bound[-1] = true
		}
	case *syntax.ParenExpr:
		c.bind(x.X, bound)
	case *syntax.TupleExpr:
		for _, el := range x.List {
			c.bind(el, bound)
		}
	case *syntax.ListExpr:
		for _, el := range x.List {
			c.bind(el, bound)
		}
	default:
		bound[-1] = true
	}
}

// parSequence returns xs to run a loop over by index: a list, a tuple or a
// range (a string is indexable but not iterable).
func parSequence(xs starlark.Value) (starlark.Indexable, bool) {
	switch x := xs.(type) {
	case *starlark.List:
		return x, true
	case starlark.Tuple:
		return x, true
	}
	if x, ok := xs.(starlark.Indexable); ok && xs.Type() == "range" {
		return x, true
	}
	return nil, false
}

// iterFn runs a loop's body for one value: done when the loop ends there.
type iterFn func(f *cframe, v starlark.Value) (fl flow, r starlark.Value, done bool)

// parChunk is a contiguous run of the iterations, run by one task.
type parChunk struct {
	lo, hi int
	sink   *initSink
	last   []starlark.Value // the bound locals after the chunk's last iteration
}

// run runs the loop over xs on f: the first iterations serially until the
// model knows its variables, the rest in parallel. It returns where a
// serial loop is to go on from (done false), or how the loop ended.
func (p *parLoop) run(f *cframe, xs starlark.Indexable, iteration iterFn) (next int, fl flow, r starlark.Value, done bool) {
	n := xs.Len()
	tasks := f.ctx.par
	sink, _ := f.ctx.thread.Local(localInit).(*initSink)
	if sink == nil || n < parMinIterations*tasks {
		return 0, flowNext, nil, false
	}
	// Frozen from the first iteration: read by index, as the iterator's
	// lock would, a change to it fails.
	xs.Freeze()
	i := 0
	// The first state given names the variables: before the tasks start.
	for ; i < n && len(p.m.info.Vars) == 0; i++ {
		if fl, r, done := iteration(f, xs.Index(i)); done {
			return i, fl, r, true
		}
	}
	if n-i < parMinIterations*tasks {
		return i, flowNext, nil, false
	}
	isBound := make([]bool, len(f.locals))
	for _, a := range p.assigned {
		isBound[a] = true
	}
	for li, v := range f.locals {
		if v != nil && !isBound[li] {
			v.Freeze()
		}
	}
	chunks := p.split(i, n, tasks)
	budget := atomic.Int64{}
	budget.Store(int64(f.ctx.budget))
	if !p.runChunks(f, xs, chunks, tasks, &budget, iteration) {
		for _, ch := range chunks {
			ch.sink.uncount() // run again serially
		}
		return i, flowNext, nil, false
	}
	// Merged after the loop, in the chunks' order (merging the chunks
	// done while others run saved nothing measurable: docs/performance.md).
	if !sink.merge(chunks, tasks) {
		return n, flowUnknown, nil, true
	}
	last := chunks[len(chunks)-1].last
	for j, a := range p.assigned {
		f.locals[a] = last[j]
	}
	f.ctx.budget = int(budget.Load())
	if f.ctx.budget <= 0 {
		return n, flowUnknown, nil, true
	}
	parRuns.Add(1)
	return n, flowNext, nil, true
}

// merge takes the chunks' keys, in order, each unless given before; false
// when there are too many (the error is the sink's).
func (sink *initSink) merge(chunks []*parChunk, tasks int) bool {
	total := len(sink.keys)
	for _, ch := range chunks {
		total += len(ch.sink.keys)
	}
	if sink.seen == nil {
		sink.seen = newKeySet(total)
	}
	if !sink.all && total <= MaxInitialStates {
		// In parallel: no key can be one too many.
		from := len(sink.keys)
		sink.keys = slices.Grow(sink.keys, total-from)
		for _, ch := range chunks {
			sink.calls += ch.sink.calls
			sink.adopt(ch.sink)
			sink.keys = append(sink.keys, ch.sink.keys...)
			ch.sink = nil
		}
		sink.keys = sink.seen.addAll(sink.keys, from, tasks, sink.forget)
		return true
	}
	for j, ch := range chunks {
		sink.calls += ch.sink.calls
		sink.adopt(ch.sink)
		for _, k := range ch.sink.keys {
			kept, err := sink.keep(k)
			if !kept {
				sink.forget(k) // a repeat, counted by its chunk
			}
			if err != nil {
				for _, rest := range chunks[j+1:] {
					rest.sink.uncount()
				}
				return false
			}
		}
		ch.sink = nil
	}
	return true
}

// split cuts iterations lo..hi into chunks, several per task (their costs
// differ).
func (p *parLoop) split(lo, hi, tasks int) []*parChunk {
	k := min(64*tasks, (hi-lo)/parMinIterations)
	chunks := make([]*parChunk, k)
	for j := range chunks {
		chunks[j] = &parChunk{lo: lo + (hi-lo)*j/k, hi: lo + (hi-lo)*(j+1)/k, sink: &initSink{m: p.m, all: true}}
	}
	return chunks
}

// runChunks runs the chunks on tasks goroutines, each with its own thread
// and frames; false if any iteration failed or ended the loop.
func (p *parLoop) runChunks(f *cframe, xs starlark.Indexable, chunks []*parChunk, tasks int, budget *atomic.Int64, iteration iterFn) bool {
	var failed atomic.Bool
	var next atomic.Int64
	var wg sync.WaitGroup
	for range tasks {
		wg.Add(1)
		go func() {
			defer wg.Done()
			t := newThread("init")
			t.SetLocal(localRec, &rec{m: p.m})
			ctx := &cctx{thread: t, halt: f.ctx.halt}
			for !failed.Load() {
				j := int(next.Add(1)) - 1
				if j >= len(chunks) {
					return
				}
				if !p.runChunk(f, ctx, xs, chunks[j], budget, &failed, iteration) {
					failed.Store(true)
				}
			}
		}()
	}
	wg.Wait()
	return !failed.Load()
}

// runChunk runs one chunk's iterations on a copy of f's locals.
func (p *parLoop) runChunk(f *cframe, ctx *cctx, xs starlark.Indexable, ch *parChunk, budget *atomic.Int64, failed *atomic.Bool, iteration iterFn) bool {
	ctx.thread.SetLocal(localInit, ch.sink)
	cf := ctx.start(nil, len(f.locals), 0)
	copy(cf.locals, f.locals)
	defer func() { budget.Add(int64(max(ctx.budget, 0))) }()
	for i := ch.lo; i < ch.hi; i++ {
		if ctx.budget < parRefill/2 {
			if budget.Add(-parRefill) < 0 {
				return false
			}
			ctx.budget += parRefill
		}
		for _, a := range p.assigned {
			cf.locals[a] = nil
		}
		if _, _, done := iteration(cf, xs.Index(i)); done || failed.Load() {
			return false
		}
	}
	ch.last = make([]starlark.Value, len(p.assigned))
	for j, a := range p.assigned {
		ch.last[j] = cf.locals[a]
	}
	return true
}
