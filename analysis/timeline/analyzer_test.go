package timeline

import (
	"encoding/json"
	"github.com/orprof/orprof/trace"
	"math"
	"reflect"
	"testing"
)

const us = int64(1000)

// ev builders for hand-made timelines; times in µs.
func kern(stream int64, start, end int64, corr int64, name string) Event {
	return Event{Kind: Device, Name: name, StartNs: start * us, EndNs: end * us, Stream: stream, Correlation: corr}
}

func launch(corr, start, end int64) Event {
	return Event{Kind: Launch, Name: "cudaLaunchKernel", StartNs: start * us, EndNs: end * us, Correlation: corr}
}

func step(n, start, end int64) Event {
	return Event{Kind: Op, Name: "ProfilerStep#" + itoa(n), StartNs: start * us, EndNs: end * us}
}

func itoa(n int64) string { b, _ := json.Marshal(n); return string(b) }

func run(t *testing.T, o Options, rank int64, evs ...Event) *Summary {
	t.Helper()
	a := NewAnalyzer(o)
	p := a.Part()
	for i := range evs {
		p.Add(&evs[i])
	}
	s := a.Finish(RankInfo{Rank: trace.Rank{Number: rank, Named: true}})
	checkInvariants(t, s)
	return s
}

// checkInvariants are what every summary must satisfy, whatever its input.
func checkInvariants(t *testing.T, s *Summary) {
	t.Helper()
	checkTimes := func(what string, x Times) {
		t.Helper()
		e := x.Exclusive
		if e.ComputeNs+e.CommunicationNs+e.MemoryNs+e.OtherNs+e.IdleNs != x.TotalNs {
			t.Errorf("%s: exclusive categories %+v do not sum to the total %d", what, e, x.TotalNs)
		}
		for _, v := range []int64{x.TotalNs, x.BusyNs, x.IdleNs, x.ComputeNs, x.CommunicationNs, x.MemoryNs, x.OtherNs,
			x.ExposedCommunicationNs, x.ExposedMemoryNs, x.OverlapNs, e.ComputeNs, e.CommunicationNs, e.MemoryNs, e.OtherNs} {
			if v < 0 {
				t.Errorf("%s: negative figure in %+v", what, x)
			}
		}
		for _, u := range []int64{x.BusyNs, x.ComputeNs, x.CommunicationNs, x.MemoryNs, x.OtherNs} {
			if u > x.TotalNs {
				t.Errorf("%s: a union (%d) above the wall time %d: %+v", what, u, x.TotalNs, x)
			}
		}
		if x.BusyNs+x.IdleNs != x.TotalNs || x.OverlapNs+x.ExposedCommunicationNs != x.CommunicationNs {
			t.Errorf("%s: busy+idle or overlap+exposed do not add up: %+v", what, x)
		}
	}
	for _, b := range s.Breakdown {
		checkTimes("rank breakdown", b.Times)
		if b.TotalNs > b.EndNs-b.StartNs {
			t.Errorf("rank %d: total %d above its window %d", b.Rank, b.TotalNs, b.EndNs-b.StartNs)
		}
		h := b.HTA
		if h.IdleNs < 0 || h.ComputeNs < 0 || h.NonComputeNs < 0 || h.IdleNs+h.ComputeNs+h.NonComputeNs != h.KernelTimeNs {
			t.Errorf("rank %d: HTA breakdown %+v", b.Rank, h)
		}
	}
	for _, rs := range s.Steps {
		for _, st := range rs.Steps {
			checkTimes("step", st.Times)
			if st.EndNs < st.StartNs {
				t.Errorf("step %d: negative window", st.Step)
			}
		}
	}
	for _, si := range s.Idle {
		if si.HostWaitNs < 0 || si.KernelWaitNs < 0 || si.OtherNs < 0 || si.BusyNs < 0 || si.BusyNs > si.SpanNs ||
			si.IdleNs != si.SpanNs-si.BusyNs {
			t.Errorf("stream %d: idle %+v", si.Stream, si)
		}
	}
	for _, l := range s.Launches {
		if l.CPU.MinNs < 0 || l.Device.MinNs < 0 {
			t.Errorf("launches: negative duration %+v", l)
		}
	}
	for _, q := range s.Queue {
		if q.AtOrAboveNs < 0 || q.AtOrAboveNs > q.SpanNs || q.AreaNs < 0 || (q.SpanNs > 0 && q.Max < 1) || q.Max < 0 {
			t.Errorf("queue: %+v", q)
		}
	}
}

