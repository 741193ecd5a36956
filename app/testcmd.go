package main

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"strings"

	"github.com/modex/modex/campaign"
	"github.com/modex/modex/engine/adapter"
	"github.com/modex/modex/engine/codecov"
	"github.com/modex/modex/engine/conform"
	"github.com/modex/modex/engine/explore"
	"github.com/modex/modex/engine/model"
	"github.com/modex/modex/graph"
	"github.com/modex/modex/internal/safetext"
	"github.com/modex/modex/projects"
)

// oneProcessor runs the caller on one processor, unless GOMAXPROCS says
// otherwise, and returns what restores the setting. One online run is
// sequential: the tester, and the goroutine that reads the adapter's
// answers; with a second processor every answer handed from one to the
// other wakes an idle thread (docs/performance.md: 17.9 k against 25.6 k
// steps/s over stdio).
func oneProcessor() func() {
	if os.Getenv("GOMAXPROCS") != "" {
		return func() {}
	}
	prev := runtime.GOMAXPROCS(1)
	return func() { runtime.GOMAXPROCS(prev) }
}

// addOneCPUFlag declares --one-cpu, which runs Modex and the adapter it
// starts on one CPU (adapter.ShareOneCPU).
func addOneCPUFlag(fs *flag.FlagSet) *bool {
	return fs.Bool("one-cpu", false, "run Modex and the adapter it starts on one CPU (Linux): faster steps over stdio, but the implementation's threads share it")
}

// connect prints which implementation is tested and starts or dials it,
// on one CPU with --one-cpu (adapter.ShareOneCPU); closeImpl ends it and
// gives Modex its CPUs back.
func connect(ctx context.Context, stdout io.Writer, p *projects.Project, info *model.ModelInfo, command, address string, one bool, env []string) (impl conform.Implementation, closeImpl func(), err error) {
	restore := func() {}
	if one {
		if restore, err = adapter.ShareOneCPU(); err != nil {
			return nil, nil, fmt.Errorf("--one-cpu: %w", err)
		}
	}
	printAdapter(stdout, p, info, command, address)
	if impl, err = p.ConnectWith(ctx, info, command, address, env); err != nil {
		restore()
		return nil, nil, err
	}
	return impl, func() { impl.Close(); restore() }, nil
}

