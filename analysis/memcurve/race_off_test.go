//go:build !race

package memcurve_test

const raceEnabled = false
