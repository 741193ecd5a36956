package adapters

import (
	"fmt"
	"strconv"
	"strings"

	"go.starlark.net/starlark"

	"github.com/modex/modex/engine/model"
)

// The names a generated adapter uses itself, and each language's keywords
// and builtins, which an action's or a parameter's name must not shadow.
var (
	pythonTaken = words(`mx adapter reset main False None True and as assert async await break class continue def del
		elif else except finally for from global if import in is lambda nonlocal not or pass raise return try while with
		yield print len list dict set str int float bool type id input open range object`)
	goTaken = words(`adapter main reset args break case chan const continue default defer else fallthrough for func go
		goto if import interface map package range return select struct switch type var any bool byte error float64 int
		int64 len nil string true false New Args Set Dict Pair Refuse ErrNotImplemented Adapter RefusedError fmt os`)
	jsTaken = words(`adapter Adapter Refused NotImplemented break case catch class const continue debugger default
		delete do else enum export extends false finally for function if import in instanceof new null return super
		switch this throw true try typeof var void while with yield let static implements interface package private
		protected public await arguments eval undefined`)
)

// literal writes a model value as a literal of lang, or "" when it has no
// plain one (the example then says the model's notation in a comment).
func literal(lang string, v model.Value) string {
	if b, ok := v.(starlark.Bool); ok {
		switch lang {
		case "python":
			return model.Format(v)
		default:
			return strconv.FormatBool(bool(b))
		}
	}
	if n, ok := model.AsInt(v); ok {
		return strconv.Itoa(n)
	}
	if s, ok := model.AsString(v); ok {
		return strconv.Quote(s)
	}
	if v == starlark.None {
		switch lang {
		case "python":
			return "None"
		case "go":
			return "nil"
		default:
			return "null"
		}
	}
	if lang == "python" {
		return model.Format(v) // tuples, lists, dicts read the same
	}
	return ""
}

// example is an emit call's arguments for an observable action: the first
// value each parameter took, or a placeholder named for it.
func example(lang string, a Action) string {
	var args []string
	for _, p := range a.Params {
		lit := ""
		if len(p.Values) > 0 {
			lit = literal(lang, p.Values[0])
		}
		if lit == "" {
			lit = p.Name
		}
		args = append(args, lit)
	}
	return strings.Join(append([]string{strconv.Quote(a.Name)}, args...), ", ")
}

func pythonSkeleton(spec Spec, self string) string {
	var b strings.Builder
	w := func(format string, args ...any) { fmt.Fprintf(&b, format+"\n", args...) }
	w("#!/usr/bin/env python3")
	w(`"""The adapter of %s for the Modex model %q (%s), made by modex adapter new.`, spec.Project, spec.Model, spec.File)
	w("")
	w("Fill in each action: make the system under test do it and return its output")
	w("(None when the model's action returns nothing). Until you do, an action raises")
	w("NotImplementedError: Modex skips it and tests the rest. Raise mx.Refused(reason)")
	w("when the system refuses an action the model allows; any other exception stops")
	w("the test as a crash of the implementation. print() goes to standard error.")
	w("")
	w("In the project file:")
	w(`    [adapter]`)
	w(`    command = ["python3", %q]`, self)
	w(`Then: modex adapter check PROJECT, and modex test PROJECT.`)
	w(`"""`)
	w("")
	w("import modex_adapter as mx")
	w("")
	w("adapter = mx.Adapter(%q)", spec.Project+" (python)")
	w("")
	w("")
	w("@adapter.on_reset")
	w("def reset():")
	w(`    """Brings the system back to the model's initial state, before every run.`)
	w("")
	w("    Stop what the last run started first: Modex drops the events that come")
	w(`    before reset returns."""`)
	w("    pass  # TODO(reset)")
	taken := map[string]bool{}
	for k := range pythonTaken {
		taken[k] = true
	}
	for _, a := range spec.controllable() {
		fn := identifier(snake(a.Name), taken)
		taken[fn] = true
		var params []string
		ptaken := map[string]bool{}
		for k := range pythonTaken {
			ptaken[k] = true
		}
		for _, p := range a.Params {
			name := identifier(p.Name, ptaken)
			ptaken[name] = true
			if t := pyType(p.Type); t != "" {
				name += ": " + t
			}
			params = append(params, name)
		}
		w("")
		w("")
		w("@adapter.action(%q)", a.Name)
		w("def %s(%s):", fn, strings.Join(params, ", "))
		w(`    r"""%s.`, signature(a))
		w("")
		if notes := paramNotes(a); len(notes) > 0 {
			for _, l := range append(notes, "") {
				w(strings.TrimRight("    "+l, " "))
			}
		}
		for _, l := range sourceBlock(a, "    ") {
			w(strings.TrimRight("    "+l, " "))
		}
		w(`    """`)
		w("    raise NotImplementedError  # TODO(%s): do it on the system under test, return its output", a.Name)
	}
	if obs := spec.observable(); len(obs) > 0 {
		w("")
		w("")
		w("# The observable actions: the system does them on its own. Report each with")
		w("# adapter.emit, from any thread, as it happens:")
		for _, a := range obs {
			w("#   adapter.emit(%s)    # %s", example("python", a), signature(a))
		}
	}
	w("")
	w("")
	w(`if __name__ == "__main__":`)
	w("    adapter.run()")
	return b.String()
}

