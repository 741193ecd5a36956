package model

import "testing"

// bigTablesModel's set and dict grow past the inline bucket (tens of
// entries: tables of 2 to 8 buckets) and shrink again.
const bigTablesModel = `
def init():
    return {"msgs": set(), "d": {}, "n": 0}

def Send(s, k):
    require(k == 0 and s.n < 60)
    s.msgs.add(("m", s.n % 23))
    s.d[s.n % 19] = s.n
    s.n += 1

def Drop(s, k):
    require(len(s.msgs) > 9)
    m = sorted(s.msgs)[k]
    s.msgs.remove(m)
    s.d.pop(k, None)

def Read(s, k):
    return len([m for m in s.msgs if m[1] == k]) + len(s.d)

actions = [Send, Drop, Read]
`

// Steps whose copies of sets and dicts of tens of entries are recycled by
// the size of their tables give what steps with new copies give.
func TestRecyclingBigTablesMatchesFreshCopies(t *testing.T) {
	a, states, steps := walkRecycled(t, "big.star", bigTablesModel)
	slab := &a.slab
	big := 0
	for c := 1; c < recycledClasses; c++ {
		big += len(slab.sets.free[c]) + len(slab.dicts.free[c])
	}
	if big == 0 {
		t.Fatal("no set or dict with a table of two buckets or more was recycled")
	}
	t.Logf("%d states, %d steps, %d reused, %d with larger tables free at the end", states, steps, slab.reused, big)
}
