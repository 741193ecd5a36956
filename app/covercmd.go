package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/modex/modex/engine/codecov"
	"github.com/modex/modex/engine/conform"
	"github.com/modex/modex/engine/model"
	"github.com/modex/modex/internal/safetext"
	"github.com/modex/modex/projects"
)

// coverFlags are the flags that measure the implementation's code
// coverage (modex test, modex run).
type coverFlags struct {
	on       *bool
	out      *string
	includes *string
}

func addCoverFlags(fs *flag.FlagSet) *coverFlags {
	return &coverFlags{
		on:       fs.Bool("cover", false, "measure the implementation's code coverage (Go built with -cover, coverage.py, LCOV: docs/coverage.md; on by default with [coverage] enabled)"),
		out:      fs.String("cover-out", "", "write the implementation's merged coverage profile to `FILE` (Go's text format for go tool cover -html; LCOV when FILE ends in .lcov or .info); implies --cover"),
		includes: fs.String("cover-include", "", "the implementation's files, as comma-separated path `PATTERNS` (\"server.go,impl/*.go\"; default: [coverage] include, else every file measured); implies --cover"),
	}
}

// spec says whether the flags or the project ask for the measurement, and
// the implementation's files.
func (f *coverFlags) spec(p *projects.Project) (on bool, include []string) {
	on = *f.on || *f.out != "" || *f.includes != "" || (p.Coverage != nil && p.Coverage.Enabled)
	include = p.CoverageIncludes()
	if *f.includes != "" {
		include = projects.SplitPatterns(*f.includes)
	}
	return on, include
}

// start makes the measurement when the flags or the project ask for it
// (nil when neither does).
func (f *coverFlags) start(p *projects.Project) (*projects.Coverage, error) {
	on, include := f.spec(p)
	if !on {
		return nil, nil
	}
	return projects.NewCoverage(include)
}

// connectCovered is connect with the code coverage measurement the flags
// or the project ask for (cov nil when none), and the code strategy's
// feedback for tc (when given); closeImpl ends both.
func connectCovered(ctx context.Context, stdout io.Writer, p *projects.Project, info *model.ModelInfo, command, address string, one bool, f *coverFlags, tc *conform.TestConfig) (impl conform.Implementation, closeImpl func(), cov *projects.Coverage, err error) {
	if cov, err = f.start(p); err != nil {
		return nil, nil, nil, err
	}
	if tc != nil {
		if err := codeFeedback(tc, cov); err != nil {
			return nil, nil, nil, err
		}
	}
	var env []string
	if cov != nil {
		env = cov.Env()
	}
	impl, closeConn, err := connect(ctx, stdout, p, info, command, address, one, env)
	if err != nil {
		if cov != nil {
			cov.Close()
		}
		return nil, nil, nil, err
	}
	return impl, func() {
		closeConn()
		if cov != nil {
			cov.Close()
		}
	}, cov, nil
}

// measureRun measures after a run (last: the last planned one, measured
// now): the code coverage so far, and whether it was measured after this
// run (false without a measurement).
func measureRun(ctx context.Context, c *projects.Coverage, impl conform.Implementation, last bool) (codecov.Count, bool) {
	if c == nil || ctx.Err() != nil {
		return codecov.Count{}, false
	}
	count, now, err := c.Measure(ctx, impl, last)
	if err != nil {
		c.Note = err.Error()
		return codecov.Count{}, false
	}
	return count, now && count.Total > 0
}

// finishCoverage measures once more, prints the summary line and writes
// --cover-out.
func finishCoverage(ctx context.Context, stdout io.Writer, c *projects.Coverage, impl conform.Implementation, out string) error {
	if c == nil {
		return nil
	}
	if ctx.Err() == nil {
		if _, _, err := c.Measure(ctx, impl, true); err != nil {
			c.Note = err.Error()
		}
	}
	fmt.Fprintln(stdout, safetext.Term(c.Report()))
	return writeProfile(stdout, c.Profile, out)
}

// writeProfile writes a coverage profile to --cover-out's file ("": none):
// Go's text format, or LCOV for .lcov and .info.
func writeProfile(stdout io.Writer, p *codecov.Profile, out string) error {
	if out == "" {
		return nil
	}
	if p == nil {
		p = codecov.New("")
	}
	var buf bytes.Buffer
	write := p.WriteGo
	if ext := strings.ToLower(filepath.Ext(out)); ext == ".lcov" || ext == ".info" {
		write = p.WriteLCOV
	}
	if err := write(&buf); err != nil {
		return err
	}
	if err := projects.WriteFileAtomic(out, buf.Bytes()); err != nil {
		return fmt.Errorf("--cover-out: %w", err)
	}
	fmt.Fprintf(stdout, "coverage profile: %s\n", safetext.Term(out))
	return nil
}

// testProperties are a test's figures for its JUnit report: the model
// states and transitions covered, the code coverage of the implementation
// (when measured) and the actions the adapter does not implement.
func testProperties(res *conform.TestResult, cov *projects.Coverage) []junitProperty {
	props := []junitProperty{{"modex.model.states", fmt.Sprint(res.States)}, {"modex.model.transitions", fmt.Sprint(res.Transitions)}}
	if cov != nil {
		if count, _ := cov.Profile.Summary(); count.Total > 0 {
			props = append(props, junitProperty{"modex.code.coverage", fmt.Sprintf("%.1f", count.Percent())},
				junitProperty{"modex.code.statements", fmt.Sprint(count.Total)}, junitProperty{"modex.code.reached", fmt.Sprint(count.Reached)})
		}
	}
	if len(res.Skipped) > 0 {
		var names []string
		for _, sk := range res.Skipped {
			names = append(names, sk.Action)
		}
		props = append(props, junitProperty{"modex.not_implemented", strings.Join(names, ",")})
	}
	return props
}

// codeFeedback sets up the code strategy: every run measured, and each
// run's gain in statements reached told to the tester. It needs a
// measurement.
func codeFeedback(tc *conform.TestConfig, cov *projects.Coverage) error {
	if tc.Strategy != conform.StrategyCode {
		return nil
	}
	if cov == nil {
		return usagef("--strategy code follows the implementation's code coverage: measure it (--cover, and an implementation built for it: docs/coverage.md)")
	}
	tc.CodeFeedback = cov.Feedback()
	return nil
}
