// Package conform checks an implementation against a model program. It owns
// the Implementation interface (in process, or reached through an adapter)
// and the mapping of model values to the adapter protocol's wire values
// (Binding); one tester that drives online runs (Test: weights, timeouts,
// cleanup, seed 000's algorithm), offline suite runs (RunSuite) and passive
// replay of recorded traces (Replay, seed 004); the verdicts and structured
// failures those runs report; and the recorded-trace formats (ParseTrace).
// Transports to real processes live in engine/adapter.
package conform
