package explore

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/modex/modex/engine/model"
)

// QuotientDepth is the quotient expression that groups states by depth
// (the distance from the initial state); Quotient takes it as a nil Expr.
const QuotientDepth = "depth"

// Quotient is the overview of a large exploration: the quotient of its
// model states by the value of an expression over s (or by depth): one
// node per distinct value with the number of states in it (GState.Count),
// and one arc per pair of classes that transitions connect, labelled with
// the actions and how many transitions each has (GTrans.Text). Classes are
// ordered by their first state in exploration order. Error states of model
// errors form no class.
func (x *Exploration) Quotient(expr model.Expr) (*Graph, []int, error) {
	class := make([]int, len(x.States)) // model state -> class, -1 for none
	index := map[string]int{}
	g := &Graph{}
	var w model.Worker
	if expr != nil {
		var err error
		if w, err = x.Model.NewWorker(); err != nil {
			return nil, nil, err
		}
		w.SetBudget(x.Config.StepBudget)
	}
	for i := range x.States {
		s := &x.States[i]
		class[i] = -1
		if s.ModelErr {
			continue
		}
		key, label, err := quotientValue(x, w, expr, i)
		if err != nil {
			return nil, nil, fmt.Errorf("state %d: %v", i, err)
		}
		c, ok := index[key]
		if !ok {
			c = len(g.States)
			index[key] = c
			g.States = append(g.States, GState{ID: "C" + strconv.Itoa(c), Model: int32(i), Label: label, Kind: Active})
		}
		g.States[c].Count++
		class[i] = c
		g.States[c].Accepting = g.States[c].Accepting || s.Accepting
		if i == 0 {
			g.States[c].Initial = true
		}
	}
	g.Trans = quotientArcs(x, class)
	g.Stats = x.Stats
	g.Stats.States, g.Stats.Transitions = len(g.States), len(g.Trans)
	return g, class, nil
}

// QuotientBy is Quotient by the expression source by (QuotientDepth for
// the depth, QuotientAuto for the best of OverviewChoices), compiled as standing in file where (for its errors).
func (x *Exploration) QuotientBy(by, where string) (*Graph, []int, error) {
	if by == QuotientAuto {
		cs, err := x.OverviewChoices(context.Background())
		if err != nil {
			return nil, nil, err
		}
		by = cs[0].By // depth when nothing is readable
		if !cs[0].Readable() {
			by = QuotientDepth
		}
	}
	var expr model.Expr
	if by != QuotientDepth {
		var err error
		if expr, err = x.Model.Compile(by, model.Pos{File: where, Line: 1, Col: 1}); err != nil {
			return nil, nil, err
		}
	}
	return x.Quotient(expr)
}

// quotientValue is a state's class key and label.
func quotientValue(x *Exploration, w model.Worker, expr model.Expr, i int) (string, string, error) {
	if expr == nil {
		d := strconv.Itoa(int(x.States[i].Depth))
		return d, "depth " + d, nil
	}
	st, err := w.Decode(x.StateKey(i))
	if err != nil {
		return "", "", err
	}
	v, err := w.Eval(expr, st)
	if err != nil {
		return "", "", err
	}
	key, err := model.Key(v)
	if err != nil {
		return "", "", fmt.Errorf("`%s`: %v", expr.Source(), err)
	}
	// A short value (a number, a boolean) says little alone: it is named.
	label := model.Format(v)
	if len(label) <= 6 {
		label = expr.Source() + " = " + label
	}
	return key, label, nil
}

// quotientArcs aggregates transitions between classes by action.
func quotientArcs(x *Exploration, class []int) []GTrans {
	type pair struct{ from, to int }
	counts := map[pair]map[string]int{}
	var order []pair
	info := x.Model.Info()
	for _, t := range x.Trans {
		a, b := class[t.From], class[t.To]
		if a < 0 || b < 0 {
			continue
		}
		p := pair{a, b}
		if counts[p] == nil {
			counts[p] = map[string]int{}
			order = append(order, p)
		}
		name := info.Actions[t.Action].Name
		if x.Config.Actions[t.Action].Kind == model.Observable {
			name = "?" + name
		}
		counts[p][name]++
	}
	out := make([]GTrans, 0, len(order))
	for _, p := range order {
		var names []string
		for n := range counts[p] {
			names = append(names, n)
		}
		sort.Strings(names)
		parts := make([]string, len(names))
		for i, n := range names {
			parts[i] = fmt.Sprintf("%s ×%d", n, counts[p][n])
		}
		out = append(out, GTrans{From: p.from, To: p.to, ModelTrans: -1, Text: strings.Join(parts, ", ")})
	}
	return out
}
