// Package adapters is Modex's adapter kit: the libraries that implement
// the adapter protocol once (python/, go/, ts/: a user copies or imports
// them), the skeletons `modex adapter new` writes from a model, and the
// conformance check `modex adapter check` runs on an adapter.
package adapters

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"
	"time"

	"go.starlark.net/starlark"

	"github.com/modex/modex/engine/explore"
	"github.com/modex/modex/engine/model"
)

// Action is what a skeleton says of one of the model's actions.
type Action struct {
	Name       string
	Observable bool
	Params     []Param
	// Where is the action's definition (model.star:12) and Source its
	// text as the model states it (the def and its body: guard and
	// effect), at most sourceLines lines.
	Where  string
	Source string
	// Seen says the exploration reached the action (its parameters' types
	// and examples come from what it saw).
	Seen bool
}

// Param is one parameter of an action, typed from the values the
// exploration gave it.
type Param struct {
	Name string
	// Type is "int", "str", "bool", "float", "object" (a model object:
	// the implementation's own value stands for it) or "any" (several
	// kinds, or a tuple, list, dict or set, or never seen).
	Type string
	// Examples are up to maxExamples values it took, in model notation.
	Examples []string
	// Values are the same values, for the languages' literals.
	Values []model.Value
}

const (
	sourceLines = 30
	maxExamples = 4
	// exploreStates and exploreTime bound the exploration that types the
	// parameters: a model too big for them gets what was seen so far.
	exploreStates = 20000
	exploreTime   = 5 * time.Second
)

// Describe lists the model's controllable and observable actions with
// their parameters, typed from a bounded exploration under the
// configuration, and their source text.
func Describe(ctx context.Context, m model.Model, cfg *explore.Config) ([]Action, error) {
	info := m.Info()
	x, err := exploreBounded(ctx, m, cfg)
	if x == nil && !errors.Is(err, context.DeadlineExceeded) {
		return nil, err // past the time bound with nothing: untyped parameters
	}
	var src []string
	if info.Path != "" {
		if data, err := os.ReadFile(info.Path); err == nil {
			src = strings.Split(string(data), "\n")
		}
	}
	acts := make([]Action, len(info.Actions))
	for i, a := range info.Actions {
		kind := cfg.Actions[i].Kind
		acts[i] = Action{Name: a.Name, Observable: kind == model.Observable, Where: a.Pos.String(), Source: defText(src, a.Pos.Line)}
		if a.Pos.File != "" && a.Pos.Line > 0 {
			acts[i].Where = fmt.Sprintf("%s:%d", baseName(a.Pos.File), a.Pos.Line)
		}
		for _, p := range a.Params {
			acts[i].Params = append(acts[i].Params, Param{Name: p})
		}
	}
	if x != nil {
		typeParams(x, acts)
	}
	var out []Action
	for i, a := range acts {
		if k := cfg.Actions[i].Kind; cfg.Actions[i].Exclude || (k != model.Controllable && k != model.Observable) {
			continue
		}
		for j := range a.Params {
			if a.Params[j].Type == "" {
				a.Params[j].Type = "any"
			}
		}
		out = append(out, a)
	}
	return out, nil
}

// exploreBounded explores the configuration within exploreStates and
// exploreTime (what a skeleton and a check need of the graph).
func exploreBounded(ctx context.Context, m model.Model, cfg *explore.Config) (*explore.Exploration, error) {
	c := *cfg
	if c.MaxStates == 0 || c.MaxStates > exploreStates {
		c.MaxStates = exploreStates
	}
	ctx, cancel := context.WithTimeout(ctx, exploreTime)
	defer cancel()
	return explore.Explore(ctx, m, &c)
}

// typeParams types the actions' parameters from the transitions explored.
func typeParams(x *explore.Exploration, acts []Action) {
	seen := make([]map[string]bool, len(acts))
	for i := range x.Trans {
		t := &x.Trans[i]
		a := &acts[t.Action]
		a.Seen = true
		if seen[t.Action] == nil {
			seen[t.Action] = map[string]bool{}
		}
		for j, v := range x.ArgsOf(t) {
			if j >= len(a.Params) {
				break
			}
			p := &a.Params[j]
			typ := typeOf(v)
			switch {
			case p.Type == "":
				p.Type = typ
			case p.Type != typ:
				p.Type = "any"
			}
			text := model.Format(v)
			if len(p.Examples) < maxExamples && !seen[t.Action][fmt.Sprint(j)+"\x00"+text] {
				seen[t.Action][fmt.Sprint(j)+"\x00"+text] = true
				p.Examples = append(p.Examples, text)
				p.Values = append(p.Values, v)
			}
		}
	}
	for i := range acts {
		for j := range acts[i].Params {
			p := &acts[i].Params[j]
			idx := make([]int, len(p.Examples))
			for k := range idx {
				idx[k] = k
			}
			sort.SliceStable(idx, func(a, b int) bool { return p.Examples[idx[a]] < p.Examples[idx[b]] })
			ex, vals := make([]string, len(idx)), make([]model.Value, len(idx))
			for k, n := range idx {
				ex[k], vals[k] = p.Examples[n], p.Values[n]
			}
			p.Examples, p.Values = ex, vals
		}
	}
}

// typeOf names a value's kind for a skeleton's parameter types.
func typeOf(v model.Value) string {
	switch v.(type) {
	case starlark.Bool:
		return "bool"
	case starlark.Float:
		return "float"
	case model.Object:
		return "object"
	}
	if _, ok := model.AsInt(v); ok {
		return "int"
	}
	if _, ok := model.AsString(v); ok {
		return "str"
	}
	return "any"
}

// defText is the def at line (1-based) and its body: the lines up to the
// next one that starts at column 0 (blank lines and comments inside are
// kept, trailing ones dropped), at most sourceLines.
func defText(src []string, line int) string {
	if line <= 0 || line > len(src) {
		return ""
	}
	out := []string{strings.TrimRight(src[line-1], " \t\r")}
	for i := line; i < len(src) && len(out) < sourceLines; i++ {
		l := strings.TrimRight(src[i], " \t\r")
		if l != "" && l[0] != ' ' && l[0] != '\t' && l[0] != '#' {
			break
		}
		out = append(out, l)
	}
	for len(out) > 1 && (out[len(out)-1] == "" || strings.HasPrefix(out[len(out)-1], "#")) {
		out = out[:len(out)-1]
	}
	return strings.Join(out, "\n")
}

func baseName(path string) string {
	if i := strings.LastIndexAny(path, `/\`); i >= 0 {
		return path[i+1:]
	}
	return path
}
