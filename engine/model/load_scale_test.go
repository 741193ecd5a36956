package model

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
)

// manyActions is a model of n actions.
func manyActions(n int) []byte {
	var b strings.Builder
	b.WriteString("def init():\n    return {\"x\": 0}\n")
	names := make([]string, n)
	for i := range n {
		names[i] = fmt.Sprintf("A%d", i)
		fmt.Fprintf(&b, "def A%d(s):\n    require(s.x < 2, \"\")\n    s.x = s.x + 1\n", i)
	}
	fmt.Fprintf(&b, "actions = [%s]\n", strings.Join(names, ", "))
	return []byte(b.String())
}

// Loading a model is linear in its number of actions: twice the actions
// allocate about twice as much. (Compiling each action's guard and body
// once copied the module's globals, every action's: 20,000 actions took
// 55 s to load, now half a second.)
func TestLoadLinearInActions(t *testing.T) {
	allocated := func(n int) uint64 {
		src := manyActions(n)
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		if _, err := LoadStarlarkSource("many.star", src); err != nil {
			t.Fatal(err)
		}
		runtime.ReadMemStats(&after)
		return after.TotalAlloc - before.TotalAlloc
	}
	small, large := allocated(1000), allocated(4000)
	if ratio := float64(large) / float64(small); ratio > 6 {
		t.Errorf("4000 actions allocate %.1f× what 1000 do (%d vs %d bytes): want about 4×", ratio, large, small)
	}
}
