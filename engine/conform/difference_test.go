package conform_test

import (
	"context"
	"strings"
	"testing"

	"github.com/modex/modex/engine/conform"
)

func TestFirstDifference(t *testing.T) {
	long := strings.Repeat("task ", 20)
	for _, tc := range []struct {
		seen, want, says string
	}{
		{"abc", "abc", ""},
		{"abc", "abd", "they part at character 3: ab⟨c where the model has ab⟨d"},
		{"ab", "abc", "they part at character 3: ab(end) where the model has ab⟨c"},
		{long + "1 - balancer", long + "2 - balancer", "they part at character 101: …ask task task task task ⟨1 - balancer where the model has …ask task task task task ⟨2 - balancer"},
		{"«é»x", "«é»y", "they part at character 4: «é»⟨x where the model has «é»⟨y"},
	} {
		if got := conform.FirstDifference(tc.seen, tc.want); got != tc.says {
			t.Errorf("FirstDifference(%q, %q) =\n%q, want\n%q", tc.seen, tc.want, got, tc.says)
		}
	}
}

// A wrong output is written in the model's notation, as the outputs the
// model allowed are (None, not null).
func TestWrongOutputInModelNotation(t *testing.T) {
	m, cfg := stackModelForTest(t)
	impl := stackImpl(3, "")
	do := impl.Do
	impl.Do = func(action string, args []any) (any, error) {
		if action == "Pop" {
			return nil, nil
		}
		return do(action, args)
	}
	res, err := conform.Test(context.Background(), m, cfg, impl, conform.TestConfig{Runs: 3, Steps: 20, Seed: 4})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res.Runs {
		if f := r.Failure; f != nil && f.Kind == conform.FailOutput {
			if !strings.HasSuffix(f.Message, "Pop() returned None") || f.Seen != "null" {
				t.Errorf("message %q, seen %q", f.Message, f.Seen)
			}
			return
		}
	}
	t.Fatal("no wrong output found")
}
