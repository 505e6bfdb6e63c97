package ops

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/orprof/orprof"
	"github.com/orprof/orprof/events"
	"github.com/orprof/orprof/openreg"
)

// opCounts profiles run on a fresh OpenReg runtime from a thread of its own and returns the
// call count of every op but the step ranges.
func opCounts(t *testing.T, run func(ctx context.Context, rt *openreg.Runtime) error) map[string]int64 {
	t.Helper()
	ctx := orprof.WithThread(context.Background(), orprof.NewThread())
	res := profile(t, orprof.Options{}, func(_ context.Context, rt *openreg.Runtime) error { return run(ctx, rt) })
	out := map[string]int64{}
	for _, r := range res.KeyAverages(events.AverageOptions{}) {
		if r.Key != "ProfilerStep*" {
			out[r.Key] += r.Count
		}
	}
	return out
}

// A workload started with StartWorkload and stepped Steps times runs the ops of its Run, and
// Run's steps are ProfilerStep#0..Steps-1.
func TestStartWorkloadStepsLikeRun(t *testing.T) {
	for _, w := range Workloads() {
		t.Run(w.Name, func(t *testing.T) {
			want := opCounts(t, w.Run)
			got := opCounts(t, func(ctx context.Context, rt *openreg.Runtime) error {
				s, err := StartWorkload(ctx, rt, w.Name)
				if err != nil {
					return err
				}
				for i := 0; i < w.Steps; i++ {
					if _, err := s.Step(ctx); err != nil {
						return err
					}
				}
				return s.Close(ctx)
			})
			assert.NotEmpty(t, want)
			assert.Equal(t, want, got)
		})
	}
	_, err := StartWorkload(context.Background(), openreg.Default(), "nosuch")
	assert.EqualError(t, err, `workload "nosuch": unknown (have mlp, multistream)`)
}
