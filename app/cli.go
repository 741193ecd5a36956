package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/modex/modex/engine/explore"
	"github.com/modex/modex/engine/model"
	"github.com/modex/modex/graph"
	"github.com/modex/modex/internal/safetext"
	"github.com/modex/modex/projects"
)

// headless are the commands that open no window.
var headless = map[string]bool{"explore": true, "check": true, "test": true, "gen": true, "run": true, "replay": true,
	"campaign": true, "worker": true, "keygen": true, "adapter": true, "__layout": true, "__render": true, "help": true}

// usageError is a command line modex cannot run (exit 2): its message,
// then where to read the command's flags.
type usageError struct {
	msg string
	cmd string // the command whose help to point to ("": the general usage)
}

func (e *usageError) Error() string { return e.msg + "\n" + usagePointer(e.cmd) }

func usagef(format string, args ...any) error { return &usageError{msg: fmt.Sprintf(format, args...)} }

// run is the whole program; it returns an error instead of exiting.
// What the commands print goes through safetext.TermWriter: whatever a
// model, a project, a trace or an adapter put in it, no control character
// but line breaks and tabs reaches the terminal (the values in a line are
// escaped whole, line breaks too, where they are printed: safetext.Term).
// Exports written to standard output (JSON, DOT, SVG, PNG) are data and
// bypass it (rawOut).
func run(args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return runGUI("", "", "")
	}
	stdout, stderr = &safetext.TermWriter{W: stdout}, &safetext.TermWriter{W: stderr}
	if headless[args[0]] {
		// The GUI toolkit locks the main goroutine to the main thread
		// (in an init); a command needs no such thing, and waking a
		// locked goroutine hands the processor to its thread every time
		// (a quarter of an online step over stdio went there): commands
		// run in a goroutine of their own.
		done := make(chan error, 1)
		go func() { done <- command(args, stdout, stderr) }()
		return <-done
	}
	return command(args, stdout, stderr)
}

// command runs a command (or the GUI on a project). A command given -h
// or --help prints its help (writeHelp) and succeeds; a usage error
// points to the help of the command it came from.
func command(args []string, stdout, stderr io.Writer) error {
	err := dispatch(args, stdout, stderr)
	var h *helpRequest
	if errors.As(err, &h) {
		writeHelp(stdout, h.fs)
		return nil
	}
	var ue *usageError
	if errors.As(err, &ue) && ue.cmd == "" {
		if len(args) > 1 && commandNamed(args[0]+" "+args[1]) != nil {
			ue.cmd = args[0] + " " + args[1]
		} else if c := commandNamed(args[0]); c != nil {
			ue.cmd = c.name
		}
	}
	return err
}

// dispatch runs a command, or the GUI on a project.
func dispatch(args []string, stdout, stderr io.Writer) error {
	switch args[0] {
	case "explore":
		return cmdExplore(args[1:], stdout, stderr)
	case "check":
		return cmdCheck(args[1:], stdout)
	case "test":
		return cmdTest(args[1:], stdout, stderr)
	case "gen":
		return cmdGen(args[1:], stdout, stderr)
	case "run":
		return cmdRun(args[1:], stdout)
	case "replay":
		return cmdReplay(args[1:], stdout)
	case "campaign":
		return cmdCampaign(args[1:], stdout, stderr)
	case "worker":
		return cmdWorker(args[1:], stdout, stderr)
	case "keygen":
		return cmdKeygen(args[1:], stdout)
	case "adapter":
		return cmdAdapter(args[1:], stdout, stderr)
	case "__layout": // internal: Graphviz in a child process for the GUI
		if len(args) != 2 {
			return usagef("__layout ENGINE")
		}
		dot, err := io.ReadAll(os.Stdin)
		if err != nil {
			return err
		}
		return graph.RenderDOT(context.Background(), dot, graph.Format("json"), args[1], rawOut(stdout))
	case "help", "-h", "-help", "--help":
		return cmdHelp(args[1:], stdout, stderr)
	}
	if strings.HasPrefix(args[0], "-") {
		return usagef("unknown command or flag %q", args[0])
	}
	fs := flag.NewFlagSet(workbench, flag.ContinueOnError)
	config := fs.String("config", "", "the configuration `NAME` to open (default: the project's default)")
	trace := fs.String("trace", "", "a recorded trace or history `FILE` to replay in the Offline tab")
	path, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if _, err := os.Stat(path); err != nil {
		return usagef("unknown command %q (and no such project file)", path)
	}
	return runGUI(path, *config, *trace)
}

