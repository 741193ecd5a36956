//go:build !race

package explore_test

// raceEnabled is set when the tests run with the race detector.
const raceEnabled = false
