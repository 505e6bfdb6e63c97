//go:build !race

package flame_test

const raceEnabled = false
