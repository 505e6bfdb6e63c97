package orprof

import (
	"context"
	"runtime"
	"runtime/metrics"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// record8 records 8 goroutines × per ranges (an outer range around an op, as in a training step)
// in a CPU-only session and returns it unstopped.
func record8(tb testing.TB, per int, ctxOf func() context.Context) *Session {
	s, err := Start(Options{})
	require.NoError(tb, err)
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx := ctxOf()
			for i := 0; i < per/2; i++ {
				outer := RecordFunction(ctx, "step")
				Begin(ctx, Op{Name: "aten::add"}).End()
				outer.End()
			}
		}()
	}
	wg.Wait()
	return s
}

// peakHeap samples the bytes of heap objects (live and not yet swept: what the heap holds)
// every millisecond while fn runs, without stopping the world, and returns the largest
// increase over the amount before it.
func peakHeap(fn func()) uint64 {
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	read := func() uint64 { metrics.Read(sample); return sample[0].Value.Uint64() }
	base := read()
	var peak atomic.Uint64
	note := func() {
		if v := read(); v > base && v-base > peak.Load() {
			peak.Store(v - base)
		}
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(time.Millisecond)
		defer t.Stop()
		for {
			note()
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	fn()
	close(done)
	wg.Wait()
	note()
	return peak.Load()
}

// BenchmarkStop1600k is Stop after 8 goroutines × 200k ranges, the scale: it reports
// the time per Stop (target ≤ 1 s), ns per range, the process's CPU time per Stop (steadier on
// a shared machine; Stop runs on one goroutine), and the peak heap growth from before the
// recording to the end of Stop per range (target ≤ 400 B; the recording's own buffers
// included). The trace is not built: nobody asked for it.
func BenchmarkStop1600k(b *testing.B) {
	const per = 200_000
	var peak uint64
	b.StopTimer()
	for i := 0; i < b.N; i++ {
		runtime.GC()
		var s *Session
		var elapsed time.Duration
		var cpu int64
		p := peakHeap(func() {
			s = record8(b, per, func() context.Context { return WithThread(context.Background(), NewThread()) })
			b.StartTimer()
			t0, c0 := time.Now(), processCPU()
			res, err := s.Stop()
			elapsed, cpu = time.Since(t0), processCPU()-c0
			b.StopTimer()
			require.NoError(b, err)
			require.Equal(b, 8*per, res.Events.Len())
			runtime.KeepAlive(res)
		})
		peak = max(peak, p)
		b.ReportMetric(float64(elapsed.Nanoseconds())/float64(8*per), "ns/range")
		if cpu > 0 {
			b.ReportMetric(float64(cpu)/1e9, "cpu-s/stop")
		}
	}
	b.ReportMetric(float64(peak)/float64(8*per), "peak-B/range")
}