func cmdTest(args []string, stdout, stderr io.Writer) (err error) {
	defer oneProcessor()()
	fs := flag.NewFlagSet("test", flag.ContinueOnError)
	f := newTestFlags(fs)
	config, runs, steps, total, seed, strategy, junit, logFile := f.config, f.runs, f.steps, f.total, f.seed, f.strategy, f.junit, f.logFile
	adapterCmd, address, endWait, saveDir, rerunFile, chart, sh, oneCPUFlag := f.adapterCmd, f.address, f.endWait, f.saveDir, f.rerunFile, f.chart, f.sh, f.oneCPU
	path, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	json, stdout, err := f.jsonOut(stdout, stderr)
	if err != nil {
		return err
	}
	ctx, stop := signalContext()
	defer stop()
	phase := "while loading the model"
	defer func() { err = orStopped(ctx, err, "test", phase) }()
	p, m, cfg, name, err := openConfig(ctx, path, *config)
	if err != nil {
		return err
	}
	tc, _, err := p.TestSetup(projects.TestOverrides{Runs: *runs, Steps: *steps, TotalSteps: *total, Seed: *seed, Strategy: *strategy, EndWait: *endWait})
	if err != nil {
		return err
	}
	tc.KeepFailingSteps = projects.MaxSavedFailures // the runs saved keep their whole log
	tc.KeepPassingSteps = *chart != ""              // a chart of the last run when none fails
	saved, err := loadRerun(ctx, path, *config, *rerunFile, &p, &m, &cfg, &name, &tc)
	if err != nil {
		return err
	}
	phase = "while starting the implementation, before any run"
	impl, closeImpl, cov, err := connectCovered(ctx, stdout, p, m.Info(), *adapterCmd, *address, *oneCPUFlag, f.cover, &tc)
	if err != nil {
		return err
	}
	defer closeImpl()
	phase = "before any run"
	closeLog, err := logSteps(&tc, *logFile)
	if err != nil {
		return err
	}
	defer closeLog()
	if saved != nil && sh.on {
		phase = "while shrinking"
		err := shrink(ctx, stdout, shrinkJob{path: path, file: *rerunFile, m: m, cfg: cfg, impl: impl, tc: tc, saved: saved, flags: *sh,
			chart: *chart, project: p.Name, config: name})
		if err == nil {
			err = fmt.Errorf("the saved failure reproduced")
		}
		return err
	}
	if saved != nil {
		fmt.Fprintf(stdout, "rerunning %s: %s [%s], %d saved steps, seed %d\n", safetext.Term(*rerunFile), safetext.Term(p.Name), safetext.Term(name), len(saved.Trace), tc.Seed)
	} else {
		fmt.Fprintf(stdout, "testing %s [%s]: %s of %s, strategy %s, seed %d\n", safetext.Term(p.Name), safetext.Term(name), explore.Count(tc.Runs, "run"), explore.Count(tc.Steps, "step"), tc.Strategy, tc.Seed)
	}
	// Each run is reported as it ends (its line, its failure, where it was
	// saved): a test of 5,000 runs is not silent until its end.
	rep := testReport{path: path, project: p.Name, config: name, saveDir: *saveDir, rerun: saved != nil, codes: map[int]codecov.Count{},
		measure: func(last bool) (codecov.Count, bool) { return measureRun(ctx, cov, impl, last) }}
	counts := conform.Tally{}
	tc.OnRun = func(r conform.RunResult) { reportRun(stdout, r, tc, &rep, counts) }
	res, err := conform.Test(ctx, m, cfg, impl, tc)
	if err != nil {
		return err
	}
	phase = "after the runs"
	sig := printTestSummary(ctx, stdout, p.Name, name, m, cfg, tc, res, counts)
	if err := finishCoverage(ctx, stdout, cov, impl, *f.cover.out); err != nil {
		return err
	}
	if err := writeJUnit(*junit, p.Name, name, res, testProperties(res, cov)...); err != nil {
		return err
	}
	if err := writeTestJSON(json, p.Name, name, tc, res, rep.codes, cov); err != nil {
		return err
	}
	if err := runChart(stdout, *chart, p.Name, name, res, &rep); err != nil {
		return err
	}
	if sig != "" {
		return stopErr("test stopped by %s after %d of %s%s", sig, len(res.Runs), explore.Count(tc.Runs, "run"), failedBefore(counts))
	}
	if saved != nil {
		return rerunVerdict(stdout, saved, res)
	}
	if sh.on && rep.firstSaved != "" {
		phase = "while shrinking"
		first := conform.SaveRun(p.Name, name, tc, *rep.first)
		job := shrinkJob{path: path, file: rep.firstSaved, m: m, cfg: cfg, impl: impl, tc: tc, saved: first, flags: *sh, chart: *chart, project: p.Name, config: name}
		if err := shrink(ctx, stdout, job); err != nil {
			fmt.Fprintf(stdout, "shrinking: %s\n", safetext.Term(stopWords(ctx, err).Error()))
		}
	}
	return exitVerdict(counts, len(res.Runs), res.Halt, tc.Runs)
}

// loadRerun reads --rerun's saved run (nil without one) and sets the test
// up to drive it: its configuration (unless --config names one), seed,
// strategy, steps and script.
func loadRerun(ctx context.Context, path, config, file string, p **projects.Project, m **model.StarModel, cfg **explore.Config, name *string, tc *conform.TestConfig) (*conform.SavedRun, error) {
	if file == "" {
		return nil, nil
	}
	saved, err := readSavedRun(file, (*p).Name)
	if err != nil {
		return nil, err
	}
	if config == "" {
		if *p, *m, *cfg, *name, err = openConfig(ctx, path, saved.Config); err != nil {
			return nil, err
		}
	}
	tc.Runs, tc.Seed, tc.Strategy, tc.Steps, tc.Script = 1, saved.Seed, saved.Strategy, saved.Steps, saved.Script()
	return saved, nil
}