// parseFlags parses flags that may stand before or after the one positional
// argument (the project).
func parseFlags(fs *flag.FlagSet, args []string) (string, error) {
	pos, err := parseArgs(fs, args)
	if err != nil {
		return "", err
	}
	if len(pos) != 1 {
		return "", usagef("%s takes exactly one PROJECT, got %d", fs.Name(), len(pos))
	}
	return pos[0], nil
}

// parseArgs parses flags mixed with positional arguments and returns the
// positional ones.
func parseArgs(fs *flag.FlagSet, args []string) ([]string, error) {
	fs.SetOutput(io.Discard)
	var pos []string
	for {
		if err := fs.Parse(args); errors.Is(err, flag.ErrHelp) {
			return nil, &helpRequest{fs}
		} else if err != nil {
			return nil, usagef("%s: %s", fs.Name(), dashes.Replace(err.Error()))
		}
		if fs.NArg() == 0 {
			return pos, nil
		}
		pos = append(pos, fs.Arg(0))
		args = fs.Args()[1:]
	}
}

// dashes names flags in the flag package's errors as modex's usage does:
// --steps, not -steps.
var dashes = strings.NewReplacer("for flag -", "for flag --", "argument: -", "argument: --", "not defined: -", "not defined: --")

func openProject(path string) (*projects.Project, *model.StarModel, error) {
	p, err := projects.Load(path)
	if err != nil {
		return nil, nil, err
	}
	m, err := p.LoadModel()
	if err != nil {
		return nil, nil, err
	}
	return p, m, nil
}

// openConfig opens a project and builds one of its configurations ("" for
// the default); it returns the configuration's name too.
func openConfig(ctx context.Context, path, config string) (*projects.Project, *model.StarModel, *explore.Config, string, error) {
	return openConfigWorkers(ctx, path, config, 0)
}

// openConfigWorkers is openConfig with the model's init() on at most
// workers goroutines (0: the number of CPUs); the model's code at load
// stops when ctx ends or past the configuration's memory budget.
func openConfigWorkers(ctx context.Context, path, config string, workers int) (*projects.Project, *model.StarModel, *explore.Config, string, error) {
	p, err := projects.Load(path)
	if err != nil {
		return nil, nil, nil, "", err
	}
	if config == "" {
		config = p.Default
	}
	m, err := p.LoadModelContext(ctx, config, workers) // with the configuration's constants
	if err != nil {
		return nil, nil, nil, "", err
	}
	cfg, err := p.Build(m, config)
	if err != nil {
		return nil, nil, nil, "", err
	}
	return p, m, cfg, config, nil
}

