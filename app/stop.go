package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/modex/modex/engine/adapter"
	"github.com/modex/modex/projects"
)

// signalContext is cancelled by Ctrl-C, SIGTERM or SIGHUP, so that a run
// ends with its implementation's process group cleaned up whichever way the
// command is stopped; its cause is a *signalStop naming the signal
// (stopSignal). A second signal, or a command that does not end within
// signalGrace of the first, exits at once (130) — with the adapters killed
// and no temporary file left behind.
func signalContext() (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancelCause(context.Background())
	ch := make(chan os.Signal, 2)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	go func() {
		var sig os.Signal
		select {
		case sig = <-ch:
		case <-ctx.Done():
			return
		}
		cancel(&signalStop{sig}) // what was done is reported
		// A second signal, or a run that does not end within a few
		// seconds of the first: exit now, with the adapters.
		select {
		case <-ch:
		case <-time.After(signalGrace):
		}
		forcedExit()
	}()
	return ctx, func() { signal.Stop(ch); cancel(nil) }
}

// forcedExit ends modex at once after a signal: the adapters it started are
// killed and the temporary files being written removed (the writers'
// deferred removals never run).
func forcedExit() {
	adapter.KillAll()
	projects.RemoveTemps()
	fmt.Fprintln(os.Stderr, "modex: stopped")
	os.Exit(130)
}

// signalGrace is how long modex, signalled, waits for its run to end and
// report before it exits anyway.
const signalGrace = 5 * time.Second

// signalStop is the cause of a context a signal ended.
type signalStop struct{ sig os.Signal }

func (s *signalStop) Error() string { return "stopped by " + s.name() }

// Is makes a signal's stop a cancellation (errors.Is context.Canceled).
func (s *signalStop) Is(target error) bool { return target == context.Canceled }

// name is how messages name the signal: Ctrl-C, SIGTERM, SIGHUP.
func (s *signalStop) name() string {
	switch s.sig {
	case os.Interrupt:
		return "Ctrl-C"
	case syscall.SIGTERM:
		return "SIGTERM"
	case syscall.SIGHUP:
		return "SIGHUP"
	}
	return s.sig.String()
}

// stopSignal names the signal that ended ctx ("Ctrl-C", "SIGTERM",
// "SIGHUP"), or is "" when none did.
func stopSignal(ctx context.Context) string {
	var s *signalStop
	if errors.As(context.Cause(ctx), &s) {
		return s.name()
	}
	return ""
}

// stopErr is the error of a command a signal stopped: exit 4, saying what
// was done.
func stopErr(format string, args ...any) error {
	return &codeError{exitIncomplete, fmt.Sprintf(format, args...) + fmt.Sprintf(" (exit %d)", exitIncomplete)}
}

// orStopped is err, unless a signal ended ctx: then the command was stopped
// (exit 4) — "test stopped by Ctrl-C while starting the implementation" —
// with err's message unless it is the cancellation itself. An error that
// already says the command stopped is kept.
func orStopped(ctx context.Context, err error, command, phase string) error {
	sig := stopSignal(ctx)
	if err == nil || sig == "" {
		return err
	}
	if ce := (*codeError)(nil); errors.As(err, &ce) && ce.code == exitIncomplete {
		return err
	}
	msg := fmt.Sprintf("%s stopped by %s", command, sig)
	if phase != "" {
		msg += " " + phase
	}
	if !errors.Is(err, context.Canceled) {
		msg += ": " + err.Error()
	}
	return stopErr("%s", msg)
}

// stopWords is err for a message, or "stopped by Ctrl-C" when it is a
// signal's cancellation (never a bare "context canceled").
func stopWords(ctx context.Context, err error) error {
	if sig := stopSignal(ctx); sig != "" && errors.Is(err, context.Canceled) {
		return errors.New("stopped by " + sig)
	}
	return err
}

// stoppedAfter is the start of the summary of a command a signal stopped:
// "stopped after 3 of 10 runs (Ctrl-C)", and ", the last one cut short"
// when the last one done was.
func stoppedAfter(done, of int, noun, sig string, cut bool) string {
	s := fmt.Sprintf("stopped after %d of %d %s (%s)", done, of, plural(of, noun), sig)
	if cut {
		s += ", the last one cut short"
	}
	return s
}

// plural is noun, in the plural unless n is 1 (run, case, trace, history).
func plural(n int, noun string) string {
	switch {
	case n == 1:
		return noun
	case noun == "history":
		return "histories"
	}
	return noun + "s"
}

// writeContext is the context an export runs under: ctx, so that a signal
// during the export stops it (and removes its temporary file), unless ctx
// has ended already — a command that was stopped keeps what it found and
// writes it whole (a second signal ends modex at once).
func writeContext(ctx context.Context) context.Context {
	if ctx.Err() != nil {
		return context.Background()
	}
	return ctx
}

// stopWriter is a writer that fails once its context ends, so that a large
// export stops at a signal instead of going on to its end.
type stopWriter struct {
	ctx context.Context
	w   io.Writer
}

func (s *stopWriter) Write(p []byte) (int, error) {
	if err := s.ctx.Err(); err != nil {
		return 0, context.Cause(s.ctx)
	}
	return s.w.Write(p)
}
