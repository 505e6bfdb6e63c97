package orprof

import (
	"bytes"

	"context"
	"errors"
	"github.com/orprof/orprof/trace"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orprof/orprof/devices"
	"github.com/orprof/orprof/events"
	"github.com/orprof/orprof/stubs"
)

// fakeDevice is a backend whose events carry a fake device time: each event is stamped with a
// counter, and elapsed is (end - start) * usPerTick.
type fakeDevice struct {
	ticks     atomic.Int64
	usPerTick float64
	failAfter int64 // Record fails once ticks reach it (0 = never)
	realTime  bool  // add the real time between records to elapsed
	released  atomic.Int64
	recorded  atomic.Int64
}

type fakeEvent struct{ tick, ns int64 }

func (f *fakeDevice) Enabled() bool { return true }
func (f *fakeDevice) Record(ctx context.Context, want stubs.Want) (stubs.Recorded, error) {
	n := f.ticks.Add(1)
	if f.failAfter > 0 && n >= f.failAfter {
		return stubs.Recorded{}, errors.New("fake device lost")
	}
	var r stubs.Recorded
	if want&stubs.WantEvent != 0 {
		f.recorded.Add(1)
		r.Event = &fakeEvent{tick: n, ns: time.Now().UnixNano()}
	}
	if want&stubs.WantCPUTime != 0 {
		r.CPUNs = time.Now().UnixNano()
	}
	return r, nil
}
func (f *fakeDevice) Elapsed(a, b stubs.Event) (float64, error) {
	x, ok1 := a.(*fakeEvent)
	y, ok2 := b.(*fakeEvent)
	if !ok1 || !ok2 || x == nil || y == nil {
		return 0, errors.New("bad events")
	}
	if f.realTime {
		return float64(y.ns-x.ns)/1000 + float64(y.tick-x.tick)*f.usPerTick, nil
	}
	return float64(y.tick-x.tick) * f.usPerTick, nil
}
func (f *fakeDevice) OnEachDevice(ctx context.Context, fn func(context.Context, int) error) error {
	return fn(ctx, 0)
}
func (f *fakeDevice) Synchronize(context.Context) error { return nil }
func (f *fakeDevice) ReleaseEvent(stubs.Event)          { f.released.Add(1) }

func TestStartErrors(t *testing.T) {
	_, err := Start(Options{Device: "nosuchdevice"})
	require.EqualError(t, err, "nosuchdevice used in profiler but not enabled.")
	assert.True(t, errors.Is(err, stubs.ErrNotEnabled))

	s, err := Start(Options{})
	require.NoError(t, err)
	_, err = Start(Options{})
	require.ErrorIs(t, err, ErrAlreadyProfiling)
	_, err = s.Stop()
	require.NoError(t, err)
	_, err = s.Stop()
	require.Error(t, err)
}

func TestConcurrentRecordingLosesNothing(t *testing.T) {
	s, err := Start(Options{})
	require.NoError(t, err)
	const goroutines, per = 8, 2000
	var wg sync.WaitGroup
	for g := 0; g < goroutines; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx := WithThread(context.Background(), NewThread())
			for i := 0; i < per; i++ {
				outer := RecordFunction(ctx, "outer")
				Begin(ctx, Op{Name: "aten::add"}).End()
				outer.End()
			}
		}()
	}
	wg.Wait()
	res, err := s.Stop()
	require.NoError(t, err)
	require.Equal(t, goroutines*per*2, res.Events.Len())
	rows := res.KeyAverages(events.AverageOptions{})
	require.Len(t, rows, 2)
	for _, r := range rows {
		assert.EqualValues(t, goroutines*per, r.Count)
	}
	// every aten::add is a child of an outer range on its own thread
	for i := 0; i < res.Events.Len(); i++ {
		e := res.Events.Event(i)
		if e.Name == "aten::add" {
			p := res.Events.Parent(i)
			require.GreaterOrEqual(t, p, 0)
			assert.Equal(t, e.Thread, res.Events.Event(p).Thread)
		}
	}
}

