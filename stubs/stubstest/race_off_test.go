//go:build !race

package stubstest_test

const raceEnabled = false
