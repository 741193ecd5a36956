package explore

import (
	"strings"
	"testing"
	"unsafe"
)

// TestStateKeys stores keys as the exploration does, one state after the
// other, and reads each back: a key's end is where the next state's key
// starts in its chunk, or the chunk's end.
func TestStateKeys(t *testing.T) {
	big := strings.Repeat("b", keyChunk+10) // a chunk of its own
	fill := strings.Repeat("f", 4<<10)      // fills the first chunk exactly
	tests := []struct {
		name string
		keys []string
	}{
		{"one", []string{"a"}},
		{"empty first and last", []string{"", "x", "", "yz", ""}},
		{"a chunk filled exactly, then empty keys", []string{fill, "", "", "next"}},
		{"a key larger than a chunk", []string{"s", big, "", "t", big, big}},
		{"many small keys over several chunks", manyKeys(300000)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			x := &Exploration{}
			var y *Exploration // a snapshot half-way
			for i, k := range tc.keys {
				var s MState
				s.setKeyLoc(x.storeKey(k))
				x.States = append(x.States, s)
				if got := x.StateKey(i); got != k { // the last state: up to its chunk's end
					t.Fatalf("key %d just stored: %d bytes, want %d", i, len(got), len(k))
				}
				if i == len(tc.keys)/2 {
					// What explorer.snapshot copies: the states so far
					// and the chunks' headers.
					y = &Exploration{States: append([]MState(nil), x.States...), keys: append([][]byte(nil), x.keys...)}
				}
			}
			for i, k := range tc.keys {
				if got := x.StateKey(i); got != k {
					t.Fatalf("key %d: %.20q (%d bytes), want %.20q (%d bytes)", i, got, len(got), k, len(k))
				}
				if c, off := x.States[i].keyLoc(); off >= 1<<keyOffBits || c >= len(x.keys) {
					t.Fatalf("key %d at chunk %d offset %d", i, c, off)
				}
			}
			for i := range y.States {
				if got := y.StateKey(i); got != tc.keys[i] {
					t.Fatalf("snapshot key %d: %d bytes, want %d", i, len(got), len(tc.keys[i]))
				}
			}
		})
	}
}

// manyKeys returns n keys of 0 to 40 bytes.
func manyKeys(n int) []string {
	keys := make([]string, n)
	for i := range keys {
		keys[i] = strings.Repeat(string(rune('a'+i%26)), i%41)
	}
	return keys
}

// TestMStateSize keeps a state at 16 bytes: the largest table of an
// exploration that keeps no transitions.
func TestMStateSize(t *testing.T) {
	if n := unsafe.Sizeof(MState{}); n != 16 {
		t.Fatalf("MState is %d bytes, want 16", n)
	}
}
