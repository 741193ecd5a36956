package explore

import (
	"fmt"
	"math/big"
	"slices"
	"strings"
	"testing"

	"github.com/modex/modex/engine/model"
)

// repeat is k parameters of v values each.
func repeat(v, k int) []int {
	s := make([]int, k)
	for i := range s {
		s[i] = v
	}
	return s
}

// uncovered checks rows against sizes exhaustively: for every n
// parameters (all of them when there are fewer), every combination of
// their values must appear in a row; it returns the first that does not
// ("" when all do) and checks that the rows are in range, sorted and
// without duplicates.
func uncovered(t *testing.T, rows [][]int, sizes []int, n int) string {
	t.Helper()
	for i, row := range rows {
		if len(row) != len(sizes) {
			t.Fatalf("row %d %v has %d values for %d parameters", i, row, len(row), len(sizes))
		}
		for p, v := range row {
			if v < 0 || v >= sizes[p] {
				t.Fatalf("row %d %v: value %d of parameter %d is not below %d", i, row, v, p, sizes[p])
			}
		}
		if i > 0 && slices.Compare(rows[i-1], row) >= 0 {
			t.Fatalf("rows %d %v and %d %v are not in order or equal", i-1, rows[i-1], i, row)
		}
	}
	if n > len(sizes) {
		n = len(sizes)
	}
	missing := ""
	choose(len(sizes), n, func(ps []int) {
		if missing != "" {
			return
		}
		seen := map[string]bool{}
		for _, row := range rows {
			var vals []int
			for _, p := range ps {
				vals = append(vals, row[p])
			}
			seen[fmt.Sprint(vals)] = true
		}
		want := make([]int, len(ps))
		for {
			if !seen[fmt.Sprint(want)] {
				missing = fmt.Sprintf("parameters %v = %v", ps, want)
				return
			}
			p := len(want) - 1
			for ; p >= 0; p-- {
				if want[p]++; want[p] < sizes[ps[p]] {
					break
				}
				want[p] = 0
			}
			if p < 0 {
				return
			}
		}
	})
	return missing
}

func product(sizes []int) int {
	n := 1
	for _, s := range sizes {
		n *= s
	}
	return n
}

// Every n-tuple of values of any n parameters is in some combination,
// checked exhaustively, for strengths 2 to 4 and mixed domains.
func TestCoveringCoversEveryTuple(t *testing.T) {
	for _, tc := range []struct {
		sizes []int
		n     int
	}{
		{repeat(10, 4), 2},
		{repeat(3, 10), 2},
		{repeat(2, 3), 2},
		{repeat(2, 12), 2},
		{repeat(3, 13), 2},
		{repeat(5, 6), 2},
		{repeat(7, 8), 2},
		{[]int{1, 1, 1}, 2},
		{[]int{4, 1, 3, 2, 5}, 2},
		{[]int{2, 7, 3, 3, 6, 1, 4}, 2},
		{[]int{10, 2, 2, 2, 2, 2, 2}, 2},
		{[]int{3, 4, 5, 6, 7, 8, 9, 10}, 2},
		{repeat(2, 10), 3},
		{repeat(3, 6), 3},
		{[]int{5, 2, 3, 4, 2, 3}, 3},
		{repeat(4, 7), 3},
		{repeat(10, 10), 3},
		{repeat(2, 8), 4},
		{[]int{3, 2, 3, 2, 3, 2}, 4},
	} {
		rows, err := Covering(tc.sizes, tc.n)
		if err != nil {
			t.Fatalf("%v %s: %v", tc.sizes, CombineWords(tc.n), err)
		}
		if miss := uncovered(t, rows, tc.sizes, tc.n); miss != "" {
			t.Errorf("%v %s: %d combinations miss %s", tc.sizes, CombineWords(tc.n), len(rows), miss)
		}
		if p := product(tc.sizes); len(rows) > p {
			t.Errorf("%v %s: %d combinations, more than the full product's %d", tc.sizes, CombineWords(tc.n), len(rows), p)
		}
		t.Logf("%v %s: %d of %d combinations", tc.sizes, CombineWords(tc.n), len(rows), product(tc.sizes))
	}
}

// The figures: four parameters of ten values and ten of three,
// pairwise, against their full products of 10,000 and 59,049.
func TestCoveringSizes(t *testing.T) {
	for _, tc := range []struct {
		sizes    []int
		at, most int // a lower bound (the product of the two largest domains), the most accepted
	}{
		{repeat(10, 4), 100, 150},
		{repeat(3, 10), 9, 25},
	} {
		rows, err := Covering(tc.sizes, 2)
		if err != nil {
			t.Fatal(err)
		}
		if miss := uncovered(t, rows, tc.sizes, 2); miss != "" {
			t.Errorf("%v pairwise misses %s", tc.sizes, miss)
		}
		if len(rows) < tc.at || len(rows) > tc.most {
			t.Errorf("%v pairwise: %d combinations, want from %d to %d", tc.sizes, len(rows), tc.at, tc.most)
		}
		t.Logf("%d parameters of %d values, pairwise: %d combinations of the full product's %d (a lower bound: %d)",
			len(tc.sizes), tc.sizes[0], len(rows), product(tc.sizes), tc.at)
	}
}

