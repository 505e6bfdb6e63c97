package openreg

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func newRuntime(t testing.TB, opts Options) *Runtime {
	t.Helper()
	rt, err := New(opts)
	require.NoError(t, err)
	t.Cleanup(func() { _ = rt.Close() })
	return rt
}
