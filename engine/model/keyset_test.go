package model

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// keySet agrees with a map on which keys are new, through its growth,
// with keys that share long prefixes, the empty key and repeats.
func TestKeySet(t *testing.T) {
	for _, presize := range []int{0, 10, 5000} {
		r := rand.New(rand.NewPCG(1, uint64(presize)))
		s := newKeySet(presize)
		seen := map[string]bool{}
		var keys []string
		for i := 0; i < 20000; i++ {
			key := fmt.Sprintf("\x00state-%d", r.IntN(6000))
			if i%1000 == 0 {
				key = ""
			}
			keys = append(keys, key)
			added := s.add(keys, len(keys)-1)
			if added == seen[key] {
				t.Fatalf("presize %d, key %d %q: added %v, seen before %v", presize, i, key, added, seen[key])
			}
			if !added {
				keys = keys[:len(keys)-1]
			}
			seen[key] = true
		}
		if s.n != len(seen) || len(keys) != len(seen) {
			t.Errorf("presize %d: %d in the set, %d kept, %d distinct", presize, s.n, len(keys), len(seen))
		}
		if 4*s.n > 3*len(s.slots) {
			t.Errorf("presize %d: %d keys in %d slots", presize, s.n, len(s.slots))
		}
	}
}

// addAll keeps what adding the keys one by one keeps, in the same order,
// whatever the goroutines: with no repeats, with repeats among the new
// keys and of keys added before, from a set too small for them; the set
// then knows every key kept, at its index, and drop gets every repeat.
func TestKeySetAddAll(t *testing.T) {
	for _, c := range []struct {
		name          string
		before, added int // keys added one by one first, then by addAll
		distinct      int // keys drawn from this many (0: all distinct)
	}{
		{"all distinct", 100, 50000, 0},
		{"repeats", 0, 50000, 3000},
		{"repeats of keys before", 2000, 30000, 2500},
		{"few", 0, 10, 4},
	} {
		for _, tasks := range []int{1, 2, 8} {
			t.Run(fmt.Sprintf("%s/tasks=%d", c.name, tasks), func(t *testing.T) {
				r := rand.New(rand.NewPCG(7, uint64(tasks)))
				draw := func(i int) string {
					if c.distinct == 0 {
						return fmt.Sprintf("k%d", i)
					}
					return fmt.Sprintf("k%d", r.IntN(c.distinct))
				}
				// What one by one keeps.
				want, s := []string(nil), newKeySet(0)
				var got []string
				gs := newKeySet(0)
				for i := range c.before {
					k := draw(i)
					want = append(want, k)
					if !s.add(want, len(want)-1) {
						want = want[:len(want)-1]
					}
					got = append(got, k)
					if !gs.add(got, len(got)-1) {
						got = got[:len(got)-1]
					}
				}
				from := len(got)
				var dropped []string
				for i := range c.added {
					k := draw(c.before + i)
					want = append(want, k)
					if !s.add(want, len(want)-1) {
						dropped = append(dropped, k)
						want = want[:len(want)-1]
					}
					got = append(got, k)
				}
				var gotDropped []string
				got = gs.addAll(got, from, tasks, func(k string) { gotDropped = append(gotDropped, k) })
				if !slices.Equal(got, want) {
					t.Fatalf("kept %d keys, one by one keeps %d (first difference at %d)", len(got), len(want), firstDiff(got, want))
				}
				slices.Sort(dropped)
				slices.Sort(gotDropped)
				if !slices.Equal(gotDropped, dropped) {
					t.Fatalf("dropped %d keys, want %d", len(gotDropped), len(dropped))
				}
				if gs.n != len(want) || 4*gs.n > 3*len(gs.slots) {
					t.Fatalf("%d keys in the set (%d slots), want %d", gs.n, len(gs.slots), len(want))
				}
				for i, k := range got {
					pos, _, ok := gs.find(got, k)
					if !ok || gs.slots[pos].index() != i {
						t.Fatalf("key %d %q: in the set %v, at index %d", i, k, ok, gs.slots[pos].index())
					}
				}
				// The set goes on as one made one by one.
				got = append(got, "new", got[len(got)/2])
				if !gs.add(got, len(got)-2) || gs.add(got, len(got)-1) {
					t.Fatal("the set does not go on as before")
				}
			})
		}
	}
}

func firstDiff(a, b []string) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}
