package tracefile

import (
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"
)

// readOnly returns a copy of data in memory the process cannot write (a write faults), as a
// mapped trace file is.
func readOnly(t *testing.T, data []byte) []byte {
	t.Helper()
	if len(data) == 0 {
		return data
	}
	page := syscall.Getpagesize()
	m, err := syscall.Mmap(-1, 0, (len(data)+page-1)/page*page, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
	require.NoError(t, err)
	copy(m, data)
	require.NoError(t, syscall.Mprotect(m, syscall.PROT_READ))
	t.Cleanup(func() { _ = syscall.Munmap(m) })
	return m[:len(data):len(data)]
}
