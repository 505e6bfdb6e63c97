//go:build !race

package main

const conformanceRaceEnabled = false
