package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/modex/modex/engine/conform"
	"github.com/modex/modex/engine/explore"
	"github.com/modex/modex/engine/model"
	"github.com/modex/modex/internal/safetext"
	"github.com/modex/modex/projects"
)

func cmdGen(args []string, stdout, stderr io.Writer) (err error) {
	fs := flag.NewFlagSet("gen", flag.ContinueOnError)
	config := fs.String("config", "", "the configuration `NAME` (default: the project's default)")
	coverage := fs.String("coverage", "transitions", "what the suite covers, `GOAL`: transitions (a Chinese-postman tour), states (shortest paths) or state:ID (a path to that state)")
	out := fs.String("out", "", "write the suite to `FILE` (default: standard output)")
	strategies := fs.Bool("strategies", false, "write game strategies (suite format 2): cases that branch where the implementation chooses and force their goal where the tester can")
	path, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	ctx, stop := signalContext()
	defer stop()
	phase := "while loading the model"
	defer func() { err = orStopped(ctx, err, "gen", phase) }()
	p, m, cfg, name, err := openConfig(ctx, path, *config)
	if err != nil {
		return err
	}
	phase = "while exploring"
	x, err := explore.Explore(ctx, m, cfg)
	if err != nil {
		return err
	}
	phase = "after the exploration"
	if !x.Stats.Complete {
		if x.DirectedSearch() && x.Stats.StoppedBy == "" {
			fmt.Fprintf(stdout, "warning: the graph is a directed search's (%s); the suite covers what the walks visited\n", x.Stats.SearchWords())
		} else {
			fmt.Fprintf(stdout, "warning: the exploration stopped (%s); the suite covers the part explored\n", safetext.Term(x.Stats.StoppedBy))
		}
	}
	// A signal: the suite of what was found is written, and the exit code
	// (4) says the command was stopped.
	stopped := func() error {
		sig := stopSignal(ctx)
		switch {
		case sig == "":
			return nil
		case !x.Stats.Complete:
			return stopErr("gen stopped by %s during the exploration: the suite covers the part explored", sig)
		}
		return stopErr("gen stopped by %s after the exploration", sig)
	}
	g := x.Graph()
	var s *explore.Suite
	switch {
	case *strategies && *coverage == "transitions":
		s, err = g.StrategySuite()
	case *strategies && *coverage == "states":
		s, err = g.StrategyStates(nil)
	case *coverage == "transitions":
		s, err = g.TransitionTour()
	case *coverage == "states":
		s, err = g.StateCases(nil)
	case strings.HasPrefix(*coverage, "state:"):
		id := strings.TrimPrefix(*coverage, "state:")
		idx := -1
		for i, st := range g.States {
			if st.ID == id {
				idx = i
			}
		}
		if idx < 0 {
			return fmt.Errorf("no state %s in the graph (%d states)", id, len(g.States))
		}
		if *strategies {
			s, err = g.StrategyStates([]int{idx})
		} else {
			s, err = g.StateCases([]int{idx})
		}
	default:
		return usagef("unknown coverage %q (use transitions, states or state:ID)", *coverage)
	}
	if err != nil {
		return err
	}
	s.Model, s.Config = m.Info().Name, name
	summary := fmt.Sprintf("%s [%s]: %s", safetext.Term(p.Name), safetext.Term(name), s.Summary())
	if len(s.Dead) > 0 {
		summary += fmt.Sprintf("; dead states left out: %s", strings.Join(s.Dead, " "))
	}
	if *out == "" {
		if err := s.WriteJSON(rawOut(stdout)); err != nil {
			return err
		}
		fmt.Fprintln(stderr, summary)
		return stopped()
	}
	var b strings.Builder
	if err := s.WriteJSON(&b); err != nil {
		return err
	}
	if err := projects.WriteFileAtomic(*out, []byte(b.String())); err != nil {
		return err
	}
	fmt.Fprintln(stdout, summary)
	return stopped()
}

