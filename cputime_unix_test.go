//go:build unix

package orprof

import "syscall"

// processCPU is the CPU time the process has used (user and system), in ns; 0 where unknown.
func processCPU() int64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
