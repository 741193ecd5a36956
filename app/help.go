package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
)

// Help is generated from the flag sets the commands parse with: modex CMD
// --help (or -h, or modex help CMD) makes the command declare its flags
// and stop at the parse (parseArgs turns the flag package's ErrHelp into
// a helpRequest holding the FlagSet), and writeHelp walks that FlagSet.
// No flag is listed by hand anywhere; docs/user-guide.md's command-line
// reference is checked against the same flag sets (TestCLIReferenceIsComplete).

// commandInfo is what the help says of a command besides its flags.
type commandInfo struct {
	name    string // as typed: modex NAME
	args    string // the positional arguments (and flags a command requires)
	purpose string // one line
}

// workbench is the help's name for modex PROJECT, whose flag set is named
// "modex".
const workbench = "modex"

// commands are modex's commands in the order the general usage lists them.
var commands = []commandInfo{
	{workbench, "[PROJECT]", "open the workbench on a project (.toml) or model (.star); without one, on the bundled chat project"},
	{"explore", "PROJECT", "explore a model into its state graph: print a summary, or write the graph (JSON, DOT, SVG, PNG)"},
	{"check", "PROJECT", "validate a project, its model and every configuration"},
	{"test", "PROJECT", "test the implementation online against the model; exit 1 on any failure"},
	{"gen", "PROJECT", "generate an offline test suite from the explored graph"},
	{"run", "PROJECT SUITE.json", "run an offline test suite against the implementation"},
	{"replay", "PROJECT TRACE|HISTORY|DIR...", "replay recorded traces (XML, JSON lines, plain) against the model; check concurrent histories (Jepsen EDN, JSON lines, Jepsen logs) for linearizability"},
	{"campaign", "PROJECT", "run a test campaign on NATS JetStream (an embedded server and local workers by default); exit 1 on any failure"},
	{"worker", "--nats URL --trust KEY|FILE --adapter CMD", "run the campaign jobs a trusted coordinator signed, with this machine's adapter (docs/campaigns.md)"},
	{"adapter new", "PROJECT", "write an adapter skeleton for the model in Python, Go, TypeScript or JavaScript on the adapter kit (adapters/), with one stub per controllable action"},
	{"adapter check", "PROJECT", "check an adapter: the handshake, each controllable action once where the model enables it, protocol violations and round-trip times; exit 1 on any failure"},
	{"keygen", "FILE", "make a signing key for a coordinator or a worker (mode 600) and print its public key, for --trust and --trust-worker"},
	{"help", "[CMD]", "print this text, or a command's help with all its flags"},
}

// commandNamed is the help's entry for a command (nil if there is none).
func commandNamed(name string) *commandInfo {
	for i := range commands {
		if commands[i].name == name {
			return &commands[i]
		}
	}
	return nil
}

// helpRequest is the error of a command given -h or --help: the command
// stops at its flags, and command prints its help from fs.
type helpRequest struct{ fs *flag.FlagSet }

func (h *helpRequest) Error() string { return "help requested for " + h.fs.Name() }

// usageLine is a command's usage line: "modex explore PROJECT [flags]".
func usageLine(c *commandInfo, fs *flag.FlagSet) string {
	line := "modex"
	if c.name != workbench {
		line += " " + c.name
	}
	if c.args != "" {
		line += " " + c.args
	}
	hasFlags := false
	fs.VisitAll(func(*flag.Flag) { hasFlags = true })
	if hasFlags {
		line += " [flags]"
	}
	return line
}

// writeHelp writes a command's help: its purpose, its usage line and its
// flags, one a line, from the flag set the command parses with.
func writeHelp(w io.Writer, fs *flag.FlagSet) {
	c := commandNamed(fs.Name())
	if c == nil {
		c = &commandInfo{name: fs.Name()}
	}
	title := "modex " + c.name
	if c.name == workbench {
		title = "modex"
	}
	fmt.Fprintf(w, "%s: %s\n\nusage: %s\n", title, c.purpose, usageLine(c, fs))
	if lines := flagLines(fs); len(lines) > 0 {
		fmt.Fprintf(w, "\nflags:\n%s", strings.Join(lines, ""))
	}
}

// flagLines are the lines of a flag set's flags, sorted by name, their
// descriptions aligned: "  --out FILE   write the graph to FILE".
func flagLines(fs *flag.FlagSet) []string {
	var heads, usages []string
	width := 0
	fs.VisitAll(func(f *flag.Flag) {
		value, usage := flagPlaceholder(f)
		head := "--" + f.Name
		if value != "" {
			head += " " + value
		}
		if !isZeroDefault(f.DefValue) {
			usage += " (default " + f.DefValue + ")"
		}
		heads, usages = append(heads, head), append(usages, usage)
		width = max(width, len(head))
	})
	lines := make([]string, len(heads))
	for i := range heads {
		lines[i] = fmt.Sprintf("  %-*s  %s\n", width, heads[i], usages[i])
	}
	return lines
}