func cmdRun(args []string, stdout io.Writer) (err error) {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	config := fs.String("config", "", "the configuration `NAME` (default: the suite's)")
	junit := fs.String("junit", "", "write a JUnit XML report to `FILE`")
	adapterCmd := fs.String("adapter", "", "start the adapter `CMD` (instead of the project's)")
	address := fs.String("address", "", "dial a running adapter at `HOST:PORT` (instead of the project's)")
	shrinkFlag := fs.Bool("shrink", false, "for each failing case, find the shortest prefix that still fails the same way")
	endWait := secondsFlag(fs, "end-wait", 1, 0, false, maxFlagSeconds, "a number of seconds above 0, at most a week", "seconds to wait for an expected observable action, above 0")
	oneCPUFlag := addOneCPUFlag(fs)
	cover := addCoverFlags(fs)
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 2 {
		return usagef("run takes PROJECT and SUITE.json")
	}
	suite, err := explore.ReadSuiteFile(pos[1])
	if err != nil {
		return err
	}
	ctx, stop := signalContext()
	defer stop()
	phase := "while loading the model"
	defer func() { err = orStopped(ctx, err, "run", phase) }()
	p, m, cfg, name, err := openConfig(ctx, pos[0], orDefault(*config, suite.Config))
	if err != nil {
		return err
	}
	if err := suite.CheckFits(m.Info(), cfg, name); err != nil {
		return usagef("%s: %v", safetext.Term(pos[1]), err) // the arguments do not go together (exit 2)
	}
	phase = "while starting the implementation, before any case"
	impl, closeImpl, cov, err := connectCovered(ctx, stdout, p, m.Info(), *adapterCmd, *address, *oneCPUFlag, cover, nil)
	if err != nil {
		return err
	}
	defer closeImpl()
	phase = "before any case"
	fmt.Fprintf(stdout, "running %s [%s]: %s\n", safetext.Term(pos[1]), safetext.Term(name), explore.Count(len(suite.Cases), "case"))
	tc := conform.TestConfig{EndWait: time.Duration(*endWait * float64(time.Second))}
	// Each case is reported as it ends: a suite of forty minutes is not
	// silent until its end.
	tc.OnRun = func(r conform.RunResult) { printCase(stdout, suite, r) }
	res, err := conform.RunSuite(ctx, m, cfg, impl, suite, tc)
	if err != nil {
		return err
	}
	phase = "after the cases"
	counts := conform.Tally{}
	tr := &conform.TestResult{Seconds: res.Seconds}
	for i, c := range res.Cases {
		counts[c.Verdict]++
		tr.Runs = append(tr.Runs, conform.RunResult{Run: i + 1, Verdict: c.Verdict, Failure: c.Failure, Reason: c.Reason, Seconds: c.Seconds})
		if *shrinkFlag && c.Verdict == conform.Fail && ctx.Err() == nil {
			fmt.Fprintf(stdout, "%s:\n", safetext.Term(c.Name))
			shrinkCase(ctx, stdout, m, cfg, impl, suite.Cases[i], c, tc)
		}
	}
	sig := stopSignal(ctx)
	done := explore.Count(len(res.Cases), "case")
	switch {
	case sig != "":
		// The case the stop cut is inconclusive (conform), never a pass.
		n := len(res.Cases)
		cut := n > 0 && res.Cases[n-1].Verdict == conform.Inconclusive && res.Cases[n-1].Reason == "cancelled"
		done = stoppedAfter(n, len(suite.Cases), "case", sig, cut)
	case res.Halt != nil:
		// The implementation is gone: how it ended, and its stderr's end.
		done = res.Halt.Stopped(len(suite.Cases), "case")
	}
	fmt.Fprintf(stdout, "%s [%s] %s: %s: %s; %s; %.2f s\n", safetext.Term(p.Name), safetext.Term(name), safetext.Term(pos[1]), done, suiteCounts(counts, res), suiteCoverage(suite, res), res.Seconds)
	if err := finishCoverage(ctx, stdout, cov, impl, *cover.out); err != nil {
		return err
	}
	if *junit != "" {
		if err := writeJUnit(*junit, p.Name, name, tr); err != nil {
			return err
		}
	}
	if sig != "" {
		return stopErr("run stopped by %s after %d of %s%s", sig, len(res.Cases), explore.Count(len(suite.Cases), "case"), failedBefore(counts))
	}
	if n := counts[conform.ModelError]; n > 0 {
		return fmt.Errorf("model error in %d of %s: fix the model, no verdict about the implementation", n, explore.Count(len(res.Cases), "test case"))
	}
	if counts[conform.Fail] > 0 {
		if h := res.Halt; h != nil && h.Run < len(suite.Cases) {
			return fmt.Errorf("%d of %s failed; the suite stopped at case %d of %d: %s", counts[conform.Fail], explore.Count(len(res.Cases), "test case"), h.Run, len(suite.Cases), h.Why())
		}
		return fmt.Errorf("%d of %s failed", counts[conform.Fail], explore.Count(len(res.Cases), "test case"))
	}
	return nil
}

