//go:build !race

package tracefile

const raceEnabled = false
