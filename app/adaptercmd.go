package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/modex/modex/adapters"
	"github.com/modex/modex/engine/conform"
	"github.com/modex/modex/internal/safetext"
	"github.com/modex/modex/projects"
)

// cmdAdapter runs modex adapter new or modex adapter check.
func cmdAdapter(args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return usagef("adapter needs a subcommand: new (write a skeleton) or check (check an adapter)")
	}
	switch args[0] {
	case "new":
		return cmdAdapterNew(args[1:], stdout)
	case "check":
		return cmdAdapterCheck(args[1:], stdout)
	}
	return usagef("unknown adapter subcommand %q (want new or check)", args[0])
}

// cmdAdapterNew writes an adapter skeleton for a project's model.
func cmdAdapterNew(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("adapter new", flag.ContinueOnError)
	lang := fs.String("lang", "", "the adapter's `LANGUAGE`: python, go, ts (TypeScript) or js (JavaScript) (required)")
	config := fs.String("config", "", "the configuration `NAME` whose actions and parameter values the skeleton lists (default: the project's default)")
	out := fs.String("out", "", "write the skeleton into folder `DIR` (default: adapter-LANGUAGE in the project's folder); its files must not exist yet unless --force")
	force := fs.Bool("force", false, "overwrite the skeleton's files if they exist")
	path, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if *lang == "" {
		return usagef("adapter new needs --lang (%s)", strings.Join(adapters.Langs, ", "))
	}
	if _, err := adapters.Library(*lang); err != nil && !isLang(*lang) {
		return usagef("adapter new: --lang %q: want one of %s", *lang, strings.Join(adapters.Langs, ", "))
	}
	ctx, stop := signalContext()
	defer stop()
	p, m, cfg, name, err := openConfigWorkers(ctx, path, *config, 1)
	if err != nil {
		return err
	}
	projectDir := filepath.Dir(path)
	dir := *out
	if dir == "" {
		dir = filepath.Join(projectDir, "adapter-"+*lang)
	}
	acts, err := adapters.Describe(ctx, m, cfg)
	if err != nil {
		return err
	}
	info := m.Info()
	spec := adapters.Spec{Project: p.Name, Model: info.Name, File: filepath.Base(info.Path), Config: name, Dir: relativeTo(projectDir, dir), Actions: acts}
	sk, err := adapters.Generate(*lang, spec)
	if err != nil {
		return err
	}
	if !*force {
		for _, f := range sk.Names() {
			if _, err := os.Stat(filepath.Join(dir, f)); err == nil {
				return fmt.Errorf("%s exists already: choose another --out, or --force to overwrite it", filepath.Join(dir, f))
			}
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, f := range sk.Names() {
		if err := projects.WriteFileAtomic(filepath.Join(dir, f), sk.Files[f]); err != nil {
			return err
		}
	}
	printSkeleton(stdout, sk, acts, dir, path)
	return nil
}

// isLang says whether lang is one the kit writes.
func isLang(lang string) bool {
	for _, l := range adapters.Langs {
		if l == lang {
			return true
		}
	}
	return false
}

// relativeTo is dir as the project's [adapter] command names it: relative
// to the project's folder when inside it, else absolute.
func relativeTo(projectDir, dir string) string {
	absP, err1 := filepath.Abs(projectDir)
	absD, err2 := filepath.Abs(dir)
	if err1 != nil || err2 != nil {
		return dir
	}
	rel, err := filepath.Rel(absP, absD)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return absD
	}
	return rel
}

// printSkeleton says what was written and what to do next.
func printSkeleton(w io.Writer, sk *adapters.Skeleton, acts []adapters.Action, dir, project string) {
	stubs, events := 0, 0
	for _, a := range acts {
		if a.Observable {
			events++
		} else {
			stubs++
		}
	}
	fmt.Fprintf(w, "wrote a %s adapter skeleton in %s: %s (%s, %s with an emit example)\n", sk.Lang, safetext.Term(dir),
		strings.Join(sk.Names(), ", "), countWord(stubs, "stub"), countWord(events, "observable action"))
	fmt.Fprintf(w, "\nadd to %s:\n\n", safetext.Term(project))
	for _, l := range strings.Split(strings.TrimSuffix(sk.Entry(), "\n"), "\n") {
		fmt.Fprintf(w, "%s\n", safetext.Term(l))
	}
	fmt.Fprintln(w)
	step := 1
	if sk.Build != nil {
		fmt.Fprintf(w, "%d. compile it (in the project's folder, with TypeScript installed): %s\n", step, strings.Join(sk.Build, " "))
		step++
	}
	fmt.Fprintf(w, "%d. fill in the stubs (each marked TODO): until then Modex skips them\n", step)
	fmt.Fprintf(w, "%d. modex adapter check %s\n%d. modex test %s\n", step+1, safetext.Term(project), step+2, safetext.Term(project))
}

func countWord(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// cmdAdapterCheck starts a project's adapter and checks it.
func cmdAdapterCheck(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("adapter check", flag.ContinueOnError)
	config := fs.String("config", "", "the configuration `NAME` (default: the project's default)")
	adapterCmd := fs.String("adapter", "", "the adapter command `CMD` to check (default: the project's [adapter])")
	address := fs.String("address", "", "check the adapter listening at `HOST:PORT` instead")
	endWait := secondsFlag(fs, "end-wait", 0, 0, false, maxFlagSeconds, "a number of seconds above 0, at most a week (leave it out for [test] end_wait, or 1)",
		"seconds to wait for the events a path expects")
	path, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	ctx, stop := signalContext()
	defer stop()
	p, m, cfg, name, err := openConfigWorkers(ctx, path, *config, 1)
	if err != nil {
		return err
	}
	tc, _, err := p.TestSetup(projects.TestOverrides{Seed: -1, EndWait: *endWait})
	if err != nil {
		return err
	}
	start := time.Now()
	impl, err := p.Connect(ctx, m.Info(), *adapterCmd, *address)
	if err != nil {
		fmt.Fprintf(stdout, "handshake: FAILED: %s\n", safetext.Term(err.Error()))
		return fmt.Errorf("the adapter did not start")
	}
	defer impl.Close()
	hello := time.Since(start)
	who := "the adapter"
	if n, ok := impl.(interface{ Name() string }); ok && n.Name() != "" {
		who = fmt.Sprintf("%q", n.Name())
	}
	fmt.Fprintf(stdout, "%s speaks %s: handshake in %s\n", safetext.Term(who), conform.ProtocolVersion, hello.Round(100*time.Microsecond))
	res, err := adapters.Check(ctx, m, cfg, impl, tc)
	if err != nil && res == nil {
		return err
	}
	if len(res.SaidUnimplemented) > 0 {
		fmt.Fprintf(stdout, "not implemented, said in the handshake: %s\n", safetext.Term(strings.Join(res.SaidUnimplemented, ", ")))
	}
	fmt.Fprintf(stdout, "each controllable action of %s [%s] once, where the model enables it (paths from %s):\n",
		safetext.Term(p.Name), safetext.Term(name), countWord(res.GraphStates, "explored state"))
	res.Write(&safetext.TermWriter{W: stdout})
	if err != nil {
		return err
	}
	if n := res.Failed(); n > 0 || res.Halt != "" {
		return fmt.Errorf("the adapter check failed: %s", countWord(n, "action"))
	}
	return nil
}
