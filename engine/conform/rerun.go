package conform

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/modex/modex/engine/model"
)

// RunFormat is the format tag of saved runs.
const RunFormat = "modex-run/1"

// MaxRunFile bounds a saved run read back (it is untrusted input).
const MaxRunFile = 64 << 20

// SavedStep is one step of a saved run: an action with its inputs and
// output printed as Starlark literals (timeouts are not saved).
type SavedStep struct {
	Kind    string   `json:"kind"` // controllable, observable or internal
	Action  string   `json:"action"`
	Args    []string `json:"args,omitempty"`
	Output  string   `json:"output,omitempty"`
	Cleanup bool     `json:"cleanup,omitempty"`
	// Failing marks the step the run failed at (refused, answered wrongly,
	// or an event the model forbids), the trace's last: a rerun takes it
	// again, so that a deterministic failure reproduces.
	Failing bool `json:"failing,omitempty"`
}

// SavedRun is a failing run written to a file, so that it can be driven
// again step by step (modex test --rerun): the seed and configuration it ran
// with, its controllable steps with their inputs and the events observed
// between them, and how it ended.
type SavedRun struct {
	Format   string     `json:"format"`
	Project  string     `json:"project"`
	Config   string     `json:"config"`
	Seed     uint64     `json:"seed"`
	Strategy Strategy   `json:"strategy"`
	Steps    int        `json:"steps_per_run"`
	Verdict  Verdict    `json:"verdict"`
	Failure  *SavedFail `json:"failure,omitempty"`
	// Dropped counts the run's first steps that its log no longer held
	// (a run longer than MaxStepLog): the trace is its end only, for
	// reading, and cannot drive a rerun (its seed can).
	Dropped int         `json:"dropped_steps,omitempty"`
	Trace   []SavedStep `json:"trace"`
}

// SavedFail is the failure a saved run ended with.
type SavedFail struct {
	Kind    FailureKind `json:"kind"`
	Step    int         `json:"step"`
	Message string      `json:"message"`
	// Seen is the output the implementation gave for a wrong output;
	// Expected what the model would have accepted.
	Seen     string   `json:"output_seen,omitempty"`
	Expected []string `json:"expected,omitempty"`
}

// SaveRun describes a finished run for a file.
func SaveRun(project, config string, tc TestConfig, r RunResult) *SavedRun {
	s := &SavedRun{Format: RunFormat, Project: project, Config: config, Seed: r.Seed, Strategy: tc.Strategy, Steps: tc.Steps, Verdict: r.Verdict,
		Dropped: r.StepsDropped}
	if f := r.Failure; f != nil {
		s.Failure = &SavedFail{Kind: f.Kind, Step: f.Step, Message: f.Message, Seen: f.Seen, Expected: f.Expected}
	}
	for _, st := range r.Steps {
		if st.Kind == model.Timeout {
			continue
		}
		ss := SavedStep{Kind: st.Kind.String(), Action: st.Action, Cleanup: st.Cleanup}
		for _, a := range st.Args {
			ss.Args = append(ss.Args, model.Format(a))
		}
		if st.Output != nil && st.Output != model.None {
			ss.Output = model.Format(st.Output)
		}
		s.Trace = append(s.Trace, ss)
	}
	// The step the run failed at is no step of its log (the model took
	// it nowhere): without it a rerun of a deterministic wrong output
	// ended before it, where any state may end a run, and passed.
	if f := r.Failure; f != nil && f.Event != nil && f.Event.Kind != model.Timeout {
		ss := SavedStep{Kind: f.Event.Kind.String(), Action: f.Event.Action, Failing: true}
		for _, a := range f.Event.Args {
			ss.Args = append(ss.Args, model.Format(a))
		}
		s.Trace = append(s.Trace, ss)
	}
	return s
}

// Write writes the run as indented JSON.
func (s *SavedRun) Write(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", " ")
	return enc.Encode(s)
}

// ReadSavedRun reads a saved run, refusing files over 64 MiB, other formats
// and steps of unknown kinds.
func ReadSavedRun(r io.Reader) (*SavedRun, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxRunFile+1))
	if err != nil {
		return nil, err
	}
	if len(data) > MaxRunFile {
		return nil, fmt.Errorf("a saved run is at most %d MiB", MaxRunFile>>20)
	}
	dec := json.NewDecoder(strings.NewReader(string(data)))
	dec.DisallowUnknownFields()
	var s SavedRun
	if err := dec.Decode(&s); err != nil {
		return nil, fmt.Errorf("not a saved run: %v", err)
	}
	if dec.More() {
		return nil, fmt.Errorf("not a saved run: data after the JSON document")
	}
	if s.Format != RunFormat {
		return nil, fmt.Errorf("not a saved run: format %q, want %q", s.Format, RunFormat)
	}
	for i, st := range s.Trace {
		if _, ok := model.ParseKind(st.Kind); !ok || st.Action == "" {
			return nil, fmt.Errorf("trace step %d: kind %q, action %q", i+1, st.Kind, st.Action)
		}
	}
	return &s, nil
}

// Script returns the saved run's trace for TestConfig.Script.
func (s *SavedRun) Script() []SavedStep { return s.Trace }

// CanRerun says why the saved run cannot drive a rerun (nil when it can):
// its trace lacks its first steps.
func (s *SavedRun) CanRerun() error {
	if s.Dropped > 0 {
		return fmt.Errorf("this saved run kept only the last %d steps of its run (%d earlier ones were let go to bound memory): rerun it by its seed (modex test --runs 1 --seed %d)", len(s.Trace), s.Dropped, s.Seed)
	}
	return nil
}

// scripted says what a rerun does next: the index of the next controllable
// step of the script (skipping events that were observed before it), or -1
// when the script is done.
func (r *onlineRun) nextScripted() int {
	for i := r.pos; i < len(r.t.tc.Script); i++ {
		if r.t.tc.Script[i].Kind == "controllable" {
			return i
		}
	}
	return -1
}

// expectsEvent tells whether the script observed an event at this point of
// the run (so the rerun waits for it as long as the end wait).
func (r *onlineRun) expectsEvent() bool {
	sc := r.t.tc.Script
	return r.pos < len(sc) && sc[r.pos].Kind != "controllable"
}

// scriptedChoice picks the candidate the script names next; false (with
// the reason) when the model does not enable it here.
func (r *onlineRun) scriptedChoice(cands []candidate) (candidate, string) {
	i := r.nextScripted()
	want := r.t.tc.Script[i]
	for _, c := range cands {
		if r.t.info.Actions[c.action].Name != want.Action || len(c.args) != len(want.Args) {
			continue
		}
		same := true
		for k, a := range c.args {
			same = same && model.Format(a) == want.Args[k]
		}
		if same {
			r.pos = i + 1
			return c, ""
		}
	}
	if ai, ok := r.t.byName[want.Action]; ok && r.t.skipped[ai] {
		return candidate{}, fmt.Sprintf("could not reproduce: step %d of the saved run, %s(%s), is an action the adapter does not implement", i+1, want.Action, strings.Join(want.Args, ", "))
	}
	return candidate{}, fmt.Sprintf("could not reproduce: step %d of the saved run, %s(%s), is not enabled in the model's state here", i+1, want.Action, strings.Join(want.Args, ", "))
}
