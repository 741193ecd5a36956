package offline

import (
	"fmt"
	"image/color"
	"path/filepath"
	"sort"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/widget"

	"github.com/modex/modex/engine/conform"
	"github.com/modex/modex/engine/explore"
	"github.com/modex/modex/engine/model"
	"github.com/modex/modex/graph"
	"github.com/modex/modex/projects"
	"github.com/modex/modex/ui/graphview"
	"github.com/modex/modex/ui/widgets"
)

// Recorded traces: opened, their events mapped to the model's actions,
// replayed against the model, the path reproduced marked on the graph.

// OpenTrace asks for a trace file.
func (ov *View) OpenTrace() {
	ov.host.OpenFile("Open a recorded trace or history", ov.host.ProjectDir(), []string{"xml", "jsonl", "trace", "txt", "log", "edn"}, func(path string) {
		if path != "" {
			ov.LoadTrace(path)
		}
	})
}

// LoadTrace reads a trace and shows it as a table.
func (ov *View) LoadTrace(path string) error {
	if ov.onScreen() {
		ov.host.Open(ov.ReplayView())
	}
	if isHist, _ := conform.IsHistoryFile(path); isHist {
		ov.loadHistory(path)
		return nil
	}
	ov.hist.loading, ov.hist.replayAfter = 0, false
	var err error
	ov.trace, err = conform.ReadTraceFile(path)
	if err != nil {
		ov.setTraceText(err.Error())
		return err
	}
	ov.tracePath, ov.replay = path, nil
	ov.hist.history, ov.hist.result = nil, nil
	ov.hist.timeline.SetTimeline(nil)
	ov.traceRows = nil
	ov.traceChart.SetChart(nil)
	for i, r := range ov.trace {
		// Events are numbered as the command line numbers them; the
		// file's line follows (an XML event spans lines).
		ov.traceRows = append(ov.traceRows, traceRow{text: fmt.Sprintf("%4d  line %-4d %s", i+1, r.Line, r.String()), state: -1})
	}
	ov.setTraceText(fmt.Sprintf("%s: %d events (numbered, with their line in the file). Events… maps them to the model; Replay checks them.", path, len(ov.trace)))
	ov.traceList.Refresh()
	return nil
}

// EditMapping shows the event kinds of the trace with their role and model
// action (seed 004, Figure 5.5); changes go into the project's [replay].
func (ov *View) EditMapping() {
	host := ov.host
	if ov.hist.history != nil {
		d := dialog.NewInformation("A history's operations", "A history's operations (:f) name the model's actions; the project's "+
			"[replay.events.NAME] maps other names (action = …) and says how completions read: output = \"value\" or \"none\", "+
			"ok_output and fail_output (docs/histories.md); [replay] key = \"…\" checks the parts of a history with different keys apart.", host.Window())
		host.ShowKeyed(d, d.Hide, d.Hide)
		return
	}
	if len(ov.trace) == 0 || host.Model() == nil {
		return
	}
	p := host.Project()
	if p.Replay == nil {
		p.Replay = &projects.ReplaySpec{}
	}
	if p.Replay.Events == nil {
		p.Replay.Events = map[string]*projects.EventSpec{}
	}
	info := host.Model().Info()
	var names []string
	seen := map[string]bool{}
	for _, r := range ov.trace {
		if !seen[r.Name] {
			seen[r.Name] = true
			names = append(names, r.Name)
		}
	}
	sort.Strings(names)
	var actions []string
	for _, a := range info.Actions {
		actions = append(actions, a.Name)
	}
	var items []*widget.FormItem
	for _, n := range names {
		n := n
		spec := p.Replay.Events[n]
		if spec == nil {
			spec = &projects.EventSpec{}
		}
		role := widgets.NewSelect([]string{conform.RoleAction, conform.RoleEvent, conform.RoleIgnore}, nil)
		action := widgets.NewSelect(actions, nil)
		def := n
		if spec.Action != "" {
			def = spec.Action
		}
		action.SetSelected(def)
		r := spec.Role
		if r == "" {
			r = conform.RoleEvent
			if ai := info.Action(def); ai >= 0 && info.Actions[ai].Kind == model.Controllable {
				r = conform.RoleAction
			}
		}
		role.SetSelected(r)
		update := func(string) {
			e := p.Replay.Events[n]
			if e == nil {
				e = &projects.EventSpec{}
				p.Replay.Events[n] = e
			}
			e.Role = role.Selected
			if action.Selected != n {
				e.Action = action.Selected
			} else {
				e.Action = ""
			}
			host.Edited()
		}
		role.OnChanged, action.OnChanged = update, update
		label := widget.NewLabel(n) // the whole name, on a line of its own
		label.TextStyle.Monospace = true
		items = append(items, widget.NewFormItem("", container.NewVBox(label, container.NewHBox(role, widget.NewLabel("→"), action))))
	}
	window := widget.NewEntry()
	window.SetText(fmt.Sprint(p.Replay.Window))
	wi := widget.NewFormItem("reordering window", window)
	wi.HintText = "How many of the next events replay may take out of their recorded order: 0 keeps the trace's order; " +
		"a few allow for events of different objects written in another order than they happened (seed 004 §5)."
	items = append(items, wi)
	intro := widget.NewLabel("Each kind of event in the trace: an action of the environment (the tester's side), an event of the " +
		"system (observed), or ignored; and the model action it stands for.")
	intro.Wrapping = fyne.TextWrapWord
	items = append([]*widget.FormItem{widget.NewFormItem("", intro)}, items...)
	d := dialog.NewForm("Recorded events: actions of the environment, events of the system", "Done", "Cancel", items, func(ok bool) {
		if ok {
			var n int
			if _, err := fmt.Sscan(window.Text, &n); err == nil && n >= 0 && n != p.Replay.Window {
				p.Replay.Window = n
				host.Edited()
			}
		}
	}, host.Window())
	d.Resize(fyne.NewSize(min(760, host.Window().Canvas().Size().Width*0.9), min(600, host.Window().Canvas().Size().Height*0.9)))
	host.ShowKeyed(d, d.Submit, d.Hide)
}

