package orprof

import (
	"context"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/orprof/orprof/internal/tsc"
)

// restartEvery bounds the recording benchmarks' memory: the session is stopped and restarted,
// outside the timer, after this many ranges per goroutine, so no benchmark measures the page
// faults of an ever-growing buffer (one goroutine records at most goroutines × restartEvery
// ranges in a round: 8 MB of slots per goroutine of the round at most).
const restartEvery = 1 << 17

// batch is how many calls a goroutine takes at a time from a round's shared count.
const batch = 1 << 10

// parallel runs body(g, n) on goroutines goroutines, b.N calls in all, timing only the bodies;
// setup and teardown run, outside the timer, around each round of restartEvery calls per
// goroutine.
//
// It measures throughput as testing.B's RunParallel does: within a round, each goroutine takes
// batch calls at a time from a count they share (one atomic add per batch, 0.1 ns a call), so a
// goroutine whose vCPU the host slows for a while does fewer calls instead of holding the round
// open while the other waits. And every goroutine is running, spinning on a flag, before the
// timer starts: waking a parked goroutine on the other vCPU took up to 3 ms here, a tenth of a
// round timed as if the second goroutine had worked.
//
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
		total := min(restartEvery*goroutines, b.N-done)
		setup()
		_, c := round(b, goroutines, total, body)
		cpu += c
		teardown()
		done += total
	}
}

