package explore

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"unsafe"

	"github.com/modex/modex/engine/fpset"
	"github.com/modex/modex/engine/model"
)

// Flags of a state in the check's records.
const (
	flagAccepting = 1 << iota // its facts say accepting
	flagViolated              // it violates the invariant
	flagError                 // an error state: the record's key is the message
	flagInitial               // an initial state
)

// maxChunkKeys bounds the bytes of keys a chunk loads.
const maxChunkKeys = 256 << 20

// run searches level by level: the initial states, then every level's
// states from the queue, a chunk at a time, expanded by the workers
// (expandLevel) and merged here; at each level's end the states that wait
// for the fingerprint set's verdict are settled.
func (c *checker) run() error {
	e := c.e
	if err := c.initial(); err != nil {
		return err
	}
	if err := c.resolve(); err != nil {
		return err
	}
	c.publish()
	st := &c.res.Stats
	for level := c.next; level > 0 && c.err == nil; level = c.next {
		if e.ctx.Err() != nil {
			st.StoppedBy = e.stopReason()
			return nil
		}
		if e.cfg.MaxDepth > 0 && c.depth >= e.cfg.MaxDepth {
			st.StoppedBy = "max depth"
			return nil
		}
		c.next = 0
		for left := level; left > 0; {
			k, err := c.loadChunk(left)
			if err != nil {
				return err
			}
			results := e.expandLevel(c.ids[:k])
			for i := range k {
				if !c.merge(&c.srcs[i], &results[i]) {
					st.StoppedBy = e.stopReason()
					return nil
				}
			}
			left -= int64(k)
			c.publish()
		}
		if err := c.resolve(); err != nil {
			return err
		}
		if c.stopped != "" {
			st.StoppedBy = c.stopped
			return nil
		}
		c.depth++
	}
	return nil
}

// initial adds the initial states, a batch at a time evaluated by the
// workers together.
func (c *checker) initial() error {
	e := c.e
	inits, err := e.initialStates()
	if err != nil {
		return err
	}
	var b initEval
	for lo := 0; lo < inits.n && c.err == nil; lo += initBatch {
		j := e.startInits(inits, lo, &b)
		e.finish(j)
		for k := range j.n {
			info, fp := &j.b.infos[k], j.b.hashes[k].a
			if info.err != nil {
				if e.ctx.Err() != nil { // stopped, not the model's error
					return model.Stopped(context.Cause(e.ctx), info.err)
				}
				return info.err
			}
			c.res.Generated++
			if c.set.Contains(fp) {
				continue
			}
			c.add(fp, -1, flagInitial|factFlags(info), inits.key(lo+k))
		}
		inits.done(lo, lo+j.n)
		if e.ctx.Err() != nil {
			break
		}
	}
	if r, ok := e.workers[0].Worker.(model.InitReleaser); ok && e.cfg.ReleaseInits && inits.keys != nil {
		r.ReleaseInitKeys()
	}
	return nil
}

// factFlags are the flags of a state's facts.
func factFlags(info *targetInfo) byte {
	var f byte
	if info.accepting {
		f |= flagAccepting
	}
	if info.invariant != "" {
		f |= flagViolated
	}
	return f
}

// loadChunk takes up to levelChunk states of the level (left of it) from
// the queue into the chunk: their keys where expand reads them
// (Exploration.StateKey of ids 0, 1, …), their records in srcs.
func (c *checker) loadChunk(left int64) (int, error) {
	x := c.e.ex
	x.States = x.States[:0]
	c.srcs, c.ids = c.srcs[:0], c.ids[:0]
	// New chunks of keys every time: the keys are strings the model may
	// keep parts of (decoded values), which must never change. The first
	// is as large as the last load's keys.
	x.keys = append(x.keys[:0], make([]byte, 0, min(max(c.keyBytes, 4<<10), keyChunk)))
	n := 0
	for int64(len(c.srcs)) < left && len(c.srcs) < levelChunk && n < maxChunkKeys {
		rec, err := c.queue.Pop()
		if err != nil {
			return 0, fmt.Errorf("the check's queue: %w", err)
		}
		idx, k := binary.Uvarint(rec)
		if k <= 0 || len(rec) < k+1 || int64(idx) >= c.trace.Len() {
			return 0, errors.New("the check's queue: a damaged record")
		}
		key := rec[k+1:]
		c.ids = append(c.ids, int32(len(c.srcs)))
		c.srcs = append(c.srcs, checkSrc{idx: int64(idx), flags: rec[k]})
		var s MState
		s.setKeyLoc(x.storeKey(unsafeString(key))) // copied: the record is the queue's until the next Pop
		x.States = append(x.States, s)
		n += len(key)
	}
	c.keyBytes = n
	return len(c.srcs), nil
}

