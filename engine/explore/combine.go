package explore

import (
	"encoding/binary"
	"fmt"
	"slices"
	"sync"
)

// Combinations of an action's parameters (ActionConfig.Combine): instead of
// the full product of the domains, a covering array of strength n, in which
// every n values of any n parameters appear together in at least one
// combination (Spec Explorer's Combination.Pairwise and NWise).
//
// The arrays are made by IPOG (Lei, Kacker, Kuhn, Okun, Lawrence, "IPOG: A
// general strategy for t-way software testing", 2007): the product of the n
// largest domains, then one parameter at a time, a value for each
// combination so far that covers the most n-tuples not yet covered
// (horizontal growth), and new combinations for the tuples left (vertical
// growth). Ties between values are broken in a few fixed ways (one of them
// by a generator with a fixed seed); where the domains are small next to
// the number of parameters, Bush's orthogonal array over a prime field is a
// candidate too. The smallest array wins, after the combinations that cover
// nothing on their own are left out. There is no randomness: the same
// sizes always give the same array.

// MaxCombine bounds the strength of a combination (a project's combine).
const MaxCombine = 6

// maxCoverTuples bounds the n-tuples that building one covering array keeps
// track of (a bit each), 2^28 bits: 32 MB.
const maxCoverTuples = 1 << 28

// CombineWords names a strength for people: "full product", "pairwise",
// "3-wise".
func CombineWords(n int) string {
	switch {
	case n < 2:
		return "full product"
	case n == 2:
		return "pairwise"
	}
	return fmt.Sprintf("%d-wise", n)
}

// Covering returns a covering array of strength n over parameters with the
// given numbers of values: rows of indices (row[p] < sizes[p]) such that for
// any n parameters, every combination of their values appears in at least
// one row. With n < 2, or with no more than n parameters, it is the full
// product; with an empty domain it has no rows. The rows are in
// lexicographic order, without duplicates, and the same sizes always give
// the same rows. They may be shared: do not write to them. It fails only
// when the array is too large to compute.
func Covering(sizes []int, n int) ([][]int, error) {
	for _, s := range sizes {
		if s <= 0 {
			return [][]int{}, nil
		}
	}
	if n < 2 || len(sizes) <= n {
		return fullProduct(sizes)
	}
	if rows, ok := coverCache.get(sizes, n); ok {
		return rows, nil
	}
	rows, err := ipog(sizes, n)
	if err != nil {
		return nil, err
	}
	coverCache.put(sizes, n, rows)
	return rows, nil
}

// maxFullProduct bounds the rows fullProduct writes out.
const maxFullProduct = 1 << 24

// fullProduct lists every combination, in odometer order.
func fullProduct(sizes []int) ([][]int, error) {
	total := 1
	for _, s := range sizes {
		if total *= s; total > maxFullProduct {
			return nil, fmt.Errorf("the full product of domains of %v values has more than %d combinations", sizes, maxFullProduct)
		}
	}
	flat := make([]int, total*len(sizes))
	rows := make([][]int, total)
	idx := make([]int, len(sizes))
	for r := range rows {
		row := flat[r*len(sizes) : (r+1)*len(sizes) : (r+1)*len(sizes)]
		copy(row, idx)
		rows[r] = row
		for p := len(idx) - 1; p >= 0; p-- {
			if idx[p]++; idx[p] < sizes[p] {
				break
			}
			idx[p] = 0
		}
	}
	return rows, nil
}

// ipog builds the covering array of strength n (2 <= n < len(sizes), no
// size 0).
func ipog(sizes []int, n int) ([][]int, error) {
	// The largest domains first (ties in the parameters' order): the
	// product they start with is the bulk of the array.
	order := make([]int, len(sizes))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return sizes[b] - sizes[a] })
	sorted := make([]int, len(sizes))
	for i, p := range order {
		sorted[i] = sizes[p]
	}
	var best [][]int
	if rows, ok := bush(sizes, n); ok {
		slices.SortFunc(rows, slices.Compare)
		best = pruneRows(slices.CompactFunc(rows, slices.Equal), sizes, n)
	}
	spent := 0
	for v := range ipogVariants {
		rows, ops, err := ipogVariant(sizes, sorted, order, n, v)
		if err != nil {
			if best != nil {
				break // too many tuples to track: the same for every variant
			}
			return nil, err
		}
		if best == nil || len(rows) < len(best) {
			best = rows
		}
		// Another variant only while the work stays within the budget:
		// counted, not timed, so that the choice is always the same.
		if spent += ops; spent+ops > ipogBudget {
			break
		}
	}
	return best, nil
}