func pyType(t string) string {
	switch t {
	case "int", "str", "bool", "float":
		return t
	}
	return ""
}

func goSkeleton(spec Spec, self, kit string) string {
	var b strings.Builder
	w := func(format string, args ...any) { fmt.Fprintf(&b, format+"\n", args...) }
	w("// Command adapter is the adapter of %s for the Modex model %q (%s), made", spec.Project, spec.Model, spec.File)
	w("// by modex adapter new. modexadapter.go, next to it, is the kit's library.")
	w("//")
	w("// Fill in each action: make the system under test do it and return its")
	w("// output (nil when the model's action returns nothing). Until you do, an")
	w("// action returns ErrNotImplemented: Modex skips it and tests the rest.")
	w("// Return Refuse(reason) when the system refuses an action the model")
	w("// allows; any other error (or a panic) stops the test as a crash of the")
	w("// implementation. fmt.Println goes to standard error.")
	w("//")
	w("// In the project file:")
	w("//")
	w("//	[adapter]")
	w("//	command = [\"go\", \"run\", %q, %q]", self, kit)
	w("//")
	w("// Then: modex adapter check PROJECT, and modex test PROJECT.")
	w("package main")
	w("")
	w("import (")
	w("\t\"fmt\"")
	w("\t\"os\"")
	w(")")
	w("")
	w("var adapter = New(%q)", spec.Project+" (go)")
	w("")
	taken := map[string]bool{}
	for k := range goTaken {
		taken[k] = true
	}
	type stub struct{ fn, action string }
	var stubs []stub
	var body strings.Builder
	for _, a := range spec.controllable() {
		fn := identifier("do"+a.Name, taken)
		taken[fn] = true
		stubs = append(stubs, stub{fn, a.Name})
		fmt.Fprintf(&body, "\n// %s does %s.\n", fn, signature(a))
		if notes := paramNotes(a); len(notes) > 0 {
			fmt.Fprintf(&body, "//\n")
			for _, l := range notes {
				fmt.Fprintf(&body, "// %s\n", l)
			}
		}
		if src := sourceBlock(a, "\t"); len(src) > 0 {
			fmt.Fprintf(&body, "//\n// %s\n//\n", src[0])
			for _, l := range src[1:] {
				fmt.Fprintf(&body, "%s\n", strings.TrimRight("//"+l, " \t"))
			}
		}
		fmt.Fprintf(&body, "func %s(args Args) (any, error) {\n", fn)
		ptaken := map[string]bool{}
		for k := range goTaken {
			ptaken[k] = true
		}
		for i, p := range a.Params {
			name := identifier(p.Name, ptaken)
			ptaken[name] = true
			fmt.Fprintf(&body, "\t%s := args.%s(%d)\n\t_ = %s\n", name, goGetter(p.Type), i, name)
		}
		fmt.Fprintf(&body, "\treturn nil, ErrNotImplemented // TODO(%s): do it on the system under test, return its output\n}\n", a.Name)
	}
	w("func main() {")
	w("\tadapter.OnReset(reset)")
	for _, s := range stubs {
		w("\tadapter.Handle(%q, %s)", s.action, s.fn)
	}
	if obs := spec.observable(); len(obs) > 0 {
		w("\t// The observable actions: the system does them on its own. Report")
		w("\t// each with adapter.Emit, from any goroutine, as it happens:")
		for _, a := range obs {
			w("\t//\tadapter.Emit(%s) // %s", example("go", a), signature(a))
		}
	}
	w("\tif err := adapter.Run(); err != nil {")
	w("\t\tfmt.Fprintln(os.Stderr, err)")
	w("\t\tos.Exit(1)")
	w("\t}")
	w("}")
	w("")
	w("// reset brings the system back to the model's initial state, before every")
	w("// run. Stop what the last run started first: Modex drops the events that")
	w("// come before reset returns.")
	w("func reset() error {")
	w("\treturn nil // TODO(reset)")
	w("}")
	b.WriteString(body.String())
	return b.String()
}

