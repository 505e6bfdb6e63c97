//go:build !amd64

package tsc

// Read returns 0: there is no time-stamp counter on this architecture.
func Read() int64 { return 0 }

func invariant() bool { return false }