// printTestSummary prints a test's summary line: the runs done (and, when
// a signal stopped the test, that the rest was not), their verdicts, steps
// and coverage; it returns the signal ("" when none stopped it).
func printTestSummary(ctx context.Context, stdout io.Writer, project, config string, m model.Model, cfg *explore.Config, tc conform.TestConfig, res *conform.TestResult, counts conform.Tally) string {
	size, err := conform.SizeOf(ctx, m, cfg, conform.SizeStates, conform.SizeTime)
	if err != nil {
		size = conform.ModelSize{}
	}
	sig := stopSignal(ctx)
	done := explore.Count(len(res.Runs), "run")
	switch {
	case sig != "":
		// What was done, and that the rest was not: the run the stop cut
		// is inconclusive (conform), never a pass.
		done = stoppedAfter(len(res.Runs), tc.Runs, "run", sig, cutShort(res))
	case res.Halt != nil:
		// The implementation is gone: how it ended, and its stderr's end.
		done = res.Halt.Stopped(tc.Runs, "run")
	}
	fmt.Fprintf(stdout, "%s [%s]: %s: %s; %s; %s; %.2f s\n",
		safetext.Term(project), safetext.Term(config), done, counts, explore.Count(res.Steps, "step"), res.Coverage(size), res.Seconds)
	if note := conform.SkippedNote(res.Skipped); note != "" {
		fmt.Fprintf(stdout, "%s\n", safetext.Term(note))
	}
	return sig
}

// testFlags are modex test's flags.
type testFlags struct {
	config, strategy, junit, logFile, adapterCmd, address, saveDir, rerunFile, chart *string
	runs, steps, total                                                               *int
	seed                                                                             *int64
	endWait                                                                          *float64
	sh                                                                               *shrinkFlags
	oneCPU                                                                           *bool
	cover                                                                            *coverFlags
	format                                                                           *string
}

// newTestFlags declares modex test's flags on fs.
func newTestFlags(fs *flag.FlagSet) *testFlags {
	f := &testFlags{}
	f.config = fs.String("config", "", "the configuration `NAME` (default: the project's default)")
	f.runs = intFlag(fs, "runs", 0, 1, math.MaxInt, fmt.Sprintf("at least 1 (leave it out for the project's [test] runs, or %d)", projects.DefaultRuns),
		fmt.Sprintf("test runs, at least 1 (default: the project's [test] runs, else %d)", projects.DefaultRuns))
	f.steps = intFlag(fs, "steps", 0, 1, math.MaxInt, fmt.Sprintf("at least 1 (leave it out for the project's [test] steps, or %d)", projects.DefaultSteps),
		fmt.Sprintf("steps per run before the cleanup phase, at least 1 (default: [test] steps, else %d)", projects.DefaultSteps))
	f.total = intFlag(fs, "total-steps", 0, 0, math.MaxInt, "0 (no bound) or more", "bound on the steps of all runs together (0: [test] total_steps, else no bound)")
	f.seed = seedFlag(fs, "seed of the first run, 0 or more (-1: the project's seed, else one from the clock)")
	f.strategy = fs.String("strategy", "", "the runs' `STRATEGY`: random (weighted, the paper's), coverage (transitions not taken yet) or code (steps that reached new implementation code; needs --cover) (default: [test] strategy, else random)")
	f.junit = fs.String("junit", "", "write a JUnit XML report to `FILE`")
	f.logFile = fs.String("log", "", "write every step as a JSON line to `FILE`")
	f.adapterCmd = fs.String("adapter", "", "start the adapter `CMD` (instead of the project's), as \"go run ./impl adapter --fixed\"")
	f.address = fs.String("address", "", "dial a running adapter at `HOST:PORT` (instead of the project's)")
	f.endWait = secondsFlag(fs, "end-wait", 0, 0, false, maxFlagSeconds, "a number of seconds above 0, at most a week (leave it out for [test] end_wait, or 1)",
		"seconds to wait for events where nothing can be done, above 0 (default: [test] end_wait, else 1)")
	f.saveDir = fs.String("save-failures", "", "save the failing runs in folder `DIR` (default: modex/failures in the user's cache folder)")
	f.rerunFile = fs.String("rerun", "", "drive the controllable steps of the saved failing run `FILE` again (exit 1 if it fails again)")
	f.chart = fs.String("chart", "", "write the first failing run (else the last run) as a sequence chart, SVG, to `FILE`")
	f.sh = addShrinkFlags(fs, "the first failing run (or the --rerun file)")
	f.oneCPU = addOneCPUFlag(fs)
	f.cover = addCoverFlags(fs)
	f.format = fs.String("format", "", "`FORMAT` json: write the test's report as JSON (runs, verdicts, model and code coverage) on standard output, and what it prints on the way on standard error")
	return f
}

