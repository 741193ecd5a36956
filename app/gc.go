package main

import "github.com/modex/modex/engine/gcpolicy"

// tuneGC sets the binary's garbage-collector policy (see gcpolicy.Tune).
func tuneGC() { gcpolicy.Tune() }
