package explore

import (
	"fmt"
	"math/big"
	"slices"

	"github.com/modex/modex/engine/model"
)

// InputRows returns the combinations of values of doms, one domain per
// parameter, that an action with configuration ac tries: rows of indices
// into doms from Covering when ac.Combine asks for n-wise combinations of
// more than n parameters; nil for the full product (every combination, in
// odometer order, as ForEachCombination gives them).
func InputRows(ac *ActionConfig, doms [][]model.Value) ([][]int, error) {
	if ac.Combine < 2 || len(doms) <= ac.Combine {
		return nil, nil
	}
	var a [16]int
	sizes := a[:0]
	for _, d := range doms {
		sizes = append(sizes, len(d))
	}
	return Covering(sizes, ac.Combine)
}

// inputRows is InputRows with the action named in its error.
func (e *explorer) inputRows(ac *ActionConfig, ai int, doms [][]model.Value) ([][]int, error) {
	rows, err := InputRows(ac, doms)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", e.info.Actions[ai].Name, err)
	}
	return rows, nil
}

// firstInputs sets idx to the first of rows (all zeros stay when rows is
// nil) and returns the number of the next row.
func firstInputs(idx []int, rows [][]int) int {
	if rows == nil {
		return 0
	}
	copy(idx, rows[0])
	return 1
}

// nextInputs advances idx to the next combination: the next of rows, or
// the odometer's next when rows is nil; false when all have been visited.
func nextInputs(idx []int, doms [][]model.Value, rows [][]int, next *int) bool {
	if rows == nil {
		return nextCombination(idx, doms)
	}
	if *next >= len(rows) {
		return false
	}
	copy(idx, rows[*next])
	*next++
	return true
}

// ForEachInput calls f with every combination of values of doms that an
// action with configuration ac tries (see InputRows); nothing when a
// domain is empty. f may keep its argument.
func ForEachInput(ac *ActionConfig, doms [][]model.Value, f func([]model.Value)) error {
	for _, d := range doms {
		if len(d) == 0 {
			return nil
		}
	}
	rows, err := InputRows(ac, doms)
	if err != nil {
		return err
	}
	if rows == nil {
		ForEachCombination(doms, f)
		return nil
	}
	for _, row := range rows {
		f(inputsAt(doms, row))
	}
	return nil
}

// Combined is what combining an action's parameters gives in one state
// (see CombinedInputs).
type Combined struct {
	Action  string
	Combine int // ActionConfig.Combine
	// Combinations is the number tried; Product the full product's.
	Combinations int
	Product      *big.Int
	// Err is why the domains could not be evaluated or combined.
	Err error
}

// String reads "Post: pairwise, 113 of 10,000 parameter combinations".
func (c Combined) String() string { return c.Action + ": " + c.Words() }

// Words is String without the action: "pairwise, 113 of 10,000 parameter
// combinations".
func (c Combined) Words() string {
	head := CombineWords(c.Combine)
	if c.Err != nil {
		return head + ": " + c.Err.Error()
	}
	if c.Combinations == 0 {
		return head + ", no parameter combination (a domain is empty)"
	}
	return fmt.Sprintf("%s, %s of %s parameter combinations", head, thousands(big.NewInt(int64(c.Combinations))), thousands(c.Product))
}

// CombinedInputs evaluates, in the model's (first) initial state, the
// domains of every included action whose parameters are combined n-wise
// (ActionConfig.Combine >= 2), and says how many combinations it tries
// there against the full product. Domains that depend on the state may
// give other numbers in other states.
func CombinedInputs(m model.Model, cfg *Config) ([]Combined, error) {
	info := m.Info()
	var out []Combined
	var w model.Worker
	var st model.State
	for ai, a := range info.Actions {
		ac := &cfg.Actions[ai]
		if ac.Exclude || ac.Combine < 2 {
			continue
		}
		if w == nil {
			var err error
			if w, err = m.NewWorker(); err != nil {
				return nil, err
			}
			w.SetBudget(cfg.StepBudget)
			if st, err = w.Init(); err != nil {
				return nil, err
			}
		}
		c := Combined{Action: a.Name, Combine: ac.Combine, Product: big.NewInt(1)}
		doms := make([][]model.Value, len(a.Params))
		for p := range a.Params {
			if doms[p], c.Err = ParamDomain(w, info, ac, st, ai, p); c.Err != nil {
				break
			}
			c.Product.Mul(c.Product, big.NewInt(int64(len(doms[p]))))
		}
		if c.Err == nil && c.Product.Sign() > 0 {
			var rows [][]int
			if rows, c.Err = InputRows(ac, doms); rows != nil {
				c.Combinations = len(rows)
			} else if c.Err == nil {
				c.Combinations = int(c.Product.Int64()) // no more parameters than n
			}
		}
		out = append(out, c)
	}
	return out, nil
}

// thousands writes n with commas between groups of three digits.
func thousands(n *big.Int) string {
	s := n.String()
	var b []byte
	for i := range len(s) {
		if i > 0 && (len(s)-i)%3 == 0 {
			b = append(b, ',')
		}
		b = append(b, s[i])
	}
	return string(b)
}

// skipRows skips, when the action's guard is false for the first pk
// arguments at idx alone (model.PrefixGuard), the rows from idx's on that
// begin with the same values (rows are sorted: they follow each other);
// their tries are counted. skipped is false when the guard says nothing;
// more is false when no combination is left.
func (w *expWorker) skipRows(st model.State, ai int, doms [][]model.Value, rows [][]int, idx []int, pk int, next *int, tried *int64) (skipped, more bool) {
	cur := *next - 1 // idx is rows[cur]
	if cur > 0 && slices.Equal(rows[cur-1][:pk], rows[cur][:pk]) {
		return false, true // asked about with the row before
	}
	w.pargs = w.pargs[:0]
	for p := range pk {
		w.pargs = append(w.pargs, doms[p][idx[p]])
	}
	if !w.prefix.DisabledByPrefix(st, ai, w.pargs) {
		return false, true
	}
	end := cur + 1
	for end < len(rows) && slices.Equal(rows[end][:pk], rows[cur][:pk]) {
		end++
	}
	*tried += int64(end - cur)
	*next = end
	return true, nextInputs(idx, doms, rows, next)
}
