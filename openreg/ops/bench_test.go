package ops

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/orprof/orprof/openreg"
)

// BenchmarkMm128 is one 128×128 product launched and waited for; GFLOP/s is the kernel's
// throughput including the launch.
func BenchmarkMm128(b *testing.B) {
	rt := newRuntime(b, openreg.Options{})
	ctx := context.Background()
	x, err := Uniform(ctx, rt, 0, -1, 1, 1, 128, 128)
	require.NoError(b, err)
	for b.Loop() { // launch and wait: the queue never grows
		y, err := Mm(ctx, x, x)
		if err != nil {
			b.Fatal(err)
		}
		if err := rt.Synchronize(); err != nil {
			b.Fatal(err)
		}
		y.Release(ctx)
	}
	b.ReportMetric(float64(2*128*128*128)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
}
