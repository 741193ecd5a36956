package projects

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/modex/modex/engine/adapter"
	"github.com/modex/modex/engine/codecov"
	"github.com/modex/modex/engine/conform"
	"github.com/modex/modex/engine/model"
)

// CoverageSpec is the project's [coverage] table: measuring the code
// coverage of the implementation under test (docs/projects.md).
type CoverageSpec struct {
	// Enabled measures it on every test (else modex test --cover).
	Enabled bool `toml:"enabled,omitempty"`
	// Include are the implementation's files (path patterns: "server.go",
	// "impl/*.go"); the adapter's own code is left out. None: every file
	// measured.
	Include []string `toml:"include,omitempty"`
}

// SplitPatterns reads comma-separated file patterns ("server.go,
// impl/*.go"), blanks dropped.
func SplitPatterns(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// CoverageIncludes are the project's [coverage] include patterns.
func (p *Project) CoverageIncludes() []string {
	if p.Coverage == nil {
		return nil
	}
	return p.Coverage.Include
}

// Coverage measures the implementation's code coverage through a test: a
// folder given to the implementation (codecov.Env) where its coverage data
// goes, read after runs and merged.
type Coverage struct {
	Dir     string
	Include []string
	// Profile is what the runs reached so far (filtered by Include).
	Profile *codecov.Profile
	// Note says why the adapter wrote no data, the last time it did not.
	Note string
	// Always measures after every run (the code strategy needs each run's
	// gain), never once a second.
	Always bool
	last   time.Time
	calls  int
}

// NewCoverage makes the folder for a test's coverage data.
func NewCoverage(include []string) (*Coverage, error) {
	dir, err := os.MkdirTemp("", "modex-coverage-")
	if err != nil {
		return nil, err
	}
	return &Coverage{Dir: dir, Include: include, Profile: codecov.New("")}, nil
}

// Env is the implementation's environment for the measurement.
func (c *Coverage) Env() []string { return codecov.Env(c.Dir) }

// Measure asks the implementation to write its coverage data (when it can:
// conform.CoverageFlusher), reads the folder and merges what it holds into
// Profile: the cumulative count, and whether it measured now. Unless
// force, it measures at most once a second after the first 20 calls
// (reading Go's data runs go tool covdata, some 0.1 s).
func (c *Coverage) Measure(ctx context.Context, impl conform.Implementation, force bool) (codecov.Count, bool, error) {
	c.calls++
	if !force && !c.Always && c.calls > 20 && time.Since(c.last) < time.Second {
		count, _ := c.Profile.Summary()
		return count, false, nil
	}
	c.last = time.Now()
	if f, ok := impl.(conform.CoverageFlusher); ok {
		r, err := f.FlushCoverage(ctx)
		if err != nil {
			return codecov.Count{}, false, err
		}
		switch {
		case r.Format == "none":
			c.Note = r.Reason
		case r.Path != "" && !within(c.Dir, r.Path):
			// Written elsewhere: read where it said.
			p, err := codecov.ReadReported(ctx, r.Format, r.Path)
			if err != nil {
				return codecov.Count{}, false, fmt.Errorf("the coverage the adapter reported: %w", err)
			}
			c.Profile.Merge(p.Filter(c.Include))
		}
	}
	p, err := codecov.ReadDir(ctx, c.Dir)
	if err != nil {
		return codecov.Count{}, false, err
	}
	c.Profile.Merge(p.Filter(c.Include))
	// Go's counter files are snapshots of a process's counters since it
	// started: merged, they can go (the folder stays small; the meta-data
	// stays for the next ones).
	if entries, err := os.ReadDir(c.Dir); err == nil {
		for _, e := range entries {
			if strings.HasPrefix(e.Name(), "covcounters.") {
				os.Remove(filepath.Join(c.Dir, e.Name()))
			}
		}
	}
	count, _ := c.Profile.Summary()
	return count, true, nil
}

// within says whether path is dir or inside it.
func within(dir, path string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// Feedback is the code strategy's (conform.TestConfig.CodeFeedback): the
// statements the last run reached for the first time. It makes the
// measurement run after every run.
func (c *Coverage) Feedback() func() int {
	c.Always = true
	reached := 0
	return func() int {
		count, _ := c.Profile.Summary()
		gained := count.Reached - reached
		reached = count.Reached
		return max(gained, 0)
	}
}

// Close removes the folder.
func (c *Coverage) Close() { os.RemoveAll(c.Dir) }

// Report is the coverage's summary line: the percentage, then the files
// (at most six, the least covered first).
func (c *Coverage) Report() string {
	count, files := c.Profile.Summary()
	if count.Total == 0 {
		why := "no coverage data came from the implementation"
		if c.Note != "" {
			why += ": " + c.Note
		}
		if len(c.Include) > 0 && c.Note == "" {
			why += fmt.Sprintf(" (or none of it is in %v)", c.Include)
		}
		return why
	}
	text := "code coverage of the implementation: " + count.String()
	if len(files) > 1 {
		text += " ("
		for i, f := range files {
			if i == 6 {
				text += ", …"
				break
			}
			if i > 0 {
				text += ", "
			}
			text += fmt.Sprintf("%s %.1f %%", baseName(f.File), f.Percent())
		}
		text += ")"
	}
	return text
}

func baseName(p string) string {
	for i := len(p) - 1; i >= 0; i-- {
		if p[i] == '/' || p[i] == '\\' {
			return p[i+1:]
		}
	}
	return p
}

// ConnectWith is Connect with more environment for a started adapter
// (ignored for a TCP address).
func (p *Project) ConnectWith(ctx context.Context, info *model.ModelInfo, command, address string, env []string) (conform.Implementation, error) {
	return p.connect(ctx, info, command, address, adapter.WithEnv(env...))
}
