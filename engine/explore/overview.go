package explore

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/modex/modex/engine/model"
)

// The number of classes an overview reads well with: fewer says nothing,
// more is a graph again.
const (
	MinOverviewClasses = 3
	MaxOverviewClasses = 30
)

// OverviewChoice is one way to draw an overview of an exploration: the
// quotient by an expression over s (see Quotient), with what it gives.
type OverviewChoice struct {
	// By is the expression's source (QuotientDepth for the depth).
	By string
	// Classes is the number of distinct values; MaxOverviewClasses+1 when
	// there are more (the count stops there).
	Classes int
	// Arcs is the number of pairs of different classes that transitions
	// connect: the arcs the overview draws between its classes.
	Arcs int
	// Err is why the expression gives no overview (it fails on a state).
	Err string
}

// Readable says whether the overview has a readable number of classes.
func (c *OverviewChoice) Readable() bool {
	return c.Err == "" && c.Classes >= MinOverviewClasses && c.Classes <= MaxOverviewClasses
}

// Words says what the choice gives: "mode(s): 3 classes, 2 arcs".
func (c *OverviewChoice) Words() string {
	switch {
	case c.Err != "":
		return c.By + ": " + c.Err
	case c.Classes > MaxOverviewClasses:
		return fmt.Sprintf("%s: more than %d classes", c.By, MaxOverviewClasses)
	}
	classes := "classes"
	if c.Classes == 1 {
		classes = "class"
	}
	return fmt.Sprintf("%s: %d %s, %s", c.By, c.Classes, classes, Count(c.Arcs, "arc"))
}

// QuotientAuto asks QuotientBy for the overview OverviewChoices finds best.
const QuotientAuto = "auto"

// OverviewChoices tries the overviews an exploration's model suggests by its
// own structure — each of the configuration's groupings, each property of
// the model (a function of s, like mode(s)), each state variable s.v and,
// for collections, len(s.v), numbers with too many values cut into about
// ten ranges (s.black // 50), and the depth — and returns them best first:
// readable ones (MinOverviewClasses to MaxOverviewClasses classes) before
// the others, and among them those with the fewest arcs between classes per
// class (a chain of phases before a tangle), then the order above. The depth
// comes after every other readable choice.
func (x *Exploration) OverviewChoices(ctx context.Context) ([]OverviewChoice, error) {
	srcs := x.overviewSources()
	w, err := x.Model.NewWorker()
	if err != nil {
		return nil, err
	}
	w.SetBudget(x.Config.StepBudget)
	cands := x.newCands(srcs)
	depth := &overviewCand{choice: OverviewChoice{By: QuotientDepth}}
	depth.init(len(x.States))
	if err := x.countCands(ctx, w, cands, depth); err != nil {
		return nil, err
	}
	// Numbers with too many values to read: in about ten ranges, as
	// s.black // 50 (an expression like any other).
	var binned []string
	for i := range cands {
		if c := &cands[i]; c.choice.Err == "" && c.choice.Classes > MaxOverviewClasses && c.ints {
			if width := binWidth(c.lo, c.hi); width > 1 {
				src := c.choice.By
				if strings.ContainsAny(src, " +-*/%<>=!&|^~") {
					src = "(" + src + ")"
				}
				binned = append(binned, fmt.Sprintf("%s // %d", src, width))
			}
		}
	}
	more := x.newCands(binned)
	if len(more) > 0 {
		if err := x.countCands(ctx, w, more, nil); err != nil {
			return nil, err
		}
	}
	cands = append(append(cands, more...), *depth)
	out := make([]OverviewChoice, 0, len(cands))
	for i := range cands {
		c := &cands[i]
		if c.live() {
			c.choice.Arcs = x.classArcs(c.class)
		}
		out = append(out, c.choice)
	}
	sort.SliceStable(out, func(i, j int) bool { return overviewBetter(&out[i], &out[j]) })
	return out, nil
}

// newCands compiles the candidates' expressions.
func (x *Exploration) newCands(srcs []string) []overviewCand {
	cands := make([]overviewCand, len(srcs))
	for i, src := range srcs {
		c := &cands[i]
		c.choice.By = src
		var err error
		if c.expr, err = x.Model.Compile(src, model.Pos{File: "overview", Line: 1, Col: 1}); err != nil {
			c.choice.Err = err.Error()
		}
		c.init(len(x.States))
	}
	return cands
}

