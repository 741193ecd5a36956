package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/ and the command-line reference in docs/user-guide.md")

const guide = "../docs/user-guide.md"

// referenceTitle opens the guide's command-line reference; the section
// runs to the next section (## ) or the end.
const referenceTitle = "## Command-line reference"

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

// guideFlag is a flag as the guide's reference lists it.
type guideFlag struct{ head, usage string }

var (
	guideCommand = regexp.MustCompile("^### `modex( [a-z]+(?: [a-z]+)?)?`")
	guideRow     = regexp.MustCompile("^\\| `(--[a-z0-9-]+(?: [^`]+)?)` \\| (.*) \\|$")
)

// readReference parses the guide's command-line reference: for each
// command, its flags (`--name VALUE` and the line that says what it does).
func readReference(t *testing.T, text string) map[string][]guideFlag {
	t.Helper()
	start := strings.Index(text, "\n"+referenceTitle+"\n")
	if start < 0 {
		t.Fatalf("%s has no section %q", guide, referenceTitle)
	}
	section := text[start+1:]
	if end := strings.Index(section, "\n## "); end >= 0 {
		section = section[:end]
	}
	ref := map[string][]guideFlag{}
	cmd := ""
	for i, line := range strings.Split(section, "\n") {
		if m := guideCommand.FindStringSubmatch(line); m != nil {
			cmd = workbench
			if m[1] != "" {
				cmd = m[1][1:]
			}
			if _, dup := ref[cmd]; dup {
				t.Errorf("%s: modex %s is described twice in the command-line reference", guide, cmd)
			}
			ref[cmd] = nil
			continue
		}
		if strings.HasPrefix(line, "| `-") {
			m := guideRow.FindStringSubmatch(line)
			if m == nil || cmd == "" {
				t.Errorf("%s: command-line reference, line %d: %q is not a flag's row under a command's heading", guide, i+1, line)
				continue
			}
			ref[cmd] = append(ref[cmd], guideFlag{strings.ReplaceAll(m[1], `\|`, "|"), strings.ReplaceAll(m[2], `\|`, "|")})
		}
	}
	return ref
}

// writeReference is the guide's command-line reference, generated from the
// commands' flag sets as their help is.
func writeReference(sets map[string]*flag.FlagSet) string {
	var b strings.Builder
	b.WriteString(referenceTitle + "\n\n")
	b.WriteString("Every command and every flag, as `modex help` and `modex CMD --help` (or `modex help CMD`) print them: the help\n" +
		"is generated from the flags the commands parse, and `TestCLIReferenceIsComplete` (in `app/`) checks this section\n" +
		"against it, so that a flag added without a line here fails the tests. After adding or changing a flag,\n" +
		"`go test ./app -run TestCLIReferenceIsComplete -update` rewrites this section from the flags' own usage strings.\n" +
		"A flag's default is given when it is not zero (or empty); a flag whose default is the project's says so.\n")
	cell := strings.NewReplacer("|", `\|`)
	for _, c := range commands {
		fs := sets[c.name]
		if fs == nil {
			continue
		}
		title := "modex " + c.name
		if c.name == workbench {
			title = "modex"
		}
		fmt.Fprintf(&b, "\n### `%s`\n\n%s%s.\n\n    %s\n", title, strings.ToUpper(c.purpose[:1]), c.purpose[1:], usageLine(&c, fs))
		heads, usages := flagRows(fs)
		if len(heads) == 0 {
			b.WriteString("\nNo flags.\n")
			continue
		}
		b.WriteString("\n| Flag | What it does |\n| --- | --- |\n")
		for i := range heads {
			fmt.Fprintf(&b, "| `%s` | %s |\n", cell.Replace(heads[i]), cell.Replace(usages[i]))
		}
	}
	return b.String()
}

// flagRows are a flag set's flags as the help prints them: "--out FILE"
// and what the flag does, with its default.
func flagRows(fs *flag.FlagSet) (heads, usages []string) {
	for _, line := range flagLines(fs) {
		head, usage, _ := strings.Cut(strings.TrimSpace(line), "  ")
		heads, usages = append(heads, head), append(usages, strings.TrimSpace(usage))
	}
	return heads, usages
}

