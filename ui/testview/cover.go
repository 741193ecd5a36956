package testview

import (
	"context"
	"errors"
	"math"
	"strings"
	"sync/atomic"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"

	"github.com/modex/modex/engine/conform"
	"github.com/modex/modex/projects"
	"github.com/modex/modex/ui/widgets"
)

// testCover is the Test tab's measure of the implementation's code
// coverage (docs/coverage.md): a check box, the implementation's files,
// and, during a test, the measurement and its latest percentage (read by
// the chart's pump off the UI goroutine).
type testCover struct {
	check *widgets.Check
	files *widgets.Entry
	cov   *projects.Coverage // the running test's (nil: not measured)
	code  atomic.Uint64      // math.Float64bits of the latest percentage
}

// coverRow builds the tab's row: the check box, then the files.
func (tv *View) coverRow() fyne.CanvasObject {
	tv.cover.check = widgets.NewCheck("code coverage", nil)
	tv.cover.files = tv.newEntry()
	tv.cover.files.PlaceHolder = "implementation files: server.go"
	return container.NewVBox(tv.cover.check, tv.cover.files)
}

// coverChanged fills the row from the project's [coverage].
func (tv *View) coverChanged(p *projects.Project) {
	tv.cover.check.SetChecked(p.Coverage != nil && p.Coverage.Enabled)
	tv.cover.files.SetText(strings.Join(p.CoverageIncludes(), ", "))
}

// beginCover starts the measurement when the box is ticked: the
// implementation's environment for it, and tc's hooks (the code strategy's
// feedback); an error when the code strategy lacks it.
func (tv *View) beginCover(ctx context.Context, tc *conform.TestConfig, impl func() conform.Implementation) ([]string, error) {
	c := &tv.cover
	c.cov = nil
	c.code.Store(math.Float64bits(0))
	tv.chart.Code = c.check.Checked
	if !c.check.Checked {
		if tc.Strategy == conform.StrategyCode {
			return nil, errCodeStrategy
		}
		return nil, nil
	}
	cov, err := projects.NewCoverage(c.includes())
	if err != nil {
		return nil, err
	}
	c.cov = cov
	if tc.Strategy == conform.StrategyCode {
		tc.CodeFeedback = cov.Feedback()
	}
	onRun := tc.OnRun
	tc.OnRun = func(r conform.RunResult) {
		if count, now, err := cov.Measure(ctx, impl(), r.Run == tc.Runs); err == nil && now {
			c.code.Store(math.Float64bits(count.Percent()))
		} else if err != nil {
			cov.Note = err.Error()
		}
		onRun(r)
	}
	return cov.Env(), nil
}

// errCodeStrategy says why the code strategy cannot run.
var errCodeStrategy = errors.New("The code strategy follows the implementation's code coverage: tick \"code coverage\" (and build the implementation for it: docs/coverage.md).")

// includes are the implementation's files typed under the check box.
func (c *testCover) includes() []string { return projects.SplitPatterns(c.files.Text) }

// percent is the latest code coverage measured.
func (c *testCover) percent() float64 { return math.Float64frombits(c.code.Load()) }

// endCover measures once more and says the coverage ("" when not
// measured), then removes the measurement's folder.
func (tv *View) endCover(ctx context.Context, impl conform.Implementation) string {
	cov := tv.cover.cov
	if cov == nil {
		return ""
	}
	defer cov.Close()
	if impl != nil && ctx.Err() == nil {
		if _, _, err := cov.Measure(ctx, impl, true); err != nil {
			cov.Note = err.Error()
		}
	}
	text := cov.Report()
	return strings.ToUpper(text[:1]) + text[1:] + "."
}
