package conform

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/modex/modex/engine/model"
	"github.com/modex/modex/internal/safetext"
)

// Verdict is the outcome of a test run, a suite case or a replay.
type Verdict string

// Verdicts (three-way, as in seed 000 and seed 004 §5.3.4): a run passes only
// when it ended in an accepting state with every step allowed; it fails when
// the implementation did something the model does not allow; it is
// inconclusive when it was cut short (cancelled, a bound, a suite step the
// model cannot take) and says nothing either way.
//
// ModelError is a fourth outcome (seed 004 §5.3.4): "if an assertion in the
// model is violated, the model itself has an inconsistency and is in error;
// no verdict about the implementation can be reached". A run or replay
// ends with it when the model's own code fails (a runtime error, fail(), an
// exceeded step budget); it is never blamed on the implementation.
const (
	Pass         Verdict = "pass"
	Fail         Verdict = "fail"
	Inconclusive Verdict = "inconclusive"
	ModelError   Verdict = "model error"
)

// FailureKind says what kind of failure ended a run.
type FailureKind string

// Failure kinds of a test run, as reported and in JUnit output.
const (
	FailUnexpected   FailureKind = "unexpected-observable" // an observable action the model does not allow
	FailEarly        FailureKind = "early-observable"      // an observable action sooner than the model's earliest allows
	FailRefused      FailureKind = "refused"               // a controllable action the implementation refused
	FailOutput       FailureKind = "output-mismatch"       // an output the model does not allow
	FailInvariant    FailureKind = "invariant"             // the model state violates the invariant
	FailNotAccepting FailureKind = "non-accepting-end"     // the run ended outside an accepting state
	FailCrash        FailureKind = "crash"                 // the implementation exited
	FailTimeout      FailureKind = "timeout"               // the implementation did not answer a call in time
	FailProtocol     FailureKind = "protocol"              // the implementation broke the adapter protocol
	FailModel        FailureKind = "model-error"           // the model itself failed
)

// Fatal reports whether the implementation is gone or unusable after a
// failure of this kind, so that no further run can start.
func (k FailureKind) Fatal() bool {
	return k == FailCrash || k == FailProtocol || k == FailTimeout
}

// Strategy is how online testing chooses among enabled controllable actions.
type Strategy string

// Strategies of online testing.
const (
	// StrategyRandom chooses by weight at random (seed 000's algorithm).
	StrategyRandom Strategy = "random"
	// StrategyCoverage prefers transitions not taken yet, still respecting
	// zero weights.
	StrategyCoverage Strategy = "coverage"
	// StrategyCode follows the implementation's code coverage
	// (TestConfig.CodeFeedback): it prefers the steps of runs that reached
	// new code, else those not taken yet (codestrategy.go).
	StrategyCode Strategy = "code"
)

// Strategies lists the strategies, the default first.
func Strategies() []Strategy { return []Strategy{StrategyRandom, StrategyCoverage, StrategyCode} }

// ParseStrategy reads a strategy name; "" is the default.
func ParseStrategy(s string) (Strategy, error) {
	if s == "" {
		return StrategyRandom, nil
	}
	for _, st := range Strategies() {
		if string(st) == s {
			return st, nil
		}
	}
	return "", fmt.Errorf("unknown strategy %q (use random, coverage or code)", s)
}

// ModelState is a model state as a failure shows it: its canonical key and
// its variables.
type ModelState struct {
	Key  string
	Vars []model.Var
}

// String prints the variables as "name = value" separated by "; ".
func (s ModelState) String() string {
	parts := make([]string, len(s.Vars))
	for i, v := range s.Vars {
		parts[i] = v.Name + " = " + model.Format(v.Value)
	}
	return strings.Join(parts, "; ")
}

// Failure describes why a run failed, as structured values: the UI and the
// reports display it without parsing text.
type Failure struct {
	Kind     FailureKind
	Step     int          // the failing step's number, as StepRecord.Step counts them from 1 (0: before the first)
	Message  string       // what happened
	States   []ModelState // the model states the tester was in
	Expected []string     // what the model would have accepted
	// Seen is the output the implementation gave, for a wrong output (its
	// canonical JSON).
	Seen string
	// Event is the failing step itself when it is one — the observable
	// action the model did not allow, the controllable one refused or
	// answered wrongly — for drawings of the run; nil otherwise (and in a
	// run read back from a file).
	Event *StepRecord
	// Crash is how the implementation ended, for a crash whose exit the
	// adapter saw (a signal or an exit status, and its stderr's end).
	Crash *Crash
}

