// Command modex is the Modex workbench: with no arguments (or a project) it
// opens the GUI; with a command it runs headless for scripts and CI.
//
//	modex                      open the workbench on the bundled chat project
//	modex PROJECT              open the workbench on a project
//	modex explore PROJECT ...  explore a model into a state graph
//	modex check PROJECT        validate a project and its model
package main

import (
	_ "early.modex/localefix" // must initialise before fyne.io/fyne/v2/lang

	"context"
	"errors"
	"fmt"
	"os"

	"github.com/modex/modex/engine/model"
	"github.com/modex/modex/internal/safetext"
)

func main() {
	// Explorations allocate many short-lived values around a compact store of
	// states: a high GC target for speed, bounded by a soft memory limit (see
	// tuneGC and docs/performance.md).
	tuneGC()
	stop := startProfile()
	err := run(os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(report(err))
}

// report prints a command's error, if any, on stderr and returns its exit
// code.
func report(err error) int {
	if err != nil {
		fmt.Fprintln(os.Stderr, errorText(err))
	}
	return exitCode(err)
}

// errorText is how modex prints an error: "modex: " and the message,
// escaped for the terminal (a model's fail() or an adapter's stderr in it
// sends no escape sequence), its later lines indented so that none reads
// as a line of the command's output (safetext.TermIndented); a usage
// error's message on one line, then where to find the
// command's help.
func errorText(err error) string {
	var ue *usageError
	if errors.As(err, &ue) {
		return "modex: " + safetext.Term(ue.msg) + "\n" + usagePointer(ue.cmd)
	}
	return "modex: " + safetext.TermIndented(err.Error(), "  ")
}

// exitCode maps an error to the exit code: 0 ok, 1 model or project error
// (and failing tests), 2 usage, 3 an exploration that found invariant
// violations, model errors or deadlocks, 4 an exploration left incomplete
// (a bound, the memory budget, max time, or cancelled) — and any command
// whose run or model load was stopped so, or that a signal stopped (Ctrl-C,
// SIGTERM, SIGHUP: test, run, replay, gen and campaign say what was done
// before the stop, and exit 4 even when some of it failed).
func exitCode(err error) int {
	if err == nil {
		return 0
	}
	var ue *usageError
	if errors.As(err, &ue) {
		return 2
	}
	var ce *codeError
	if errors.As(err, &ce) {
		return ce.code
	}
	if stopped(err) {
		return exitIncomplete
	}
	return 1
}

// stopped reports whether err is a run (or a model's load) stopped before
// its end by Ctrl-C, a time limit or the memory budget: incomplete, not a
// model error.
func stopped(err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, model.ErrMemoryBudget)
}

// codeError is an error with its own exit code.
type codeError struct {
	code int
	msg  string
}

func (e *codeError) Error() string { return e.msg }

// Exit codes of modex explore beyond 0, 1 and 2.
const (
	exitViolation  = 3
	exitIncomplete = 4
)