func cmdExplore(args []string, stdout, stderr io.Writer) (err error) {
	fs := flag.NewFlagSet("explore", flag.ContinueOnError)
	config := fs.String("config", "", "the configuration `NAME` (default: the project's default)")
	format := fs.String("format", "", "write the graph as `FORMAT`: json, dot, svg or png (default: --out's extension; neither: the summary only)")
	out := fs.String("out", "", "write the graph to `FILE`, atomically (default: standard output, with --format)")
	workers := intFlag(fs, "workers", 0, 0, maxWorkers, fmt.Sprintf("0 (the number of CPUs) to %d", maxWorkers),
		fmt.Sprintf("goroutines that explore, and run init()'s loops, 0 to %d (0: the number of CPUs)", maxWorkers))
	layout := fs.String("layout", "", "Graphviz `LAYOUT` of svg and png: dot, dot-fast, sfdp or neato (default: dot for small graphs, sfdp for large)")
	noTiming := fs.Bool("no-timing", false, "write 0 seconds in the JSON stats (byte-identical output)")
	quotient := fs.String("quotient", "", "write the overview by `EXPR`, an expression over s (as 'len(s.stack)'), depth or auto: a node per value")
	minimize := fs.Bool("minimize", false, "write the minimised graph: the states with the same future merged (bisimulation)")
	ef := addExploreFlags(fs)
	wf := addWalkFlags(fs)
	cf := addCheckFlags(fs)
	path, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if err := graphFormat(format, *out); err != nil {
		return err
	}
	ctx, stop := signalContext()
	defer stop()
	defer func() { err = orStopped(ctx, err, "explore", "") }()
	p, m, cfg, name, err := openConfigWorkers(ctx, path, *config, *workers)
	if err != nil {
		return err
	}
	cfg.Workers = *workers
	cfg.ReleaseInits = true // explored once
	ef.apply(cfg)
	if err := wf.apply(cfg); err != nil {
		return err
	}
	if cf.on(p, name) {
		return checkInstead(ctx, p.Name, name, m, cfg, ef, cf, graphFlags{*format, *quotient, *minimize}, stdout, stderr)
	}
	ef.watch(cfg, stderr)
	combined := CombinedWords(m, cfg) // before exploring, which lets go of the initial states
	// A summary needs no graph: the transitions are counted, with a way to
	// every state for the path to a deadlock.
	cfg.DropTransitions = *format == "" && !*minimize
	x, err := explore.Explore(ctx, m, cfg)
	if err != nil {
		return err
	}
	summary := Summary(p.Name, name, x) + combined
	shown := x
	if *minimize {
		shown, _ = x.Minimize()
		summary += "\n" + MinimizedWords(x, shown)
	}
	if *format == "" {
		fmt.Fprintln(stdout, summary)
		if hint := budgetHint(x); hint != "" {
			fmt.Fprintln(stdout, hint)
		}
		printFindings(stdout, x)
		return verdict(x)
	}
	if *format == "json" && *quotient == "" {
		// Streamed: the document is never held whole.
		if err := streamJSON(ctx, shown, summary, *out, *noTiming, stdout, stderr); err != nil {
			return err
		}
		printFindings(stderr, x)
		return verdict(x)
	}
	doc, chose, err := exportDoc(shown, *quotient)
	if err != nil {
		return err
	}
	summary += chose
	if *format == "svg" || *format == "png" {
		if n := len(doc.States); n > graph.PictureLimit {
			return fmt.Errorf("%s: %d states are too many for a readable picture (at most %d): write the overview with --quotient EXPR (an expression over s, or depth), or the graph with --format json or dot", summary, n, graph.PictureLimit)
		}
	}
	wctx := writeContext(ctx)
	err = writeOut(ctx, *out, summary, stdout, stderr, func(w io.Writer) error {
		switch *format {
		case "json":
			return doc.WriteJSON(w, graph.JSONOptions{NoTiming: *noTiming})
		case "dot":
			return doc.WriteDOT(w)
		}
		// A picture is rendered whole first: a failed layout writes nothing.
		var buf bytes.Buffer
		if err := doc.Render(wctx, graph.Format(*format), *layout, &buf); err != nil {
			return err
		}
		_, err := w.Write(buf.Bytes())
		return err
	})
	if err != nil {
		return err
	}
	return verdict(x)
}

// graphFormat takes explore's --format from --out's extension when it is
// not given, and refuses an unknown one.
func graphFormat(format *string, out string) error {
	if *format == "" && out != "" {
		*format = strings.TrimPrefix(filepath.Ext(out), ".")
	}
	switch *format {
	case "", "json", "dot", "svg", "png":
		return nil
	}
	return usagef("unknown format %q (use json, dot, svg or png)", *format)
}

// checkInstead runs modex explore's checking mode (--check, check = true),
// which explores every state: not with a directed search.
func checkInstead(ctx context.Context, project, name string, m model.Model, cfg *explore.Config, ef *exploreFlags, cf *checkFlags, gf graphFlags, stdout, stderr io.Writer) error {
	if cfg.Search == explore.SearchWalks {
		return fmt.Errorf("a check explores every state: it does not go with a directed search (--walks, search = \"walks\")")
	}
	return runCheck(ctx, project, name, m, cfg, ef, cf, gf, stdout, stderr)
}

