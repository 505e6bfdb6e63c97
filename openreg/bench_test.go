package openreg

import (
	"context"
	"testing"

	"github.com/orprof/orprof"
	"github.com/orprof/orprof/stubs"
	"github.com/stretchr/testify/require"
)

// BenchmarkStubsRecord is the backend's share of a profiled op: one Record with an event on the
// current stream and its release.
func BenchmarkStubsRecord(b *testing.B) {
	rt := newRuntime(b, Options{})
	st := NewStubs(rt)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		r, err := st.Record(ctx, stubs.WantEvent|stubs.WantDevice|stubs.WantCPUTime)
		if err != nil {
			b.Fatal(err)
		}
		st.ReleaseEvent(r.Event)
	}
	b.StopTimer()
	require.NoError(b, rt.Synchronize())
}

// BenchmarkRangeWithDeviceEvents is the cost of one profiled range (Begin and End) with OpenReg
// device events, the figure the lead's target (≤ 1.5 µs) is about. The session is restarted
// every 50 000 ranges, outside the timer, to bound its memory.
func BenchmarkRangeWithDeviceEvents(b *testing.B) {
	rt := newRuntime(b, Options{})
	prev := SetDefault(rt)
	b.Cleanup(func() { SetDefault(prev) })
	start := func() *orprof.Session {
		s, err := orprof.Start(orprof.Options{Device: "openreg"})
		require.NoError(b, err)
		return s
	}
	sess := start()
	ctx := context.Background()
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		orprof.Begin(ctx, orprof.Op{Name: "aten::add"}).End()
		if n++; n == 50_000 {
			b.StopTimer()
			_, err := sess.Stop()
			require.NoError(b, err)
			sess = start()
			n = 0
			b.StartTimer()
		}
	}
	b.StopTimer()
	_, err := sess.Stop()
	require.NoError(b, err)
}
