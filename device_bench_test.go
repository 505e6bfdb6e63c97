package orprof_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/orprof/orprof"
	"github.com/orprof/orprof/internal/tsc"
	"github.com/orprof/orprof/openreg"
)

// BenchmarkRangeOpenReg is a range with OpenReg device events (fallback mode: a start and an
// end event recorded through the stubs around the op, their elapsed time measured at Stop)
// beside its anchors in the same run: two time.Now calls (the host clock a device session reads,
// since the backend stamps its work with it) and two TSC reads. The session is restarted every
// 32k ranges outside the timer, so its memory stays bounded. cpu-ns/op is the process's CPU
// time per op over the timed stretches (the stream workers' included): steadier than wall time
// on a shared machine.
func BenchmarkRangeOpenReg(b *testing.B) {
	b.Run("device", func(b *testing.B) {
		rt, err := openreg.New(openreg.Options{})
		require.NoError(b, err)
		prev := openreg.SetDefault(rt)
		b.Cleanup(func() { openreg.SetDefault(prev); _ = rt.Close() })
		start := func() *orprof.Session {
			s, err := orprof.Start(orprof.Options{Device: "openreg"})
			require.NoError(b, err)
			return s
		}
		sess := start()
		ctx := orprof.WithThread(context.Background(), orprof.NewThread())
		b.ReportAllocs()
		n := 0
		var cpu int64
		c0 := processCPU()
		for b.Loop() {
			orprof.Begin(ctx, orprof.Op{Name: "aten::add"}).End()
			if n++; n == 1<<15 {
				b.StopTimer()
				cpu += processCPU() - c0
				_, err := sess.Stop()
				require.NoError(b, err)
				sess = start()
				n = 0
				c0 = processCPU()
				b.StartTimer()
			}
		}
		b.StopTimer()
		cpu += processCPU() - c0
		reportCPU(b, cpu)
		_, err = sess.Stop()
		require.NoError(b, err)
	})
	b.Run("anchor-2xNow", func(b *testing.B) {
		var x int64
		c0 := processCPU()
		for b.Loop() {
			x += time.Now().UnixNano()
			x -= time.Now().UnixNano()
		}
		reportCPU(b, processCPU()-c0)
		_ = x
	})
	b.Run("anchor-2xRDTSC", func(b *testing.B) {
		var x int64
		c0 := processCPU()
		for b.Loop() {
			x += tsc.Read()
			x -= tsc.Read()
		}
		reportCPU(b, processCPU()-c0)
		_ = x
	})
}

func reportCPU(b *testing.B, ns int64) {
	if ns > 0 {
		b.ReportMetric(float64(ns)/float64(b.N), "cpu-ns/op")
	}
}
