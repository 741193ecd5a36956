package configeditor

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"fyne.io/fyne/v2"

	"github.com/modex/modex/engine/model"
	"github.com/modex/modex/projects"
	"github.com/modex/modex/ui/widgets"
)

// scenarios edits the configuration's scenarios: regular ones, machine
// files, and whether their prefixes are accepted.
func (ce *Editor) scenarios() []fyne.CanvasObject {
	s, r := ce.spec, ce.resolved
	info := ce.m.Info()
	checkRegex := func(src string) string {
		if strings.TrimSpace(src) == "" {
			return ""
		}
		err := projects.CheckScenario(info, src)
		if err == nil {
			return ""
		}
		var pe *model.PosError
		if errors.As(err, &pe) && pe.Pos.Line > 1 {
			return fmt.Sprintf("line %d, %s", pe.Pos.Line, ExprError(err))
		}
		return ExprError(err)
	}
	checkMachine := func(file string) string {
		if strings.TrimSpace(file) == "" {
			return ""
		}
		if filepath.Ext(file) != ".star" {
			return "a scenario machine is a .star file"
		}
		if err := ce.p.CheckScenarioMachine(info, file); err != nil {
			var pe *model.PosError
			if errors.As(err, &pe) {
				return fmt.Sprintf("%s:%d:%d: %s", filepath.Base(pe.Pos.File), pe.Pos.Line, pe.Pos.Col, pe.Msg)
			}
			return err.Error()
		}
		return ""
	}
	prefixes := r.ScenarioPrefixes != nil && *r.ScenarioPrefixes
	return []fyne.CanvasObject{
		widgets.Heading("Scenarios"),
		widgets.HintLabel("Regular expressions over actions: Create{2}; Enter{2}; (Post(_, \"hi\") | ?Deliver)*. Actions they name happen only as they allow; the others interleave."),
		ce.listOf("scenarios", s.Scenarios, r.Scenarios, "e.g. Create{2}; Enter{2}; Post*", checkRegex, func(v []string) { s.Scenarios = v }),
		widgets.HintLabel("Scenario machines: Starlark files whose actions synchronise with the model's."),
		ce.listOf("scenario_machines", s.ScenarioMachines, r.ScenarioMachines, "e.g. phases.star", checkMachine, func(v []string) { s.ScenarioMachines = v }),
		ce.check("Tests may end anywhere in the scenarios (accept their prefixes)", prefixes, func(b bool) { s.ScenarioPrefixes = &b }),
	}
}