// docs/user-guide.md's command-line reference lists every flag of every
// command, as the command's help says it, and no flag that does not exist:
// a flag added without documentation fails here.
func TestCLIReferenceIsComplete(t *testing.T) {
	sets := commandFlagSets(t)
	data, err := os.ReadFile(guide)
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	if *update {
		start := strings.Index(text, "\n"+referenceTitle+"\n")
		if start < 0 { // a new section at the end
			text = strings.TrimRight(text, "\n") + "\n\n"
			start = len(text) - 1
		}
		rest := ""
		if end := strings.Index(text[start+1:], "\n## "); end >= 0 {
			rest = text[start+1+end:]
		}
		text = text[:start+1] + writeReference(sets) + rest
		if err := os.WriteFile(guide, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ref := readReference(t, text)
	for _, c := range commands {
		fs := sets[c.name]
		if fs == nil {
			continue
		}
		documented, ok := ref[c.name]
		if !ok {
			t.Errorf("%s: the command-line reference has no heading for modex %s", guide, c.name)
			continue
		}
		heads, usages := flagRows(fs)
		for i, head := range heads {
			j := slices.IndexFunc(documented, func(g guideFlag) bool { return flagName(g.head) == flagName(head) })
			switch {
			case j < 0:
				t.Errorf("modex %s %s is not documented in %s (go test ./app -run TestCLIReferenceIsComplete -update writes it)", c.name, flagName(head), guide)
			case documented[j].head != head || documented[j].usage != usages[i]:
				t.Errorf("%s: modex %s `%s` | %s\n  but its help says `%s` | %s", guide, c.name, documented[j].head, documented[j].usage, head, usages[i])
			}
		}
		for _, g := range documented {
			if fs.Lookup(strings.TrimPrefix(flagName(g.head), "--")) == nil {
				t.Errorf("%s documents modex %s %s, which is no flag of the command", guide, c.name, flagName(g.head))
			}
		}
		delete(ref, c.name)
	}
	for cmd := range ref {
		t.Errorf("%s: the command-line reference describes modex %s, which is no command", guide, cmd)
	}
}

// flagName is the flag in a help's head: "--out" in "--out FILE".
func flagName(head string) string {
	name, _, _ := strings.Cut(head, " ")
	return name
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
		words := strings.Fields(c.name) // adapter new: two words
		with := func(args ...string) []string { return append(append([]string(nil), words...), args...) }
		want, errOut, code := cli(with("--help")...)
		if code != 0 || errOut != "" || !strings.HasPrefix(want, "modex "+c.name+": "+c.purpose+"\n") || strings.Contains(want, "help requested") {
			t.Errorf("modex %s --help: exit %d, stderr %q, stdout:\n%s", c.name, code, errOut, want)
		}
		for _, args := range [][]string{with("-h"), with("-help"), append([]string{"help"}, words...), with("PROJECT", "--help")} {
			if out, errOut, code := cli(args...); out != want || errOut != "" || code != 0 {
				t.Errorf("modex %s: exit %d, stderr %q, stdout differs from --help's:\n%s", strings.Join(args, " "), code, errOut, out)
			}
		}
		_, errOut, code = cli(with("--no-such-flag")...)
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

// The general usage lists every command with its purpose and says where
// the flags are; the help of explore and test is as in testdata/help.
func TestHelpGolden(t *testing.T) {
	for _, args := range [][]string{{"help"}, {"explore", "--help"}, {"test", "--help"}} {
		out, errOut, code := cli(args...)
		if code != 0 || errOut != "" {
			t.Fatalf("modex %s: exit %d, stderr %q", strings.Join(args, " "), code, errOut)
		}
		golden := filepath.Join("testdata", "help", args[0]+".txt")
		if *update {
			if err := os.WriteFile(golden, []byte(out), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		want, err := os.ReadFile(golden)
		if err != nil {
			t.Fatalf("%v (go test ./app -run TestHelpGolden -update writes it)", err)
		}
		if out != string(want) {
			t.Errorf("modex %s differs from %s (go test ./app -run TestHelpGolden -update, then review the diff):\n%s", strings.Join(args, " "), golden, out)
		}
	}
	out, _, _ := cli("--help")
	for _, c := range commands[1:] {
		if !strings.Contains(out, "\n  "+c.name+" ") {
			t.Errorf("modex --help does not list %s:\n%s", c.name, out)
		}
	}
	if !strings.Contains(out, "modex CMD --help") {
		t.Errorf("modex --help does not say where the flags are:\n%s", out)
	}
}

var (
	docSpan    = regexp.MustCompile("`[^`]+`")
	docCommand = regexp.MustCompile(`\bmodex ([a-z]+)\b([^|;&<>` + "`" + `]*)`)
	docQuoted  = regexp.MustCompile(`"[^"]*"|'[^']*'`)
	docFlag    = regexp.MustCompile(`(?:^|\s)--([a-z][a-z0-9-]*)`)
)

// docCode is the code in a Markdown text: the lines of its code blocks
// (a line ending in \ joined with the next, a shell comment cut), and its
// inline code spans.
func docCode(text string) []string {
	var code, para []string
	flush := func() {
		code = append(code, docSpan.FindAllString(strings.Join(para, " "), -1)...)
		para = nil
	}
	lines := strings.Split(text, "\n")
	fenced := false
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		switch {
		case strings.HasPrefix(strings.TrimSpace(line), "```"):
			flush()
			fenced = !fenced
		case fenced || len(para) == 0 && (strings.HasPrefix(line, "    ") || strings.HasPrefix(line, "\t")):
			for strings.HasSuffix(line, "\\") && i+1 < len(lines) {
				i++
				line = strings.TrimSuffix(line, "\\") + " " + lines[i]
			}
			line, _, _ = strings.Cut(line, " #")
			code = append(code, line)
		case strings.TrimSpace(line) == "":
			flush()
		default:
			para = append(para, line)
		}
	}
	flush()
	return code
}

// The command lines in README.md and docs/ use only flags their command
// has.
func TestDocsUseRealFlags(t *testing.T) {
	sets := commandFlagSets(t)
	files, _ := filepath.Glob("../docs/*.md")
	for _, file := range append(files, "../README.md") {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, code := range docCode(string(data)) {
			for _, m := range docCommand.FindAllStringSubmatch(docQuoted.ReplaceAllString(code, `""`), -1) {
				fs := sets[m[1]]
				if fs == nil {
					continue // modex PROJECT, or words
				}
				for _, f := range docFlag.FindAllStringSubmatch(m[2], -1) {
					if fs.Lookup(f[1]) == nil && f[1] != "help" {
						t.Errorf("%s: %q: modex %s has no flag --%s", file, strings.TrimSpace(m[0]), m[1], f[1])
					}
				}
			}
		}
	}
}