func TestDeviceTimeFallback(t *testing.T) {
	dev := &fakeDevice{usPerTick: 10}
	stubs.Register("fakedev", dev)
	defer stubs.Unregister("fakedev")
	s, err := Start(Options{Device: "fakedev"})
	require.NoError(t, err)
	ctx := context.Background()
	outer := RecordFunction(ctx, "outer") // ticks 1..10 calibrate the reference
	inner := Begin(ctx, Op{Name: "aten::mm"})
	inner.End()
	outer.End()
	res, err := s.Stop()
	require.NoError(t, err)
	require.Equal(t, 2, res.Events.Len())
	// outer: ticks 2..5 = 30us, mm: ticks 3..4 = 10us
	assert.Equal(t, 30.0, res.Events.DeviceTimeTotal(0))
	assert.Equal(t, 20.0, res.Events.SelfDeviceTimeTotal(0))
	assert.Equal(t, 10.0, res.Events.DeviceTimeTotal(1))
	assert.True(t, res.Events.Event(0).IsLegacy)
	assert.Equal(t, dev.recorded.Load(), dev.released.Load(), "every event released")
	assert.Equal(t, "fakedev", res.Device)
}

func TestBackendFailureKeepsMessage(t *testing.T) {
	dev := &fakeDevice{usPerTick: 1, failAfter: 12} // the 10 calibration records pass, the op fails
	stubs.Register("faildev", dev)
	defer stubs.Unregister("faildev")
	s, err := Start(Options{Device: "faildev"})
	require.NoError(t, err)
	ctx := context.Background()
	RecordFunction(ctx, "a").End()
	res, err := s.Stop()
	require.NotNil(t, res)
	require.ErrorContains(t, err, "faildev: record: fake device lost")
}

func TestAsyncRangeEndsOnOtherThread(t *testing.T) {
	s, err := Start(Options{})
	require.NoError(t, err)
	ctx := context.Background()
	other := NewThread()
	outer := RecordFunction(ctx, "outer")
	r := RecordFunction(ctx, "async_rf")
	outer.End()
	done := make(chan struct{})
	go func() { r.EndOn(other); close(done) }()
	<-done
	res, err := s.Stop()
	require.NoError(t, err)
	require.Equal(t, 2, res.Events.Len())
	for i := 0; i < res.Events.Len(); i++ {
		e := res.Events.Event(i)
		if e.Name == "async_rf" {
			assert.True(t, e.IsAsync)
			assert.Equal(t, -1, res.Events.Parent(i))
			assert.Zero(t, res.Events.SelfCPUTimeTotal(i))
		}
	}
}

func TestUnfinishedRangesAreCounted(t *testing.T) {
	s, err := Start(Options{})
	require.NoError(t, err)
	r := RecordFunction(context.Background(), "never_ended")
	res, err := s.Stop()
	require.NoError(t, err)
	assert.Equal(t, 1, res.Unfinished)
	assert.Equal(t, 0, res.Events.Len())
	r.End() // after Stop: harmless
}

func TestMemoryAttribution(t *testing.T) {
	clk := devices.NewFakeClock(1_000_000)
	s, err := Start(Options{ProfileMemory: true, Clock: clk})
	require.NoError(t, err)
	ctx := context.Background()
	RecordMemory(ctx, 8, devices.CPU) // outside any range: a [memory] row
	clk.Advance(time.Microsecond)
	outer := RecordFunction(ctx, "outer")
	clk.Advance(time.Microsecond)
	inner := Begin(ctx, Op{Name: "aten::empty"})
	RecordMemory(ctx, 4096, devices.CPU)
	clk.Advance(time.Microsecond)
	inner.End()
	clk.Advance(time.Microsecond)
	RecordMemory(ctx, -1024, devices.CPU)
	clk.Advance(time.Microsecond)
	outer.End()
	res, err := s.Stop()
	require.NoError(t, err)
	rows := res.KeyAverages(events.AverageOptions{})
	got := map[string][2]int64{}
	for _, r := range rows {
		got[r.Key] = [2]int64{r.CPUMemoryUsage, r.SelfCPUMemoryUsage}
	}
	assert.Equal(t, [2]int64{3072, -1024}, got["outer"])
	assert.Equal(t, [2]int64{4096, 4096}, got["aten::empty"])
	assert.Equal(t, [2]int64{8, 8}, got["[memory]"])
}

func BenchmarkRecordFunctionCPU(b *testing.B) {
	s, err := Start(Options{})
	require.NoError(b, err)
	ctx := WithThread(context.Background(), NewThread())
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		RecordFunction(ctx, "step").End()
	}
	b.StopTimer()
	_, _ = s.Stop()
}

func BenchmarkRecordFunctionNoSession(b *testing.B) {
	ctx := context.Background()
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		RecordFunction(ctx, "step").End()
	}
}

