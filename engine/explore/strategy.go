package explore

import (
	"fmt"
	"sort"

	"github.com/modex/modex/engine/model"
)

// Game is a state graph read as a game between the tester and the
// implementation (seed 000 §2: offline test cases as game strategies). At a
// state with a controllable transition the tester moves: it picks one. At a
// state with only observable, internal or timeout transitions (a passive
// state) the implementation moves: any of them may happen. An event that
// leaves the state as it was (a self-loop) is waited through: the
// implementation is assumed not to repeat it forever.
type Game struct {
	G    *Graph
	Out  [][]int // transitions leaving each state
	In   [][]int // transitions entering each state
	Impl []bool  // the implementation moves at the state
}

// Game builds the game of a graph.
func (g *Graph) Game() *Game {
	n := len(g.States)
	gm := &Game{G: g, Out: make([][]int, n), In: make([][]int, n), Impl: make([]bool, n)}
	ctl := make([]bool, n)
	for i, t := range g.Trans {
		gm.Out[t.From] = append(gm.Out[t.From], i)
		gm.In[t.To] = append(gm.In[t.To], i)
		if t.Kind == model.Controllable {
			ctl[t.From] = true
		}
	}
	for i := range gm.Impl {
		gm.Impl[i] = !ctl[i] && len(gm.Out[i]) > 0
	}
	return gm
}

// Attractor is where the tester can force the game into a goal: Rank is
// the least worst-case number of transitions to a goal state (0 in one, -1
// where it cannot be forced), Move the transition the tester takes at its
// own states (-1 elsewhere).
type Attractor struct {
	Rank []int
	Move []int
}

// Forced says whether the tester can force a goal from state i.
func (a *Attractor) Forced(i int) bool { return a.Rank[i] >= 0 }

// Attractor computes the tester's attractor of the goal states: alternating
// reachability, backwards from the goals in order of rank (a breadth-first
// search whose implementation states wait for their last successor — the
// worst case — and tester states take their first — the best).
func (gm *Game) Attractor(goal func(int) bool) *Attractor { return gm.attract(goal, false) }

// Reach is Attractor as if the implementation cooperated: the shortest way
// to a goal whoever moves (Move set at the implementation's states too).
// Best-effort cases follow it where the goal cannot be forced.
func (gm *Game) Reach(goal func(int) bool) *Attractor { return gm.attract(goal, true) }

func (gm *Game) attract(goal func(int) bool, coop bool) *Attractor {
	n := len(gm.G.States)
	a := &Attractor{Rank: make([]int, n), Move: make([]int, n)}
	left := make([]int, n) // an implementation state's successors not yet forced
	var queue []int
	for i := 0; i < n; i++ {
		a.Rank[i], a.Move[i] = -1, -1
		if goal(i) {
			a.Rank[i] = 0
			queue = append(queue, i)
			continue
		}
		if gm.Impl[i] {
			for _, ti := range gm.Out[i] {
				if gm.G.Trans[ti].To != i {
					left[i]++
				}
			}
		}
	}
	for len(queue) > 0 {
		v := queue[0]
		queue = queue[1:]
		for _, ti := range gm.In[v] {
			u := gm.G.Trans[ti].From
			if a.Rank[u] >= 0 || u == v {
				continue
			}
			if !gm.Impl[u] || coop {
				if !gm.Impl[u] && gm.G.Trans[ti].Kind != model.Controllable {
					continue // the tester moves by its own actions
				}
				a.Rank[u], a.Move[u] = a.Rank[v]+1, ti
				queue = append(queue, u)
				continue
			}
			if left[u]--; left[u] == 0 {
				a.Rank[u] = a.Rank[v] + 1
				queue = append(queue, u)
			}
		}
	}
	return a
}

// FairAttractor is Attractor when the implementation is fair: it may
// choose anything at its states, but not avoid a choice forever (seed
// 000's timeouts: at a passive state either an event comes or the timeout
// does). The tester forces a goal from the states of the largest set W in
// which every implementation state's choices stay in W, every tester state
// has a move that stays in W, and a goal can be reached from each state of
// W (almost-sure reachability). Rank is the shortest way to a goal within
// W, Move the tester's move along it.
func (gm *Game) FairAttractor(goal func(int) bool) *Attractor {
	n := len(gm.G.States)
	in := make([]bool, n)
	for i := range in {
		in[i] = true
	}
	isGoal := make([]bool, n)
	for i := range isGoal {
		isGoal[i] = goal(i)
	}
	for {
		a := gm.within(in, isGoal)
		changed := false
		for u := 0; u < n; u++ {
			if !in[u] {
				continue
			}
			out := a.Rank[u] < 0
			if !out && gm.Impl[u] && !isGoal[u] {
				for _, ti := range gm.Out[u] {
					if !in[gm.G.Trans[ti].To] {
						out = true
					}
				}
			}
			if out {
				in[u], changed = false, true
			}
		}
		if !changed {
			return a
		}
	}
}

