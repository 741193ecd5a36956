package explore_test

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/modex/modex/engine/explore"
	"github.com/modex/modex/engine/model"
)

// orderModel has one action of four parameters (4 x 3 x 3 x 3 values, one
// domain depending on the state: 4 x 3 x 2 x 3 after the order) that a
// shop takes once; banned is an item the guard refuses, by the state and
// the first argument alone (a prefix guard: model.PrefixGuard).
const orderModel = `
def init():
    return {"orders": 0, "last": None, "banned": BANNED}

def Order(s, item, qty, ship, pay):
    require(item != s.banned and s.orders < 1)
    s.orders += 1
    s.last = (item, qty, ship, pay)

BANNED = constant("BANNED", "")
actions = [Order]
domains = {Order: {
    "item": ["book", "pen", "cup", "hat"],
    "qty": [1, 2, 3],
    "ship": lambda s: ["post", "courier", "pickup"][s.orders:],
    "pay": ["card", "cash", "voucher"],
}}
`

var orderDomains = [][]string{{`"book"`, `"pen"`, `"cup"`, `"hat"`}, {"1", "2", "3"}, {`"post"`, `"courier"`, `"pickup"`}, {`"card"`, `"cash"`, `"voucher"`}}

func exploreOrders(t *testing.T, banned string, combine, workers int) (*explore.Exploration, [][]string) {
	t.Helper()
	m, err := model.LoadStarlarkWith("order.star", []byte(orderModel), map[string]model.Value{"BANNED": model.Str(banned)})
	if err != nil {
		t.Fatal(err)
	}
	cfg := explore.DefaultConfig(m)
	cfg.Actions[0].Combine = combine
	cfg.Workers = workers
	x, err := explore.Explore(context.Background(), m, cfg)
	if err != nil {
		t.Fatal(err)
	}
	var args [][]string
	g := x.Graph()
	for i := range g.Trans {
		args = append(args, g.Trans[i].ArgStrings())
	}
	return x, args
}

// Pairwise (and 3-wise) exploration tries fewer inputs than the full
// product, and every pair (triple) of values of any two (three) parameters
// is among the explored transitions' arguments; the same with one worker
// or two.
func TestExploreCombined(t *testing.T) {
	full, fullArgs := exploreOrders(t, "", 0, 1)
	if len(fullArgs) != 108 || full.Stats.States != 109 {
		t.Fatalf("the full product: %d transitions, %d states; want 108 and 109", len(fullArgs), full.Stats.States)
	}
	for _, n := range []int{2, 3} {
		x, args := exploreOrders(t, "", n, 1)
		if len(args) >= len(fullArgs) || x.Stats.States != len(args)+1 {
			t.Errorf("%s: %d transitions to %d states, want fewer than the full product's %d, each to a state of its own", explore.CombineWords(n), len(args), x.Stats.States, len(fullArgs))
		}
		if miss := missingTuple(args, n); miss != "" {
			t.Errorf("%s: no transition has %s", explore.CombineWords(n), miss)
		}
		if _, again := exploreOrders(t, "", n, 2); !slices.EqualFunc(args, again, slices.Equal) {
			t.Errorf("%s: two workers explored other transitions: %v, not %v", explore.CombineWords(n), again, args)
		}
		t.Logf("%s: %d transitions of the full product's %d, %d tried", explore.CombineWords(n), len(args), len(fullArgs), x.Stats.Tried)
	}
	// No more parameters than the strength: the full product.
	if _, args := exploreOrders(t, "", 4, 1); !slices.EqualFunc(args, fullArgs, slices.Equal) {
		t.Errorf("4-wise over 4 parameters: %d transitions, want the full product's", len(args))
	}
}

// A guard false for an item alone skips that item's combinations: what is
// explored is the pairwise combinations without it.
func TestExploreCombinedGuard(t *testing.T) {
	_, all := exploreOrders(t, "", 2, 1)
	var want [][]string
	for _, a := range all {
		if a[0] != `"hat"` {
			want = append(want, a)
		}
	}
	for _, workers := range []int{1, 2} {
		x, got := exploreOrders(t, "hat", 2, workers)
		if !slices.EqualFunc(got, want, slices.Equal) {
			t.Errorf("%d workers: %v, want %v", workers, got, want)
		}
		if x.Stats.Tried < int64(len(all)) {
			t.Errorf("%d workers: %d tried, fewer than the %d combinations at the initial state", workers, x.Stats.Tried, len(all))
		}
	}
}

// missingTuple is the first n values of n parameters of orderDomains
// that no args have ("" when all are there).
func missingTuple(args [][]string, n int) string {
	var ps []int
	var rec func(from int) string
	rec = func(from int) string {
		if len(ps) == n {
			return missingValues(args, ps)
		}
		for p := from; p < len(orderDomains); p++ {
			ps = append(ps, p)
			if m := rec(p + 1); m != "" {
				return m
			}
			ps = ps[:len(ps)-1]
		}
		return ""
	}
	return rec(0)
}

func missingValues(args [][]string, ps []int) string {
	seen := map[string]bool{}
	for _, a := range args {
		key := ""
		for _, p := range ps {
			key += a[p] + " "
		}
		seen[key] = true
	}
	var vals []string
	var rec func(i int) string
	rec = func(i int) string {
		if i == len(ps) {
			key := ""
			for _, v := range vals {
				key += v + " "
			}
			if !seen[key] {
				return fmt.Sprintf("parameters %v = %v", ps, vals)
			}
			return ""
		}
		for _, v := range orderDomains[ps[i]] {
			vals = append(vals, v)
			if m := rec(i + 1); m != "" {
				return m
			}
			vals = vals[:len(vals)-1]
		}
		return ""
	}
	return rec(0)
}
