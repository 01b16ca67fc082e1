//go:build race

package reliability

// raceEnabled is true when the tests run under the race detector.
const raceEnabled = true