// verdict is modex explore's exit status: violations (error states,
// deadlocks) first, then an incomplete exploration.
func verdict(x *explore.Exploration) error {
	st := x.Stats
	if st.ErrorStates > 0 || st.Deadlocks > 0 {
		var what []string
		if st.ErrorStates > 0 {
			what = append(what, explore.Count(st.ErrorStates, "error state"))
		}
		if st.Deadlocks > 0 {
			what = append(what, explore.Count(st.Deadlocks, "deadlock"))
		}
		return &codeError{exitViolation, "the exploration found " + strings.Join(what, " and ") + fmt.Sprintf(" (exit %d)", exitViolation)}
	}
	if !st.Complete && (st.Search == "" || st.StoppedBy != "") { // a directed search is partial by design
		return &codeError{exitIncomplete, "the exploration is " + st.Ending() + fmt.Sprintf(" (exit %d)", exitIncomplete)}
	}
	return nil
}

// printDeadlock prints the path to the first deadlock, if any.
func printDeadlock(w io.Writer, x *explore.Exploration) {
	dl := x.Deadlocks()
	if len(dl) == 0 {
		return
	}
	var steps []string
	id := x.GraphID(dl[0], false)
	if walk, path, ok := x.WalkPath(dl[0]); ok {
		fmt.Fprintf(w, "deadlock: nothing is enabled in %s, reached by walk %d (seed %d) by %s (check_deadlock = false in the configuration turns the check off)\n", id, walk, x.Stats.Seed, pathWords(x, path))
		return
	}
	if x.TransitionsDropped() {
		for _, t := range x.PredecessorPath(dl[0]) {
			steps = append(steps, x.TransLabel(&t))
		}
	} else {
		g := x.Graph()
		for _, ti := range g.PathTo(g.ActiveOf[dl[0]]) {
			if l := g.Trans[ti].Label(); l != "" {
				steps = append(steps, l)
			}
		}
	}
	path := safetext.Term(strings.Join(steps, ", "))
	if path == "" {
		path = "an initial state"
	}
	fmt.Fprintf(w, "deadlock: nothing is enabled in %s, reached by %s (check_deadlock = false in the configuration turns the check off)\n", id, path)
}

// streamJSON writes the exploration's graph as JSON state by state, to out
// atomically or to stdout.
func streamJSON(ctx context.Context, x *explore.Exploration, summary, out string, noTiming bool, stdout, stderr io.Writer) error {
	w, err := x.Model.NewWorker()
	if err != nil {
		return err
	}
	write := func(to io.Writer) error {
		return graph.WriteExplorationJSON(to, x, w, graph.JSONOptions{NoTiming: noTiming})
	}
	return writeOut(ctx, out, summary, stdout, stderr, write)
}

// writeOut streams an export to the file out (atomically) or to stdout, and
// prints the summary (on stderr when the export goes to stdout). A signal
// during the export stops it (see writeContext): the file is left as it
// was, with no temporary file beside it.
func writeOut(ctx context.Context, out, summary string, stdout, stderr io.Writer, write func(io.Writer) error) error {
	wctx := writeContext(ctx)
	stopped := func(err error) error {
		if sig := stopSignal(wctx); sig != "" && errors.Is(err, context.Canceled) {
			if out == "" {
				return stopErr("explore stopped by %s while writing to standard output: the output is cut short", sig)
			}
			return stopErr("explore stopped by %s while writing %s: nothing written (the file is as it was)", sig, out)
		}
		return err
	}
	if out == "" {
		fmt.Fprintln(stderr, summary)
		return stopped(write(&stopWriter{wctx, rawOut(stdout)}))
	}
	if err := projects.WriteAtomic(out, func(w io.Writer) error { return write(&stopWriter{wctx, w}) }); err != nil {
		return stopped(err)
	}
	fmt.Fprintln(stdout, summary)
	return nil
}

// rawOut is the writer under w when w escapes text for the terminal
// (run's safetext.TermWriter): exports to standard output are data, a
// PNG's bytes or JSON, written as they are.
func rawOut(w io.Writer) io.Writer {
	if t, ok := w.(*safetext.TermWriter); ok {
		return t.W
	}
	return w
}

