package graph

import "fmt"

// ShortestPath is the shortest path (transition indices) from the state
// from to the nearest state for which goal is true, and whether there is
// one (from itself counts: an empty path).
func (d *Doc) ShortestPath(from string, goal func(*State) bool) ([]int, bool) {
	index := make(map[string]int, len(d.States))
	for i, s := range d.States {
		index[s.ID] = i
	}
	start, ok := index[from]
	if !ok {
		return nil, false
	}
	out := make([][]int, len(d.States))
	for ti, t := range d.Transitions {
		if a, ok := index[t.From]; ok {
			out[a] = append(out[a], ti)
		}
	}
	via := make([]int, len(d.States)) // transition into each state, -2 unseen
	for i := range via {
		via[i] = -2
	}
	via[start] = -1
	queue := []int{start}
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		if goal(&d.States[s]) {
			var path []int
			for v := s; via[v] >= 0; v = index[d.Transitions[via[v]].From] {
				path = append(path, via[v])
			}
			for i, j := 0, len(path)-1; i < j; i, j = i+1, j-1 {
				path[i], path[j] = path[j], path[i]
			}
			return path, true
		}
		for _, ti := range out[s] {
			if n := index[d.Transitions[ti].To]; via[n] == -2 {
				via[n] = ti
				queue = append(queue, n)
			}
		}
	}
	return nil, false
}

// FoldPrefix starts the ids of the nodes PathView adds for folded moves.
const FoldPrefix = "fold_"

// PathView draws a path as a straight chain: the states along it, in
// order, joined by the path's transitions; at each state, the moves the
// path does not take are folded into one dashed node ("3 other moves")
// with their labels in its tooltip. start is the path's first state (the
// one state of an empty path).
func (d *Doc) PathView(start string, path []int) *Doc {
	out := &Doc{Stats: d.Stats}
	on := map[string]bool{}
	add := func(id string) {
		if on[id] {
			return
		}
		on[id] = true
		if i := d.StateIndex(id); i >= 0 {
			out.States = append(out.States, d.States[i])
		}
	}
	add(start)
	taken := map[int]bool{}
	for _, ti := range path {
		t := d.Transitions[ti]
		add(t.From)
		add(t.To)
		taken[ti] = true
		out.Transitions = append(out.Transitions, t)
	}
	others := map[string][]string{}
	for ti, t := range d.Transitions {
		if on[t.From] && !taken[ti] {
			label := t.Label
			if label == "" {
				label = "timeout"
			}
			others[t.From] = append(others[t.From], label+" → "+t.To)
		}
	}
	for _, s := range append([]State(nil), out.States...) {
		moves := others[s.ID]
		if len(moves) == 0 {
			continue
		}
		id := FoldPrefix + s.ID
		vars := Vars{}
		for i, m := range moves {
			if i == 20 {
				vars = append(vars, Var{Name: "…", Value: fmt.Sprintf("%d more", len(moves)-20)})
				break
			}
			vars = append(vars, Var{Name: fmt.Sprint(i + 1), Value: m})
		}
		words := "1 other move"
		if len(moves) > 1 {
			words = fmt.Sprintf("%d other moves", len(moves))
		}
		out.States = append(out.States, State{ID: id, Label: words, Kind: "active", Rim: true, Vars: vars})
		out.Transitions = append(out.Transitions, Transition{From: s.ID, To: id, Kind: "internal", Label: fmt.Sprintf("+%d", len(moves))})
	}
	return out
}
