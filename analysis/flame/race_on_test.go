//go:build race

package flame_test

const raceEnabled = true
