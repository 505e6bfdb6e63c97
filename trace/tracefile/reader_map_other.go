//go:build !linux

package tracefile

import "os"

// mapFile does not map here: the file is read.
func mapFile(*os.File) (*inPlace, func(), bool) { return nil, nil, false }

// inMapping reports whether a fault at addr was in a mapped trace: there are none here.
func inMapping(uintptr) bool { return false }
