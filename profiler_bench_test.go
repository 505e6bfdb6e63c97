package orprof

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
)

// BenchmarkScheduledRange measures a range (begin + end) under a schedule: while a cycle
// records (the CPU-only session cost, the anchor) and while the schedule waits (no session: the
// cost a long-running program pays between captures); and Step itself while waiting.
func BenchmarkScheduledRange(b *testing.B) {
	run := func(b *testing.B, s Schedule, step bool) {
		p, err := NewProfiler(ProfilerOptions{Schedule: &s})
		require.NoError(b, err)
		ctx := WithThread(context.Background(), NewThread())
		require.NoError(b, p.Start(ctx))
		b.ReportAllocs()
		b.ResetTimer()
		if step {
			for i := 0; i < b.N; i++ {
				_ = p.Step(ctx)
			}
		} else {
			for i := 0; i < b.N; i++ {
				RecordFunction(ctx, "step").End()
			}
		}
		b.StopTimer()
		require.NoError(b, p.Stop())
	}
	b.Run("active", func(b *testing.B) { run(b, Schedule{Active: 1 << 30}, false) })
	b.Run("wait", func(b *testing.B) { run(b, Schedule{Wait: 1 << 30, Active: 1}, false) })
	b.Run("step-in-wait", func(b *testing.B) { run(b, Schedule{Wait: 1 << 30, Active: 1}, true) })
}
