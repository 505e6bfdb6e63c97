//go:build !race

package perfetto

const raceEnabled = false
