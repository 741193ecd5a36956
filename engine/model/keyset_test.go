package model

import (
	"fmt"
	"math/rand/v2"
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
