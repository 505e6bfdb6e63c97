//go:build race

package gz

// raceEnabled: the race detector slows the decoder ~20x; the exhaustive cut tests sample.
const raceEnabled = true
