// Package engine is the root of Modex's domain core: pure Go, no UI. It holds
// no code of its own; the work is split along the data flow, one package per
// phase, and dependencies point one way (each imports only those above it):
//
//	engine/model    model programs: values and their canonical encoding, the
//	                Model/Worker interfaces, Starlark models, Go-native models
//	engine/explore  scenario configuration, the deterministic parallel
//	                explorer, the state graph (timeout extension), inspection
//	                (paths, Explain, Find) and graph algorithms (transition
//	                tours, shortest paths) with the test-suite format
//	engine/conform  conformance: the Implementation interface and the wire
//	                protocol's values, one tester for online runs, suite runs
//	                and trace replay, verdicts and failures, trace formats
//	engine/adapter  the adapter transport at the edge: JSON lines over a
//	                child process's stdin/stdout or TCP; OS-specific process
//	                handling behind build tags
//
// engine/internal/enginetest holds helpers the packages' tests share.
//
// The UI and the command line reach these packages through their exported
// API only; nothing here imports Fyne.
package engine
