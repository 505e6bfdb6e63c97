//go:build !race

package main

import "testing"

const conformanceRaceEnabled = false

// skipUnderRace: built without -race, so the test runs.
func skipUnderRace(t *testing.T) { t.Helper() }
