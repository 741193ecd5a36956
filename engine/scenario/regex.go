package scenario

import (
	"encoding/binary"
	"slices"
	"strings"

	"github.com/modex/modex/engine/model"
)

// Regex is a scenario given as a regular expression over action patterns
// (docs/model-language.md, "Scenarios"). Its states are sets of the
// positions of its automaton; it is deterministic: a step leads to one
// scenario state or none.
type Regex struct {
	name     string
	patterns []*pattern
	states   []nfaState
	start    []int // the closure of the start
	final    int
	vocab    []bool
	prefixes bool  // every prefix is accepted (AcceptPrefixes)
	canon    []int // each pattern's first pattern with the same text
	dfa      *dfa  // nil: the states are sets of positions
}

// positionsOnly keeps the sets of positions as the states (for tests: the
// minimal automaton must give the same product, up to equivalent states).
var positionsOnly bool

// nfaState has a pattern's transition (pat >= 0) or ε-moves.
type nfaState struct {
	pat  int
	next int
	eps  []int
}

// ParseRegex compiles a regular scenario for the model's actions; at is
// where the text's first character stands (errors name file:line:col
// there). name names it in messages.
func ParseRegex(name, src string, at model.Pos, info *model.ModelInfo) (*Regex, error) {
	p := &parser{src: src, at: at, info: info}
	if len(src) > MaxSource {
		return nil, p.errAt(0, "longer than %d bytes", MaxSource)
	}
	root, err := p.alt()
	if err != nil {
		return nil, err
	}
	if p.peek() != 0 {
		if p.src[p.i] == ')' {
			return nil, p.errAt(p.i, "this ) closes nothing")
		}
		return nil, p.errAt(p.i, "expected ; or | between patterns, found %q", p.src[p.i])
	}
	r := &Regex{name: name, patterns: p.patterns, vocab: make([]bool, len(info.Actions))}
	for _, pt := range p.patterns {
		r.vocab[pt.action] = true
	}
	b := &builder{r: r}
	in, out := b.add(-1), b.add(-1)
	if !b.build(root, in, out) {
		return nil, p.errAt(0, "the scenario's automaton has more than %d states (a bounded repetition copies what it repeats)", MaxStates)
	}
	r.final = out
	r.start = r.closure([]int{in})
	r.canon = r.canonical()
	if !positionsOnly {
		r.dfa = r.determinize()
	}
	return r, nil
}

// builder makes the automaton (Thompson's construction).
type builder struct{ r *Regex }

func (b *builder) add(pat int) int {
	b.r.states = append(b.r.states, nfaState{pat: pat})
	return len(b.r.states) - 1
}

func (b *builder) eps(from, to int) { b.r.states[from].eps = append(b.r.states[from].eps, to) }

// build adds n between in and out; false past MaxStates.
func (b *builder) build(n *node, in, out int) bool {
	if len(b.r.states) > MaxStates {
		return false
	}
	switch n.kind {
	case nPat:
		s := b.add(n.pat)
		b.r.states[s].next = out
		b.eps(in, s)
	case nSeq:
		cur := in
		for i, k := range n.kids {
			next := out
			if i < len(n.kids)-1 {
				next = b.add(-1)
			}
			if !b.build(k, cur, next) {
				return false
			}
			cur = next
		}
	case nAlt:
		for _, k := range n.kids {
			if !b.build(k, in, out) {
				return false
			}
		}
	case nRep:
		return b.repeat(n, in, out)
	}
	return true
}

// repeat adds n.min copies of the repeated expression, then n.max-n.min
// optional ones, or a loop when there is no most.
func (b *builder) repeat(n *node, in, out int) bool {
	cur := in
	for range n.min {
		next := b.add(-1)
		if !b.build(n.kids[0], cur, next) {
			return false
		}
		cur = next
	}
	if n.max < 0 {
		loop := b.add(-1)
		b.eps(cur, loop)
		if !b.build(n.kids[0], loop, loop) {
			return false
		}
		b.eps(loop, out)
		return true
	}
	for range n.max - n.min {
		next := b.add(-1)
		b.eps(cur, out)
		if !b.build(n.kids[0], cur, next) {
			return false
		}
		cur = next
	}
	b.eps(cur, out)
	return true
}