// suiteCounts is the verdict tally, the passes that gave up their goal
// told apart.
func suiteCounts(counts conform.Tally, res *conform.SuiteResult) string {
	gaveUp := 0
	for _, c := range res.Cases {
		if c.GaveUp {
			gaveUp++
		}
	}
	if gaveUp == 0 {
		return counts.String()
	}
	return fmt.Sprintf("%s (%d of the passes gave up their goal)", counts, gaveUp)
}

// suiteCoverage says which transitions the cases took, of those the suite
// was made to cover (a strategy case follows the implementation, and may
// give up its goal).
func suiteCoverage(suite *explore.Suite, res *conform.SuiteResult) string {
	return fmt.Sprintf("walked %d of the graph's %d transitions (the suite was made to cover %d)", conform.CoveredBy(res.Cases), suite.Trans, suite.Covered)
}

// printCase prints how a suite's case ended (r.Run counts from 1), with
// its failure.
func printCase(stdout io.Writer, suite *explore.Suite, r conform.RunResult) {
	c := suite.Cases[r.Run-1]
	verdict := string(r.Verdict)
	if r.GaveUp {
		// Nothing failed, but what the case was for did not happen: not a
		// pass of its goal.
		verdict = "gave up its goal " + c.Goal
		if c.Forced {
			verdict += " (planned as forced: the implementation left no room for a wait the plan counted on)"
		}
	}
	line := fmt.Sprintf("%s: %s after %d of %d steps", safetext.Term(c.Name), verdict, r.Actions, c.Actions())
	if r.Actions > c.Actions() {
		// A strategy case follows what the implementation chooses: it may
		// take more steps than its main line ("8 of 5 steps" said nothing).
		line = fmt.Sprintf("%s: %s after %s (%d on its main line)", safetext.Term(c.Name), verdict, explore.Count(r.Actions, "step"), c.Actions())
	}
	if r.Reason != "" && !r.GaveUp {
		line += " (" + safetext.Term(r.Reason) + ")"
	}
	fmt.Fprintln(stdout, line)
	if f := r.Failure; f != nil {
		fmt.Fprintf(stdout, "  FAIL %s at step %d: %s\n", f.Kind, f.Step, safetext.TermIndented(f.Message, "  | "))
		for _, st := range f.States {
			fmt.Fprintf(stdout, "  model state: %s\n", safetext.Term(st.String()))
		}
		if len(f.Expected) > 0 {
			fmt.Fprintf(stdout, "  the model allowed: %s\n", safetext.Term(strings.Join(f.Expected, ", ")))
		}
	}
}

// shrinkCase prints the shortest prefix of a failing case that still fails
// the same way (conform.ShrinkCase).
func shrinkCase(ctx context.Context, stdout io.Writer, m model.Model, cfg *explore.Config, impl conform.Implementation, c explore.SuiteCase, cr conform.CaseResult, tc conform.TestConfig) {
	n, res, err := conform.ShrinkCase(ctx, m, cfg, impl, c, tc, cr.Failure.Kind, 3)
	if err != nil {
		fmt.Fprintf(stdout, "  shrinking: %s\n", safetext.Term(stopWords(ctx, err).Error()))
		return
	}
	if res.Failure == nil {
		fmt.Fprintf(stdout, "  shrinking: no shorter prefix of the case fails with %s\n", cr.Failure.Kind)
		return
	}
	fmt.Fprintf(stdout, "  shrunk: the first %d of its %d steps already fail: %s at step %d: %s\n", n, len(c.Steps), res.Failure.Kind, res.Failure.Step, safetext.TermIndented(res.Failure.Message, "  | "))
}