// jsonOut is where --format json writes (nil without it) and where the
// words go: standard error, with it.
func (f *testFlags) jsonOut(stdout, stderr io.Writer) (io.Writer, io.Writer, error) {
	switch *f.format {
	case "":
		return nil, stdout, nil
	case "json":
		return rawOut(stdout), stderr, nil
	}
	return nil, nil, usagef("--format %q: want json (or leave it out)", *f.format)
}

// testReport is what the run report needs besides the result.
type testReport struct {
	path, project, config, saveDir string
	rerun                          bool
	// first is the first failing run, saved in firstSaved (set by
	// reportRuns).
	first      *conform.RunResult
	firstSaved string
	// saved counts the failing runs saved (at most
	// projects.MaxSavedFailures).
	saved int
	// measure measures the implementation's code coverage after a run
	// (the last planned one: now): the coverage so far, and whether it was
	// measured after this run; codes keeps what it measured, by run.
	measure func(last bool) (codecov.Count, bool)
	codes   map[int]codecov.Count
}

// reportRun prints a run's verdict as it ends and, for a failure, the
// trace, the model state, where the run was saved and the command lines
// that run it again (quoted for a shell); counts tallies the verdicts.
func reportRun(stdout io.Writer, r conform.RunResult, tc conform.TestConfig, rep *testReport, counts conform.Tally) {
	counts[r.Verdict]++
	line := fmt.Sprintf("run %d/%d (seed %d): %s, %s", r.Run, tc.Runs, r.Seed, r.Verdict, explore.Count(r.Actions, "step"))
	if f := r.Failure; f != nil && f.Step > 0 {
		// The failing step is a step of the run: "fail at step 3",
		// not "fail, 2 steps" beside "FAIL … at step 3".
		line = fmt.Sprintf("run %d/%d (seed %d): %s at step %d", r.Run, tc.Runs, r.Seed, r.Verdict, f.Step)
	}
	if r.Reason != "" {
		line += " (" + safetext.Term(r.Reason) + ")"
	}
	if rep.measure != nil {
		if c, ok := rep.measure(r.Run == tc.Runs); ok {
			line += fmt.Sprintf("; code %.1f %%", c.Percent())
			rep.codes[r.Run] = c
		}
	}
	fmt.Fprintln(stdout, line)
	if r.Failure == nil {
		return
	}
	printFailure(stdout, r)
	if rep.rerun {
		return // a rerun saves nothing new
	}
	if rep.saved >= projects.MaxSavedFailures {
		if rep.saved++; rep.saved == projects.MaxSavedFailures+1 {
			fmt.Fprintf(stdout, "  (not saved, nor the later failing runs: a test saves its first %d)\n", projects.MaxSavedFailures)
		}
	} else if file, err := projects.SaveFailure(rep.saveDir, rep.project, rep.config, tc, r); err != nil {
		fmt.Fprintf(stdout, "  (the run could not be saved: %s)\n", safetext.Term(err.Error()))
	} else {
		rep.saved++
		fmt.Fprintf(stdout, "  saved: %s\n  rerun its steps: %s\n", safetext.Term(file), projects.RerunCommand(rep.path, "", file))
		if rep.first == nil && r.Verdict == conform.Fail {
			first := r // the run as it ended (its steps are kept whole)
			rep.first, rep.firstSaved = &first, file
		}
	}
	fmt.Fprintf(stdout, "  same choices again (timing may differ): %s\n", projects.SameChoicesCommand(rep.path, rep.config, r.Seed, tc.Steps, tc.Strategy))
}