// closure returns the positions reachable by ε-moves, sorted.
func (r *Regex) closure(from []int) []int {
	seen := map[int]bool{}
	stack := append([]int(nil), from...)
	var out []int
	for len(stack) > 0 {
		s := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[s] {
			continue
		}
		seen[s] = true
		out = append(out, s)
		stack = append(stack, r.states[s].eps...)
	}
	slices.Sort(out)
	return out
}

func encode(set []int) string {
	b := make([]byte, 0, 2*len(set))
	for _, s := range set {
		b = binary.AppendUvarint(b, uint64(s))
	}
	return string(b)
}

func decode(key string) []int {
	var out []int
	for b := []byte(key); len(b) > 0; {
		v, n := binary.Uvarint(b)
		if n <= 0 {
			break
		}
		out = append(out, int(v))
		b = b[n:]
	}
	return out
}

// Name names the scenario.
func (r *Regex) Name() string { return r.name }

// Vocabulary reports whether a pattern of the scenario names the action.
func (r *Regex) Vocabulary(action int) bool { return action < len(r.vocab) && r.vocab[action] }

// NewRunner returns the scenario's evaluator; a regular scenario keeps
// nothing per goroutine.
func (r *Regex) NewRunner() (model.ScenarioRunner, error) { return r, nil }

// Inits returns the start.
func (r *Regex) Inits() ([]string, error) {
	if r.dfa != nil {
		return []string{encode([]int{0})}, nil
	}
	return []string{encode(r.start)}, nil
}

// positions returns the set of positions a state stands for.
func (r *Regex) positions(state string) []int {
	if r.dfa == nil {
		return decode(state)
	}
	if c := decode(state); len(c) == 1 && c[0] < len(r.dfa.rep) {
		return r.dfa.rep[c[0]]
	}
	return nil
}

// Step follows every position's pattern that takes the step.
func (r *Regex) Step(state string, action int, args []model.Value, out model.Value) ([]string, string, error) {
	if r.dfa != nil {
		c := decode(state)
		l := r.letter(r.canon, func(p *pattern) bool { return p.matches(action, args, out) })
		if len(c) != 1 || c[0] >= len(r.dfa.next) || l < 0 || r.dfa.next[c[0]][l] < 0 {
			return nil, r.expected(state), nil
		}
		return []string{encode([]int{int(r.dfa.next[c[0]][l])})}, "", nil
	}
	var next []int
	for _, s := range decode(state) {
		st := r.states[s]
		if st.pat >= 0 && r.patterns[st.pat].matches(action, args, out) {
			next = append(next, st.next)
		}
	}
	if len(next) == 0 {
		return nil, r.expected(state), nil
	}
	return []string{encode(r.closure(next))}, "", nil
}

// expected says what the scenario allows in the state.
func (r *Regex) expected(state string) string {
	ps := r.next(state)
	if len(ps) == 0 {
		return "the scenario has ended"
	}
	return "expects " + strings.Join(ps, " | ")
}

// next lists the patterns the state offers, in the scenario's order.
func (r *Regex) next(state string) []string {
	var pats []int
	for _, s := range r.positions(state) {
		if p := r.states[s].pat; p >= 0 && !slices.Contains(pats, p) {
			pats = append(pats, p)
		}
	}
	slices.Sort(pats)
	var out []string
	for _, p := range pats {
		if t := r.patterns[p].text; !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	return out
}

// AcceptPrefixes makes every prefix of the scenario accepted: a test may
// end wherever the model's accepting(s) allows, the scenario only says
// what may happen. Call it before making runners.
func (r *Regex) AcceptPrefixes() { r.prefixes = true }

// Accepting reports whether the state holds the automaton's end (every
// state, when the scenario accepts its prefixes: every position of the
// automaton leads to its end).
func (r *Regex) Accepting(state string) (bool, error) {
	return r.prefixes || r.ended(state), nil
}

// ended reports whether the scenario may end in the state.
func (r *Regex) ended(state string) bool { return slices.Contains(r.positions(state), r.final) }

// Position says what may come next and whether the scenario may end.
func (r *Regex) Position(state string) string {
	ps := r.next(state)
	ok := r.ended(state)
	switch {
	case len(ps) == 0 && ok:
		return "ended"
	case len(ps) == 0:
		return "stuck"
	case ok:
		return "next " + strings.Join(ps, " | ") + " (or end)"
	}
	return "next " + strings.Join(ps, " | ")
}

// SetBudget does nothing: a regular scenario runs no model code.
func (r *Regex) SetBudget(uint64) {}

// Cancel does nothing: a regular scenario runs no model code.
func (r *Regex) Cancel(string) {}
