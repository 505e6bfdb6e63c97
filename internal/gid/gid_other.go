//go:build !amd64 && !arm64

package gid

import (
	"runtime"
	"strconv"
)

// G returns the running goroutine's id, read from the first line of its stack trace
// ("goroutine 17 [running]:"): slow (about a microsecond) but portable.
func G() uintptr {
	var buf [64]byte
	b := buf[:runtime.Stack(buf[:], false)]
	const prefix = "goroutine "
	if len(b) < len(prefix) {
		return 0
	}
	b = b[len(prefix):]
	i := 0
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		i++
	}
	n, _ := strconv.ParseUint(string(b[:i]), 10, 64)
	return uintptr(n)
}