// cutShort reports whether a test's last run was cut short by a stop.
func cutShort(res *conform.TestResult) bool {
	n := len(res.Runs)
	return n > 0 && res.Runs[n-1].Verdict == conform.Inconclusive && res.Runs[n-1].Reason == "cancelled"
}

// failedBefore says, for a command stopped, how many of the runs, cases or
// traces done failed (or met a model error) before the stop: "; 2 failed
// before the stop" ("" when none did). They stay failures; the stop's exit
// code (4) says the command did not reach its end.
func failedBefore(counts conform.Tally) string {
	s := ""
	if n := counts[conform.Fail]; n > 0 {
		s += fmt.Sprintf("; %d failed before the stop", n)
	}
	if n := counts[conform.ModelError]; n > 0 {
		s += fmt.Sprintf("; %s before the stop", explore.Count(n, "model error"))
	}
	return s
}

// exitVerdict is the command's error for a test's verdicts: for a test
// that halt stopped (of planned runs), it says so and why.
func exitVerdict(counts conform.Tally, runs int, halt *conform.Halt, planned int) error {
	if n := counts[conform.ModelError]; n > 0 {
		return fmt.Errorf("model error in %d of %s: fix the model, no verdict about the implementation", n, explore.Count(runs, "run"))
	}
	if n := counts[conform.Fail]; n > 0 {
		if halt != nil && halt.Run < planned {
			return fmt.Errorf("%d of %s failed; the test stopped at run %d of %d: %s", n, explore.Count(runs, "run"), halt.Run, planned, halt.Why())
		}
		return fmt.Errorf("%d of %s failed", n, explore.Count(runs, "run"))
	}
	if counts[conform.Pass] == 0 {
		return fmt.Errorf("no run passed")
	}
	return nil
}

// rerunVerdict says plainly whether a rerun reproduced the saved failure.
func rerunVerdict(stdout io.Writer, saved *conform.SavedRun, res *conform.TestResult) error {
	r := res.Runs[0]
	want := conform.FailureKind("")
	if saved.Failure != nil {
		want = saved.Failure.Kind
	}
	switch {
	case r.Failure != nil && r.Failure.Kind == want:
		fmt.Fprintf(stdout, "reproduced: the run failed again with %s at step %d (saved: step %d)\n", safetext.Term(string(want)), r.Failure.Step, saved.Failure.Step)
		return fmt.Errorf("the saved failure reproduced")
	case r.Failure != nil:
		fmt.Fprintf(stdout, "failed differently: %s at step %d (saved: %s)\n", r.Failure.Kind, r.Failure.Step, safetext.Term(string(want)))
		return fmt.Errorf("the rerun failed (%s)", r.Failure.Kind)
	default:
		fmt.Fprintf(stdout, "could not reproduce: the rerun ended %s", r.Verdict)
		if r.Reason != "" {
			fmt.Fprintf(stdout, " (%s)", safetext.Term(r.Reason))
		}
		fmt.Fprintln(stdout, "; the implementation's timing may differ from the saved run's")
		return nil
	}
}

// logSteps makes tc write every step as a JSON line to file (when set).
func logSteps(tc *conform.TestConfig, file string) (func(), error) {
	if file == "" {
		return func() {}, nil
	}
	f, err := os.Create(file)
	if err != nil {
		return nil, err
	}
	logw := json.NewEncoder(f)
	tc.OnStep = func(s conform.StepRecord) {
		logw.Encode(map[string]any{"run": s.Run, "index": s.Index, "step": s.Step, "kind": s.Kind.String(), "label": s.Label(), "cleanup": s.Cleanup})
	}
	return func() { f.Close() }, nil
}

// readSavedRun reads a saved run for the project.
func readSavedRun(file, project string) (*conform.SavedRun, error) {
	// A regular file only (a named pipe would block the open for ever).
	data, err := model.ReadFileLimited(file, conform.MaxRunFile)
	if err != nil {
		return nil, err
	}
	s, err := conform.ReadSavedRun(bytes.NewReader(data))
	if err != nil {
		// A campaign's failure as its coordinator kept it: its saved run.
		if _, saved, ferr := campaign.ReadFailure(bytes.NewReader(data)); ferr == nil {
			s, err = saved, nil
		}
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %v", file, err)
	}
	if s.Project != project {
		return nil, fmt.Errorf("%s: a run of project %q, not %q", file, s.Project, project)
	}
	if err := s.CanRerun(); err != nil {
		return nil, fmt.Errorf("%s: %v", file, err)
	}
	return s, nil
}