// replaySetup is the configuration and the replay settings for the loaded
// trace or history; false (said in the label) when the project has none.
func (ov *View) replaySetup() (*explore.Config, conform.ReplayConfig, bool) {
	host := ov.host
	cfg, err := host.Project().Build(host.Model(), host.Config())
	if err != nil {
		ov.setTraceText(err.Error())
		return nil, conform.ReplayConfig{}, false
	}
	rc, err := host.Project().ReplayConfig(host.Model())
	if err != nil {
		ov.setTraceText(err.Error())
		return nil, conform.ReplayConfig{}, false
	}
	rc.File = ov.tracePath
	return cfg, rc, true
}

// Replay replays the loaded trace against the model.
func (ov *View) Replay() {
	host := ov.host
	if ov.hist.running != nil {
		ov.Stop() // the button says Stop while a history is searched
		return
	}
	if ov.hist.loading != 0 {
		ov.hist.replayAfter = true // once it is read
		return
	}
	if ov.hist.history != nil && host.Model() != nil {
		ov.checkHistory()
		return
	}
	if ov.trace == nil || host.Model() == nil {
		return
	}
	cfg, rc, ok := ov.replaySetup()
	if !ok {
		return
	}
	recs, m := ov.trace, host.Model()
	ov.setTraceText("Replaying…")
	ov.host.Open(ov.ReplayView())
	ctx := ov.background()
	go func() {
		res, err := conform.Replay(ctx, m, cfg, recs, rc)
		host.Do(func() {
			defer ov.done()
			if err != nil {
				ov.setTraceText("Error: " + err.Error())
				return
			}
			ov.replay = res
			for i := range ov.traceRows {
				ov.traceRows[i].ok, ov.traceRows[i].fail, ov.traceRows[i].state = false, false, -1
			}
			for k, st := range res.Path {
				ov.traceRows[st.Index].ok = true
				ov.traceRows[st.Index].state = k
			}
			text := fmt.Sprintf("%s: %s — %d of %d events reproduced, at most %d candidate states.", ov.tracePath, res.Verdict, res.Matched, res.Total, res.MaxStates)
			if f := res.Failure; f != nil {
				if f.Index < len(ov.traceRows) {
					ov.traceRows[f.Index].fail = true
					ov.traceRows[f.Index].text += "   ✗ " + f.Message
					// Clicking it shows where the model was when the
					// trace left it (in red).
					ov.traceRows[f.Index].state = len(res.Path) - 1
				}
				text += fmt.Sprintf("\nDiverges at event %d (line %d): %s. The model would have accepted: %s", f.Index+1, f.Line, f.Message, strings.Join(f.Expected, ", "))
			}
			if res.Reason != "" {
				text += "\n" + res.Reason
			}
			ov.setTraceText(text)
			ov.traceChart.SetChart(graph.ReplayChart(filepath.Base(ov.tracePath), res))
			ov.traceList.Refresh()
			ov.atFailure = res.Failure != nil
			ov.markReplay(len(res.Path) - 1)
		})
	}()
}