// merge counts a state's expansion as Explore's merge and settle would:
// its tries, its transitions (one per invocation, target and output), the
// targets new to the set, its passive twin, a deadlock. It returns false
// when the expansion was cut short (the check is stopped).
func (c *checker) merge(src *checkSrc, r *srcResult) bool {
	e := c.e
	st := &c.res.Stats
	st.Tried += r.tried
	if !r.done {
		return false
	}
	obs := false
	group := c.group[:0]
	for j := range r.trans {
		pt := &r.trans[j]
		if pt.first {
			group = group[:0]
		}
		to, ok := c.target(src, pt)
		if !ok {
			continue
		}
		gt := groupTrans{to: to, out: e.internOut(pt)}
		e.internArgs(pt)
		if slices.Contains(group, gt) {
			continue
		}
		if e.cfg.MaxTransitions > 0 && st.Transitions >= e.cfg.MaxTransitions {
			c.stop("max transitions")
			continue
		}
		group = append(group, gt)
		st.Transitions++
		if e.twins {
			if k := e.cfg.Actions[pt.action].Kind; k == model.Observable || k == model.Internal {
				obs = true
			}
		}
	}
	c.group = group
	if e.twins && (obs || e.cfg.KeepEmptyPassive) {
		st.Passive++
	}
	violated := src.flags&flagViolated != 0
	if r.err != nil && !violated {
		st.ErrorStates++ // the state could not be decoded: an error state
		c.violation("error", src.idx, r.err.Error())
	}
	if !r.enabled && r.err == nil && !e.cfg.NoDeadlockCheck && src.flags&flagAccepting == 0 && !violated {
		st.Deadlocks++
		c.violation("deadlock", src.idx, "")
	}
	return c.err == nil
}

// target settles the target of a pending transition from src: its
// fingerprint, and false when no transition goes there (a filter removed
// the target, or a bound stopped the search).
func (c *checker) target(src *checkSrc, pt *pendTrans) (uint64, bool) {
	if pt.x != nil && pt.x.err != nil {
		return c.errorState(src, pt.x.err.Error()), true
	}
	c.res.Generated++
	if pt.known {
		return pt.hk.a, true
	}
	info := pt.info
	if info.err != nil {
		return c.errorState(src, info.err.Error()), true
	}
	if info.filtered {
		c.res.Stats.Filtered++
		return 0, false
	}
	fp := pt.hk.a
	if c.set.Contains(fp) {
		return fp, true
	}
	if max := c.e.cfg.MaxStates; max > 0 && c.res.Stats.States+c.set.PendingLen() >= max {
		c.stop("max states")
		return 0, false
	}
	c.add(fp, src.idx, factFlags(info), pt.key)
	return fp, true
}

// errorState is the fingerprint of the error state of a model error (a
// state of its own, one per message, as Explore's), added when new.
func (c *checker) errorState(src *checkSrc, msg string) uint64 {
	fp := fpset.Fingerprint("\xff!" + msg)
	if !c.set.Contains(fp) {
		c.add(fp, src.idx, flagError, msg)
	}
	return fp
}

// stop keeps the first reason why the search stops at the level's end.
func (c *checker) stop(why string) {
	if c.stopped == "" {
		c.stopped = why
	}
}

// fail keeps the first failure of the check's files.
func (c *checker) fail(err error) {
	if err != nil && c.err == nil {
		c.err = fmt.Errorf("the check's files in %s: %w", c.dir, err)
	}
}

// add adds a state not in the table (fp, reached from the trace record
// parent, -1 for none; key is the message of an error state): new at once
// when the set has no files, else pending until the set's verdict.
func (c *checker) add(fp uint64, parent int64, flags byte, key string) {
	r, err := c.set.Add(fp)
	if err != nil {
		c.fail(err)
		return
	}
	switch r {
	case fpset.Added:
		c.confirm(fp, parent, flags, key)
	case fpset.Pending:
		b := binary.LittleEndian.AppendUint64(c.rec[:0], fp)
		b = binary.AppendUvarint(b, uint64(parent+1))
		b = append(append(b, flags), key...)
		c.rec = b
		c.fail(c.pend.Push(b))
	}
	if c.set.Full() {
		c.fail(c.resolve())
	}
}

// resolve settles the pending states: the set's verdict says which are
// new.
func (c *checker) resolve() error {
	if c.err != nil {
		return c.err
	}
	return c.set.Resolve(func(v *fpset.Verdict) error {
		for c.pend.Len() > 0 {
			rec, err := c.pend.Pop()
			if err != nil {
				return err
			}
			parent, k := binary.Uvarint(rec[min(8, len(rec)):])
			if len(rec) < 8 || k <= 0 || len(rec) < 8+k+1 {
				return errors.New("the check's pending states: a damaged record")
			}
			fp := binary.LittleEndian.Uint64(rec)
			if v.New(fp) {
				c.confirm(fp, int64(parent)-1, rec[8+k], string(rec[8+k+1:]))
			}
		}
		return c.err
	})
}

// confirm counts a new state, records it in the trace and queues it for
// the next level (not an error state, nor one that violates the
// invariant when the search stops at errors).
func (c *checker) confirm(fp uint64, parent int64, flags byte, key string) {
	idx, err := c.trace.Append(parent, fp)
	if err != nil {
		c.fail(err)
		return
	}
	st := &c.res.Stats
	st.States++
	depth := c.depth + 1
	if flags&flagInitial != 0 {
		st.InitialStates++
		depth = 0
	}
	c.res.Depth = max(c.res.Depth, depth)
	switch {
	case flags&flagError != 0:
		st.ErrorStates++
		c.violation("error", idx, key)
		return
	case flags&flagViolated != 0:
		st.ErrorStates++
		c.violation("invariant", idx, "")
		if c.e.cfg.StopOnError {
			return
		}
	}
	b := binary.AppendUvarint(c.rec[:0], uint64(idx))
	b = append(append(b, flags), key...)
	c.rec = b
	c.fail(c.queue.Push(b))
	c.next++
}

// violation keeps the first violation found.
func (c *checker) violation(kind string, idx int64, msg string) {
	if c.first == nil {
		c.first = &firstViolation{kind: kind, idx: idx, message: msg}
	}
}

// unsafeString is b as a string, for as long as b is not written.
func unsafeString(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}
