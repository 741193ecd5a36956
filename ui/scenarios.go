package ui

import "github.com/modex/modex/projects"

// hasConstants reports whether a configuration sets model constants or
// composes the model with scenarios: its model is loaded for it.
func hasConstants(p *projects.Project, config string) bool {
	if config == "" {
		return false
	}
	spec, err := p.Resolve(config)
	return err == nil && len(spec.Constants)+len(spec.Scenarios)+len(spec.ScenarioMachines) > 0
}

// recompose loads the model again when the configuration composes it with
// scenarios, or it was composed: the editor may have changed them. It
// reports a scenario that does not compile, and returns true then.
func (wb *Workbench) recompose() (failed bool) {
	if wb.s.project == nil || wb.s.model == nil || wb.s.config == "" {
		return false
	}
	if len(wb.s.model.Scenarios()) > 0 || wb.composeErr != nil || wb.s.project.Composes(wb.s.config) {
		wb.loadModel()
	}
	if wb.composeErr == nil {
		return false
	}
	wb.status.SetText("Configuration error: " + wb.composeErr.Error())
	wb.graph.SetMessage("A scenario of this configuration does not compile:\n\n" + wb.composeErr.Error())
	return true
}
