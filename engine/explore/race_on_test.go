//go:build race

package explore_test

// raceEnabled is set when the tests run with the race detector, which
// slows a Starlark model tenfold: the longest checks run without it only.
const raceEnabled = true
