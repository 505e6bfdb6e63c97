//go:build !race

package gz

const raceEnabled = false