func TestTracePassesCheck(t *testing.T) {
	dev := &fakeDevice{usPerTick: 5, realTime: true}
	stubs.Register("tracedev", dev)
	defer stubs.Unregister("tracedev")
	s, err := Start(Options{Device: "tracedev", RecordShapes: true, ProfileMemory: true})
	require.NoError(t, err)
	ctx := context.Background()
	for i := 0; i < 3; i++ {
		outer := RecordFunction(ctx, "ProfilerStep#"+string(rune('0'+i)))
		mm := Begin(ctx, Op{Name: "aten::mm", Inputs: [][]int64{{2, 3}, {3, 4}}})
		RecordMemory(ctx, 64, devices.PrivateUse1)
		mm.End()
		outer.End()
	}
	res, err := s.Stop()
	require.NoError(t, err)
	var buf bytes.Buffer
	require.NoError(t, trace.Write(&buf, res.Trace()))
	require.NoError(t, trace.Check(buf.Bytes()), buf.String())
	n := 0
	for _, e := range res.Trace().Events {
		if e.Ph == 'X' && e.Cat == "gpu_user_annotation" {
			n++
		}
	}
	assert.Equal(t, 6, n, "every op with device time has a device row interval")
}

func TestDropUnpairedFlows(t *testing.T) {
	tr := &trace.Trace{Events: []trace.Event{
		{Ph: 's', Cat: "ac2g", ID: 1}, {Ph: 'f', Cat: "ac2g", ID: 1},
		{Ph: 'f', Cat: "ac2g", ID: 2},
		{Ph: 's', Cat: "fwdbwd", ID: 1},
		{Ph: 'X', Name: "op"},
	}}
	assert.Equal(t, 2, dropUnpairedFlows(tr))
	assert.Len(t, tr.Events, 3)
}

// TestSystemTimesAreReal: a CPU-only session times ranges with the TSC where it can; the
// converted times match the system clock.
func TestSystemTimesAreReal(t *testing.T) {
	before := time.Now().UnixNano()
	s, err := Start(Options{})
	require.NoError(t, err)
	ctx := context.Background()
	outer := RecordFunction(ctx, "outer")
	time.Sleep(2 * time.Millisecond)
	inner := RecordFunction(ctx, "inner")
	time.Sleep(3 * time.Millisecond)
	inner.End()
	outer.End()
	res, err := s.Stop()
	require.NoError(t, err)
	after := time.Now().UnixNano()
	require.Equal(t, 2, res.Events.Len())
	assert.Equal(t, 0, res.Events.Parent(1))
	o, i := res.Events.Event(0), res.Events.Event(1)
	// Sleeps only ever overshoot; the bounds above them are loose for loaded CI machines.
	assert.GreaterOrEqual(t, o.ElapsedUs(), 4990.0)
	assert.Less(t, o.ElapsedUs(), 500_000.0)
	assert.GreaterOrEqual(t, i.ElapsedUs(), 2990.0)
	assert.Less(t, i.ElapsedUs(), o.ElapsedUs())
	assert.GreaterOrEqual(t, res.Trace().BaseTimeNs, before)
	assert.LessOrEqual(t, res.Trace().BaseTimeNs+int64(o.EndUs*1000), after)
}

// slowSyncDevice is fakeDevice whose Synchronize takes a while, as OpenCL's clFinish does.
type slowSyncDevice struct{ fakeDevice }

func (f *slowSyncDevice) Synchronize(context.Context) error {
	time.Sleep(10 * time.Millisecond)
	return nil
}

// TestSessionStartsAfterCalibration: a session's time zero is when it can record, after the
// reference events of each device (five synchronizations) and the child profilers' start —
// as Kineto's trace starts after its warmup — so a trace does not open with an empty stretch
// of setup (OpenCL's traces began with 27–53 ms of nothing, also with cpu_op alone).
func TestSessionStartsAfterCalibration(t *testing.T) {
	stubs.Register("slowsync", &slowSyncDevice{fakeDevice{usPerTick: 1}})
	s, err := Start(Options{Device: "slowsync"})
	require.NoError(t, err)
	ctx := WithThread(context.Background(), NewThread())
	RecordFunction(ctx, "first").End()
	res, err := s.Stop()
	require.NoError(t, err)
	require.Equal(t, 1, res.Events.Len())
	first := res.Events.Event(0)
	assert.Less(t, first.StartUs, 5000.0, "the first op starts %v µs after the session's zero; calibration took ≥ 50 ms", first.StartUs)
}
