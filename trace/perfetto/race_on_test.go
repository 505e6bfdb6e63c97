//go:build race

package perfetto

const raceEnabled = true