// Tally counts verdicts.
type Tally map[Verdict]int

// String prints the counts as "3 pass, 1 fail, 0 inconclusive", adding
// ", 1 model error" when there are model errors.
func (t Tally) String() string {
	s := fmt.Sprintf("%d pass, %d fail, %d inconclusive", t[Pass], t[Fail], t[Inconclusive])
	if n := t[ModelError]; n > 0 {
		s += fmt.Sprintf(", %d model error", n)
	}
	return s
}

// FailureTraceLen is how many of a failed run's last log entries
// FailureReport prints.
const FailureTraceLen = 25

// FailureReport prints a failed run for people: the failure with its step,
// the last FailureTraceLen entries of the log (steps numbered, timeouts not), the model
// states the tester was in and what the model allowed; every line starts
// with indent. The values in it — the message (a model's fail(), an
// adapter's refusal, a crashed adapter's stderr), the steps' labels, the
// states — are escaped for a terminal (safetext): they drive no terminal,
// and a message's later lines (a traceback, the adapter's stderr) are
// marked "  | " under the FAIL line, so that none passes for a line of the
// report's own.
func FailureReport(r RunResult, indent string) string {
	f := r.Failure
	if f == nil {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%sFAIL %s at step %d: %s\n", indent, f.Kind, f.Step, safetext.TermIndented(f.Message, indent+"  | "))
	from := max(0, len(r.Steps)-FailureTraceLen)
	if total := len(r.Steps) + r.StepsDropped; from+r.StepsDropped > 0 {
		fmt.Fprintf(&b, "%strace (the last %d of %d entries; steps are numbered, timeouts are not steps):\n", indent, len(r.Steps)-from, total)
	} else {
		fmt.Fprintf(&b, "%strace (steps are numbered, timeouts are not steps):\n", indent)
	}
	for _, s := range r.Steps[from:] {
		fmt.Fprintf(&b, "%s  %s  %s\n", indent, stepNumber(s.Step), safetext.Term(s.Label()))
	}
	first, _, more := strings.Cut(strings.TrimRight(f.Message, "\n"), "\n")
	if first = safetext.Term(first); more {
		first += " …"
	}
	fmt.Fprintf(&b, "%s  %s  ✗ %s\n", indent, stepNumber(f.Step), first)
	for _, st := range f.States {
		fmt.Fprintf(&b, "%smodel state: %s\n", indent, safetext.Term(st.String()))
	}
	if len(f.Expected) > 0 {
		fmt.Fprintf(&b, "%sthe model allowed: %s\n", indent, safetext.Term(strings.Join(f.Expected, ", ")))
	}
	return b.String()
}

// stepNumber prints a step's number, or a dot for a timeout (not a step).
func stepNumber(n int) string {
	if n == 0 {
		return "  ·"
	}
	return fmt.Sprintf("%3d", n)
}

// MaxShown is how much of a value or message a failure shows: a 15 MB wrong
// output is cut, saying how large it was (the saved run keeps the steps).
const MaxShown = 400

// ShortText cuts s to about MaxShown bytes, at a rune boundary, saying how
// long it was.
func ShortText(s string) string {
	if len(s) <= MaxShown {
		return s
	}
	cut := MaxShown
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + fmt.Sprintf("… (%d bytes in all)", len(s))
}

// shortAll is ShortText of each, and at most 50 of them.
func shortAll(ss []string) []string {
	if len(ss) > 50 {
		ss = append(ss[:50:50], fmt.Sprintf("… and %d more", len(ss)-50))
	}
	var out []string // a copy when something is cut: ss may be shared
	for i, s := range ss {
		if len(s) > MaxShown && out == nil {
			out = append([]string(nil), ss...)
		}
		if out != nil {
			out[i] = ShortText(s)
		}
	}
	if out == nil {
		return ss
	}
	return out
}