// within is the shortest way to a goal inside the states marked in,
// whoever moves (the tester by its own actions).
func (gm *Game) within(in, goal []bool) *Attractor {
	n := len(gm.G.States)
	a := &Attractor{Rank: make([]int, n), Move: make([]int, n)}
	var queue []int
	for i := 0; i < n; i++ {
		a.Rank[i], a.Move[i] = -1, -1
		if in[i] && goal[i] {
			a.Rank[i] = 0
			queue = append(queue, i)
		}
	}
	for len(queue) > 0 {
		v := queue[0]
		queue = queue[1:]
		for _, ti := range gm.In[v] {
			u := gm.G.Trans[ti].From
			if !in[u] || a.Rank[u] >= 0 || !gm.Impl[u] && gm.G.Trans[ti].Kind != model.Controllable {
				continue
			}
			a.Rank[u] = a.Rank[v] + 1
			if !gm.Impl[u] {
				a.Move[u] = ti
			}
			queue = append(queue, u)
		}
	}
	return a
}

// StrategySuite generates a transition-coverage suite of game strategies
// (seed 000 §2): for each transition to cover, nearest first, a case whose
// plan says what the tester does at each state it may be in on the way
// (a positional strategy: its move at its own states, the implementation's
// possible choices at the others) until the transition is taken, then on
// to an accepting state. The runner follows the plan whatever the
// implementation chooses, so a case no longer goes inconclusive at the
// first event it did not guess. A case is forced when the tester reaches
// its goal against any fair implementation (FairAttractor), else a best
// effort (the shortest way, hoping the implementation cooperates; an
// observable action can only be hoped for). The cover is greedy: a
// transition that an earlier case takes before the implementation first
// chooses needs no case of its own. Steps is each case's main line: the
// run when the implementation makes the choices the plan hopes for.
func (g *Graph) StrategySuite() (*Suite, error) {
	states, trans := len(g.States), len(g.Trans)
	g, _ = g.rooted()
	live, reach, initial := g.live()
	if initial < 0 {
		return nil, fmt.Errorf("the graph has no initial state")
	}
	gm := g.Game()
	accepting := func(i int) bool { return g.States[i].Accepting && g.States[i].Error == "" }
	finish := gm.FairAttractor(accepting)
	if finish.Rank[initial] < 0 {
		finish = gm.Reach(accepting)
	}
	s := &Suite{Format: SuiteFormat2, Coverage: "transitions", States: states, Trans: trans}
	order := g.bfsOrder(initial)
	var goals []int
	for ti, t := range g.Trans {
		if t.ModelTrans != startTrans && reach[t.From] && live[t.From] && live[t.To] {
			goals = append(goals, ti)
		}
	}
	sort.SliceStable(goals, func(i, j int) bool { return order[g.Trans[goals[i]].From] < order[g.Trans[goals[j]].From] })
	s.LowerBound = len(goals)
	covered := map[int]bool{}
	for _, ti := range goals {
		if covered[ti] {
			continue
		}
		c, ok := gm.planCase(initial, ti, finish)
		if !ok {
			continue
		}
		c.Name = fmt.Sprintf("case %d", len(s.Cases)+1)
		if c.Forced {
			s.Forced++
		} else {
			s.BestEffort++
		}
		s.Cases = append(s.Cases, c)
		g.markTrunk(c.Steps, covered)
		covered[ti] = true
		s.Length += len(c.Steps)
		s.Steps += c.Actions()
		s.Timeouts += len(c.Steps) - c.Actions()
	}
	s.Covered = len(covered)
	return s, nil
}

// planCase plans the case for transition ti: the tester's moves to its
// source, the goal, the moves to an accepting state, the implementation's
// choices at the states on the way, and the main line.
func (gm *Game) planCase(initial, ti int, finish *Attractor) (SuiteCase, bool) {
	g := gm.G
	from := g.Trans[ti].From
	to := gm.FairAttractor(func(i int) bool { return i == from })
	forced := to.Forced(initial) && !gm.Impl[from] && finish.Forced(g.Trans[ti].To)
	if !to.Forced(initial) {
		to = gm.Reach(func(i int) bool { return i == from })
	}
	if !to.Forced(initial) || !finish.Forced(g.Trans[ti].To) {
		return SuiteCase{}, false
	}
	goal := g.step(ti)
	label := goal.Label
	if label == "" {
		label = "timeout"
	}
	p := &Plan{Start: g.States[initial].ID, Goal: goal}
	seen := map[int]bool{}
	gm.planMoves(initial, to, &p.Moves, &p.Waits, seen, from)
	// Finishing is planned from the goal's target, and from every state on
	// the way (a run whose goal does not happen gives it up and finishes).
	seenF := map[int]bool{}
	gm.planMoves(g.Trans[ti].To, finish, &p.Finish, &p.Waits, seenF, -1)
	for i := range g.States {
		if seen[i] && !seenF[i] && finish.Rank[i] >= 0 {
			gm.planMoves(i, finish, &p.Finish, &p.Waits, seenF, -1)
		}
	}
	for i := range g.States {
		if seenF[i] && finish.Rank[i] == 0 {
			p.Ends = append(p.Ends, g.States[i].ID)
		}
	}
	c := SuiteCase{Goal: label + " at " + g.States[from].ID, Forced: forced, Plan: p}
	c.Steps = gm.mainLine(initial, ti, to, finish)
	return c, len(c.Steps) > 0
}