// ipogBudget bounds the work of the variants after the first (in steps of
// ipogGrowth.ops, about a nanosecond each).
const ipogBudget = 300_000_000

// ipogVariants is how many ways of breaking ties ipog tries.
const ipogVariants = 8

// ipogVariant grows one array; sorted are the sizes in order of growth,
// order the parameters in that order. ops is the work it took.
func ipogVariant(sizes, sorted, order []int, n, variant int) (rows [][]int, ops int, err error) {
	start, err := fullProduct(sorted[:n])
	if err != nil {
		return nil, 0, tooMany(sorted, n)
	}
	g := &ipogGrowth{sizes: sorted, n: n, variant: variant}
	for _, r := range start {
		row := make([]int, len(sorted))
		copy(row, r)
		for p := n; p < len(row); p++ {
			row[p] = dontCare
		}
		g.rows = append(g.rows, row)
	}
	for k := n; k < len(sorted); k++ {
		if err := g.extend(k); err != nil {
			return nil, 0, err
		}
	}
	return pruneRows(g.finish(order), sizes, n), g.ops, nil
}

// tooMany is the error of a covering array too large to compute.
func tooMany(sizes []int, n int) error {
	return fmt.Errorf("%s combinations of %d parameters of %v values are too many to compute", CombineWords(n), len(sizes), sizes)
}

// dontCare marks a value not chosen yet: any value does.
const dontCare = -1

// ipogGrowth is the array being grown, one parameter at a time.
type ipogGrowth struct {
	sizes []int   // by the parameters' order of growth
	n     int     // the strength
	k     int     // the parameter being added
	rows  [][]int // dontCare where no value was needed yet
	// While parameter k is added: the subsets of n-1 parameters before it,
	// the offset of each subset's tuples among the bits of covered (a
	// subset's tuples are numbered by its values as a mixed-radix number,
	// then k's value), and how many are not covered yet.
	subsets [][]int
	offset  []int
	covered []uint64
	left    int
	total   int
	// variant picks among the values that cover the most: 0 the least,
	// 1 from a value that turns with the rows, more from a value a
	// generator seeded with the variant draws.
	variant int
	turn    uint64
	bases   []int // per subset, a row's tuple number without k's value (-1: a value is not chosen)
	// open are the rows with a value not chosen (up to k): the only ones
	// that may take a tuple left after horizontal growth.
	open []int
	ops  int // the work done, counted in the inner loops
}

// extend adds parameter k to the array.
func (g *ipogGrowth) extend(k int) error {
	g.k = k
	g.subsets = g.subsets[:0]
	choose(k, g.n-1, func(s []int) { g.subsets = append(g.subsets, slices.Clone(s)) })
	g.offset = g.offset[:0]
	total := 0
	for _, s := range g.subsets {
		g.offset = append(g.offset, total)
		t := g.sizes[k]
		for _, p := range s {
			t *= g.sizes[p]
		}
		if total += t; total > maxCoverTuples {
			return tooMany(g.sizes, g.n)
		}
	}
	g.covered = make([]uint64, (total+63)/64)
	g.left, g.total = total, total
	g.bases = make([]int, len(g.subsets))
	gain := make([]int, g.sizes[k])
	g.open = g.open[:0]
	for r, row := range g.rows {
		g.horizontal(row, k, gain)
		if slices.Contains(row[:k+1], dontCare) {
			g.open = append(g.open, r)
		}
	}
	g.ops += len(g.rows) * len(g.subsets) * len(gain)
	g.vertical(k)
	return nil
}

// horizontal gives row the value of k that covers the most tuples not yet
// covered (the least such value); none when no value covers any.
func (g *ipogGrowth) horizontal(row []int, k int, gain []int) {
	g.rowBases(row)
	clear(gain)
	for _, b := range g.bases {
		if b < 0 {
			continue
		}
		for v := range gain {
			if !g.isCovered(b + v) {
				gain[v]++
			}
		}
	}
	start := g.tieStart(len(gain))
	best := start
	for i := range gain {
		v := (start + i) % len(gain)
		if gain[v] > gain[best] {
			best = v
		}
	}
	if gain[best] == 0 {
		return // kept for vertical growth
	}
	row[k] = best
	g.coverRow(row)
}

