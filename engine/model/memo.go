package model

import (
	"go.starlark.net/starlark"
	"go.starlark.net/syntax"
)

// Reads of a source state memoised across the tries of its actions. The
// guards of one state's tries read the same parts of it again and again
// (LamportMutex's three Receive actions each read s.network[q][p] twice,
// for each of the nine (p, q)); a compiled s.VAR[k1]...[kn] (n ≤ 3) in a
// function of the state, whose keys are small non-negative ints, keeps
// its value per source state in a worker's memo: a slot per path and
// keys, valid while the slot's generation is the state's. A source state
// gets a new generation each time a worker decodes one (DecodeScratch);
// other states (targets, decoded ones) have generation 0: no memo. The
// state is frozen and the read has no effect, so the memoised value is
// the one the read would give again.

const (
	memoKeys    = 16      // a key memoised is an int in [0, memoKeys)
	maxMemoSize = 1 << 16 // slots of all paths of a model
)

// memoPath names the slots of the reads of variable v through n keys.
type memoPath struct{ v, n int }

type memoSlot struct {
	gen uint32
	v   starlark.Value
}

// statePath recognises s.VAR[k1]...[kn] and returns VAR's index and the
// key expressions, outermost first; -1 when x is not one.
func (c *gcomp) statePath(x *syntax.IndexExpr) (int, []syntax.Expr) {
	var keys []syntax.Expr
	var e syntax.Expr = x
	for {
		switch y := e.(type) {
		case *syntax.IndexExpr:
			keys = append(keys, y.Y)
			e = y.X
			continue
		case *syntax.ParenExpr:
			e = y.X
			continue
		case *syntax.DotExpr:
			if !c.isState(y.X) {
				return -1, nil
			}
			i, ok := c.cc.m.varIndex[y.Name.Name]
			if !ok {
				return -1, nil
			}
			for l, r := 0, len(keys)-1; l < r; l, r = l+1, r-1 {
				keys[l], keys[r] = keys[r], keys[l]
			}
			return i, keys
		}
		return -1, nil
	}
}

// memoIndex compiles x, a path s.VAR[k1]...[kn], with its value memoised
// per source state; nil when it is not one or the memo is full.
func (c *gcomp) memoIndex(x *syntax.IndexExpr) cexpr {
	if c.body {
		return nil // an action's body changes its state
	}
	v, keyExprs := c.statePath(x)
	if v < 0 || len(keyExprs) == 0 || len(keyExprs) > 3 {
		return nil
	}
	keys, ok := c.exprs(keyExprs)
	if !ok {
		return nil
	}
	// Every site that reads the same variable through as many keys shares
	// the slots: the value is the same for the same keys.
	size := 1
	for range keyExprs {
		size *= memoKeys
	}
	pk := memoPath{v, len(keyExprs)}
	off, known := c.cc.memoOff[pk]
	if !known {
		if c.cc.memoSize+size > maxMemoSize {
			return nil
		}
		off = c.cc.memoSize
		c.cc.memoSize += size
		if c.cc.memoOff == nil {
			c.cc.memoOff = map[memoPath]int{}
		}
		c.cc.memoOff[pk] = off
	}
	need := off + size
	return func(f *cframe) (starlark.Value, bool) {
		var kv [3]starlark.Value
		slot := 0
		for j, k := range keys {
			y, ok := k(f)
			if !ok {
				return nil, false
			}
			kv[j] = y
			if n, ok := smallInt(y); ok && n >= 0 && n < memoKeys && slot >= 0 {
				slot = slot*memoKeys + n
			} else {
				slot = -1
			}
		}
		gen := f.s.gen
		var m *memoSlot
		if gen != 0 && slot >= 0 {
			memo := f.ctx.memoFor(need)
			if m = &memo[off+slot]; m.gen == gen {
				return m.v, true
			}
		}
		r, err := f.s.val(v)
		if err != nil || r == nil {
			return nil, false
		}
		for _, y := range kv[:len(keys)] {
			var found bool
			if r, found = indexValue(r, y); !found {
				return nil, false
			}
		}
		if m != nil {
			m.gen, m.v = gen, r
		}
		return r, true
	}
}

// memoFor returns the worker's memo with at least n slots.
func (c *cctx) memoFor(n int) []memoSlot {
	if len(c.memo) < n {
		grown := make([]memoSlot, n)
		copy(grown, c.memo)
		c.memo = grown
	}
	return c.memo
}