// round makes total calls of body on goroutines goroutines, batch calls at a time from a count
// they share, with the benchmark's timer running from the moment all of them are spinning at
// the start line until the last one is done, and returns that stretch's wall time and the
// process's CPU time over it.
func round(b *testing.B, goroutines, total int, body func(g, n int)) (wall, cpu int64) {
	var (
		left  atomic.Int64 // calls not yet taken
		ready atomic.Int32 // goroutines spinning at the start line
		run   atomic.Bool  // the start
		wg    sync.WaitGroup
	)
	left.Store(int64(total))
	work := func(g int) {
		for {
			n := left.Add(-batch) + batch // what was left before this batch
			if n <= 0 {
				return
			}
			body(g, int(min(n, batch)))
		}
	}
	for g := 1; g < goroutines; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ready.Add(1)
			for !run.Load() {
				runtime.Gosched() // a no-op with a P each; lets GOMAXPROCS=1 go on
			}
			work(g)
		}()
	}
	for ready.Load() < int32(goroutines-1) {
		runtime.Gosched()
	}
	b.StartTimer()
	c0, t0 := processCPU(), time.Now()
	run.Store(true)
	work(0) // goroutine 0 is this one
	wg.Wait()
	wall, cpu = time.Since(t0).Nanoseconds(), processCPU()-c0
	b.StopTimer()
	return wall, cpu
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
		b.Run("anchor-2xRDTSC-record-kept/"+name, func(b *testing.B) {
			// The same records written in turn into memory each goroutine already has, as much
			// as a session's kept chunks (restartEvery records, 6 MB: more than a core's L2):
			// the floor of a range with its memory traffic, without the allocator's part, and
			// what the machine gives a second goroutine that streams its writes as a lane does.
			type record struct{ name, handle, start, end, ext, state int64 }
			type ring struct {
				recs []record
				at   int
				_    [64]byte
			}
			rings := make([]ring, goroutines)
			for g := range rings {
				rings[g].recs = make([]record, restartEvery)
				for i := range rings[g].recs {
					rings[g].recs[i].state = 1 // faulted in before the timer runs
				}
			}
			b.ResetTimer()
			parallel(b, goroutines, func() {}, func() {}, func(g, n int) {
				r := &rings[g]
				recs, at := r.recs, r.at
				for i := 0; i < n; i++ {
					if at == len(recs) {
						at = 0
					}
					rec := &recs[at]
					*rec = record{name: 1, handle: int64(i), start: tsc.Read()}
					rec.end = tsc.Read()
					at++
				}
				r.at = at
			})
		})
		b.Run("anchor-private-stores/"+name, func(b *testing.B) {
			// Work bound by instruction throughput rather than latency, on memory no other
			// goroutine touches, about as long as a range: what the machine gives such work on
			// a second core. (The RDTSC anchors wait on the counter, which a second vCPU slows
			// down less than it slows code that keeps the core's units busy, as a range does.)
			sinks := make([]uint64, goroutines*8)
			parallel(b, goroutines, func() {}, func() {}, func(g, n int) {
				sinks[g*8] = storeLoop(n)
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

// storeLoop is the store-bound anchor: work bound by instruction throughput, on memory no other
// goroutine touches, about as long as a range per call.
func storeLoop(n int) uint64 {
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
	return a[0] ^ a[1] ^ a[2] ^ a[3] ^ a[4] ^ a[5] ^ a[6] ^ a[7]
}

// BenchmarkRangeScaling measures what a second goroutine adds to recording, against what the
// machine gives the store-bound anchor in the same stretch of time. On this project's 2-vCPU
// VM, the host at times runs both vCPUs at once at about 60 % of their speed (as two threads of
// one core would), for a few seconds, and only for work that keeps the core's units busy: a
// latency-bound loop keeps 2×. Those stretches fall on whichever sub-benchmark of
// BenchmarkRange runs then. So here every b.N is one cycle of four rounds, each of
// restartEvery calls per goroutine: ranges on 1 goroutine, on 2, the anchor on 1, on 2. Each
// round's wall time per call is kept, and the figures are medians over the cycles:
//
//	range-1g-ns, range-2g-ns    wall per range (2 goroutines: half the 1-goroutine figure is 2×)
//	range-x                     range-1g-ns over range-2g-ns: the second goroutine's gain
//	stores-x                    the same of the anchor
//	range-vs-stores             the median of range-x over stores-x within a cycle
//
// ns/op is the time of a whole cycle and means nothing on its own.
func BenchmarkRangeScaling(b *testing.B) {
	ctxs := []context.Context{WithThread(context.Background(), NewThread()), WithThread(context.Background(), NewThread())}
	sinks := make([]uint64, 2*8)
	var s *Session
	works := []struct {
		setup, teardown func()
		body            func(g, n int)
	}{{
		setup: func() {
			var err error
			s, err = Start(Options{})
			require.NoError(b, err)
		},
		teardown: func() {
			_, err := s.Stop()
			require.NoError(b, err)
		},
		body: func(g, n int) {
			ctx := ctxs[g]
			for i := 0; i < n; i++ {
				RecordFunction(ctx, "step").End()
			}
		},
	}, {
		setup: func() {}, teardown: func() {},
		body: func(g, n int) { sinks[g*8] = storeLoop(n) },
	}}
	var per [2][2][]float64 // per[work][goroutines-1]: wall ns per call, one per cycle
	b.StopTimer()
	for range b.N {
		for w, wk := range works {
			for gs := 1; gs <= 2; gs++ {
				wk.setup()
				wall, _ := round(b, gs, restartEvery*gs, wk.body)
				wk.teardown()
				per[w][gs-1] = append(per[w][gs-1], float64(wall)/float64(restartEvery*gs))
			}
		}
	}
	var rel []float64
	for c := range b.N {
		rel = append(rel, per[0][0][c]/per[0][1][c]/(per[1][0][c]/per[1][1][c]))
	}
	r1, r2 := median(per[0][0]), median(per[0][1])
	b.ReportMetric(r1, "range-1g-ns")
	b.ReportMetric(r2, "range-2g-ns")
	b.ReportMetric(r1/r2, "range-x")
	b.ReportMetric(median(per[1][0])/median(per[1][1]), "stores-x")
	b.ReportMetric(median(rel), "range-vs-stores")
}

// median is the middle value of x (the mean of the two middle ones for even lengths); x is
// sorted in place.
func median(x []float64) float64 {
	slices.Sort(x)
	n := len(x)
	if n%2 == 1 {
		return x[n/2]
	}
	return (x[n/2-1] + x[n/2]) / 2
}
