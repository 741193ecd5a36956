package explore

import (
	"math/rand/v2"
	"testing"
)

// The index agrees with a Go map through growth, overwrites, and keys that
// collide on their low bits (the probe sequence).
func TestHindexMatchesMap(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, tc := range []struct {
		name string
		key  func(i int) hkey
	}{
		{"uniform", func(int) hkey { return hkey{r.Uint64(), r.Uint64()} }},
		{"same low bits", func(i int) hkey { return hkey{uint64(i) << 40, uint64(i)} }},
		{"few distinct", func(i int) hkey { return hkey{uint64(i % 50), 7} }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var h hindex
			want := map[hkey]int32{}
			var keys []hkey
			for i := range 5000 {
				k := tc.key(i)
				keys = append(keys, k)
				id := int32(i) - 2 // the sentinels (-1, -2) are ids too
				if i%3 == 0 {
					h.setIfAbsent(k, id)
					if _, ok := want[k]; !ok {
						want[k] = id
					}
				} else {
					h.set(k, id)
					want[k] = id
				}
			}
			if h.len() != len(want) {
				t.Fatalf("%d keys, want %d", h.len(), len(want))
			}
			for _, k := range keys {
				if got, ok := h.get(k); !ok || got != want[k] {
					t.Fatalf("key %v: %d %v, want %d", k, got, ok, want[k])
				}
			}
			if _, ok := h.get(hkey{12345, 67890}); ok && want[hkey{12345, 67890}] == 0 {
				t.Error("an absent key was found")
			}
		})
	}
	var empty hindex
	if _, ok := empty.get(hkey{1, 2}); ok {
		t.Error("found in an empty index")
	}
}
