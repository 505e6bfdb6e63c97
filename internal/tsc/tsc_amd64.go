package tsc

import (
	"os"
	"strings"
)

func read() int64

// Read returns the CPU's time-stamp counter. Only meaningful when Available.
func Read() int64 { return read() }

// invariant reports whether the kernel says the TSC runs at a constant rate through power
// states (constant_tsc and nonstop_tsc), so ticks convert linearly to nanoseconds.
func invariant() bool {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return false
	}
	s := string(b)
	return strings.Contains(s, " constant_tsc") && strings.Contains(s, " nonstop_tsc")
}