func orDefault(v, d string) string {
	if v == "" {
		return d
	}
	return v
}

func printFailure(w io.Writer, r conform.RunResult) {
	io.WriteString(w, conform.FailureReport(r, "  "))
}

type junitSuites struct {
	XMLName xml.Name     `xml:"testsuites"`
	Suites  []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name       string          `xml:"name,attr"`
	Tests      int             `xml:"tests,attr"`
	Failures   int             `xml:"failures,attr"`
	Skipped    int             `xml:"skipped,attr"`
	Time       string          `xml:"time,attr"`
	Properties []junitProperty `xml:"properties>property,omitempty"`
	Cases      []junitCase     `xml:"testcase"`
}

// junitProperty is a figure of the whole test: its model and code
// coverage, the actions skipped.
type junitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Time      string        `xml:"time,attr"`
	Failure   *junitFailure `xml:"failure,omitempty"`
	Skipped   *junitFailure `xml:"skipped,omitempty"`
}

type junitFailure struct {
	Type    string `xml:"type,attr,omitempty"`
	Message string `xml:"message,attr"`
	Text    string `xml:",chardata"`
}

func writeJUnit(path, project, config string, res *conform.TestResult, props ...junitProperty) error {
	if path == "" {
		return nil // no --junit
	}
	s := junitSuite{Name: project + " [" + config + "]", Time: fmt.Sprintf("%.3f", res.Seconds), Properties: props}
	for _, r := range res.Runs {
		c := junitCase{Name: fmt.Sprintf("run %d (seed %d)", r.Run, r.Seed), Classname: "modex." + project + "." + config, Time: fmt.Sprintf("%.3f", r.Seconds)}
		switch r.Verdict {
		case conform.Fail, conform.ModelError:
			var b strings.Builder
			printFailure(&b, r)
			c.Failure = &junitFailure{Type: string(r.Failure.Kind), Message: r.Failure.Message, Text: b.String()}
			s.Failures++
		case conform.Inconclusive:
			c.Skipped = &junitFailure{Message: "inconclusive: " + r.Reason}
			s.Skipped++
		}
		s.Cases = append(s.Cases, c)
		s.Tests++
	}
	data, err := xml.MarshalIndent(junitSuites{Suites: []junitSuite{s}}, "", "  ")
	if err != nil {
		return err
	}
	return projects.WriteFileAtomic(path, append([]byte(xml.Header), append(data, '\n')...))
}

// printAdapter says which implementation a command is about to reach: the
// command line it starts (running modex is consent to run it), its words
// quoted for a shell, or the address it dials.
func printAdapter(w io.Writer, p *projects.Project, info *model.ModelInfo, command, address string) {
	argv, dir, addr := p.AdapterLaunch(info, command, address)
	switch {
	case argv == nil:
		fmt.Fprintf(w, "implementation: the adapter at %s\n", safetext.Term(addr))
	case len(argv) > 0:
		fmt.Fprintf(w, "implementation: %s (in %s)\n", safetext.Command(argv...), safetext.Term(dir))
	}
}

// runChart writes the first failing run (else the last run) as a sequence
// chart to path, when path is set.
func runChart(stdout io.Writer, path, project, config string, res *conform.TestResult, rep *testReport) error {
	if path == "" || len(res.Runs) == 0 {
		return nil
	}
	r := res.Runs[len(res.Runs)-1]
	if rep.first != nil {
		r = *rep.first
	}
	title := fmt.Sprintf("%s [%s] run %d (seed %d)", project, config, r.Run, r.Seed)
	if err := writeChart(path, graph.RunChart(title, r)); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "sequence chart of run %d: %s\n", r.Run, safetext.Term(path))
	return nil
}

// writeChart writes a sequence chart as SVG, atomically.
func writeChart(path string, c *graph.Chart) error {
	return writeSVGFile(path, c.WriteSVG)
}