// tieStart is the value from which horizontal looks for the best.
func (g *ipogGrowth) tieStart(n int) int {
	switch g.variant {
	case 0:
		return 0
	case 1:
		g.turn++
		return int(g.turn % uint64(n))
	}
	if g.turn == 0 {
		g.turn = uint64(g.variant) * 0x9e3779b97f4a7c15
	}
	g.turn ^= g.turn << 13 // xorshift64
	g.turn ^= g.turn >> 7
	g.turn ^= g.turn << 17
	return int(g.turn % uint64(n))
}

// vertical covers the tuples left: each in the first row whose values
// agree with it or are not chosen yet, else in a new row.
func (g *ipogGrowth) vertical(k int) {
	vals := make([]int, len(g.sizes))
	for si, s := range g.subsets {
		if g.left == 0 {
			return
		}
		end := g.total
		if si+1 < len(g.offset) {
			end = g.offset[si+1]
		}
		for t := g.offset[si]; t < end; t++ {
			if g.isCovered(t) {
				continue
			}
			// The tuple's values: k's, then the subset's from the last.
			x := t - g.offset[si]
			vals[k] = x % g.sizes[k]
			x /= g.sizes[k]
			for j := len(s) - 1; j >= 0; j-- {
				vals[s[j]] = x % g.sizes[s[j]]
				x /= g.sizes[s[j]]
			}
			row := g.fitting(s, k, vals)
			if row == nil {
				row = make([]int, len(g.sizes))
				for p := range row {
					row[p] = dontCare
				}
				g.open = append(g.open, len(g.rows))
				g.rows = append(g.rows, row)
			}
			for _, p := range s {
				row[p] = vals[p]
			}
			row[k] = vals[k]
			g.rowBases(row)
			g.coverRow(row)
		}
	}
}

// fitting is the first open row whose values at s and k are vals' or not
// chosen; nil when none is.
func (g *ipogGrowth) fitting(s []int, k int, vals []int) []int {
next:
	for _, r := range g.open {
		g.ops++
		row := g.rows[r]
		if row[k] != dontCare && row[k] != vals[k] {
			continue
		}
		for _, p := range s {
			if row[p] != dontCare && row[p] != vals[p] {
				continue next
			}
		}
		return row
	}
	return nil
}

// rowBases sets g.bases to row's tuple numbers, without k's value, in
// each subset (-1 where a value is not chosen).
func (g *ipogGrowth) rowBases(row []int) {
	for si, s := range g.subsets {
		b := 0
		for _, p := range s {
			if row[p] == dontCare {
				b = -1
				break
			}
			b = b*g.sizes[p] + row[p]
		}
		if b >= 0 {
			b = g.offset[si] + b*g.sizes[g.k]
		}
		g.bases[si] = b
	}
}

// coverRow marks the tuples row covers as covered (g.bases must be row's).
func (g *ipogGrowth) coverRow(row []int) {
	v := row[g.k]
	if v == dontCare {
		return
	}
	for _, b := range g.bases {
		if b < 0 {
			continue
		}
		t := b + v
		if w, bit := t/64, uint64(1)<<(t%64); g.covered[w]&bit == 0 {
			g.covered[w] |= bit
			g.left--
		}
	}
}

// isCovered tells whether tuple t is covered.
func (g *ipogGrowth) isCovered(t int) bool {
	return g.covered[t/64]&(1<<(t%64)) != 0
}

// finish gives the values not chosen (any does: the first, shifted by the
// row so that every value is used), puts the parameters back in their
// order, and sorts the rows, leaving out duplicates.
func (g *ipogGrowth) finish(order []int) [][]int {
	m := len(g.sizes)
	flat := make([]int, len(g.rows)*m)
	rows := make([][]int, len(g.rows))
	for r, grown := range g.rows {
		row := flat[r*m : (r+1)*m : (r+1)*m]
		for i, p := range order {
			v := grown[i]
			if v == dontCare {
				v = r % g.sizes[i]
			}
			row[p] = v
		}
		rows[r] = row
	}
	slices.SortFunc(rows, slices.Compare)
	return slices.CompactFunc(rows, func(a, b []int) bool { return slices.Equal(a, b) })
}

// choose calls f with every subset of r of the numbers 0..n-1, in
// lexicographic order (f must not keep the slice).
func choose(n, r int, f func([]int)) {
	s := make([]int, r)
	var rec func(i, from int)
	rec = func(i, from int) {
		if i == r {
			f(s)
			return
		}
		for x := from; x <= n-(r-i); x++ {
			s[i] = x
			rec(i+1, x+1)
		}
	}
	rec(0, 0)
}

