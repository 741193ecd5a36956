package testview

import (
	"strings"
	"testing"

	"github.com/modex/modex/engine/conform"
)

// The Test tab measures the implementation's code coverage when asked:
// the chat server built with -cover, its file named; the verdict says the
// percentage, and the chart draws it beside the model's coverage. The code
// strategy without the measurement is refused, saying why.
func TestTestTabCodeCoverage(t *testing.T) {
	b := newDash(t, "../../projects/chat/chat.toml", "hi_bye")
	tv := b.tv
	tv.adapter.SetText("go run -cover -covermode=atomic impl/main.go impl/server.go impl/adapter.go impl/modexadapter.go adapter --fixed")
	tv.runs.SetText("3")
	tv.steps.SetText("10")
	tv.seed.SetText("1")

	tv.strategy.SetSelected(string(conform.StrategyCode))
	tv.cover.check.SetChecked(false)
	tv.start()
	if !strings.Contains(tv.verdicts.Text, "The code strategy follows the implementation's code coverage") {
		t.Fatalf("the code strategy ran without a measurement: %q", tv.verdicts.Text)
	}

	tv.cover.check.SetChecked(true)
	tv.cover.files.SetText("server.go")
	res := startAndWait(t, tv)
	if res == nil || !res.Passed() {
		t.Fatalf("%+v", res)
	}
	if !strings.Contains(tv.verdicts.Text, "Code coverage of the implementation: ") || !strings.Contains(tv.verdicts.Text, "of 72 statements") {
		t.Errorf("verdict %q", tv.verdicts.Text)
	}
	if !tv.chart.Code || tv.chart.Last().Code < 50 || !strings.Contains(tv.chart.Caption(), "% of the implementation's code") {
		t.Errorf("chart: code %v, last %+v, caption %q", tv.chart.Code, tv.chart.Last(), tv.chart.Caption())
	}
}