// planMoves records, for the states the strategy a may lead to from u
// (until stop), the tester's move at its states and the implementation's
// choices at the others (each state once; waits shared by both phases).
func (gm *Game) planMoves(u int, a *Attractor, moves, waits *[]SuiteStep, seen map[int]bool, stop int) {
	g := gm.G
	stack := []int{u}
	seen[u] = true
	waited := map[string]bool{}
	for _, w := range *waits {
		waited[w.From+"|"+w.To+"|"+w.Label] = true
	}
	for len(stack) > 0 {
		v := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if v == stop && !gm.Impl[v] || stop < 0 && a.Rank[v] == 0 {
			continue // the goal step is taken here, or the case ends
		}
		var next []int
		if !gm.Impl[v] {
			if a.Move[v] < 0 {
				continue
			}
			*moves = append(*moves, g.step(a.Move[v]))
			next = []int{a.Move[v]}
		} else {
			next = gm.Out[v]
			for _, ti := range next {
				st := g.step(ti)
				if k := st.From + "|" + st.To + "|" + st.Label; !waited[k] {
					waited[k] = true
					*waits = append(*waits, st)
				}
			}
		}
		for _, ti := range next {
			if w := g.Trans[ti].To; !seen[w] {
				seen[w] = true
				stack = append(stack, w)
			}
		}
	}
}

// mainLine is the run the plan hopes for: at the implementation's states
// the choice nearest the goal (the goal itself when it is one).
func (gm *Game) mainLine(initial, goalTrans int, to, finish *Attractor) []SuiteStep {
	g := gm.G
	var steps []SuiteStep
	u, a, done := initial, to, false
	for n := 0; n <= 4*len(g.States); n++ {
		if !done && u == g.Trans[goalTrans].From && !gm.Impl[u] {
			steps = append(steps, g.step(goalTrans))
			u, a, done = g.Trans[goalTrans].To, finish, true
			continue
		}
		if done && a.Rank[u] == 0 {
			return steps
		}
		ti := a.Move[u]
		if gm.Impl[u] {
			ti = -1
			for _, t := range gm.Out[u] {
				if !done && t == goalTrans {
					ti = t
					break
				}
				if w := g.Trans[t].To; w != u && a.Rank[w] >= 0 && (ti < 0 || a.Rank[w] < a.Rank[g.Trans[ti].To]) {
					ti = t
				}
			}
		}
		if ti < 0 {
			return nil
		}
		steps = append(steps, g.step(ti))
		if !done && ti == goalTrans {
			a, done = finish, true
		}
		u = g.Trans[ti].To
	}
	return nil
}

// markTrunk marks the transitions of a case's trunk (its steps before the
// first choice of the implementation) as covered.
func (g *Graph) markTrunk(steps []SuiteStep, covered map[int]bool) {
	index := map[[3]string]int{}
	for ti := range g.Trans {
		t := &g.Trans[ti]
		index[[3]string{g.States[t.From].ID, g.States[t.To].ID, t.Label()}] = ti
	}
	for _, st := range steps {
		if st.Kind != "controllable" {
			return
		}
		if ti, ok := index[[3]string{st.From, st.To, st.Label}]; ok {
			covered[ti] = true
		}
	}
}

// bfsOrder numbers the states in breadth-first order from start (those it
// does not reach last).
func (g *Graph) bfsOrder(start int) []int {
	order := make([]int, len(g.States))
	for i := range order {
		order[i] = len(order)
	}
	out := make([][]int, len(g.States))
	for i, t := range g.Trans {
		out[t.From] = append(out[t.From], i)
	}
	order[start] = 0
	queue, n := []int{start}, 1
	for len(queue) > 0 {
		u := queue[0]
		queue = queue[1:]
		for _, ti := range out[u] {
			if v := g.Trans[ti].To; order[v] == len(order) {
				order[v] = n
				n++
				queue = append(queue, v)
			}
		}
	}
	return order
}
