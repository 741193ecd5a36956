package model

import (
	"errors"
	"testing"

	"go.starlark.net/starlark"
	"go.starlark.net/syntax"
)

// What the budgets leave is known from their last reading less what was
// asked for since, garbage included: a request past that is weighed
// against the heap the last collection found live, and refused only when
// the live data and the request together pass the budget — then the
// budget is exceeded, once, and the error names it.
func TestReserveWeighsLiveHeap(t *testing.T) {
	exceeded := 0
	b := &budgetWatch{budget: 1 << 30, exceed: func() { exceeded++ }}
	set, remove := watchBudget(b)
	defer remove()
	set(1 << 20) // the last reading: 1 MiB left (a heap full of garbage)
	if err := reserve(100 << 20); err != nil || exceeded != 0 {
		t.Fatalf("100 MiB with a small live heap under 1 GiB: %v (exceeded %d times)", err, exceeded)
	}
	err := reserve(2 << 30)
	if !errors.Is(err, ErrMemoryBudget) || exceeded != 1 {
		t.Fatalf("2 GiB under 1 GiB: %v (exceeded %d times), want the budget exceeded", err, exceeded)
	}
	if err := reserve(allocFloor - 1); err != nil {
		t.Errorf("a request under the floor: %v", err)
	}
	remove()
	if err := reserve(4 << 30); err != nil {
		t.Errorf("no budget watched: %v", err)
	}
}

// The sizes compiled code asks for: sequences' elements, strings' bytes,
// saturating rather than overflowing.
func TestBinarySize(t *testing.T) {
	list := func(n int) Value { return starlark.NewList(make([]starlark.Value, n)) }
	plus, star := syntax.PLUS, syntax.STAR
	for _, c := range []struct {
		name string
		got  int64
		want int64
	}{
		{"list+list", binarySize(plus, list(3), list(5)), 8 * valueSize},
		{"list*int", binarySize(star, list(4), Int(10)), 40 * valueSize},
		{"int*list", binarySize(star, Int(10), list(4)), 40 * valueSize},
		{"str*int", binarySize(star, Str("abc"), Int(1000)), 3000},
		{"int+int", binarySize(plus, Int(1), Int(2)), 0},
		{"list*negative", binarySize(star, list(4), Int(-3)), 0},
		{"huge", binarySize(star, list(1<<20), Int(1<<62)), 1<<63 - 1},
	} {
		if c.got != c.want {
			t.Errorf("%s: %d, want %d", c.name, c.got, c.want)
		}
	}
}
