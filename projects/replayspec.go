package projects

import (
	"math"
	"time"

	"github.com/modex/modex/engine/conform"
	"github.com/modex/modex/engine/model"
)

// ReplaySpec configures passive testing of recorded traces: how recorded
// events map to model actions (the abstraction function of seed 004).
type ReplaySpec struct {
	ThreadAttr       string                `toml:"thread_attr,omitempty"`
	Window           int                   `toml:"window,omitempty"`
	RequireAccepting bool                  `toml:"require_accepting,omitempty"`
	MaxStates        int                   `toml:"max_states,omitempty"`
	Events           map[string]*EventSpec `toml:"events,omitempty"`
	// TimeAttr names the attribute that gives an event's time, TimeUnit
	// the seconds one unit of it stands for (default 1): with them a
	// replay checks the configuration's earliest.
	TimeAttr string  `toml:"time_attr,omitempty"`
	TimeUnit float64 `toml:"time_unit,omitempty"`
	// Concurrent histories: the attribute that cuts a history into
	// independent parts (one register, one key of a store), the search's
	// time budget in seconds and its memory bound in MB.
	Key         string  `toml:"key,omitempty"`
	TimeBudget  float64 `toml:"time_budget,omitempty"`
	MaxMemoryMB int     `toml:"max_memory_mb,omitempty"`
}

// EventSpec maps one kind of recorded event.
type EventSpec struct {
	Action string            `toml:"action,omitempty"` // default: the event's name
	Role   string            `toml:"role,omitempty"`   // action, event or ignore
	Params map[string]string `toml:"params,omitempty"` // parameter = attribute
	// Concurrent histories: whether an :ok completion's value is the
	// action's output ("value", "none"; default: unless the invocation's
	// value gave inputs), the output of every :ok completion, and the
	// output with which a :fail completion took effect (Starlark literals,
	// e.g. "True", "False").
	Output     string `toml:"output,omitempty"`
	OkOutput   string `toml:"ok_output,omitempty"`
	FailOutput string `toml:"fail_output,omitempty"`
}

// ReplayConfig builds the replay configuration from the [replay] section,
// checking it against the model.
func (p *Project) ReplayConfig(m model.Model) (conform.ReplayConfig, error) {
	rc := conform.ReplayConfig{Mappings: map[string]*conform.EventMapping{}}
	r := p.Replay
	if r == nil {
		return rc, nil
	}
	rc.ThreadAttr, rc.Window, rc.RequireAccepting, rc.MaxStates = r.ThreadAttr, r.Window, r.RequireAccepting, r.MaxStates
	rc.Key, rc.TimeBudget, rc.MaxMemory = r.Key, time.Duration(r.TimeBudget*float64(time.Second)), r.MaxMemoryMB<<20
	if r.TimeBudget < 0 {
		return rc, p.errAt(p.index.val("replay", "time_budget"), "time_budget must be a number of seconds ≥ 0")
	}
	if r.MaxMemoryMB < 0 {
		return rc, p.errAt(p.index.val("replay", "max_memory_mb"), "max_memory_mb must be ≥ 0")
	}
	rc.TimeAttr, rc.TimeUnit = r.TimeAttr, r.TimeUnit
	if _, given := p.index.vals["replay\x00time_unit"]; given || r.TimeUnit != 0 {
		switch {
		case !(r.TimeUnit > 0) || math.IsInf(r.TimeUnit, 0):
			return rc, p.errAt(p.index.val("replay", "time_unit"), "time_unit must be the seconds one unit of time_attr stands for, above 0 (0.001 for milliseconds)")
		case r.TimeAttr == "":
			return rc, p.errAt(p.index.key("replay", "time_unit"), "time_unit without time_attr: name the attribute that gives an event's time")
		}
	}
	info := m.Info()
	for _, name := range sortedKeys(r.Events) {
		e := r.Events[name]
		switch e.Role {
		case "", conform.RoleAction, conform.RoleEvent, conform.RoleIgnore:
		default:
			return rc, p.errAt(p.index.val("replay", "events", name, "role"), "role must be action, event or ignore, not %q", e.Role)
		}
		action := e.Action
		if action == "" {
			action = name
		}
		if e.Role != conform.RoleIgnore {
			ai := info.Action(action)
			if ai < 0 {
				return rc, p.errAt(p.index.key("replay", "events", name), "event %q maps to unknown action %q (the model has: %s)", name, action, actionNames(info))
			}
			for param := range e.Params {
				if indexOf(info.Actions[ai].Params, param) < 0 {
					return rc, p.errAt(p.index.key("replay", "events", name, "params", param), "action %s has no parameter %q", action, param)
				}
			}
		}
		mp := &conform.EventMapping{Action: action, Role: e.Role, Params: e.Params, Output: e.Output}
		switch e.Output {
		case conform.OutputAuto, conform.OutputValue, conform.OutputNone:
		default:
			return rc, p.errAt(p.index.val("replay", "events", name, "output"), "output must be value or none, not %q", e.Output)
		}
		for _, lit := range []struct {
			key, text string
			to        *model.Value
		}{{"ok_output", e.OkOutput, &mp.OkOutput}, {"fail_output", e.FailOutput, &mp.FailOutput}} {
			if lit.text == "" {
				continue
			}
			v, err := conform.ParseLiteral(lit.text)
			if err != nil {
				return rc, p.errAt(p.index.val("replay", "events", name, lit.key), "%s: %v", lit.key, err)
			}
			*lit.to = v
		}
		rc.Mappings[name] = mp
	}
	return rc, nil
}
