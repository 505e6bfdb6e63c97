//go:build race

package stubstest_test

// raceEnabled: the race detector slows the fixtures' C calls through purego about tenfold; the
// tests of verdicts alone (names ending in NoRace) run in CI's run without it.
const raceEnabled = true
