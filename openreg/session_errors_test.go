package openreg

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orprof/orprof"
)

// Bad input through the root API with the OpenReg backend: popping a range never pushed succeeds
// (OpenReg's ranges are no-ops, as PyTorch's); ending a Range twice or a zero Range is harmless.
func TestSessionRangeErrors(t *testing.T) {
	require.ErrorIs(t, orprof.RangePop(), orprof.ErrNoRanges, "no session")
	sess, err := orprof.Start(orprof.Options{Device: "openreg"})
	require.NoError(t, err)
	require.NoError(t, orprof.RangePop())
	require.NoError(t, orprof.RangePush("outer"))
	require.NoError(t, orprof.RangePop())

	ctx := context.Background()
	r := orprof.RecordFunction(ctx, "twice")
	r.End()
	r.End()
	var zero orprof.Range
	zero.End()
	res, err := sess.Stop()
	require.NoError(t, err)
	assert.Equal(t, 1, res.Events.Len())
}