func goGetter(t string) string {
	switch t {
	case "int":
		return "Int"
	case "str":
		return "String"
	case "bool":
		return "Bool"
	case "float":
		return "Float"
	}
	return "Value"
}

// tsSkeleton is the TypeScript skeleton, or (ts false) the JavaScript one
// with JSDoc types.
func tsSkeleton(spec Spec, ts bool) string {
	var b strings.Builder
	w := func(format string, args ...any) { fmt.Fprintf(&b, format+"\n", args...) }
	lang, run := "js", "node adapter.js"
	if ts {
		lang, run = "ts", "npx tsc -p tsconfig.json, then node adapter.js"
	} else {
		w("// @ts-check")
	}
	w("/**")
	w(" * The adapter of %s for the Modex model %q (%s), made by modex adapter", spec.Project, spec.Model, spec.File)
	w(" * new. modex_adapter.js (with its typings, modex_adapter.d.ts) is the kit's library.")
	w(" *")
	w(" * Fill in each action: make the system under test do it and return its")
	w(" * output (null when the model's action returns nothing; a Promise is")
	w(" * awaited). Until you do, an action throws NotImplemented: Modex skips it")
	w(" * and tests the rest. Throw new Refused(reason) when the system refuses an")
	w(" * action the model allows; any other exception stops the test as a crash")
	w(" * of the implementation. console.log goes to standard error.")
	w(" *")
	w(" * Run: %s (the project file's [adapter] command).", run)
	w(" */")
	if ts {
		w(`import { Adapter, NotImplemented } from "./modex_adapter";`)
	} else {
		w(`const { Adapter, NotImplemented } = require("./modex_adapter");`)
	}
	w("")
	w("const adapter = new Adapter(%q);", spec.Project+" ("+lang+")")
	w("")
	w("// Brings the system back to the model's initial state, before every run.")
	w("// Stop what the last run started first: Modex drops the events that come")
	w("// before the reset is done.")
	w("adapter.onReset(() => {")
	w("  // TODO(reset)")
	w("});")
	for _, a := range spec.controllable() {
		ptaken := map[string]bool{}
		for k := range jsTaken {
			ptaken[k] = true
		}
		var params []string
		w("")
		w("/**")
		w(" * %s.", signature(a))
		if notes := paramNotes(a); len(notes) > 0 {
			w(" *")
			for _, l := range notes {
				w(" * %s", l)
			}
		}
		if src := sourceBlock(a, "    "); len(src) > 0 {
			w(" *")
			for _, l := range src {
				w("%s", strings.TrimRight(" * "+l, " "))
			}
		}
		for _, p := range a.Params {
			name := identifier(p.Name, ptaken)
			ptaken[name] = true
			if ts {
				params = append(params, name+": "+tsType(p.Type))
			} else {
				w(" * @param {%s} %s", tsType(p.Type), name)
				params = append(params, name)
			}
		}
		w(" */")
		w("adapter.action(%q, (%s) => {", a.Name, strings.Join(params, ", "))
		w("  throw new NotImplemented(); // TODO(%s): do it on the system under test, return its output", a.Name)
		w("});")
	}
	if obs := spec.observable(); len(obs) > 0 {
		w("")
		w("// The observable actions: the system does them on its own. Report each")
		w("// with adapter.emit, from any callback, as it happens:")
		for _, a := range obs {
			w("//   adapter.emit(%s); // %s", example("js", a), signature(a))
		}
	}
	w("")
	w("adapter.run();")
	return b.String()
}

func tsType(t string) string {
	switch t {
	case "int", "float":
		return "number"
	case "str":
		return "string"
	case "bool":
		return "boolean"
	}
	return "any"
}
