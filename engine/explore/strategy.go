package explore

import (
	"fmt"
	"sort"

	"github.com/modex/modex/engine/model"
)

// Game is a state graph read as a game between the tester and the
// implementation (seed 000 §2: offline test cases as game strategies). At a
// state with a controllable transition the tester moves: it picks one, or
// waits — at the active twin of a passive state it may go back to waiting
// for events (seed 000's algorithm observes again), and at a state where
// both may act (a graph without timeouts) waiting hands the move to the
// implementation (a node of its own, after the graph's states). At a state
// with only observable, internal or timeout transitions (a passive state)
// the implementation moves: any of them may happen. An event that leaves
// the state as it was (a self-loop) is waited through.
type Game struct {
	G     *Graph
	Edges []GEdge
	Out   [][]int // edges leaving each node
	In    [][]int // edges entering each node
	Impl  []bool  // the implementation moves at the node
	// Owner is the graph state a node stands for (itself for the graph's
	// states, the state it waits in for a waiting node).
	Owner []int
}

// GEdge is a move of the game: a transition of the graph (Trans), or the
// tester's waiting (Trans -1).
type GEdge struct {
	From, To int
	Trans    int
}

// Game builds the game of a graph.
func (g *Graph) Game() *Game {
	n := len(g.States)
	gm := &Game{G: g, Owner: make([]int, n)}
	ctl, other := make([]bool, n), make([]bool, n)
	for i := range gm.Owner {
		gm.Owner[i] = i
	}
	for _, t := range g.Trans {
		if t.Kind == model.Controllable {
			ctl[t.From] = true
		} else if t.Kind != model.Timeout {
			other[t.From] = true
		}
	}
	waitNode := make([]int, n)
	for i := range waitNode {
		waitNode[i] = -1
		if ctl[i] && other[i] {
			waitNode[i] = len(gm.Owner)
			gm.Owner = append(gm.Owner, i)
			gm.Edges = append(gm.Edges, GEdge{From: i, To: waitNode[i], Trans: -1})
		}
	}
	for ti, t := range g.Trans {
		from := t.From
		if t.Kind != model.Controllable && waitNode[from] >= 0 {
			from = waitNode[from]
		}
		gm.Edges = append(gm.Edges, GEdge{From: from, To: t.To, Trans: ti})
		if t.Kind == model.Timeout && t.To != t.From {
			gm.Edges = append(gm.Edges, GEdge{From: t.To, To: t.From, Trans: -1}) // the active twin waits again
		}
	}
	nodes := len(gm.Owner)
	gm.Out, gm.In, gm.Impl = make([][]int, nodes), make([][]int, nodes), make([]bool, nodes)
	tester := make([]bool, nodes)
	for ei, e := range gm.Edges {
		gm.Out[e.From] = append(gm.Out[e.From], ei)
		gm.In[e.To] = append(gm.In[e.To], ei)
		if e.Trans < 0 || g.Trans[e.Trans].Kind == model.Controllable {
			tester[e.From] = true
		}
	}
	for v := range gm.Impl {
		gm.Impl[v] = !tester[v] && len(gm.Out[v]) > 0
	}
	return gm
}

// testerMove says whether the tester may take edge e.
func (gm *Game) testerMove(e int) bool {
	t := gm.Edges[e].Trans
	return t < 0 || gm.G.Trans[t].Kind == model.Controllable
}

// Attractor is where the tester can force the game into a goal (goal
// functions are asked about every node: the graph's states, then the
// nodes where the tester waits): Rank is
// the least worst-case number of transitions to a goal state (0 in one, -1
// where it cannot be forced), Move the transition the tester takes at its
// own states (-1 elsewhere).
type Attractor struct {
	Rank []int
	Move []int
}

