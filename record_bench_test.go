package orprof

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/orprof/orprof/internal/tsc"
)

// restartEvery bounds the recording benchmarks' memory: the session is stopped and restarted,
// outside the timer, after this many ranges per goroutine, so no benchmark measures the page
// faults of an ever-growing buffer (8 MB of slots per goroutine at most).
const restartEvery = 1 << 17

// parallel runs body(g, n) on goroutines goroutines, b.N calls in all, each goroutine n at a
// time, timing only the bodies; setup and teardown run, outside the timer, around each round.
// ns/op is wall time per call: with 2 goroutines, half the 1-goroutine figure is perfect
// scaling. cpu-ns/op is the process's CPU time per call over the same timed stretches: equal
// for 1 and 2 goroutines when the goroutines do not slow each other down (no shared lock or
// contended cache line), whatever share of the cores a busy machine gives the benchmark.
func parallel(b *testing.B, goroutines int, setup, teardown func(), body func(g, n int)) {
	b.StopTimer()
	var cpu int64
	defer func() {
		if cpu > 0 {
			b.ReportMetric(float64(cpu)/float64(b.N), "cpu-ns/op")
		}
	}()
	for done := 0; done < b.N; {
		per := min(restartEvery, (b.N-done+goroutines-1)/goroutines)
		setup()
		var wg sync.WaitGroup
		start := make(chan struct{})
		for g := 1; g < goroutines; g++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				body(g, per)
			}()
		}
		if goroutines > 1 {
			time.Sleep(time.Millisecond) // let every goroutine reach the start line
		}
		b.StartTimer()
		c0 := processCPU()
		close(start)
		body(0, per) // goroutine 0 is this one: no wake-up inside the timed stretch
		wg.Wait()
		cpu += processCPU() - c0
		b.StopTimer()
		teardown()
		done += per * goroutines
	}
}

// BenchmarkRange is a CPU-only range (RecordFunction and End) on a goroutine's own Thread, with
// 1 and 2 goroutines recording at once, and its anchors in the same run: two reads of the
// time-stamp counter (the floor: a range reads the clock twice), the same stored in a 48-byte
// record in chunks made as it goes (the floor with the memory a range writes, in fresh memory),
// a store-bound loop on private memory about as long as a range, and two time.Now calls, with 1
// and 2 goroutines too. The 1-goroutine figure over the 2-goroutine figure is the throughput gain
// of the second goroutine; the anchors' show what the machine gives.
func BenchmarkRange(b *testing.B) {
	for _, goroutines := range []int{1, 2} {
		name := "goroutines=" + string(rune('0'+goroutines))
		b.Run("cpu/"+name, func(b *testing.B) {
			var s *Session
			ctxs := make([]context.Context, goroutines)
			for g := range ctxs {
				ctxs[g] = WithThread(context.Background(), NewThread())
			}
			parallel(b, goroutines, func() {
				var err error
				s, err = Start(Options{})
				require.NoError(b, err)
			}, func() {
				_, err := s.Stop()
				require.NoError(b, err)
			}, func(g, n int) {
				ctx := ctxs[g]
				for i := 0; i < n; i++ {
					RecordFunction(ctx, "step").End()
				}
			})
		})
		b.Run("anchor-2xRDTSC/"+name, func(b *testing.B) {
			sinks := make([]int64, goroutines*8)
			parallel(b, goroutines, func() {}, func() {}, func(g, n int) {
				var x int64
				for i := 0; i < n; i++ {
					x += tsc.Read()
					x -= tsc.Read()
				}
				sinks[g*8] = x
			})
		})
		b.Run("anchor-2xRDTSC-record/"+name, func(b *testing.B) {
			// The floor of a range with its memory: the two clock reads stored in a 48-byte
			// record, in chunks of 512 made as the goroutine goes, as the lanes make theirs.
			sinks := make([]int64, goroutines*8)
			parallel(b, goroutines, func() {}, func() {}, func(g, n int) {
				type record struct{ name, handle, start, end, ext, state int64 }
				var chunk []record
				for i := 0; i < n; i++ {
					if len(chunk) == cap(chunk) {
						chunk = make([]record, 0, 512)
					}
					chunk = append(chunk, record{name: 1, handle: int64(i), start: tsc.Read()})
					chunk[len(chunk)-1].end = tsc.Read()
				}
				sinks[g*8] = chunk[0].end
			})
		})
		b.Run("anchor-private-stores/"+name, func(b *testing.B) {
			// Work bound by instruction throughput rather than latency, on memory no other
			// goroutine touches, about as long as a range: what the machine gives such work on
			// a second core. (The RDTSC anchors wait on the counter, which a second vCPU slows
			// down less than it slows code that keeps the core's units busy, as a range does.)
			sinks := make([]uint64, goroutines*8)
			parallel(b, goroutines, func() {}, func() {}, func(g, n int) {
				var a [8]uint64
				for i := 0; i < n; i++ {
					for j := uint64(0); j < 24; j++ {
						u := uint64(i) + j
						a[0] += u
						a[1] ^= u
						a[2] += u
						a[3] ^= u
						a[4] += u
						a[5] ^= u
						a[6] += u
						a[7] ^= u
					}
				}
				sinks[g*8] = a[0] ^ a[1] ^ a[2] ^ a[3] ^ a[4] ^ a[5] ^ a[6] ^ a[7]
			})
		})
		b.Run("anchor-2xNow/"+name, func(b *testing.B) {
			sinks := make([]int64, goroutines*8)
			parallel(b, goroutines, func() {}, func() {}, func(g, n int) {
				var x int64
				for i := 0; i < n; i++ {
					x += time.Now().UnixNano()
					x -= time.Now().UnixNano()
				}
				sinks[g*8] = x
			})
		})
	}
}
