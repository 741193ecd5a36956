package testview

import (
	"fmt"
	"strings"

	"github.com/modex/modex/engine/conform"
	"github.com/modex/modex/engine/explore"
	"github.com/modex/modex/projects"
)

// testHeadline is what a finished test says: its runs (of how many were
// planned, and whether it was stopped, or the implementation's crash, kill
// or hang stopped it: how, with its stderr's end), verdicts and coverage,
// and its first failure named for what it is — an implementation that
// crashed says so, with the end of what it wrote on its standard error.
func testHeadline(res *conform.TestResult, size conform.ModelSize, stopped bool, planned int) string {
	counts := conform.Tally{}
	for _, r := range res.Runs {
		counts[r.Verdict]++
	}
	runs := explore.Count(len(res.Runs), "run")
	if planned > 0 && len(res.Runs) < planned {
		runs = fmt.Sprintf("%d of %d runs", len(res.Runs), planned)
	}
	switch h := res.Halt; {
	case stopped:
		runs = "Stopped after " + runs
	case h != nil:
		// The implementation crashed, was killed or hung: how, first.
		runs = h.Stopped(planned, "run")
		runs = strings.ToUpper(runs[:1]) + runs[1:]
	}
	text := fmt.Sprintf("%s: %s; %s.", runs, counts, res.Coverage(size))
	if note := conform.SkippedNote(res.Skipped); note != "" {
		text += " " + strings.ToUpper(note[:1]) + note[1:] + "."
	}
	for _, r := range res.Runs {
		f := r.Failure
		if f == nil {
			continue
		}
		switch f.Kind {
		case conform.FailCrash:
			msg, tail, _ := strings.Cut(f.Message, "; its last output on stderr:\n")
			if f.Crash != nil {
				msg, tail = "the implementation "+f.Crash.How(), f.Crash.Stderr
			}
			text += fmt.Sprintf("\nrun %d (seed %d): the implementation crashed at step %d: %s.", r.Run, r.Seed, f.Step, msg)
			if tail = strings.TrimSpace(tail); tail != "" {
				lines := strings.Split(tail, "\n")
				text += "\nits standard error ended with: " + strings.Join(lines[max(0, len(lines)-3):], " | ")
			}
		case conform.FailTimeout:
			text += fmt.Sprintf("\nrun %d (seed %d): the implementation stopped answering at step %d: %s.", r.Run, r.Seed, f.Step, f.Message)
		default:
			text += fmt.Sprintf("\nrun %d (seed %d) failed: %s at step %d.", r.Run, r.Seed, f.Kind, f.Step)
		}
		break
	}
	return text
}

// failureReport is the failure panel's text for a failed run: the
// failure, trace, model state and allowed actions, then the saved run and
// the commands that rerun it. It saves the run (off the UI goroutine) and
// returns the file ("" when it could not be saved).
func failureReport(ri runInfo, r conform.RunResult) (string, string) {
	text := fmt.Sprintf("run %d (seed %d) failed\n", r.Run, r.Seed) + conform.FailureReport(r, "")
	file, err := projects.SaveFailure("", ri.project, ri.config, ri.tc, r)
	if err != nil {
		file = ""
		text += "(the run could not be saved: " + err.Error() + ")\n"
	} else {
		text += fmt.Sprintf("saved: %s\nrerun its steps: %s\n", file, projects.RerunCommand(ri.path, "", file))
	}
	text += fmt.Sprintf("same choices again (timing may differ): %s\n", projects.SameChoicesCommand(ri.path, ri.config, r.Seed, ri.tc.Steps, ri.tc.Strategy))
	return text, file
}
