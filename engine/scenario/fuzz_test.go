package scenario_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/modex/modex/engine/model"
	"github.com/modex/modex/engine/scenario"
)

// FuzzParseRegex: any text is either a scenario or an error at a
// position; a scenario runs from its start without panicking.
func FuzzParseRegex(f *testing.F) {
	for _, s := range []string{
		"Inc(1); Inc(_)/2; Reset", "(Inc/2 | Reset)*", "Inc(1){1,2}", "?Tick*; Reset",
		"((Inc(1); Reset)* | (Inc(2); ?Tick; Reset)+)?", "Inc((1, [2, -3]))", `Inc("a\"b")`, "Inc{0,}", "(", "Inc(",
	} {
		f.Add(s)
	}
	dir := f.TempDir()
	m, err := model.LoadStarlarkSource(filepath.Join(dir, "counter.star"), []byte(counter))
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, src string) {
		r, err := scenario.ParseRegex("f", src, model.Pos{File: "f", Line: 1, Col: 1}, m.Info())
		if err != nil {
			if !strings.HasPrefix(err.Error(), "f:") {
				t.Fatalf("error without a position: %v", err)
			}
			return
		}
		run, _ := r.NewRunner()
		inits, _ := run.Inits()
		for _, st := range inits {
			run.Position(st)
			for _, k := range []int{1, 2} {
				run.Step(st, 0, []model.Value{model.Int(k)}, model.Int(k))
			}
		}
	})
}
