//go:build !race

package orprof

const raceEnabled = false
