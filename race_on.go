//go:build race

package orprof

// raceEnabled: built with -race. The lanes then also lock, so the race detector sees the
// synchronization the runtime provides when a goroutine descriptor passes to a new goroutine.
const raceEnabled = true
