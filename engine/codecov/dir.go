package codecov

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// EnvDir is the environment variable Modex gives an implementation (its
// adapter and every process it starts) to name the folder where coverage
// data goes; GOCOVERDIR (Go) and COVERAGE_FILE (coverage.py, in that
// folder) are set with it.
const EnvDir = "MODEX_COVERAGE_DIR"

// Env is the environment that sends an implementation's coverage data to
// dir: Go programs built with -cover write there (GOCOVERDIR),
// coverage.py too (COVERAGE_FILE, with a suffix per process), and an
// adapter may put an LCOV file or a coverage.py JSON report there.
func Env(dir string) []string {
	return []string{EnvDir + "=" + dir, "GOCOVERDIR=" + dir, "COVERAGE_FILE=" + filepath.Join(dir, ".coverage")}
}

// toolTimeout bounds one conversion by go tool covdata or coverage json.
const toolTimeout = time.Minute

// ReadDir reads every coverage data the folder holds and merges it: Go's
// (covmeta.* and covcounters.* files, converted by go tool covdata),
// coverage.py's data files (.coverage*, converted by python3 -m coverage
// json), LCOV files (*.lcov, lcov.info) and coverage.py JSON reports
// (*.coverage.json). A folder with none gives an empty profile.
func ReadDir(ctx context.Context, dir string) (*Profile, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	p := New("")
	goData := false
	for _, e := range entries {
		name := e.Name()
		full := filepath.Join(dir, name)
		var q *Profile
		var err error
		switch {
		case !e.Type().IsRegular():
			continue
		case strings.HasPrefix(name, "covmeta."):
			goData = true
		case strings.HasSuffix(name, ".lcov") || name == "lcov.info":
			q, err = readFile(full, ReadLCOV)
		case strings.HasSuffix(name, ".coverage.json"):
			q, err = readFile(full, ReadCoveragePy)
		case name == ".coverage" || strings.HasPrefix(name, ".coverage."):
			q, err = fromCoveragePy(ctx, full)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", full, err)
		}
		p.Merge(q)
	}
	if goData {
		q, err := fromGoCoverDir(ctx, dir)
		if err != nil {
			return nil, err
		}
		p.Merge(q)
	}
	return p, nil
}

func readFile(path string, read func(io.Reader) (*Profile, error)) (*Profile, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return read(f)
}

// convert runs a tool that writes a report into a temporary file (its
// path stands for {OUT} in argv) and reads the report; a tool's output
// that contains empty says there is no data (nil, nil).
func convert(ctx context.Context, ext, empty string, read func(io.Reader) (*Profile, error), argv ...string) (*Profile, error) {
	out, err := os.CreateTemp("", "modex-cover-*"+ext)
	if err != nil {
		return nil, err
	}
	out.Close()
	defer os.Remove(out.Name())
	ctx, cancel := context.WithTimeout(ctx, toolTimeout)
	defer cancel()
	args := make([]string, len(argv))
	for i, a := range argv {
		args[i] = strings.ReplaceAll(a, "{OUT}", out.Name())
	}
	if msg, err := exec.CommandContext(ctx, args[0], args[1:]...).CombinedOutput(); err != nil {
		if empty != "" && strings.Contains(string(msg), empty) {
			return nil, nil
		}
		return nil, fmt.Errorf("%s: %v: %s", strings.Join(argv, " "), err, strings.TrimSpace(string(msg)))
	}
	return readFile(out.Name(), read)
}

// fromGoCoverDir converts a GOCOVERDIR with go tool covdata textfmt.
func fromGoCoverDir(ctx context.Context, dir string) (*Profile, error) {
	return convert(ctx, ".txt", "", ReadGo, "go", "tool", "covdata", "textfmt", "-i", dir, "-o", "{OUT}")
}

// fromCoveragePy converts a coverage.py data file with its json report.
func fromCoveragePy(ctx context.Context, data string) (*Profile, error) {
	tool := CoveragePy()
	if tool == nil {
		return nil, fmt.Errorf("coverage.py is not installed (python3 -m coverage, or Debian's python3-coverage)")
	}
	argv := append(append([]string(nil), tool...), "json", "--data-file", data, "-o", "{OUT}", "--ignore-errors")
	return convert(ctx, ".json", "No data to report", ReadCoveragePy, argv...)
}

// CoveragePy is the command line that runs coverage.py here: python3 -m
// coverage, else Debian's python3-coverage, else /usr/bin/python3 -m
// coverage (a python3 first on PATH, pyenv's say, may lack the module that
// Debian installed for its own); nil when there is none.
func CoveragePy() []string {
	pyOnce.Do(func() {
		for _, c := range [][]string{{"python3", "-m", "coverage"}, {"python3-coverage"}, {"/usr/bin/python3", "-m", "coverage"}} {
			if exec.Command(c[0], append(c[1:], "--version")...).Run() == nil {
				pyTool = c
				return
			}
		}
	})
	return pyTool
}

var (
	pyOnce sync.Once
	pyTool []string
)

// ReadReported reads the coverage data an adapter said it wrote: a
// GOCOVERDIR ("gocoverdir"), a coverage.py data file ("coverage.py") or an
// LCOV file ("lcov") at path.
func ReadReported(ctx context.Context, format, path string) (*Profile, error) {
	switch format {
	case "gocoverdir":
		return fromGoCoverDir(ctx, path)
	case "coverage.py":
		return fromCoveragePy(ctx, path)
	case "lcov":
		return readFile(path, ReadLCOV)
	}
	return nil, fmt.Errorf("unknown coverage format %q (want gocoverdir, coverage.py or lcov)", format)
}