// coverCache remembers the covering arrays made, by strength and sizes: a
// state-dependent domain evaluates afresh in every state, but the array
// depends only on the numbers of values.
var coverCache = &coverMemo{m: map[string][][]int{}}

// maxCoverCells bounds the cells of the arrays coverCache holds.
const maxCoverCells = 1 << 22

// coverMemo is a map of covering arrays, emptied when it grows too large.
type coverMemo struct {
	mu    sync.RWMutex
	m     map[string][][]int
	cells int
}

// coverKey is the key of an array: the strength and the sizes.
func coverKey(buf []byte, sizes []int, n int) []byte {
	buf = binary.AppendUvarint(buf, uint64(n))
	for _, s := range sizes {
		buf = binary.AppendUvarint(buf, uint64(s))
	}
	return buf
}

func (c *coverMemo) get(sizes []int, n int) ([][]int, bool) {
	var a [64]byte
	key := coverKey(a[:0], sizes, n)
	c.mu.RLock()
	rows, ok := c.m[string(key)]
	c.mu.RUnlock()
	return rows, ok
}

func (c *coverMemo) put(sizes []int, n int, rows [][]int) {
	cells := len(rows) * len(sizes)
	if cells > maxCoverCells/4 {
		return
	}
	key := string(coverKey(nil, sizes, n))
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cells+cells > maxCoverCells {
		c.m, c.cells = map[string][][]int{}, 0
	}
	if _, ok := c.m[key]; !ok {
		c.m[key] = rows
		c.cells += cells
	}
}

// maxPruneTuples bounds the n-tuples pruneRows counts (an int32 each).
const maxPruneTuples = 1 << 22

// pruneRows leaves out the rows whose every n-tuple another row covers
// too, from the last row back; rows are in the final parameter order.
func pruneRows(rows [][]int, sizes []int, n int) [][]int {
	var subsets [][]int
	var offset []int
	total := 0
	choose(len(sizes), n, func(s []int) {
		subsets = append(subsets, slices.Clone(s))
		offset = append(offset, total)
		t := 1
		for _, p := range s {
			t *= sizes[p]
		}
		total += t
	})
	if total > maxPruneTuples {
		return rows
	}
	count := make([]int32, total)
	tuple := func(row []int, si int) int {
		t := 0
		for _, p := range subsets[si] {
			t = t*sizes[p] + row[p]
		}
		return offset[si] + t
	}
	for _, row := range rows {
		for si := range subsets {
			count[tuple(row, si)]++
		}
	}
	kept := rows[:0:0]
	drop := make([]bool, len(rows))
	for r := len(rows) - 1; r >= 0; r-- {
		needed := false
		for si := range subsets {
			if count[tuple(rows[r], si)] < 2 {
				needed = true
				break
			}
		}
		if !needed {
			drop[r] = true
			for si := range subsets {
				count[tuple(rows[r], si)]--
			}
		}
	}
	for r, row := range rows {
		if !drop[r] {
			kept = append(kept, row)
		}
	}
	return kept
}

// bush is the orthogonal array of Bush (1952) over the least prime q at
// least as large as every domain, when there are at most q+1 parameters
// and q >= n: a row per polynomial of degree < n over Z_q, its values at
// 0..q-1 and its leading coefficient, each reduced modulo the parameter's
// number of values. Any n parameters of the array of q^n rows take every
// combination of values exactly once; reduced, at least once. ok is false
// when it does not apply.
func bush(sizes []int, n int) (rows [][]int, ok bool) {
	q := slices.Max(sizes)
	for !prime(q) {
		q++
	}
	total := 1
	for range n {
		total *= q
	}
	if len(sizes) > q+1 || q < n || total > maxFullProduct/len(sizes) {
		return nil, false
	}
	coef := make([]int, n)
	flat := make([]int, total*len(sizes))
	for r := range total {
		c := r
		for i := range coef {
			coef[i], c = c%q, c/q
		}
		row := flat[r*len(sizes) : (r+1)*len(sizes) : (r+1)*len(sizes)]
		for p := range row {
			v := coef[n-1] // the column at infinity
			if p < q {
				v = 0
				for i := n - 1; i >= 0; i-- { // Horner
					v = (v*p + coef[i]) % q
				}
			}
			row[p] = v % sizes[p]
		}
		rows = append(rows, row)
	}
	return rows, true
}

func prime(q int) bool {
	if q < 2 {
		return false
	}
	for d := 2; d*d <= q; d++ {
		if q%d == 0 {
			return false
		}
	}
	return true
}
