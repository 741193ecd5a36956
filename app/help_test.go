package main

import (
	"flag"
	"strings"
	"testing"
)

// commandFlagSets are the flag sets of all the commands the help lists
// (help itself has none), by command name.
func commandFlagSets(t *testing.T) map[string]*flag.FlagSet {
	t.Helper()
	sets := map[string]*flag.FlagSet{}
	for _, c := range commands {
		if c.name == "help" {
			continue
		}
		fs, err := helpFlagSet(c.name)
		if err != nil {
			t.Fatal(err)
		}
		if fs.Name() != c.name {
			t.Errorf("modex %s parses the flags of %q: the help would look it up under the wrong name", c.name, fs.Name())
		}
		sets[c.name] = fs
	}
	return sets
}

// Every flag says in one line what it does, its value named in its help.
func TestFlagUsages(t *testing.T) {
	for name, fs := range commandFlagSets(t) {
		fs.VisitAll(func(f *flag.Flag) {
			value, usage := flagPlaceholder(f)
			switch {
			case len(strings.Fields(usage)) < 3:
				t.Errorf("modex %s --%s: usage %q says too little", name, f.Name, usage)
			case strings.ContainsAny(usage, "\n\t"):
				t.Errorf("modex %s --%s: usage %q is not one line", name, f.Name, usage)
			case value == "STRING" || value == "VALUE":
				t.Errorf("modex %s --%s: its value has no name (put it in back quotes in the usage: write to `FILE`)", name, f.Name)
			case !isZeroDefault(f.DefValue) && strings.Contains(usage, "default "+f.DefValue):
				t.Errorf("modex %s --%s: usage %q repeats the default the help adds", name, f.Name, usage)
			}
		})
	}
}

// modex CMD --help, -h and modex help CMD print the command's help on
// stdout and exit 0; a wrong flag points to that help (exit 2).
func TestCommandHelp(t *testing.T) {
	for _, c := range commands {
		if c.name == "help" || c.name == workbench {
			continue
		}
		want, errOut, code := cli(c.name, "--help")
		if code != 0 || errOut != "" || !strings.HasPrefix(want, "modex "+c.name+": "+c.purpose+"\n") || strings.Contains(want, "help requested") {
			t.Errorf("modex %s --help: exit %d, stderr %q, stdout:\n%s", c.name, code, errOut, want)
		}
		for _, args := range [][]string{{c.name, "-h"}, {c.name, "-help"}, {"help", c.name}, {c.name, "PROJECT", "--help"}} {
			if out, errOut, code := cli(args...); out != want || errOut != "" || code != 0 {
				t.Errorf("modex %s: exit %d, stderr %q, stdout differs from --help's:\n%s", strings.Join(args, " "), code, errOut, out)
			}
		}
		_, errOut, code = cli(c.name, "--no-such-flag")
		if code != 2 || !strings.Contains(errOut, "flag provided but not defined: --no-such-flag\nsee modex "+c.name+" --help") {
			t.Errorf("modex %s --no-such-flag: exit %d, stderr %q", c.name, code, errOut)
		}
	}
	out, _, code := cli("PROJECT.toml", "--help")
	if code != 0 || !strings.Contains(out, "usage: modex [PROJECT] [flags]") || !strings.Contains(out, "--trace FILE") {
		t.Errorf("modex PROJECT --help: exit %d\n%s", code, out)
	}
	for _, args := range [][]string{{"help", "nope"}, {"help", "explore", "test"}, {"nope"}} {
		if _, errOut, code := cli(args...); code != 2 || !strings.HasSuffix(errOut, "\nsee modex help") {
			t.Errorf("modex %s: exit %d, stderr %q", strings.Join(args, " "), code, errOut)
		}
	}
}
