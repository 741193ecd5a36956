//go:build headless

package main

import "errors"

// runGUI in a headless build (go build -tags headless): the commands only,
// without the workbench and the GUI libraries linked in.
func runGUI(path, config, trace string) error {
	return errors.New("this modex was built without the workbench (-tags headless); the commands explore, check, test, gen, run and replay work")
}
