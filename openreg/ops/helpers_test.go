package ops

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/orprof/orprof/openreg"
)

func newRuntime(t testing.TB, opts openreg.Options) *openreg.Runtime {
	t.Helper()
	rt, err := openreg.New(opts)
	require.NoError(t, err)
	t.Cleanup(func() { _ = rt.Close() })
	return rt
}
