package adapters

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"
)

// Langs are the languages modex adapter new writes.
var Langs = []string{"python", "go", "ts", "js"}

// Skeleton is a generated adapter: its files (by name, in its folder),
// the project's [adapter] entry that runs it, and what to do next.
type Skeleton struct {
	Lang  string
	Files map[string][]byte
	// Command is the [adapter] command, relative to the project's folder
	// (the folder's path as the caller gave it).
	Command []string
	// Build, when set, is the command that compiles the skeleton before
	// it runs (TypeScript), relative to the project's folder.
	Build []string
}

// Entry is the [adapter] section to paste into the project file.
func (s *Skeleton) Entry() string {
	q := make([]string, len(s.Command))
	for i, a := range s.Command {
		q[i] = fmt.Sprintf("%q", a)
	}
	return "[adapter]\ncommand = [" + strings.Join(q, ", ") + "]\n"
}

// Names lists the skeleton's files in order.
func (s *Skeleton) Names() []string {
	var names []string
	for n := range s.Files {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Spec is what a skeleton is made for.
type Spec struct {
	Project string // the project's name
	Model   string // the model's name
	File    string // the model file's name (stack.star)
	Config  string
	// Dir is the skeleton's folder as the project's [adapter] command
	// names it (relative to the project's folder, or absolute).
	Dir     string
	Actions []Action
}

// Generate writes the skeleton of an adapter in lang for the spec's
// actions: one stub per controllable action (a "not implemented" answer
// until filled in, so that Modex skips it and tests the rest), the
// observable actions with an emit example each, the reset hook, and a
// copy of the kit's library for the language.
func Generate(lang string, spec Spec) (*Skeleton, error) {
	lib, err := Library(lang)
	if err != nil {
		return nil, err
	}
	s := &Skeleton{Lang: lang, Files: map[string][]byte{}}
	for name, data := range lib {
		s.Files[name] = data
	}
	dir := filepath.ToSlash(spec.Dir)
	in := func(name string) string {
		if dir == "" || dir == "." {
			return name
		}
		return dir + "/" + name
	}
	switch lang {
	case "python":
		s.Files["adapter.py"] = []byte(pythonSkeleton(spec, in("adapter.py")))
		s.Command = []string{"python3", in("adapter.py")}
	case "go":
		s.Files["adapter.go"] = []byte(goSkeleton(spec, in("adapter.go"), in("modexadapter.go")))
		s.Command = []string{"go", "run", in("adapter.go"), in("modexadapter.go")}
	case "ts":
		s.Files["adapter.ts"] = []byte(tsSkeleton(spec, true))
		s.Files["tsconfig.json"] = []byte(tsConfig)
		s.Command = []string{"node", in("adapter.js")}
		s.Build = []string{"npx", "tsc", "-p", in("tsconfig.json")}
	case "js":
		s.Files["adapter.js"] = []byte(tsSkeleton(spec, false))
		s.Command = []string{"node", in("adapter.js")}
	default:
		return nil, fmt.Errorf("no adapter kit for %q (want %s)", lang, strings.Join(Langs, ", "))
	}
	return s, nil
}

// tsConfig compiles adapter.ts next to itself (CommonJS, for Node).
const tsConfig = `{
  "compilerOptions": {
    "target": "ES2020",
    "module": "commonjs",
    "strict": true,
    "esModuleInterop": true,
    "skipLibCheck": true
  },
  "files": ["adapter.ts"]
}
`

// controllable and observable split the spec's actions.
func (spec Spec) controllable() []Action { return spec.pick(false) }
func (spec Spec) observable() []Action   { return spec.pick(true) }

func (spec Spec) pick(obs bool) []Action {
	var out []Action
	for _, a := range spec.Actions {
		if a.Observable == obs {
			out = append(out, a)
		}
	}
	return out
}

// signature is Name(p1, p2) for comments.
func signature(a Action) string {
	var ps []string
	for _, p := range a.Params {
		ps = append(ps, p.Name)
	}
	return a.Name + "(" + strings.Join(ps, ", ") + ")"
}

// paramNotes are the comment lines on an action's parameters: their
// types and the values the exploration gave them.
func paramNotes(a Action) []string {
	var out []string
	for _, p := range a.Params {
		switch {
		case p.Type == "object":
			out = append(out, fmt.Sprintf("%s: a model object (%s%s): Modex sends the value your implementation gave for it (an output that returned it)", p.Name, strings.Join(p.Examples, ", "), more(len(p.Examples))))
		case len(p.Examples) > 0:
			out = append(out, fmt.Sprintf("%s (%s): %s%s", p.Name, p.Type, strings.Join(p.Examples, ", "), more(len(p.Examples))))
		default:
			out = append(out, fmt.Sprintf("%s: no value seen in the explored graph", p.Name))
		}
	}
	if !a.Seen {
		out = append(out, "The exploration did not reach "+a.Name+" under this configuration.")
	}
	return out
}

func more(n int) string {
	if n >= maxExamples {
		return ", …"
	}
	return ""
}

// sourceBlock is the action's model text, each line prefixed.
func sourceBlock(a Action, prefix string) []string {
	if a.Source == "" {
		return nil
	}
	out := []string{"As the model states it (" + a.Where + "):"}
	src := strings.NewReplacer(`"""`, `'''`, "*/", "* /").Replace(a.Source)
	for _, l := range strings.Split(src, "\n") {
		out = append(out, strings.TrimRight(prefix+l, " \t"))
	}
	return out
}

// identifier makes a name an identifier of a language: letters, digits and
// underscores, not starting with a digit, not one of taken.
func identifier(name string, taken map[string]bool) string {
	var b strings.Builder
	for i, r := range name {
		switch {
		case r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z':
			b.WriteRune(r)
		case r >= '0' && r <= '9':
			if i == 0 {
				b.WriteByte('_')
			}
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	s := b.String()
	if s == "" {
		s = "_"
	}
	for taken[s] {
		s += "_"
	}
	return s
}

// snake is CamelCase as snake_case.
func snake(name string) string {
	var b strings.Builder
	for i, r := range name {
		if r >= 'A' && r <= 'Z' {
			if i > 0 && !strings.HasSuffix(b.String(), "_") {
				b.WriteByte('_')
			}
			r += 'a' - 'A'
		}
		b.WriteRune(r)
	}
	return b.String()
}

// words is a set of names.
func words(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(s) {
		m[w] = true
	}
	return m
}
