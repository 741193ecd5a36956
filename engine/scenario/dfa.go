package scenario

import (
	"encoding/binary"
	"slices"
	"strings"
)

// The automaton of a regular scenario is made deterministic and minimal,
// so that two positions with the same future are one scenario state (a
// loop's start and its return are the same state): the product then has
// no more states than the scenario needs. Its letters are the sets of
// patterns one step can match together: patterns of one action whose
// arguments and outputs do not contradict each other. Past maxDFA states
// or maxLetters letters the scenario keeps the sets of positions as its
// states (still exact, possibly with equivalent states apart).
const (
	maxDFA     = 20_000
	maxLetters = 4096
	maxWork    = 4_000_000
)

// dfa is the minimal automaton: class 0 is the start.
type dfa struct {
	letters map[string]int // a letter's pattern set → its index
	next    [][]int32      // class × letter → class, -1: refused
	accept  []bool
	rep     [][]int // a set of positions of each class (for Position)
}

// compatible reports whether one step can match both matchers.
func compatible(a, b *matcher) bool {
	if a.any || b.any {
		return true
	}
	return a.name == b.name && a.key == b.key
}

func patternsCompatible(p, q *pattern) bool {
	if p.action != q.action {
		return false
	}
	for i := range min(len(p.args), len(q.args)) {
		if !compatible(&p.args[i], &q.args[i]) {
			return false
		}
	}
	return p.out == nil || q.out == nil || compatible(p.out, q.out)
}

// canonical maps every pattern to the first with the same text.
func (r *Regex) canonical() []int {
	canon := make([]int, len(r.patterns))
	first := map[string]int{}
	for i, p := range r.patterns {
		if j, ok := first[p.text]; ok {
			canon[i] = j
		} else {
			first[p.text], canon[i] = i, i
		}
	}
	return canon
}

// letterKey encodes a sorted set of patterns.
func letterKey(set []int) string {
	var b []byte
	for _, p := range set {
		b = binary.AppendUvarint(b, uint64(p))
	}
	return string(b)
}

// alphabet lists the sets of distinct patterns of one action that do not
// contradict each other; nil when there are more than maxLetters.
func (r *Regex) alphabet(canon []int) [][]int {
	byAction := map[int][]int{}
	var actions []int
	for i, c := range canon {
		if c != i {
			continue
		}
		a := r.patterns[i].action
		if _, ok := byAction[a]; !ok {
			actions = append(actions, a)
		}
		byAction[a] = append(byAction[a], i)
	}
	var out [][]int
	var grow func(pats, set []int) bool
	grow = func(pats, set []int) bool {
		for k, p := range pats {
			ok := true
			for _, q := range set {
				ok = ok && patternsCompatible(r.patterns[p], r.patterns[q])
			}
			if !ok {
				continue
			}
			s := append(slices.Clone(set), p)
			if out = append(out, s); len(out) > maxLetters || !grow(pats[k+1:], s) {
				return false
			}
		}
		return true
	}
	for _, a := range actions {
		if !grow(byAction[a], nil) {
			return nil
		}
	}
	return out
}

// determinize builds the minimal automaton, or returns nil when it would
// be too large.
func (r *Regex) determinize() *dfa {
	canon := r.canonical()
	letters := r.alphabet(canon)
	if letters == nil {
		return nil
	}
	member := make([][]bool, len(letters))
	for l, set := range letters {
		member[l] = make([]bool, len(r.patterns))
		for _, p := range set {
			member[l][p] = true
		}
	}
	// subset construction, breadth-first from the start
	ids := map[string]int{encode(r.start): 0}
	sets := [][]int{r.start}
	var trans [][]int32
	work := 0
	for i := 0; i < len(sets); i++ {
		row := make([]int32, len(letters))
		for l := range letters {
			var next []int
			for _, s := range sets[i] {
				if st := r.states[s]; st.pat >= 0 && member[l][canon[st.pat]] {
					next = append(next, st.next)
				}
			}
			if work += len(sets[i]); work > maxWork {
				return nil
			}
			if len(next) == 0 {
				row[l] = -1
				continue
			}
			c := r.closure(next)
			k := encode(c)
			id, ok := ids[k]
			if !ok {
				if id = len(sets); id >= maxDFA {
					return nil
				}
				ids[k] = id
				sets = append(sets, c)
			}
			row[l] = int32(id)
		}
		trans = append(trans, row)
	}
	return r.minimize(sets, trans, letters)
}

// minimize merges the states with the same future (Moore's refinement);
// classes are numbered in the order of their first state, so the start's
// is 0 and the numbering depends on the scenario alone.
func (r *Regex) minimize(sets [][]int, trans [][]int32, letters [][]int) *dfa {
	class := make([]int, len(sets))
	for i, s := range sets {
		if slices.Contains(s, r.final) {
			class[i] = 1
		}
	}
	n := -1
	for {
		ids := map[string]int{}
		next := make([]int, len(sets))
		var sig strings.Builder
		for i := range sets {
			sig.Reset()
			sig.WriteString(string(rune(class[i] + 1)))
			for _, t := range trans[i] {
				c := 0
				if t >= 0 {
					c = class[t] + 1
				}
				sig.WriteString(string(rune(c)))
			}
			id, ok := ids[sig.String()]
			if !ok {
				id = len(ids)
				ids[sig.String()] = id
			}
			next[i] = id
		}
		class = next
		if len(ids) == n {
			break
		}
		n = len(ids)
	}
	d := &dfa{letters: map[string]int{}, next: make([][]int32, n), accept: make([]bool, n), rep: make([][]int, n)}
	for l, set := range letters {
		d.letters[letterKey(set)] = l
	}
	for i, s := range sets {
		c := class[i]
		if d.rep[c] != nil {
			continue
		}
		d.rep[c], d.accept[c] = s, slices.Contains(s, r.final)
		d.next[c] = make([]int32, len(letters))
		for l, t := range trans[i] {
			d.next[c][l] = -1
			if t >= 0 {
				d.next[c][l] = int32(class[t])
			}
		}
	}
	return d
}

// letter returns the letter of a step: the distinct patterns it matches;
// -1 when it matches none.
func (r *Regex) letter(canon []int, match func(p *pattern) bool) int {
	var set []int
	for i, p := range r.patterns {
		if canon[i] == i && match(p) {
			set = append(set, i)
		}
	}
	if len(set) == 0 {
		return -1
	}
	l, ok := r.dfa.letters[letterKey(set)]
	if !ok {
		return -1
	}
	return l
}
