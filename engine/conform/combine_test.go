package conform_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/modex/modex/engine/conform"
	"github.com/modex/modex/engine/explore"
	"github.com/modex/modex/engine/model"
)

// The online tester chooses an action's inputs among the combinations its
// configuration asks for: pairwise, only the rows of the covering array.
func TestOnlineCombinedInputs(t *testing.T) {
	m, err := model.LoadStarlarkSource("order.star", []byte(`
def init():
    return {"n": 0}

def Order(s, item, qty, ship, pay):
    s.n = 1

actions = [Order]
domains = {Order: {"item": range(4), "qty": range(3), "ship": range(3), "pay": range(3)}}
`))
	if err != nil {
		t.Fatal(err)
	}
	rows, err := explore.Covering([]int{4, 3, 3, 3}, 2)
	if err != nil {
		t.Fatal(err)
	}
	allowed := map[string]bool{}
	for _, r := range rows {
		allowed[fmt.Sprint(r)] = true
	}
	for _, combine := range []int{0, 2} {
		cfg := explore.DefaultConfig(m)
		cfg.Actions[0].Combine = combine
		called := map[string]bool{}
		impl := &conform.InProcess{
			ResetFunc: func() error { return nil },
			Do: func(action string, args []any) (any, error) {
				var r []int
				for _, a := range args {
					r = append(r, int(a.(int64)))
				}
				called[fmt.Sprint(r)] = true
				return nil, nil
			},
		}
		res, err := conform.Test(context.Background(), m, cfg, impl, conform.TestConfig{Runs: 20, Steps: 20, Seed: 5})
		if err != nil {
			t.Fatal(err)
		}
		if !res.Passed() {
			t.Fatalf("combine %d: the runs failed: %+v", combine, res.Runs[0].Failure)
		}
		outside := 0
		for c := range called {
			if !allowed[c] {
				outside++
			}
		}
		switch {
		case combine == 2 && outside > 0:
			t.Errorf("pairwise: %d of the %d inputs called are not among the %d combinations", outside, len(called), len(rows))
		case combine == 0 && outside == 0:
			t.Errorf("the full product: all %d inputs called are among the pairwise combinations", len(called))
		}
		t.Logf("combine %d: %d different inputs called, %d outside the %d pairwise combinations", combine, len(called), outside, len(rows))
	}
}
