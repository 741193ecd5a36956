package testview

import "github.com/modex/modex/ui/widgets"

// Fields are the dashboard's settings as widgets, for a caller that fills
// them as the user would (the workbench's tests).
type Fields struct {
	// Runs, Steps, Seed and Adapter are the test's settings.
	Runs, Steps, Seed, Adapter *widgets.Entry
	// Strategy is the test's strategy.
	Strategy *widgets.Select
	// OnExplored is "on the explored graph".
	OnExplored *widgets.Check
	// Workers and NATS are the campaign's settings; Campaign starts it.
	Workers, NATS *widgets.Entry
	// Campaign starts a campaign.
	Campaign *widgets.Button
}

// Fields are the settings' widgets.
func (tv *View) Fields() Fields {
	return Fields{Runs: tv.runs, Steps: tv.steps, Seed: tv.seed, Adapter: tv.adapter, Strategy: tv.strategy, OnExplored: tv.explored,
		Workers: tv.camp.workers, NATS: tv.camp.nats, Campaign: tv.camp.button}
}

// Verdicts is what the last test or campaign said (the side panel's
// verdicts).
func (tv *View) Verdicts() string { return tv.verdicts.Text }

// Counters is what the running or last test or campaign has done so far
// (above its chart).
func (tv *View) Counters() string { return tv.counters.Text }

// LogLines is the number of lines in the step log.
func (tv *View) LogLines() int { return len(tv.lines) }

// OnGraph reports whether the graph view shows the test's graph or its
// placeholder (not the exploration's).
func (tv *View) OnGraph() bool { return tv.onGraph }
