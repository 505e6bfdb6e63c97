//go:build race

package browsertest

// raceEnabled: built with -race.
const raceEnabled = true