// flagPlaceholder is the name of a flag's value in the help ("" for a
// boolean flag) and its usage: the word in back quotes in the usage (as
// flag.UnquoteUsage reads it), else one from the flag's type: N for a
// whole number, SECONDS, DURATION (30s, 5m).
func flagPlaceholder(f *flag.Flag) (value, usage string) {
	value, usage = flag.UnquoteUsage(f)
	if value == "" || strings.Contains(f.Usage, "`") {
		return value, usage
	}
	switch f.Value.(type) {
	case *rangedInt[int], *rangedInt[int64]:
		return "N", usage
	case *rangedFloat:
		return "SECONDS", usage
	case *rangedDuration:
		return "DURATION", usage
	}
	return strings.ToUpper(value), usage
}

// isZeroDefault reports whether a flag's default is its type's zero value,
// which the help leaves out.
func isZeroDefault(def string) bool {
	switch def {
	case "", "0", "false", "0s":
		return true
	}
	return false
}

// usagePointer says where a usage error's reader finds the flags: the
// command's help, else the general usage.
func usagePointer(cmd string) string {
	if c := commandNamed(cmd); c != nil && c.name != "help" {
		if c.name == workbench {
			return "see modex help"
		}
		return "see modex " + cmd + " --help"
	}
	return "see modex help"
}

// cmdHelp prints the general usage, or with a command's name that
// command's help (as modex CMD --help).
func cmdHelp(args []string, stdout, stderr io.Writer) error {
	switch {
	case len(args) == 0:
		writeUsage(stdout)
		return nil
	case len(args) > 2:
		return usagef("help takes at most one command")
	}
	name := strings.Join(args, " ")
	c := commandNamed(name)
	if c == nil || c.name == workbench || c.name == "help" {
		return usagef("help: unknown command %q", name)
	}
	return command(append(strings.Fields(c.name), "--help"), stdout, stderr)
}

// writeUsage writes the general usage: each command with its purpose, the
// workbench's flags, and how numeric flags and exit codes work.
func writeUsage(w io.Writer) {
	fmt.Fprintln(w, "usage: modex [PROJECT] [flags]         open the workbench")
	fmt.Fprintln(w, "       modex CMD ARGS... [flags]       run a command without a window")
	fmt.Fprintln(w, "\ncommands (modex CMD --help, or modex help CMD: the command's flags):")
	width := 0
	for _, c := range commands[1:] {
		width = max(width, len(c.name))
	}
	for _, c := range commands[1:] {
		fmt.Fprintf(w, "  %-*s  %s\n", width, c.name, c.purpose)
	}
	fmt.Fprintf(w, "\nthe workbench (modex [PROJECT]): %s\nflags:\n%s", commands[0].purpose, strings.Join(flagLines(workbenchFlags()), ""))
	fmt.Fprint(w, usageNotes)
}

// workbenchFlags is the flag set of modex PROJECT.
func workbenchFlags() *flag.FlagSet {
	fs, err := helpFlagSet(workbench)
	if err != nil {
		panic(err) // the workbench's flags are declared by the code below
	}
	return fs
}

// helpFlagSet is the flag set command name parses with, as its --help
// sees it (the command runs no further).
func helpFlagSet(name string) (*flag.FlagSet, error) {
	args := append(strings.Fields(name), "--help")
	if name == workbench {
		args = []string{"PROJECT", "--help"}
	}
	err := dispatch(args, io.Discard, io.Discard)
	var h *helpRequest
	if errors.As(err, &h) {
		return h.fs, nil
	}
	return nil, fmt.Errorf("modex %s --help gave no flag set: %v", name, err)
}

const usageNotes = `
PROJECT is a project file (.toml) or a bare model (.star) used with its own
declarations. A numeric flag out of its range is a usage error that names the
flag and its range; a flag left out takes its default, often the project's
(modex CMD --help says which).

Exit codes: 0 ok, 1 model or project error (or a failing test), 2 usage, 3 an
exploration found error states or deadlocks, 4 incomplete: an exploration cut by a
bound, the memory budget or max time, or any command stopped by Ctrl-C, SIGTERM or
SIGHUP (its summary says "stopped after …": what was done; a run the stop cut is
inconclusive, never a pass).
`