// selectTraceRow shows what a row of the trace was for the model: the
// states after it on the graph; for the event that diverged, the states
// the model may have been in (in the inspector too: they may lie outside
// the explored graph) and what they would have accepted.
func (ov *View) selectTraceRow(i widget.ListItemID) {
	if i < 0 || i >= len(ov.traceRows) {
		return
	}
	r := ov.traceRows[i]
	f := (*conform.ReplayFailure)(nil)
	if ov.replay != nil {
		f = ov.replay.Failure
	}
	ov.atFailure = r.fail && f != nil
	if r.state >= 0 {
		ov.markReplay(r.state)
	}
	if !ov.atFailure || !ov.onScreen() {
		return
	}
	if r.state < 0 { // it failed at its first event
		ov.host.Graph().SetMarks(nil)
		ov.host.SetStatus(fmt.Sprintf("Event %d (line %d), the first, left the model: %s", f.Index+1, f.Line, f.Message))
	}
	states := make([][]model.Var, len(f.States))
	for k, s := range f.States {
		states[k] = s.Vars
	}
	ov.host.Details().ShowModelStates(fmt.Sprintf("Before event %d (line %d): the model may have been in %s", f.Index+1, f.Line,
		explore.Count(len(f.States), "state")), states, f.Expected)
}

// markReplay highlights on the graph the states the replay went through up
// to step k, the last of them as current.
func (ov *View) markReplay(k int) {
	host := ov.host
	x, full, _ := host.Explored()
	view := host.Graph().Doc()
	if !ov.onScreen() || ov.replay == nil || x == nil || full == nil || view == nil || k < 0 {
		return
	}
	drawn := host.DrawnIndex()
	byKey := map[string][]int{}
	for gi, s := range full.States {
		key := x.StateKey(int(s.Model))
		byKey[key] = append(byKey[key], gi)
	}
	marks := map[int]color.NRGBA{}
	for j := 0; j <= k && j < len(ov.replay.Path); j++ {
		c := graphview.MarkPath
		if j == k {
			c = graphview.MarkSelected
		}
		for _, key := range ov.replay.Path[j].States {
			for _, gi := range byKey[key] {
				if vi := drawn(full.States[gi].ID); vi >= 0 {
					marks[vi] = c
				}
			}
		}
	}
	if ov.replay.Failure != nil && k == len(ov.replay.Path)-1 {
		for vi, c := range marks {
			if c == graphview.MarkSelected {
				marks[vi] = graphview.MarkCurrent
			}
		}
	}
	host.Graph().SetMarks(marks)
	event := ov.replay.Path[min(k, len(ov.replay.Path)-1)].Index + 1
	switch f := ov.replay.Failure; {
	case f != nil && k == len(ov.replay.Path)-1 && ov.atFailure:
		where := "in red"
		if len(marks) == 0 {
			where = "not in the explored graph (values outside the configuration's domains or bounds); the inspector shows them"
		}
		host.SetStatus(fmt.Sprintf("Where the model was when event %d (line %d) left it, %s: %s", f.Index+1, f.Line, where, f.Message))
	case len(marks) == 0:
		host.SetStatus(fmt.Sprintf("Event %d: the model's states there are not in the explored graph (the trace's values lie outside "+
			"the configuration's domains or bounds); the trace table shows how far it was reproduced.", event))
	case f != nil && k == len(ov.replay.Path)-1:
		host.SetStatus(fmt.Sprintf("In red: where the model was when event %d (line %d) left it: %s", f.Index+1, f.Line, f.Message))
	default:
		host.SetStatus(fmt.Sprintf("Event %d: the model's states after it, the path before it in orange.", event))
	}
}
