//go:build unix

package main

import (
	"os/signal"
	"syscall"
)

// ignoreSIGPIPE makes a write to a closed stdout pipe return EPIPE instead of killing the
// process, so that it is reported like any other write error.
func ignoreSIGPIPE() { signal.Ignore(syscall.SIGPIPE) }
