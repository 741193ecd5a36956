package projects

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/modex/modex/engine/model"
	"github.com/modex/modex/engine/scenario"
)

// definer returns the configuration of name's chain of extends that sets
// what has says it sets (name itself when none does).
func (p *Project) definer(name string, has func(*ConfigSpec) bool) string {
	for n, seen := name, 0; seen <= MaxExtendsDepth; seen++ {
		c, ok := p.Configs[n]
		if !ok {
			break
		}
		if has(c) || c.Extends == "" {
			return n
		}
		n = c.Extends
	}
	return name
}

// stringStart returns where a TOML string's text starts, given where the
// string token stands: past its quotes, and past the newline that follows
// the opening quotes of a multi-line string.
func (p *Project) stringStart(at model.Pos) model.Pos {
	lines := strings.SplitAfter(string(p.source), "\n")
	if at.Line < 1 || at.Line > len(lines) || at.Col < 1 || at.Col > len(lines[at.Line-1]) {
		return at
	}
	rest := lines[at.Line-1][at.Col-1:]
	switch {
	case strings.HasPrefix(rest, `'''`) || strings.HasPrefix(rest, `"""`):
		if strings.TrimRight(rest[3:], "\r\n") == "" {
			return model.Pos{File: at.File, Line: at.Line + 1, Col: 1}
		}
		at.Col += 3
	case strings.HasPrefix(rest, `'`) || strings.HasPrefix(rest, `"`):
		at.Col++
	}
	return at
}

// composeScenarios compiles a configuration's scenarios (regular ones,
// then machines) against the model and composes the model with them.
func (p *Project) composeScenarios(m *model.StarModel, config string, spec *ConfigSpec) error {
	if len(spec.Scenarios) == 0 && len(spec.ScenarioMachines) == 0 {
		return nil
	}
	var scs []model.Scenario
	at := p.definer(config, func(c *ConfigSpec) bool { return c.Scenarios != nil })
	for i, src := range spec.Scenarios {
		pos := p.stringStart(p.index.val("configs", at, "scenarios", fmt.Sprint(i)))
		r, err := scenario.ParseRegex(regexName(src), src, pos, m.Info())
		if err != nil {
			return err
		}
		if spec.ScenarioPrefixes != nil && *spec.ScenarioPrefixes {
			r.AcceptPrefixes()
		}
		scs = append(scs, r)
	}
	at = p.definer(config, func(c *ConfigSpec) bool { return c.ScenarioMachines != nil })
	for i, file := range spec.ScenarioMachines {
		pos := p.index.val("configs", at, "scenario_machines", fmt.Sprint(i))
		path := file
		if !filepath.IsAbs(path) && p.Path != "" {
			path = filepath.Join(filepath.Dir(p.Path), file)
		}
		sc, err := scenario.LoadMachine(path, m.Info())
		if err != nil {
			var pe *model.PosError
			if errors.As(err, &pe) {
				return err
			}
			return p.errAt(pos, "scenario machine %s: %v", file, err)
		}
		scs = append(scs, sc)
	}
	m.Compose(scs...)
	return nil
}

// mergeScenarios lays c's scenario settings over out's.
func mergeScenarios(out, c *ConfigSpec) {
	if c.Scenarios != nil {
		out.Scenarios = c.Scenarios
	}
	if c.ScenarioMachines != nil {
		out.ScenarioMachines = c.ScenarioMachines
	}
	if c.ScenarioPrefixes != nil {
		out.ScenarioPrefixes = c.ScenarioPrefixes
	}
}

// ScenarioError is a configuration's scenario that does not compile.
// Model is the model loaded without its scenarios: the workbench keeps it,
// so that the configuration can be fixed in its editor.
type ScenarioError struct {
	Model *model.StarModel
	Err   error
}

// Error is the scenario's error, with its position.
func (e *ScenarioError) Error() string { return e.Err.Error() }

// Unwrap returns the scenario's error.
func (e *ScenarioError) Unwrap() error { return e.Err }

// composed is m with the configuration's scenarios.
func (p *Project) composed(m *model.StarModel, config string, spec *ConfigSpec) (*model.StarModel, error) {
	if err := p.composeScenarios(m, config, spec); err != nil {
		return nil, &ScenarioError{Model: m, Err: err}
	}
	return m, nil
}

// Composes reports whether a configuration composes the model with
// scenarios (its model must then be loaded for it: LoadModelFor).
func (p *Project) Composes(config string) bool {
	spec, err := p.Resolve(config)
	return err == nil && len(spec.Scenarios)+len(spec.ScenarioMachines) > 0
}

// regexName names a regular scenario by its text, shortened.
func regexName(src string) string {
	s := strings.Join(strings.Fields(src), " ")
	if r := []rune(s); len(r) > 40 {
		s = string(r[:39]) + "…"
	}
	return fmt.Sprintf("%q", s)
}

// checkComposed refuses a model loaded without the configuration's
// scenarios (LoadModelContext composes them).
func checkComposed(m model.Model, spec *ConfigSpec, name string) error {
	sm, ok := m.(*model.StarModel)
	if !ok || len(spec.Scenarios)+len(spec.ScenarioMachines) == 0 {
		return nil
	}
	if got, want := len(sm.Scenarios()), len(spec.Scenarios)+len(spec.ScenarioMachines); got != want {
		return fmt.Errorf("configuration %s has %d scenarios, the model was loaded with %d: load it with LoadModelFor(%q)", name, want, got, name)
	}
	return nil
}

// CheckScenario compiles a regular scenario's text for the model: nil when
// it is right, else an error at its line and column (line 1 is the text's
// first).
func CheckScenario(info *model.ModelInfo, src string) error {
	_, err := scenario.ParseRegex("", src, model.Pos{File: "scenario", Line: 1, Col: 1}, info)
	return err
}

// CheckScenarioMachine loads a scenario machine file (relative to the
// project's folder) for the model: nil when it is right.
func (p *Project) CheckScenarioMachine(info *model.ModelInfo, file string) error {
	path := file
	if !filepath.IsAbs(path) && p.Path != "" {
		path = filepath.Join(filepath.Dir(p.Path), file)
	}
	_, err := scenario.LoadMachine(path, info)
	return err
}