func TestBreakdownAcrossStreams(t *testing.T) {
	for _, tc := range []struct {
		name string
		evs  []Event
		want Times
	}{
		{"two streams overlap: never summed", []Event{kern(7, 0, 10, 0, "gemm"), kern(8, 5, 15, 0, "gemm")},
			Times{TotalNs: 15 * us, BusyNs: 15 * us, ComputeNs: 15 * us, Exclusive: Exclusive{ComputeNs: 15 * us}}},
		{"gap is idle; touching intervals merge", []Event{kern(7, 0, 10, 0, "a"), kern(7, 10, 12, 0, "b"), kern(7, 20, 30, 0, "c")},
			Times{TotalNs: 30 * us, BusyNs: 22 * us, IdleNs: 8 * us, ComputeNs: 22 * us,
				Exclusive: Exclusive{ComputeNs: 22 * us, IdleNs: 8 * us}}},
		{"communication half under computation; memory alone", []Event{
			kern(7, 0, 10, 0, "gemm"), kern(20, 5, 15, 0, "ncclDevKernel_AllReduce"), kern(21, 20, 24, 0, "Memcpy DtoH (Device -> Pinned)")},
			Times{TotalNs: 24 * us, BusyNs: 19 * us, IdleNs: 5 * us, ComputeNs: 10 * us, CommunicationNs: 10 * us, MemoryNs: 4 * us,
				ExposedCommunicationNs: 5 * us, ExposedMemoryNs: 4 * us, OverlapNs: 5 * us,
				Exclusive: Exclusive{ComputeNs: 10 * us, CommunicationNs: 5 * us, MemoryNs: 4 * us, IdleNs: 5 * us}}},
		{"sync and device ranges are not work", []Event{kern(7, 0, 10, 0, "k"),
			{Kind: Device, Name: "Stream Sync", StartNs: 10 * us, EndNs: 50 * us, Stream: 7},
			{Kind: Device, Name: "range", Class: Annotation, StartNs: 0, EndNs: 100 * us, Stream: 7},
			kern(7, 60, 70, 0, "k")},
			Times{TotalNs: 70 * us, BusyNs: 20 * us, IdleNs: 50 * us, ComputeNs: 20 * us,
				Exclusive: Exclusive{ComputeNs: 20 * us, IdleNs: 50 * us}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := run(t, DefaultOptions(), 0, tc.evs...)
			if got := s.Breakdown[0].Times; got != tc.want {
				t.Errorf("got  %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

// HolisticTraceAnalysis counts a stream-carrying sync event as busy non-compute time and rounds
// ns times to whole µs; orprof does neither. A kernel whose name holds Memcpy is other work for
// both (one classifier: kernels.Rules, as the trace's kernels are classed).
func TestBreakdownHTADiffers(t *testing.T) {
	s := run(t, DefaultOptions(), 0,
		Event{Kind: Device, Name: "k", StartNs: 200, EndNs: 10_800, Stream: 7},
		Event{Kind: Device, Name: "Stream Sync", StartNs: 10_800, EndNs: 40_000, Stream: 7},
		Event{Kind: Device, Name: "fused_Memcpy_kernel", StartNs: 50_000, EndNs: 51_000, Stream: 7})
	b := s.Breakdown[0]
	if b.ComputeNs != 10_600 || b.IdleNs != 39_200 {
		t.Errorf("orprof: compute %d idle %d, want 10600 and 39200", b.ComputeNs, b.IdleNs)
	}
	want := HTABreakdown{KernelTimeNs: 50_000, ComputeNs: 9_000, NonComputeNs: 30_000, IdleNs: 11_000}
	if b.HTA != want {
		t.Errorf("HTA: got %+v, want %+v", b.HTA, want)
	}
}

// Overlapping events on one stream: HolisticTraceAnalysis's gap to the previous event's end goes
// negative; orprof's idle is measured after everything before has ended.
func TestIdleOverlapNeverNegative(t *testing.T) {
	s := run(t, DefaultOptions(), 0,
		launch(1, 0, 1), launch(2, 1, 2), launch(3, 2, 3),
		kern(7, 5, 100, 1, "long"), kern(7, 10, 20, 2, "inside"), kern(7, 110, 120, 3, "after"))
	si := s.Idle[0]
	if si.IdleNs != 10*us || si.KernelWaitNs != 10*us || si.HostWaitNs != 0 || si.OtherNs != 0 {
		t.Errorf("orprof idle: %+v", si)
	}
	// HTA: gap(inside) = 10 − 100 = −90; gap(after) = 110 − 20 = 90: both kernel wait (< 30 and ≥ 30 → other).
	if si.HTA.KernelWaitNs != -90*us || si.HTA.OtherNs != 90*us {
		t.Errorf("HTA idle: %+v, want kernel wait −90 µs and other 90 µs", si.HTA)
	}
}

func TestIdleCauses(t *testing.T) {
	o := DefaultOptions()
	s := run(t, o, 0,
		launch(1, 0, 1), kern(7, 2, 10, 1, "a"),
		launch(2, 3, 4), kern(7, 15, 20, 2, "b"), // launched early, 5 µs gap: kernel wait
		launch(3, 25, 26), kern(7, 30, 40, 3, "c"), // launched after b ended: host wait 10 µs
		launch(4, 30, 31), kern(7, 100, 110, 4, "d"), // launched early, 60 µs gap: other
		kern(7, 120, 130, 0, "e")) // no launch found: 10 µs < threshold, kernel wait
	si := s.Idle[0]
	want := StreamIdle{Rank: 0, Device: 0, Stream: 7, Events: 5, SpanNs: 128 * us, BusyNs: 43 * us, IdleNs: 85 * us,
		HostWaitNs: 10 * us, KernelWaitNs: 15 * us, OtherNs: 60 * us, HostWaitGaps: 1, KernelWaitGaps: 2, OtherGaps: 1,
		HTA: HTAIdle{HostWaitNs: 10 * us, KernelWaitNs: 15 * us, OtherNs: 60 * us}}
	if si != want {
		t.Errorf("got  %+v\nwant %+v", si, want)
	}
	o.MicroIdleNs = 0
	if si := run(t, o, 0, launch(2, 3, 4), kern(7, 2, 10, 0, "a"), kern(7, 15, 20, 2, "b")).Idle[0]; si.OtherNs != 5*us {
		t.Errorf("micro-idle 0: %+v, want the gap as other", si)
	}
}

func TestLaunches(t *testing.T) {
	o := DefaultOptions()
	s := run(t, o, 0,
		launch(1, 0, 10), kern(7, 12, 14, 1, "short"), // cpu 10, dev 2: short and slower than its kernel
		launch(2, 10, 12), kern(7, 11, 111, 2, "long"), // started before the call returned: delay −1
		kern(7, 200, 210, 0, "orphan"))
	l := s.Launches[0]
	for _, st := range []*Stat{&l.CPU, &l.Device, &l.Delay} {
		st.P50Ns, st.P90Ns, st.P99Ns, st.Hist = 0, 0, 0, nil // TestLaunchPercentiles
	}
	want := Launches{CPU: Stat{Count: 2, SumNs: 12 * us, MinNs: 2 * us, MaxNs: 10 * us},
		Device: Stat{Count: 2, SumNs: 102 * us, MinNs: 2 * us, MaxNs: 100 * us},
		Delay:  Stat{Count: 2, SumNs: 1 * us, MinNs: -1 * us, MaxNs: 2 * us}, HTADelaySumNs: 2 * us, HTADelayCount: 2, ShortKernels: 1,
		SlowerLaunches: 1, Unlaunched: 1}
	if !reflect.DeepEqual(l, want) {
		t.Errorf("got  %+v\nwant %+v", l, want)
	}
}

// TestLaunchPercentiles: the percentiles of 1..1000 µs launches (nearest rank: the 500th,
// 900th and 990th value) are within the histogram's 0.54 %, the delays' negative ones too,
// and the job's, from the ranks' histograms added, are those of one rank with every launch.
func TestLaunchPercentiles(t *testing.T) {
	var a, b, all []Event
	for i := int64(1); i <= 1000; i++ {
		// cpu i µs; device 2i µs; delay 500−i µs (negative for half of them)
		evs := []Event{launch(i, 10000*i, 10000*i+i), kern(7, 10000*i+i+500-i, 10000*i+i+500-i+2*i, i, "k")}
		all = append(all, evs...)
		if i%3 == 0 {
			a = append(a, evs...)
		} else {
			b = append(b, evs...)
		}
	}
	l := run(t, DefaultOptions(), 0, all...).Launches[0]
	near := func(what string, got, want int64) {
		t.Helper()
		if d := math.Abs(float64(got-want)) / math.Abs(float64(want)); d > 0.0055 {
			t.Errorf("%s: %d ns, want %d ns within 0.54 %% (off %.3f %%)", what, got, want, 100*d)
		}
	}
	near("cpu p50", l.CPU.P50Ns, 500*us)
	near("cpu p90", l.CPU.P90Ns, 900*us)
	near("cpu p99", l.CPU.P99Ns, 990*us)
	near("device p99", l.Device.P99Ns, 1980*us)
	near("delay p50", l.Delay.P50Ns, -1*us) // the 500th smallest of −500 … 499: −1 µs
	near("delay p90", l.Delay.P90Ns, 399*us)
	near("delay p99", l.Delay.P99Ns, 489*us)
	if l.CPU.MaxNs != 1000*us || l.Delay.MaxNs != 499*us {
		t.Errorf("max %+v %+v", l.CPU, l.Delay)
	}
	s := run(t, DefaultOptions(), 0, a...)
	if err := s.Merge(run(t, DefaultOptions(), 1, b...)); err != nil {
		t.Fatal(err)
	}
	j := *s.JobLaunches
	j.Rank = 0
	if !reflect.DeepEqual(j, l) {
		t.Errorf("job launches of two ranks\n got  %+v\n want %+v", j, l)
	}
	if run(t, DefaultOptions(), 0, a...).JobLaunches != nil {
		t.Errorf("one rank has job launches")
	}
	// 16 values: the 99th percentile is the greatest, read exactly (not as its bucket's middle).
	h := newHistBuilder()
	for v := int64(8101); v <= 8116; v++ {
		h.add(v)
	}
	if p := h.hist().percentile(99, 16, 8101, 8116); p != 8116 {
		t.Errorf("p99 of 16 values: %d, want the max 8116", p)
	}
	if p := h.hist().percentile(1, 16, 8101, 8116); p != 8101 {
		t.Errorf("p1 of 16 values: %d, want the min 8101", p)
	}
	for _, tc := range []struct{ d, lo, hi int64 }{{1, 1, 1}, {2, 2, 2}, {1000, 995, 1005}, {-7, -7, -7}, {0, 0, 0}} {
		h := newHistBuilder()
		h.add(tc.d)
		if got := h.hist(); len(got) != 1 || got[0] != [2]int64{histBucket(tc.d), 1} {
			t.Errorf("hist of %d: %v", tc.d, got)
		}
		if v := int64(math.Round(histValue(histBucket(tc.d)))); v < tc.lo || v > tc.hi {
			t.Errorf("bucket of %d reads %d", tc.d, v)
		}
	}
}

func TestQueue(t *testing.T) {
	o := DefaultOptions()
	o.QueueLength = 2
	s := run(t, o, 0,
		launch(1, 0, 1), launch(2, 1, 2), launch(3, 2, 3),
		kern(7, 10, 20, 1, "a"), kern(7, 20, 30, 2, "b"), kern(7, 30, 40, 3, "c"))
	q := s.Queue[0]
	// length 1 on [0,1), 2 on [1,2), 3 on [2,20), 2 on [20,30), 1 on [30,40).
	want := StreamQueue{Stream: 7, Launches: 3, SpanNs: 40 * us, Max: 3, AreaNs: (1 + 2 + 3*18 + 2*10 + 10) * us,
		AtOrAboveNs: 29 * us, HTAMax: 3}
	q.HTAMean = 0
	series, delay := q.Series, q.Delay
	q.Series, q.Delay = nil, nil
	if q != want {
		t.Errorf("got  %+v\nwant %+v", q, want)
	}
	wantSeries := &QueueSeries{Exact: true, StartNs: 0, Points: [][2]int64{{0, 1}, {1 * us, 2}, {2 * us, 3}, {20 * us, 2}, {30 * us, 1}, {40 * us, 0}}}
	if !reflect.DeepEqual(series, wantSeries) {
		t.Errorf("series %+v, want %+v", series, wantSeries)
	}
	// Delays 9, 18 and 27 µs: buckets [8, 16) µs and [16, 32) µs.
	wantDelay := &StreamDelay{Count: 3, SumNs: 54 * us, MinNs: 9 * us, MaxNs: 27 * us, Buckets: make([]int64, len(DelayBoundsNs)+1)}
	wantDelay.Buckets[5], wantDelay.Buckets[6] = 1, 2
	if !reflect.DeepEqual(delay, wantDelay) {
		t.Errorf("delay %+v, want %+v", delay, wantDelay)
	}
}

func TestSteps(t *testing.T) {
	evs := []Event{step(1, 0, 50), step(2, 50, 100),
		launch(1, 10, 11), kern(7, 20, 70, 1, "a"), // step 1's kernel runs into step 2's host time
		launch(2, 60, 61), kern(7, 70, 90, 2, "b"),
		launch(3, 95, 96), kern(7, 120, 130, 3, "c")} // step 2's window reaches 130
	s := run(t, DefaultOptions(), 0, evs...)
	got := s.Steps[0].Steps
	if len(got) != 2 || got[0].StartNs != 0 || got[0].EndNs != 70*us || got[1].StartNs != 70*us || got[1].EndNs != 130*us {
		t.Fatalf("windows: %+v", got)
	}
	if got[1].Times.BusyNs != 30*us || got[1].Times.IdleNs != 30*us || got[0].Times.BusyNs != 50*us {
		t.Errorf("step times: %+v / %+v", got[0].Times, got[1].Times)
	}
	if s.SlowestStep == nil || s.SlowestStep.Step != 1 || s.SlowestStep.DurationNs != 70*us {
		t.Errorf("slowest: %+v", s.SlowestStep)
	}
	o := DefaultOptions()
	o.Steps = []int64{2}
	s = run(t, o, 0, evs...)
	if b := s.Breakdown[0]; b.TotalNs != 60*us || b.BusyNs != 30*us || len(s.Steps[0].Steps) != 1 {
		t.Errorf("--steps 2: %+v", b)
	}
	// HTA's last-step filter drops the last step's events (and those without a launch).
	if h := run(t, DefaultOptions(), 0, evs...).Breakdown[0].HTA; h.Dropped != 2 || h.KernelTimeNs != 50*us {
		t.Errorf("HTA last-step filter: %+v", h)
	}
}

// TestHTAFollowsSteps: with --steps the HTA columns read the selected steps' launched device
// events, as orprof's columns do; before, they read the whole trace (less its last step) and
// put more compute in one step than the step lasted, even in a step the trace does not have.
func TestHTAFollowsSteps(t *testing.T) {
	evs := []Event{step(1, 0, 50), step(2, 50, 100), step(3, 100, 150),
		launch(1, 10, 11), kern(7, 20, 40, 1, "a"),
		launch(2, 60, 61), kern(7, 70, 90, 2, "b"),
		launch(3, 110, 111), kern(7, 120, 130, 3, "c"),
		kern(7, 95, 97, 0, "unlaunched")}
	for _, c := range []struct {
		steps               []int64
		compute, kernelTime int64
		dropped             int
	}{
		{nil, 40 * us, 70 * us, 2},        // HTA's own filter: steps 1 and 2, no unlaunched event
		{[]int64{2}, 20 * us, 20 * us, 3}, // step 2 alone
		{[]int64{3}, 10 * us, 10 * us, 3}, // the last step, which HTA's own filter drops
		{[]int64{9}, 0, 0, 4},             // no such step
	} {
		o := DefaultOptions()
		o.Steps = c.steps
		s := run(t, o, 0, evs...)
		h := s.Breakdown[0].HTA
		if h.ComputeNs != c.compute || h.KernelTimeNs != c.kernelTime || h.Dropped != c.dropped {
			t.Errorf("--steps %v: HTA %+v, want compute %d, kernel time %d, dropped %d", c.steps, h, c.compute, c.kernelTime, c.dropped)
		}
		if h.ComputeNs > s.Breakdown[0].TotalNs && len(c.steps) > 0 {
			t.Errorf("--steps %v: HTA compute %d above the window %d", c.steps, h.ComputeNs, s.Breakdown[0].TotalNs)
		}
		var n int
		for _, si := range s.Idle {
			n += si.Events
		}
		if l := s.Launches[0]; l.HTADelayCount > n {
			t.Errorf("--steps %v: HTA read %d launches of %d events", c.steps, l.HTADelayCount, n)
		}
	}
}

func TestStragglersAndMerge(t *testing.T) {
	rankEvs := [][]Event{
		{kern(7, 10, 20, 0, "ncclDevKernel_AllReduce"), kern(7, 50, 60, 0, "ncclDevKernel_AllReduce")},
		{kern(7, 12, 20, 0, "ncclDevKernel_AllReduce"), kern(7, 40, 60, 0, "ncclDevKernel_AllReduce")},
		{kern(7, 15, 20, 0, "ncclDevKernel_AllReduce"), kern(7, 45, 60, 0, "ncclDevKernel_AllReduce")},
	}
	var merged *Summary
	var all []Event
	for r, evs := range rankEvs {
		s := run(t, DefaultOptions(), int64(r), evs...)
		if merged == nil {
			merged = s
		} else if err := merged.Merge(s); err != nil {
			t.Fatal(err)
		}
		all = append(all, evs...)
	}
	st := merged.Stragglers
	if st.Matched != 2 {
		t.Fatalf("matched %d", st.Matched)
	}
	// Instance 0: rank 2 last at 15: waits 5 + 3 = 8. Instance 1: rank 0 last at 50: waits 10 + 5 = 15.
	want := []StragglerRank{{Rank: 0, Instances: 2, ArrivedLast: 1, WaitCausedNs: 15 * us, WaitedNs: 5 * us},
		{Rank: 1, Instances: 2, WaitedNs: 13 * us}, {Rank: 2, Instances: 2, ArrivedLast: 1, WaitCausedNs: 8 * us, WaitedNs: 5 * us}}
	if !reflect.DeepEqual(st.Ranks, want) {
		t.Errorf("got  %+v\nwant %+v", st.Ranks, want)
	}
	if st.Worst[0].LastRank != 0 || st.Worst[0].WaitNs != 15*us || st.Worst[0].Ordinal != 1 {
		t.Errorf("worst: %+v", st.Worst)
	}
	if want := []Arrival{{0, 10 * us}, {1, 0}, {2, 5 * us}}; !reflect.DeepEqual(st.Worst[0].Arrivals, want) {
		t.Errorf("arrivals %+v, want %+v", st.Worst[0].Arrivals, want)
	}
	// The JSON of a merged summary, read back and merged with nothing, is the same summary.
	b, err := json.Marshal(merged)
	if err != nil {
		t.Fatal(err)
	}
	var back Summary
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	back.derive()
	if !reflect.DeepEqual(&back, merged) {
		t.Errorf("JSON round trip changed the summary")
	}
	if err := merged.Merge(&Summary{Version: Version, Options: Options{QueueLength: 3}}); err == nil {
		t.Errorf("merged summaries of different thresholds")
	}
}

func TestPartsInParallelOrder(t *testing.T) {
	evs := []Event{step(1, 0, 50), launch(1, 10, 11), launch(2, 12, 13), kern(7, 20, 30, 2, "b"), kern(8, 15, 40, 1, "a"),
		kern(7, 31, 35, 0, "ncclKernel_x")}
	one := run(t, DefaultOptions(), 0, evs...)
	a := NewAnalyzer(DefaultOptions())
	p, q := a.Part(), a.Part()
	for i := len(evs) - 1; i >= 0; i-- { // reversed, split over two parts
		if i%2 == 0 {
			p.Add(&evs[i])
		} else {
			q.Add(&evs[i])
		}
	}
	two := a.Finish(RankInfo{Rank: trace.Rank{Number: 0, Named: true}})
	two.Ranks[0], one.Ranks[0] = RankInfo{}, RankInfo{}
	if !reflect.DeepEqual(one, two) {
		t.Errorf("parts and order changed the summary:\n%+v\n%+v", one, two)
	}
}

func TestEmpty(t *testing.T) {
	s := run(t, DefaultOptions(), 0, step(1, 0, 10), Event{Kind: Op, Name: "aten::mm", EndNs: 5})
	if s.Breakdown[0].TotalNs != 0 || len(s.Idle) != 0 || len(s.Queue) != 0 || s.Launches[0].CPU.Count != 0 {
		t.Errorf("%+v", s)
	}
}

func TestFindings(t *testing.T) {
	var evs []Event
	// 12 short kernels, each launched by a call longer than it: launch-bound, and the device
	// idle most of the time waiting for the host.
	for i := int64(0); i < 12; i++ {
		evs = append(evs, launch(i+1, 20*i, 20*i+15), kern(7, 20*i+16, 20*i+18, i+1, "k"))
	}
	s := run(t, DefaultOptions(), 3, evs...)
	var views []string
	for _, f := range s.Findings {
		views = append(views, f.View)
		if f.Rank != 3 || f.Share <= 0 || f.Share > 1 || f.Text == "" {
			t.Errorf("finding %+v", f)
		}
	}
	if !reflect.DeepEqual(views, []string{"breakdown", "launches"}) {
		t.Errorf("findings %v, want breakdown (idle) and launches (launch-bound): %+v", views, s.Findings)
	}
	if s := run(t, DefaultOptions(), 0, kern(7, 0, 10, 0, "k")); len(s.Findings) != 0 {
		t.Errorf("a busy device: %+v", s.Findings)
	}
}

// TestHTAIdleReadsKernelsOnly: device work HolisticTraceAnalysis's idle breakdown does not
// read (mtia_workloadd and the like: NotHTAKernel) fills a gap for orprof and not for HTA.
func TestHTAIdleReadsKernelsOnly(t *testing.T) {
	other := kern(7, 12, 18, 0, "workload")
	other.NotHTAKernel = true
	si := run(t, DefaultOptions(), 0, kern(7, 0, 10, 0, "a"), other, kern(7, 50, 60, 0, "b")).Idle[0]
	if si.KernelWaitNs != 2*us || si.OtherNs != 32*us || si.Events != 3 {
		t.Errorf("orprof: %+v", si)
	}
	if want := (HTAIdle{OtherNs: 40 * us}); si.HTA != want {
		t.Errorf("HTA: %+v, want %+v", si.HTA, want)
	}
}