// Summary is the one-line report of an exploration; the project's and the
// configuration's names are escaped for the terminal (safetext.Term).
func Summary(project, config string, x *explore.Exploration) string {
	st := x.Stats
	end := st.Ending()
	errs := st.ErrorStates
	extra := ""
	if n := st.InitialStates; n > 1 {
		extra += fmt.Sprintf(", %d initial", n)
	}
	if errs > 0 {
		extra += ", " + explore.Count(errs, "error state")
	}
	if st.Deadlocks > 0 {
		extra += ", " + explore.Count(st.Deadlocks, "deadlock")
	}
	if st.Search != "" {
		return walkSummary(project, config, x, extra)
	}
	return fmt.Sprintf("%s [%s]: %s, %d tried, %.3f s, %s%s",
		safetext.Term(project), safetext.Term(config), x.SizeText(), st.Tried, st.Seconds, end, extra)
}

func cmdCheck(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("check", flag.ContinueOnError)
	path, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	p, m, err := openProject(path)
	if err != nil {
		return err
	}
	w, err := m.NewWorker()
	if err != nil {
		return err
	}
	for _, name := range p.ConfigNames() {
		mc, wc := m, w
		if spec, err := p.Resolve(name); err == nil && len(spec.Constants)+len(spec.Scenarios)+len(spec.ScenarioMachines) > 0 {
			if mc, err = p.LoadModelFor(name); err != nil {
				return err
			}
			if wc, err = mc.NewWorker(); err != nil {
				return err
			}
		}
		cfg, err := p.Build(mc, name)
		if err != nil {
			return err
		}
		if err := cfg.Check(mc, wc); err != nil {
			return fmt.Errorf("configuration %s: %w", name, err)
		}
	}
	if _, err := p.ReplayConfig(m); err != nil {
		return err
	}
	info := m.Info()
	kinds := map[model.Kind]int{}
	for _, a := range info.Actions {
		kinds[a.Kind]++
	}
	fmt.Fprintf(stdout, "ok: %s: model %s (%d variables; %d controllable, %d observable, %d internal actions); configurations: %s\n",
		safetext.Term(p.Name), safetext.Term(p.Model), len(info.Vars), kinds[model.Controllable], kinds[model.Observable], kinds[model.Internal], listSome(p.ConfigNames(), 20))
	return nil
}

// listSome joins the first n names, escaped for the terminal, saying how
// many more there are.
func listSome(names []string, n int) string {
	more := ""
	if len(names) > n {
		names, more = names[:n], fmt.Sprintf(", … and %d more", len(names)-n)
	}
	return safetext.Term(strings.Join(names, ", ")) + more
}

// MinimizedWords says what minimising x gave: "minimised (bisimulation):
// 8 states, 14 transitions -> 4 states, 7 transitions".
func MinimizedWords(x, min *explore.Exploration) string {
	return "minimised (bisimulation): " + x.SizeText() + " -> " + min.SizeText()
}

// exportDoc is the document to write: the state graph, or its quotient by
// an expression (see explore.Quotient).
// For --quotient auto it also says which expression it chose and why.
func exportDoc(x *explore.Exploration, quotient string) (*graph.Doc, string, error) {
	if quotient == "" {
		d, err := graph.FromExploration(x)
		return d, "", err
	}
	chose := ""
	if quotient == explore.QuotientAuto {
		cs, err := x.OverviewChoices(context.Background())
		if err != nil {
			return nil, "", fmt.Errorf("--quotient auto: %w", err)
		}
		quotient = explore.QuotientDepth
		chose = "\noverview by depth: no grouping, property or variable gives 3 to 30 classes:"
		if cs[0].Readable() {
			quotient = cs[0].By
			chose = "\noverview by " + safetext.Term(quotient) + ", chosen from the model's structure (readable classes, fewest arcs between them):"
		}
		for _, c := range cs {
			chose += "\n  " + safetext.Term(c.Words())
		}
	}
	q, _, err := x.QuotientBy(quotient, "--quotient")
	if err != nil {
		return nil, "", fmt.Errorf("--quotient %s: %w", quotient, err)
	}
	return graph.FromGraph(q, nil), chose, nil
}
