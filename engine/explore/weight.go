package explore

import (
	"fmt"
	"math"

	"github.com/modex/modex/engine/model"
	"go.starlark.net/starlark"
)

// ActionWeight is the weight ω(s, m) of action ai in state st, as online
// testing and directed search (Config.Search = SearchWalks) use it: the
// decrementing count max(Count − taken, 0) when the action has a Count
// (taken is how often the run or walk took the action so far), else its
// Weight expression evaluated in st, else 1. A weight is a number, 0 or
// more (booleans count as 1 and 0); anything else is an error that names
// the expression.
func ActionWeight(w model.Worker, info *model.ModelInfo, ac *ActionConfig, ai int, st model.State, taken int) (float64, error) {
	if ac.Count > 0 {
		return float64(max(ac.Count-taken, 0)), nil
	}
	if ac.Weight == nil {
		return 1, nil
	}
	v, err := w.Eval(ac.Weight, st)
	if err != nil {
		return 0, err
	}
	f, ok := Number(v)
	if !ok {
		return 0, fmt.Errorf("weight `%s` of %s must give a number, not %s", ac.Weight.Source(), info.Actions[ai].Name, model.Format(v))
	}
	if f < 0 || math.IsNaN(f) || math.IsInf(f, 0) {
		// A negative weight is the configuration's error, not "never":
		// a run must not quietly pass with nothing tested.
		return 0, fmt.Errorf("weight `%s` of %s gave %s: a weight is a number, 0 or more", ac.Weight.Source(), info.Actions[ai].Name, model.Format(v))
	}
	return f, nil
}

// Number converts the value of a weight, timeout or earliest expression
// to a number: an int, a float, or a bool (1 or 0).
func Number(v model.Value) (float64, bool) {
	switch x := v.(type) {
	case starlark.Int:
		n, ok := x.Int64()
		return float64(n), ok
	case starlark.Float:
		return float64(x), true
	case starlark.Bool:
		if x {
			return 1, true
		}
		return 0, true
	}
	return 0, false
}
