//go:build race

package tbsteps_test

const raceEnabled = true