// Forced says whether the tester can force a goal from node i.
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
	n := len(gm.Owner)
	a := &Attractor{Rank: make([]int, n), Move: make([]int, n)}
	left := make([]int, n) // an implementation node's successors not yet forced
	var queue []int
	for v := 0; v < n; v++ {
		a.Rank[v], a.Move[v] = -1, -1
		if goal(v) {
			a.Rank[v] = 0
			queue = append(queue, v)
			continue
		}
		if gm.Impl[v] {
			for _, e := range gm.Out[v] {
				if gm.Edges[e].To != gm.Owner[v] {
					left[v]++
				}
			}
		}
	}
	for len(queue) > 0 {
		w := queue[0]
		queue = queue[1:]
		for _, e := range gm.In[w] {
			u := gm.Edges[e].From
			if a.Rank[u] >= 0 || gm.Owner[u] == w {
				continue
			}
			if !gm.Impl[u] || coop {
				if !gm.Impl[u] && !gm.testerMove(e) {
					continue // the tester moves by its own actions
				}
				a.Rank[u], a.Move[u] = a.Rank[w]+1, e
				queue = append(queue, u)
				continue
			}
			if left[u]--; left[u] == 0 {
				a.Rank[u] = a.Rank[w] + 1
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
	n := len(gm.Owner)
	in := make([]bool, n)
	isGoal := make([]bool, n)
	for v := range in {
		in[v] = true
		isGoal[v] = goal(v)
	}
	for {
		a := gm.within(in, isGoal)
		changed := false
		for v := 0; v < n; v++ {
			if !in[v] {
				continue
			}
			out := a.Rank[v] < 0
			if !out && gm.Impl[v] && !isGoal[v] {
				for _, e := range gm.Out[v] {
					if !in[gm.Edges[e].To] {
						out = true
					}
				}
			}
			if out {
				in[v], changed = false, true
			}
		}
		if !changed {
			return a
		}
	}
}

// within is the shortest way to a goal inside the nodes marked in,
// whoever moves (the tester by its own moves).
func (gm *Game) within(in, goal []bool) *Attractor {
	n := len(gm.Owner)
	a := &Attractor{Rank: make([]int, n), Move: make([]int, n)}
	var queue []int
	for v := 0; v < n; v++ {
		a.Rank[v], a.Move[v] = -1, -1
		if in[v] && goal[v] {
			a.Rank[v] = 0
			queue = append(queue, v)
		}
	}
	for len(queue) > 0 {
		w := queue[0]
		queue = queue[1:]
		for _, e := range gm.In[w] {
			u := gm.Edges[e].From
			if !in[u] || a.Rank[u] >= 0 || !gm.Impl[u] && !gm.testerMove(e) {
				continue
			}
			a.Rank[u] = a.Rank[w] + 1
			if !gm.Impl[u] {
				a.Move[u] = e
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
	gm, live, reach, initial, finish, err := g.strategyGame()
	if err != nil {
		return nil, err
	}
	s := &Suite{Format: SuiteFormat2, Coverage: "transitions", States: len(g.States), Trans: len(g.Trans)}
	order := g.bfsOrder(initial)
	var goals []int
	for ti, t := range g.Trans {
		if t.ModelTrans != startTrans && reach[t.From] && live[t.From] && live[t.To] {
			goals = append(goals, ti)
		}
	}
	sort.SliceStable(goals, func(i, j int) bool { return order[g.Trans[goals[i]].From] < order[g.Trans[goals[j]].From] })
	s.LowerBound = len(goals)
	covered, index := map[int]bool{}, g.transIndex()
	for _, ti := range goals {
		if covered[ti] {
			continue
		}
		c, ok := gm.planCase(initial, ti, finish)
		if !ok {
			continue
		}
		if err := s.addCase(c); err != nil {
			return nil, err
		}
		markTrunk(c.Steps, index, covered)
		covered[ti] = true
	}
	s.Covered = len(covered)
	return s, nil
}

// strategyGame is what both strategy suites start from: the game of a
// graph with one initial state, its live and reached states, and the
// strategy to an accepting state (forced under fairness, else the
// shortest way).
func (g *Graph) strategyGame() (gm *Game, live, reach []bool, initial int, finish *Attractor, err error) {
	if err := g.oneInitial(); err != nil {
		return nil, nil, nil, 0, nil, err
	}
	live, reach, initial = g.live()
	if initial < 0 {
		return nil, nil, nil, 0, nil, fmt.Errorf("the graph has no initial state")
	}
	gm = g.Game()
	accepting := func(v int) bool { return v < len(g.States) && g.States[v].Accepting && g.States[v].Error == "" }
	finish = gm.FairAttractor(accepting)
	if finish.Rank[initial] < 0 {
		finish = gm.Reach(accepting)
	}
	return gm, live, reach, initial, finish, nil
}

// addCase numbers a strategy case and counts it in the suite's figures;
// it refuses it when the suite's file would pass MaxSuiteSize, which
// `modex run` would refuse to read (8,000 states gave a suite of 369 MB
// and took 1.9 GB to make).
func (s *Suite) addCase(c SuiteCase) error {
	s.size += c.jsonSize()
	if s.size > maxSuiteBytes {
		return fmt.Errorf("the suite's file would pass %d MiB by its case %d (a suite is read back up to that size): narrow the configuration (filters, max_states, fewer parameter values) or cover states instead of transitions", MaxSuiteSize>>20, len(s.Cases)+1)
	}
	c.Name = fmt.Sprintf("case %d", len(s.Cases)+1)
	if c.Forced {
		s.Forced++
	} else {
		s.BestEffort++
	}
	s.Cases = append(s.Cases, c)
	s.Length += len(c.Steps)
	s.Steps += c.Actions()
	s.Timeouts += len(c.Steps) - c.Actions()
	return nil
}

// maxSuiteBytes is MaxSuiteSize (a variable for tests).
var maxSuiteBytes int64 = MaxSuiteSize

// jsonSize estimates the bytes of a case in a suite file (WriteJSON's
// indented JSON): its steps' and plan's strings and their keys.
func (c *SuiteCase) jsonSize() int64 {
	step := func(st *SuiteStep) int64 {
		n := int64(160 + len(st.Kind) + len(st.Action) + len(st.Output) + len(st.Label) + len(st.From) + len(st.To) + len(st.At))
		for _, a := range st.Args {
			n += int64(8 + len(a))
		}
		return n
	}
	n := int64(200 + len(c.Name))
	for i := range c.Steps {
		n += step(&c.Steps[i])
	}
	if p := c.Plan; p != nil {
		n += 300 + step(&p.Goal)
		for _, part := range [][]SuiteStep{p.Moves, p.Finish, p.Waits} {
			for i := range part {
				n += step(&part[i])
			}
		}
		for _, e := range p.Ends {
			n += int64(8 + len(e))
		}
	}
	return n
}

// planCase plans the case for transition ti: the tester's moves to its
// source, the goal, the moves to an accepting state, the implementation's
// choices at the states on the way, and the main line. The goal's node is
// its source, or — for an event at a state where both may act — the node
// where the tester waits there.
func (gm *Game) planCase(initial, ti int, finish *Attractor) (SuiteCase, bool) {
	g := gm.G
	from := g.Trans[ti].From
	goalNode := from
	for _, e := range gm.Out[from] {
		if gm.Edges[e].Trans < 0 && gm.Edges[e].To >= len(g.States) && g.Trans[ti].Kind != model.Controllable {
			goalNode = gm.Edges[e].To
		}
	}
	goal := g.step(ti)
	label := goal.Label
	if label == "" {
		label = "timeout"
	}
	controllable := g.Trans[ti].Kind == model.Controllable
	c := SuiteCase{Goal: label + " at " + g.States[from].ID, Plan: &Plan{Start: g.States[initial].ID, Goal: goal}}
	canForce, ok := gm.plan(&c, initial, goalNode, controllable, ti, g.Trans[ti].To, finish)
	c.Forced = canForce && controllable
	return c, ok
}

// plan fills in case c's plan and main line: the strategy to goalNode
// (forced under fairness where it can be, else the shortest way), where
// the goal transition goalTrans is taken (-1: reaching the node is the
// goal; takes says the tester takes it there), then the strategy to an
// accepting state from next and from every state on the way (a run whose
// goal does not happen gives it up and finishes). canForce says the goal
// is forced; ok that the case can be run to an accepting state.
func (gm *Game) plan(c *SuiteCase, initial, goalNode int, takes bool, goalTrans, next int, finish *Attractor) (canForce, ok bool) {
	isGoal := func(v int) bool { return v == goalNode }
	to := gm.FairAttractor(isGoal)
	canForce = to.Forced(initial)
	if !canForce {
		to = gm.Reach(isGoal)
	}
	if !to.Forced(initial) || !finish.Forced(next) {
		return false, false
	}
	seen := map[int]bool{}
	pl := planner{gm: gm, waited: map[string]bool{}}
	pl.moves(initial, to, &c.Plan.Moves, &c.Plan.Waits, seen, goalNode, takes)
	pl.finish(next, finish, c.Plan, seen)
	c.Steps = gm.mainLine(initial, goalTrans, goalNode, to, finish)
	return canForce, len(c.Steps) > 0
}

// finish plans the moves to an accepting state from u, and from every
// node seen on the way to the goal (in order: the plan is the same from
// run to run), and the ends.
func (pl *planner) finish(u int, finish *Attractor, p *Plan, seen map[int]bool) {
	g := pl.gm.G
	seenF := map[int]bool{}
	pl.moves(u, finish, &p.Finish, &p.Waits, seenF, -1, false)
	for v := range pl.gm.Owner {
		if seen[v] && !seenF[v] && finish.Rank[v] >= 0 {
			pl.moves(v, finish, &p.Finish, &p.Waits, seenF, -1, false)
		}
	}
	for v := range g.States {
		if seenF[v] && finish.Rank[v] == 0 {
			p.Ends = append(p.Ends, g.States[v].ID)
		}
	}
}

// planState plans the case to reach state target (state coverage): the
// plan's GoalState is the target; reaching it, the run finishes.
func (gm *Game) planState(initial, target int, finish *Attractor) (SuiteCase, bool) {
	g := gm.G
	c := SuiteCase{Goal: g.States[target].ID, Plan: &Plan{Start: g.States[initial].ID, GoalState: g.States[target].ID}}
	var ok bool
	c.Forced, ok = gm.plan(&c, initial, target, true, -1, target, finish)
	return c, ok
}

// StrategyStates generates a state-coverage suite of game strategies: one
// case per target state (nil: every live state reached from the initial
// one) that forces the run there where the tester can, then on to an
// accepting state (see StrategySuite).
func (g *Graph) StrategyStates(targets []int) (*Suite, error) {
	gm, live, reach, initial, finish, err := g.strategyGame()
	if err != nil {
		return nil, err
	}
	if targets == nil {
		for i := range g.States {
			if live[i] && reach[i] {
				targets = append(targets, i)
			}
		}
	}
	s := &Suite{Format: SuiteFormat2, Coverage: "states", States: len(g.States), Trans: len(g.Trans), LowerBound: len(targets)}
	for _, tg := range targets {
		if tg == initial {
			s.Covered++ // every case starts there
			continue
		}
		c, ok := gm.planState(initial, tg, finish)
		if !ok {
			s.Dead = append(s.Dead, g.States[tg].ID)
			continue
		}
		if err := s.addCase(c); err != nil {
			return nil, err
		}
		s.Covered++
	}
	if len(s.Cases) == 0 {
		return nil, fmt.Errorf("no target state can be reached and left for an accepting state")
	}
	return s, nil
}

// planner records a plan's steps, each of the implementation's choices once.
type planner struct {
	gm     *Game
	waited map[string]bool
}

// wait records the implementation's choices at node v, as steps from the
// graph state at (the state the tester is in).
func (pl *planner) wait(v int, at string, waits *[]SuiteStep) {
	g := pl.gm.G
	for _, e := range pl.gm.Out[v] {
		if ti := pl.gm.Edges[e].Trans; ti >= 0 {
			st := g.step(ti)
			if at != st.From {
				st.At = at
			}
			if k := at + "|" + st.From + "|" + st.To + "|" + st.Label; !pl.waited[k] {
				pl.waited[k] = true
				*waits = append(*waits, st)
			}
		}
	}
}

// moves records, for the nodes the strategy a may lead to from u (until
// the goal node stop), the tester's move at its nodes and the
// implementation's choices at the others. At a state where the tester
// waits, the choices are those of the node it waits in.
func (pl *planner) moves(u int, a *Attractor, moves, waits *[]SuiteStep, seen map[int]bool, stop int, stopTakes bool) {
	gm, g := pl.gm, pl.gm.G
	stack := []int{u}
	seen[u] = true
	for len(stack) > 0 {
		v := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if v == stop && stopTakes || stop < 0 && a.Rank[v] == 0 {
			continue // the goal step is taken here, or the case ends
		}
		var next []int
		switch {
		case !gm.Impl[v] && a.Move[v] < 0:
			continue
		case !gm.Impl[v] && gm.Edges[a.Move[v]].Trans >= 0:
			*moves = append(*moves, g.step(gm.Edges[a.Move[v]].Trans))
			next = []int{gm.Edges[a.Move[v]].To}
		case !gm.Impl[v]:
			// The tester waits: the choices of the node it waits in.
			w := gm.Edges[a.Move[v]].To
			pl.wait(w, g.States[gm.Owner[v]].ID, waits)
			for _, e := range gm.Out[w] {
				next = append(next, gm.Edges[e].To)
			}
		default:
			pl.wait(v, g.States[gm.Owner[v]].ID, waits)
			for _, e := range gm.Out[v] {
				next = append(next, gm.Edges[e].To)
			}
		}
		for _, w := range next {
			if !seen[w] {
				seen[w] = true
				stack = append(stack, w)
			}
		}
	}
}

// mainLine is the run the plan hopes for: at the implementation's nodes
// the choice nearest the goal (the goal itself when it is one).
func (gm *Game) mainLine(initial, goalTrans, goalNode int, to, finish *Attractor) []SuiteStep {
	g := gm.G
	var steps []SuiteStep
	v, a, done := initial, to, false
	for n := 0; n <= 4*len(gm.Owner); n++ {
		if !done && v == goalNode && goalTrans < 0 {
			a, done = finish, true // a state to reach: reached
			continue
		}
		if !done && v == goalNode && g.Trans[goalTrans].Kind == model.Controllable {
			steps = append(steps, g.step(goalTrans))
			v, a, done = g.Trans[goalTrans].To, finish, true
			continue
		}
		if done && a.Rank[v] == 0 {
			return steps
		}
		e := a.Move[v]
		if gm.Impl[v] {
			e = -1
			for _, o := range gm.Out[v] {
				if !done && goalTrans >= 0 && gm.Edges[o].Trans == goalTrans {
					e = o
					break
				}
				if w := gm.Edges[o].To; w != gm.Owner[v] && a.Rank[w] >= 0 && (e < 0 || a.Rank[w] < a.Rank[gm.Edges[e].To]) {
					e = o
				}
			}
		}
		if e < 0 {
			return nil
		}
		if ti := gm.Edges[e].Trans; ti >= 0 {
			steps = append(steps, g.step(ti))
			if !done && goalTrans >= 0 && ti == goalTrans {
				a, done = finish, true
			}
		}
		v = gm.Edges[e].To
	}
	return nil
}

// transIndex finds a transition by its step's from, to and label.
func (g *Graph) transIndex() map[[3]string]int {
	index := make(map[[3]string]int, len(g.Trans))
	for ti := range g.Trans {
		t := &g.Trans[ti]
		index[[3]string{g.States[t.From].ID, g.States[t.To].ID, t.Label()}] = ti
	}
	return index
}

// markTrunk marks the transitions of a case's trunk (its steps before the
// first choice of the implementation) as covered; index is transIndex's.
func markTrunk(steps []SuiteStep, index map[[3]string]int, covered map[int]bool) {
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

// oneInitial refuses graphs with several initial states: a strategy's plan
// starts in one known state (the linear suites start in all of them).
func (g *Graph) oneInitial() error {
	n := 0
	for i := range g.States {
		if g.States[i].Initial {
			n++
		}
	}
	if n > 1 {
		return fmt.Errorf("the model has %d initial states; strategy suites start in one (use the linear suites, or a configuration with one initial state)", n)
	}
	return nil
}
