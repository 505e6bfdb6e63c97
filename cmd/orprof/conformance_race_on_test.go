//go:build race

package main

import "testing"

// conformanceRaceEnabled: built with -race, which makes every conformance child a race binary;
// the verdict-only tests (names ending in NoRace) run in CI's run without it.
const conformanceRaceEnabled = true

// skipUnderRace skips a test that checks what the CLI prints, not how goroutines meet, and
// that the race detector makes minutes long (the flag matrices run hundreds of commands):
// CI's second run, without -race, runs it (.ci/run names it in that run's pattern).
func skipUnderRace(t *testing.T) {
	t.Helper()
	t.Skip("checks outputs, not concurrency, and takes minutes under -race: CI runs it without -race")
}
