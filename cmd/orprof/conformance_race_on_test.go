//go:build race

package main

// conformanceRaceEnabled: built with -race, which makes every conformance child a race binary;
// the verdict-only tests (names ending in NoRace) run in CI's run without it.
const conformanceRaceEnabled = true
