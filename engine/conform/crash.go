package conform

import (
	"errors"
	"fmt"
	"strings"

	"github.com/modex/modex/internal/safetext"
)

// Crash is how an implementation process that Modex started ended during a
// test: killed by a signal, or exited, and the end of what it wrote on its
// standard error. A failure of kind FailCrash carries it when the adapter
// knows it (a process it started, not one reached over TCP).
type Crash struct {
	// Signal names the signal that killed the implementation ("SIGKILL");
	// "" when it exited.
	Signal string
	// Status is its exit status when it exited (Signal "").
	Status int
	// Launcher, above 0, is the exit status of the process Modex started
	// when that process only launched the implementation and reported on
	// its standard error how the implementation ended, as go run does
	// ("signal: killed", "exit status 3", then exit status 1): Signal and
	// Status are then the implementation's, as its launcher reported them.
	Launcher int
	// Stderr is the end of what the process wrote on its standard error:
	// its last lines, at most MaxStderrTail bytes, as written (escape it
	// to print it: safetext).
	Stderr string
}

// MaxStderrTail bounds Crash.Stderr: a failure's message holds it, within
// MaxShown.
const MaxStderrTail = 256

// How says how the implementation ended, after "the implementation": "was
// killed by signal SIGKILL", "exited with status 3", and for a launcher
// "…, as its launcher reported, exiting with status 1".
func (c *Crash) How() string {
	s := fmt.Sprintf("exited with status %d", c.Status)
	if c.Signal != "" {
		s = "was killed by signal " + c.Signal
	}
	if c.Launcher > 0 {
		s += fmt.Sprintf(", as its launcher reported, exiting with status %d", c.Launcher)
	}
	return s
}

// Message is a crash failure's message: how the implementation ended and,
// on the lines after "; its last output on stderr:", its standard error's
// last lines, as written.
func (c *Crash) Message() string {
	msg := "the implementation " + c.How()
	if c.Stderr != "" {
		msg += "; its last output on stderr:\n" + c.Stderr
	}
	return msg
}

// Headline says it on one line, escaped for a terminal: "the
// implementation was killed by signal SIGKILL (its stderr ends: listening
// on :9000 | panic: boom)", with at most the last three lines of its
// standard error.
func (c *Crash) Headline() string {
	s := "the implementation " + c.How()
	if tail := stderrLines(c.Stderr, 3); tail != "" {
		s += " (its stderr ends: " + tail + ")"
	}
	return safetext.Term(s)
}

// stderrLines joins the last n lines of s that are not blank with " | ".
func stderrLines(s string, n int) string {
	var lines []string
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
		}
	}
	return strings.Join(lines[max(0, len(lines)-n):], " | ")
}

// Halt is why a test or a suite stopped before its end: a failure after
// which the implementation is gone or unusable (FailureKind.Fatal) — it
// crashed or was killed, stopped answering, or broke the protocol. Modex
// does not start it again: no run or case after it is done.
type Halt struct {
	// Run is the run, or the suite's case (counting from 1), it ended.
	Run     int
	Failure *Failure
}

// Why says why in a few words, escaped for a terminal: "the
// implementation was killed by signal SIGKILL", "the implementation
// stopped answering".
func (h *Halt) Why() string {
	f := h.Failure
	switch {
	case f.Kind == FailCrash && f.Crash != nil:
		return safetext.Term("the implementation " + f.Crash.How())
	case f.Kind == FailTimeout:
		return "the implementation stopped answering"
	case f.Kind == FailProtocol:
		return "the implementation broke the adapter protocol"
	}
	return "the implementation crashed"
}

// Reason says why on one line, escaped for a terminal: Why with the end of
// a crashed implementation's stderr ("the implementation was killed by
// signal SIGKILL (its stderr ends: …)") or the failure's message ("the
// implementation stopped answering: Post(c1): no answer to invoke within
// 5s").
func (h *Halt) Reason() string {
	f := h.Failure
	if f.Kind == FailCrash && f.Crash != nil {
		return f.Crash.Headline()
	}
	first, _, more := strings.Cut(strings.TrimSpace(f.Message), "\n")
	if more {
		first += " …"
	}
	return h.Why() + ": " + safetext.Term(first)
}

// Stopped says what a test or suite that stopped did, for its summary:
// "stopped at run 503 of 5000: <Reason>", or, when that was the last one
// planned, "5000 runs, the last ended when <Reason>" (noun: run or case).
func (h *Halt) Stopped(planned int, noun string) string {
	if h.Run < planned {
		return fmt.Sprintf("stopped at %s %d of %d: %s", noun, h.Run, planned, h.Reason())
	}
	return fmt.Sprintf("%d %ss, the last ended when %s", h.Run, noun, h.Reason())
}

// halt is the Halt of a run or case that ended with f, nil when the
// implementation can go on after it.
func halt(run int, f *Failure) *Halt {
	if f == nil || !f.Kind.Fatal() {
		return nil
	}
	return &Halt{Run: run, Failure: f}
}

// implFailure is the failure of what (a step's label, "reset"; "" for no
// step) when the implementation failed with err: the kind, a message that
// does not repeat it, and how a crashed implementation ended.
func implFailure(what string, err error) *Failure {
	f := &Failure{Kind: FailCrash, Message: err.Error()}
	var ie *ImplError
	if errors.As(err, &ie) {
		f.Kind, f.Message, f.Crash = ie.Kind, ie.Msg, ie.Crash
	}
	if what != "" {
		f.Message = what + ": " + f.Message
	}
	return f
}
