package workloop

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orprof/orprof"
	"github.com/orprof/orprof/events"
	"github.com/orprof/orprof/openreg"
	"github.com/orprof/orprof/openreg/ops"
)

// counts profiles run on OpenReg and returns the call count of every op but the step ranges.
func counts(t *testing.T, run func(ctx context.Context) error) map[string]int64 {
	t.Helper()
	s, err := orprof.Start(orprof.Options{Device: "openreg"})
	require.NoError(t, err)
	ctx := orprof.WithThread(context.Background(), orprof.NewThread())
	runErr := run(ctx)
	res, err := s.Stop()
	require.NoError(t, runErr)
	require.NoError(t, err)
	out := map[string]int64{}
	for _, r := range res.KeyAverages(events.AverageOptions{}) {
		if r.Key != "ProfilerStep*" {
			out[r.Key] += r.Count
		}
	}
	return out
}

// Each loop runs the ops of openreg's workload of the same name.
func TestLoopsMatchWorkloads(t *testing.T) {
	for name, steps := range map[string]int{"mlp": 4, "multistream": 3} {
		t.Run(name, func(t *testing.T) {
			w, ok := ops.LookupWorkload(name)
			require.True(t, ok)
			want := counts(t, func(ctx context.Context) error { return w.Run(ctx, openreg.Default()) })
			got := counts(t, func(ctx context.Context) error {
				l, err := New(ctx, openreg.Default(), name)
				if err != nil {
					return err
				}
				for i := 0; i < steps; i++ {
					if err := l.Step(ctx); err != nil {
						return err
					}
				}
				return l.Close(ctx)
			})
			assert.NotEmpty(t, want)
			assert.Equal(t, want, got)
		})
	}
	_, err := New(context.Background(), openreg.Default(), "nosuch")
	assert.EqualError(t, err, `workload "nosuch": unknown (have mlp, multistream)`)
}
