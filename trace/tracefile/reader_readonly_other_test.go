//go:build !linux

package tracefile

import (
	"bytes"
	"testing"
)

// readOnly returns a copy of data (memory cannot be made read-only here without cgo).
func readOnly(_ *testing.T, data []byte) []byte { return bytes.Clone(data) }