// countCands evaluates the candidates (and the depth, when not nil) on
// every state.
func (x *Exploration) countCands(ctx context.Context, w model.Worker, cands []overviewCand, depth *overviewCand) error {
	for m := range x.States {
		if m&1023 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		if x.States[m].ModelErr {
			continue
		}
		if depth != nil {
			depth.add(m, fmt.Sprint(x.States[m].Depth))
		}
		st, err := w.Decode(x.StateKey(m))
		if err != nil {
			return err
		}
		for i := range cands {
			c := &cands[i]
			if c.expr == nil || c.choice.Err != "" || !c.live() && !c.ints {
				continue
			}
			v, err := w.Eval(c.expr, st)
			var key string
			if err == nil {
				key, err = model.Key(v)
			}
			if err != nil {
				msg, _, _ := strings.Cut(err.Error(), "\n")
				c.choice.Err = "fails on a state: " + msg
				continue
			}
			c.number(v)
			c.add(m, key)
		}
	}
	return nil
}

// binWidth is a round range width that cuts lo..hi into about ten ranges:
// 1, 2 or 5 times a power of ten.
func binWidth(lo, hi int) int {
	span := hi - lo + 1
	for scale := 1; ; scale *= 10 {
		for _, k := range []int{1, 2, 5} {
			if w := k * scale; span/w <= 10 {
				return w
			}
		}
	}
}

// overviewBetter orders choices: readable first, then fewer arcs per class.
func overviewBetter(a, b *OverviewChoice) bool {
	if a.Readable() != b.Readable() {
		return a.Readable()
	}
	if !a.Readable() {
		return false
	}
	if (a.By == QuotientDepth) != (b.By == QuotientDepth) {
		return b.By == QuotientDepth
	}
	return a.Arcs*b.Classes < b.Arcs*a.Classes
}

// overviewSources lists the expressions OverviewChoices tries.
func (x *Exploration) overviewSources() []string {
	var srcs []string
	seen := map[string]bool{}
	add := func(s string) {
		if !seen[s] {
			seen[s] = true
			srcs = append(srcs, s)
		}
	}
	for _, g := range x.Config.Groupings {
		add(g.Source())
	}
	info := x.Model.Info()
	for _, p := range info.Properties {
		add(p + "(s)")
	}
	for _, v := range info.Vars {
		add("s." + v)
	}
	if len(x.States) == 0 {
		return srcs
	}
	// len(s.v) for the variables that are collections in the first state.
	w, err := x.Model.NewWorker()
	if err != nil {
		return srcs
	}
	if vars, err := x.StateVars(w, 0); err == nil {
		for _, v := range vars {
			switch v.Value.Type() {
			case "list", "dict", "set", "tuple", "string":
				add("len(s." + v.Name + ")")
			}
		}
	}
	return srcs
}

// overviewCand counts the classes of one candidate as states come.
type overviewCand struct {
	choice OverviewChoice
	expr   model.Expr
	index  map[string]int32
	class  []int32 // model state -> class, -1 for none
	// ints says every value so far is an int, from lo to hi (counted past
	// MaxOverviewClasses, for ranges).
	ints   bool
	lo, hi int
	seen   bool
}

// number notes v's range while every value is an int.
func (c *overviewCand) number(v model.Value) {
	n, ok := model.AsInt(v)
	switch {
	case !ok:
		c.ints = false
	case !c.seen:
		c.lo, c.hi, c.seen = n, n, true
	default:
		c.lo, c.hi = min(c.lo, n), max(c.hi, n)
	}
}

func (c *overviewCand) init(n int) {
	c.index = map[string]int32{}
	c.ints = true
	if c.choice.Err == "" {
		c.class = make([]int32, n)
		for i := range c.class {
			c.class[i] = -1
		}
	}
}

// live says whether the candidate is still counted (no error, not too many
// classes).
func (c *overviewCand) live() bool {
	return c.choice.Err == "" && c.choice.Classes <= MaxOverviewClasses
}

func (c *overviewCand) add(m int, key string) {
	if !c.live() {
		return
	}
	id, ok := c.index[key]
	if !ok {
		id = int32(len(c.index))
		c.index[key] = id
		c.choice.Classes++
		if !c.live() {
			c.class = nil // too many: stop counting
			return
		}
	}
	c.class[m] = id
}

// classArcs counts the pairs of different classes that transitions connect.
func (x *Exploration) classArcs(class []int32) int {
	type pair struct{ a, b int32 }
	arcs := map[pair]bool{}
	for i := range x.Trans {
		a, b := class[x.Trans[i].From], class[x.Trans[i].To]
		if a >= 0 && b >= 0 && a != b {
			arcs[pair{a, b}] = true
		}
	}
	return len(arcs)
}