// The same sizes give the same array: computed afresh twice (not from the
// cache) and through the cache.
func TestCoveringDeterministic(t *testing.T) {
	for _, tc := range []struct {
		sizes []int
		n     int
	}{{repeat(10, 4), 2}, {repeat(3, 10), 2}, {[]int{2, 7, 3, 3, 6, 1, 4}, 2}, {repeat(3, 6), 3}} {
		a, err := ipog(tc.sizes, tc.n)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := ipog(tc.sizes, tc.n)
		c, _ := Covering(tc.sizes, tc.n)
		if !slices.EqualFunc(a, b, slices.Equal) || !slices.EqualFunc(a, c, slices.Equal) {
			t.Errorf("%v %s: the arrays differ: %v, %v, %v", tc.sizes, CombineWords(tc.n), a, b, c)
		}
	}
}

// No parameter: one combination, of no values; one parameter: its values;
// an empty domain: none; no more parameters than the strength (or a
// strength below 2): the full product in odometer order.
func TestCoveringEdges(t *testing.T) {
	for _, tc := range []struct {
		sizes []int
		n     int
		want  [][]int
	}{
		{nil, 2, [][]int{{}}},
		{[]int{3}, 2, [][]int{{0}, {1}, {2}}},
		{[]int{3, 0, 2}, 2, [][]int{}},
		{[]int{0, 3, 3, 3}, 2, [][]int{}},
		{[]int{2, 2}, 2, [][]int{{0, 0}, {0, 1}, {1, 0}, {1, 1}}},
		{[]int{2, 1, 2}, 3, [][]int{{0, 0, 0}, {0, 0, 1}, {1, 0, 0}, {1, 0, 1}}},
		{[]int{2, 2, 2}, 5, [][]int{{0, 0, 0}, {0, 0, 1}, {0, 1, 0}, {0, 1, 1}, {1, 0, 0}, {1, 0, 1}, {1, 1, 0}, {1, 1, 1}}},
		{[]int{2, 2, 2}, 1, [][]int{{0, 0, 0}, {0, 0, 1}, {0, 1, 0}, {0, 1, 1}, {1, 0, 0}, {1, 0, 1}, {1, 1, 0}, {1, 1, 1}}},
	} {
		got, err := Covering(tc.sizes, tc.n)
		if err != nil {
			t.Fatal(err)
		}
		if got == nil || !slices.EqualFunc(got, tc.want, slices.Equal) {
			t.Errorf("%v %s: %v, want %v", tc.sizes, CombineWords(tc.n), got, tc.want)
		}
	}
	// Too many tuples to track is an error, not a long wait.
	if _, err := Covering(repeat(1000, 40), 3); err == nil || !strings.Contains(err.Error(), "3-wise combinations of 40 parameters of [1000 1000") {
		t.Errorf("3-wise over 40 parameters of 1,000 values: %v", err)
	}
}

// ForEachInput gives the values of the rows; the full product for an
// action not combined or with too few parameters; nothing for an empty
// domain.
func TestForEachInput(t *testing.T) {
	dom := func(vs ...int) []model.Value {
		var out []model.Value
		for _, v := range vs {
			out = append(out, model.Int(v))
		}
		return out
	}
	doms := [][]model.Value{dom(1, 2, 3), dom(4, 5, 6), dom(7, 8, 9), dom(10, 11, 12)}
	count := func(ac *ActionConfig, doms [][]model.Value) (n int) {
		if err := ForEachInput(ac, doms, func([]model.Value) { n++ }); err != nil {
			t.Fatal(err)
		}
		return n
	}
	rows, _ := Covering([]int{3, 3, 3, 3}, 2)
	for _, tc := range []struct {
		combine int
		doms    [][]model.Value
		want    int
	}{
		{0, doms, 81}, {1, doms, 81}, {2, doms, len(rows)}, {3, doms, 27}, {4, doms, 81}, {9, doms, 81},
		{2, doms[:2], 9}, {2, [][]model.Value{dom(1), nil, dom(2), dom(3)}, 0}, {2, nil, 1},
	} {
		if got := count(&ActionConfig{Combine: tc.combine}, tc.doms); got != tc.want {
			t.Errorf("combine %d over %d domains: %d combinations, want %d", tc.combine, len(tc.doms), got, tc.want)
		}
	}
	var got [][]model.Value
	ForEachInput(&ActionConfig{Combine: 2}, doms, func(args []model.Value) { got = append(got, args) })
	for i, row := range rows {
		for p, v := range row {
			if got[i][p] != doms[p][v] {
				t.Fatalf("combination %d is %v, want the values of row %v", i, got[i], row)
			}
		}
	}
}

func TestCombinedWords(t *testing.T) {
	for _, tc := range []struct {
		c    Combined
		want string
	}{
		{Combined{Action: "Post", Combine: 2, Combinations: 113, Product: bigInt(10000)}, "Post: pairwise, 113 of 10,000 parameter combinations"},
		{Combined{Action: "Buy", Combine: 3, Combinations: 1329, Product: bigInt(10000000000)}, "Buy: 3-wise, 1,329 of 10,000,000,000 parameter combinations"},
		{Combined{Action: "Buy", Combine: 2, Product: bigInt(0)}, "Buy: pairwise, no parameter combination (a domain is empty)"},
		{Combined{Action: "Buy", Combine: 2, Err: fmt.Errorf("boom")}, "Buy: pairwise: boom"},
	} {
		if got := tc.c.String(); got != tc.want {
			t.Errorf("%q, want %q", got, tc.want)
		}
	}
}

func bigInt(n int64) *big.Int { return big.NewInt(n) }
