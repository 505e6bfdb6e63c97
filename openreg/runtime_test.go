package openreg

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/orprof/orprof/devices"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// gate is a kernel that blocks its stream until opened.
type gate chan struct{}

func (g gate) wait()     { <-g }
func (g gate) open()     { close(g) }
func newGate() gate      { return make(gate) }
func noWork() KernelWork { return KernelWork{} }

func TestNewOptions(t *testing.T) {
	rt := newRuntime(t, Options{})
	assert.Equal(t, DefaultDevices, rt.DeviceCount())
	rt4 := newRuntime(t, Options{Devices: 4})
	assert.Equal(t, 4, rt4.DeviceCount())
	_, err := New(Options{Devices: -1})
	require.Error(t, err)
	assert.Equal(t, 2, Default().DeviceCount())
}

func TestErrorMessages(t *testing.T) {
	tests := []struct {
		err  *Error
		want string
	}{
		{&Error{Code: ErrorUnknown}, "OpenReg error: 1"},
		{&Error{Code: ErrorNotReady}, "OpenReg operation not ready"},
		{&Error{Code: ErrorUnknown, Op: "EventRecord", Detail: "nil event"}, "OpenReg error: 1: EventRecord: nil event"},
		{&Error{Code: ErrorNotReady, Op: "StreamQuery"}, "OpenReg operation not ready: StreamQuery"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, tt.err.Error())
	}
	assert.True(t, errors.Is(unknown("x", "y"), ErrUnknown))
	assert.False(t, errors.Is(unknown("x", "y"), ErrNotReady))
	assert.True(t, errors.Is(notReady("x", "y"), ErrNotReady))
}

func TestContextDeviceAndStream(t *testing.T) {
	rt := newRuntime(t, Options{Devices: 3})
	ctx := context.Background()
	assert.Equal(t, 0, CurrentDevice(ctx))
	assert.Equal(t, 0, CurrentDevice(nil)) //nolint:staticcheck // nil is accepted

	for _, d := range []int{-1, 3, 100} {
		_, err := rt.WithDevice(ctx, d)
		require.ErrorIs(t, err, ErrUnknown, "device %d", d)
	}
	c2, err := rt.WithDevice(ctx, 2)
	require.NoError(t, err)
	assert.Equal(t, 2, CurrentDevice(c2))
	assert.Equal(t, 0, CurrentDevice(ctx), "the parent context is unchanged")

	def2, err := rt.CurrentStream(c2)
	require.NoError(t, err)
	assert.Equal(t, int64(0), def2.ID())
	assert.Equal(t, 2, def2.DeviceIndex())

	s1, err := rt.NewStream(1, LowestPriority)
	require.NoError(t, err)
	cs := WithStream(c2, s1)
	assert.Equal(t, 1, CurrentDevice(cs), "a stream makes its device current")
	cur, err := rt.CurrentStream(cs)
	require.NoError(t, err)
	assert.Same(t, s1, cur)

	// The current stream is kept per device: switching away and back finds it again.
	back, err := rt.WithDevice(cs, 0)
	require.NoError(t, err)
	cur, err = rt.CurrentStream(back)
	require.NoError(t, err)
	assert.Equal(t, 0, cur.DeviceIndex())
	assert.Equal(t, int64(0), cur.ID())
	again, err := rt.WithDevice(back, 1)
	require.NoError(t, err)
	cur, err = rt.CurrentStream(again)
	require.NoError(t, err)
	assert.Same(t, s1, cur)

	// Another runtime's stream in the context is not this runtime's current stream.
	other := newRuntime(t, Options{})
	cur, err = other.CurrentStream(cs)
	require.NoError(t, err)
	assert.NotSame(t, s1, cur)

	assert.Equal(t, ctx, WithStream(ctx, nil))
}

func TestStreamPoolRoundRobin(t *testing.T) {
	rt := newRuntime(t, Options{})
	def, err := rt.DefaultStream(1)
	require.NoError(t, err)
	tests := []struct {
		high  bool
		first int64
	}{{false, 0}, {true, StreamsPerPool}}
	for _, tt := range tests {
		var ids []int64
		for i := 0; i < 2*StreamsPerPool; i++ {
			s, err := rt.StreamFromPool(1, tt.high)
			require.NoError(t, err)
			require.Equal(t, 1, s.DeviceIndex())
			ids = append(ids, s.ID())
		}
		for i, id := range ids {
			want := tt.first + int64((i+1)%StreamsPerPool)
			require.Equal(t, want, id, "hand-out %d (high=%v)", i, tt.high)
		}
	}
	s, _ := rt.StreamFromPool(1, false)
	for s.ID() != 0 {
		s, _ = rt.StreamFromPool(1, false)
	}
	assert.Same(t, def, s, "slot 0 of the low-priority pool is the default stream")
	assert.Error(t, s.Destroy(), "pool streams belong to the runtime")
	_, err = rt.StreamFromPool(2, false)
	assert.ErrorIs(t, err, ErrUnknown)
}

func TestNewStream(t *testing.T) {
	rt := newRuntime(t, Options{})
	least, greatest := StreamPriorityRange()
	assert.Equal(t, [2]int{0, 1}, [2]int{least, greatest})
	tests := []struct {
		name     string
		device   int
		priority int
		ok       bool
	}{
		{"least", 0, 0, true},
		{"greatest", 1, 1, true},
		{"below range", 0, -1, false},
		{"above range", 0, 2, false},
		{"bad device", 2, 0, false},
	}
	seen := map[[2]int64]bool{}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := rt.NewStream(tt.device, tt.priority)
			if !tt.ok {
				require.ErrorIs(t, err, ErrUnknown)
				return
			}
			require.NoError(t, err)
			assert.GreaterOrEqual(t, s.ID(), int64(FirstUserStreamID))
			key := [2]int64{int64(s.DeviceIndex()), s.ID()}
			assert.False(t, seen[key])
			seen[key] = true
			assert.Equal(t, tt.priority, s.Priority())
			require.NoError(t, s.Destroy())
		})
	}
}

func TestStreamFIFO(t *testing.T) {
	rt := newRuntime(t, Options{})
	s, err := rt.NewStream(0, 0)
	require.NoError(t, err)
	var got []int // only the worker touches it until Synchronize returns
	const n = 2000
	for i := 0; i < n; i++ {
		require.NoError(t, s.LaunchKernel(context.Background(), "append", noWork(), func() { got = append(got, i) }))
	}
	require.NoError(t, s.Synchronize())
	require.Len(t, got, n)
	for i, v := range got {
		require.Equal(t, i, v)
	}
}

func TestStreamQueryAndSynchronize(t *testing.T) {
	rt := newRuntime(t, Options{})
	s, err := rt.NewStream(0, 0)
	require.NoError(t, err)
	assert.True(t, s.Query())
	assert.NoError(t, s.Status())
	g := newGate()
	require.NoError(t, s.LaunchKernel(context.Background(), "blocked", noWork(), g.wait))
	assert.False(t, s.Query())
	assert.ErrorIs(t, s.Status(), ErrNotReady)
	done := make(chan error)
	go func() { done <- s.Synchronize() }()
	select {
	case <-done:
		t.Fatal("Synchronize returned before the kernel ran")
	case <-time.After(20 * time.Millisecond):
	}
	g.open()
	require.NoError(t, <-done)
	assert.True(t, s.Query())
}

func TestStreamDestroyDrains(t *testing.T) {
	rt := newRuntime(t, Options{})
	s, err := rt.NewStream(0, 0)
	require.NoError(t, err)
	g := newGate()
	ran := 0
	require.NoError(t, s.LaunchKernel(context.Background(), "blocked", noWork(), g.wait))
	for i := 0; i < 10; i++ {
		require.NoError(t, s.LaunchKernel(context.Background(), "count", noWork(), func() { ran++ }))
	}
	destroyed := make(chan error)
	go func() { destroyed <- s.Destroy() }()
	g.open()
	require.NoError(t, <-destroyed)
	assert.Equal(t, 10, ran, "the queue is drained before the worker exits")
	assert.ErrorIs(t, s.LaunchKernel(context.Background(), "late", noWork(), func() {}), ErrUnknown)
	assert.Error(t, s.Synchronize())
}

func TestKernelPanicIsReportedOnce(t *testing.T) {
	rt := newRuntime(t, Options{})
	s, err := rt.DefaultStream(0)
	require.NoError(t, err)
	require.NoError(t, s.LaunchKernel(context.Background(), "bad_kernel", noWork(), func() { panic("boom") }))
	ran := false
	require.NoError(t, s.LaunchKernel(context.Background(), "next", noWork(), func() { ran = true }))
	err = rt.Synchronize()
	require.ErrorIs(t, err, ErrUnknown)
	assert.Contains(t, err.Error(), "bad_kernel")
	assert.Contains(t, err.Error(), "boom")
	assert.True(t, ran, "the stream keeps running after a failed kernel")
	assert.NoError(t, s.Synchronize(), "the failure is reported once")
	assert.Error(t, s.LaunchKernel(context.Background(), "nil", noWork(), nil))
}

func TestEventElapsedErrors(t *testing.T) {
	rt := newRuntime(t, Options{})
	s0, _ := rt.DefaultStream(0)
	s1, _ := rt.DefaultStream(1)
	recorded := func(d int, timing bool) *Event {
		e, err := rt.NewEvent(d, timing)
		require.NoError(t, err)
		s := s0
		if d == 1 {
			s = s1
		}
		require.NoError(t, e.RecordOn(s))
		require.NoError(t, e.Synchronize())
		return e
	}
	ok0 := recorded(0, true)
	g := newGate()
	t.Cleanup(func() { g.open() })
	pendingStream, err := rt.NewStream(0, 0)
	require.NoError(t, err)
	require.NoError(t, pendingStream.LaunchKernel(context.Background(), "blocked", noWork(), g.wait))
	pending, _ := rt.NewEvent(0, true)
	require.NoError(t, pending.RecordOn(pendingStream))
	never, _ := rt.NewEvent(0, true)
	destroyed := recorded(0, true)
	destroyed.Destroy()
	otherRT := newRuntime(t, Options{})
	foreign, _ := otherRT.NewEvent(0, true)

	tests := []struct {
		name       string
		start, end *Event
		detail     string
	}{
		{"nil start", nil, ok0, "nil event"},
		{"nil end", ok0, nil, "nil event"},
		{"different devices", ok0, recorded(1, true), "different devices (0 and 1)"},
		{"no timing on start", recorded(0, false), ok0, "without timing"},
		{"no timing on end", ok0, recorded(0, false), "without timing"},
		{"not completed", ok0, pending, "not completed"},
		{"never recorded", never, ok0, "never recorded"},
		{"destroyed", ok0, destroyed, "destroyed"},
		{"another runtime", ok0, foreign, "different runtimes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ElapsedTime(tt.start, tt.end)
			require.ErrorIs(t, err, ErrUnknown)
			assert.Contains(t, err.Error(), tt.detail)
		})
	}
	ms, err := ElapsedTime(ok0, ok0)
	require.NoError(t, err)
	assert.Zero(t, ms)
}

func TestEventRecordErrors(t *testing.T) {
	rt := newRuntime(t, Options{})
	s1, _ := rt.DefaultStream(1)
	e0, _ := rt.NewEvent(0, true)
	require.ErrorIs(t, e0.Record(s1), ErrUnknown, "event and stream devices differ")
	require.Error(t, e0.Record(nil))
	var nilEvent *Event
	require.Error(t, nilEvent.Record(s1))
	require.Error(t, nilEvent.Synchronize())
	require.Error(t, nilEvent.Status())
	_, err := rt.NewEvent(5, true)
	require.Error(t, err)
	never, _ := rt.NewEvent(0, false)
	assert.True(t, never.Query(), "an event never recorded is complete")
	assert.NoError(t, never.Synchronize())
	never.Destroy()
	s0, _ := rt.DefaultStream(0)
	assert.Error(t, never.RecordOn(s0))
}

func TestEventQueryAndSynchronize(t *testing.T) {
	rt := newRuntime(t, Options{})
	s, _ := rt.NewStream(0, 0)
	g := newGate()
	require.NoError(t, s.LaunchKernel(context.Background(), "blocked", noWork(), g.wait))
	e, _ := rt.NewEvent(0, false)
	require.NoError(t, e.RecordOn(s))
	assert.False(t, e.Query())
	assert.ErrorIs(t, e.Status(), ErrNotReady)
	g.open()
	require.NoError(t, e.Synchronize())
	assert.True(t, e.Query())
	assert.NoError(t, e.Status())
}

func TestElapsedMeasuresQueuedKernels(t *testing.T) {
	clock := devices.NewFakeClock(1_000_000_000)
	rt := newRuntime(t, Options{Clock: clock})
	s, _ := rt.DefaultStream(0)
	start, _ := rt.NewEvent(0, true)
	end, _ := rt.NewEvent(0, true)
	require.NoError(t, start.RecordOn(s))
	for _, d := range []time.Duration{2 * time.Millisecond, 3 * time.Millisecond} {
		require.NoError(t, s.LaunchKernel(context.Background(), "sleep", noWork(), func() { clock.Advance(d) }))
	}
	require.NoError(t, end.RecordOn(s))
	require.NoError(t, end.Synchronize())
	ms, err := ElapsedTime(start, end)
	require.NoError(t, err)
	assert.Equal(t, float32(5), ms)
	ms, err = ElapsedTime(end, start)
	require.NoError(t, err)
	assert.Equal(t, float32(-5), ms, "not clamped")
}

func TestElapsedWithRealClock(t *testing.T) {
	rt := newRuntime(t, Options{})
	s, _ := rt.DefaultStream(0)
	start, _ := rt.NewEvent(0, true)
	end, _ := rt.NewEvent(0, true)
	require.NoError(t, start.RecordOn(s))
	require.NoError(t, s.LaunchKernel(context.Background(), "sleep", noWork(), func() { time.Sleep(5 * time.Millisecond) }))
	require.NoError(t, end.RecordOn(s))
	require.NoError(t, end.Synchronize())
	ms, err := ElapsedTime(start, end)
	require.NoError(t, err)
	assert.GreaterOrEqual(t, ms, float32(5))
}

func TestElapsedAcrossStreamsCanBeNegative(t *testing.T) {
	clock := devices.NewFakeClock(0)
	rt := newRuntime(t, Options{Clock: clock})
	a, _ := rt.NewStream(0, 0)
	b, _ := rt.NewStream(0, 0)
	g := newGate()
	require.NoError(t, a.LaunchKernel(context.Background(), "blocked", noWork(), g.wait))
	late, _ := rt.NewEvent(0, true)
	early, _ := rt.NewEvent(0, true)
	require.NoError(t, late.RecordOn(a))
	require.NoError(t, early.RecordOn(b))
	require.NoError(t, early.Synchronize())
	clock.Advance(time.Millisecond)
	g.open()
	require.NoError(t, late.Synchronize())
	ms, err := ElapsedTime(late, early)
	require.NoError(t, err)
	assert.Equal(t, float32(-1), ms)
}

func TestEventReRecordTakesLatest(t *testing.T) {
	clock := devices.NewFakeClock(0)
	rt := newRuntime(t, Options{Clock: clock})
	s, _ := rt.DefaultStream(0)
	ref, _ := rt.NewEvent(0, true)
	e, _ := rt.NewEvent(0, true)
	require.NoError(t, ref.RecordOn(s))
	require.NoError(t, e.RecordOn(s))
	require.NoError(t, s.LaunchKernel(context.Background(), "tick", noWork(), func() { clock.Advance(time.Millisecond) }))
	require.NoError(t, e.RecordOn(s))
	require.NoError(t, e.Synchronize())
	ms, err := ElapsedTime(ref, e)
	require.NoError(t, err)
	assert.Equal(t, float32(1), ms)
}

func TestWaitEventOrdersStreams(t *testing.T) {
	rt := newRuntime(t, Options{})
	producer, _ := rt.NewStream(0, 0)
	consumer, _ := rt.NewStream(1, 0) // another device: waits work across devices
	g := newGate()
	var value int
	require.NoError(t, producer.LaunchKernel(context.Background(), "blocked", noWork(), g.wait))
	require.NoError(t, producer.LaunchKernel(context.Background(), "write", noWork(), func() { value = 42 }))
	ev, _ := rt.NewEvent(0, false)
	require.NoError(t, ev.RecordOn(producer))
	require.NoError(t, consumer.WaitEvent(ev))
	var seen int
	require.NoError(t, consumer.LaunchKernel(context.Background(), "read", noWork(), func() { seen = value }))
	time.Sleep(10 * time.Millisecond)
	assert.False(t, consumer.Query(), "the consumer waits for the event")
	g.open()
	require.NoError(t, consumer.Synchronize())
	assert.Equal(t, 42, seen)

	require.Error(t, consumer.WaitEvent(nil))
	other := newRuntime(t, Options{})
	foreign, _ := other.NewEvent(0, false)
	require.Error(t, consumer.WaitEvent(foreign))
	never, _ := rt.NewEvent(0, false)
	require.NoError(t, consumer.WaitEvent(never))
	require.NoError(t, consumer.Synchronize(), "waiting on an event never recorded is a no-op")
}

func TestDeviceSynchronizeWaitsForAllStreams(t *testing.T) {
	rt := newRuntime(t, Options{})
	var streams []*Stream
	def, _ := rt.DefaultStream(0)
	p, _ := rt.StreamFromPool(0, true)
	n, _ := rt.NewStream(0, 1)
	streams = append(streams, def, p, n)
	gates := make([]gate, len(streams))
	ran := make([]bool, len(streams))
	for i, s := range streams {
		gates[i] = newGate()
		require.NoError(t, s.LaunchKernel(context.Background(), "blocked", noWork(), gates[i].wait))
		require.NoError(t, s.LaunchKernel(context.Background(), "mark", noWork(), func() { ran[i] = true }))
	}
	other, _ := rt.NewStream(1, 0)
	otherGate := newGate()
	t.Cleanup(func() { otherGate.open() })
	require.NoError(t, other.LaunchKernel(context.Background(), "other device", noWork(), otherGate.wait))

	done := make(chan error)
	go func() { done <- rt.SynchronizeDevice(0) }()
	for i := range gates {
		select {
		case <-done:
			t.Fatalf("SynchronizeDevice returned with %d streams still blocked", len(gates)-i)
		case <-time.After(10 * time.Millisecond):
		}
		gates[i].open()
	}
	require.NoError(t, <-done, "device 1's blocked stream does not hold up device 0")
	assert.Equal(t, []bool{true, true, true}, ran)

	ctx, _ := rt.WithDevice(context.Background(), 0)
	require.NoError(t, rt.DeviceSynchronize(ctx))
	require.Error(t, rt.SynchronizeDevice(2))
}

func TestRuntimeSynchronizeAllDevices(t *testing.T) {
	rt := newRuntime(t, Options{Devices: 3})
	var mu sync.Mutex
	count := 0
	for d := 0; d < 3; d++ {
		s, _ := rt.DefaultStream(d)
		require.NoError(t, s.LaunchKernel(context.Background(), "sleep", noWork(), func() {
			time.Sleep(2 * time.Millisecond)
			mu.Lock()
			count++
			mu.Unlock()
		}))
	}
	require.NoError(t, rt.Synchronize())
	assert.Equal(t, 3, count)
}

func TestRuntimeClose(t *testing.T) {
	rt, err := New(Options{})
	require.NoError(t, err)
	s, _ := rt.NewStream(0, 0)
	ran := false
	require.NoError(t, s.LaunchKernel(context.Background(), "k", noWork(), func() { ran = true }))
	require.NoError(t, rt.Close())
	assert.True(t, ran, "Close drains the queues")
	require.NoError(t, rt.Close())
	_, err = rt.DefaultStream(0)
	require.Error(t, err)
	_, err = rt.NewStream(0, 0)
	require.Error(t, err)
	_, err = rt.Malloc(nil, 0, 4)
	require.Error(t, err)
	require.Error(t, s.LaunchKernel(context.Background(), "late", noWork(), func() {}))
}

func TestMemoryAccounting(t *testing.T) {
	rt := newRuntime(t, Options{})
	ctx := context.Background()
	a, err := rt.Malloc(ctx, 0, 1000)
	require.NoError(t, err)
	b, err := rt.Malloc(ctx, 0, 24)
	require.NoError(t, err)
	c, err := rt.Malloc(ctx, 1, 8)
	require.NoError(t, err)
	assert.Len(t, a.Float32s(), 250)
	assert.Len(t, a.Bytes(), 1000)
	assert.Equal(t, 0, a.Device())

	st, _ := rt.MemoryStats(0)
	assert.Equal(t, MemoryStats{Allocated: 1024, Peak: 1024, Allocs: 2}, st)
	require.NoError(t, rt.Free(ctx, a))
	st, _ = rt.MemoryStats(0)
	assert.Equal(t, MemoryStats{Allocated: 24, Peak: 1024, Allocs: 2, Frees: 1}, st)
	require.NoError(t, rt.ResetPeakMemory(0))
	st, _ = rt.MemoryStats(0)
	assert.Equal(t, int64(24), st.Peak)
	st1, _ := rt.MemoryStats(1)
	assert.Equal(t, int64(8), st1.Allocated)

	tests := []struct {
		name string
		err  error
	}{
		{"double free", rt.Free(ctx, a)},
		{"nil free", rt.Free(ctx, nil)},
		{"negative size", func() error { _, err := rt.Malloc(ctx, 0, -1); return err }()},
		{"bad device", func() error { _, err := rt.Malloc(ctx, 2, 4); return err }()},
		{"foreign buffer", newRuntime(t, Options{}).Free(ctx, b)},
		{"stats of a bad device", func() error { _, err := rt.MemoryStats(9); return err }()},
		{"reset of a bad device", rt.ResetPeakMemory(-1)},
	}
	for _, tt := range tests {
		assert.ErrorIs(t, tt.err, ErrUnknown, tt.name)
	}
	require.NoError(t, rt.Free(ctx, b))
	require.NoError(t, rt.Free(nil, c))
	host, err := rt.MallocHost(ctx, 16)
	require.NoError(t, err)
	assert.Equal(t, HostDevice, host.Device())
	require.NoError(t, rt.Free(ctx, host))
	st, _ = rt.MemoryStats(0)
	assert.Zero(t, st.Allocated)
	empty, err := rt.Malloc(ctx, 0, 0)
	require.NoError(t, err)
	assert.Nil(t, empty.Bytes())
}

func TestMemcpyAndMemset(t *testing.T) {
	rt := newRuntime(t, Options{})
	ctx := context.Background()
	host, _ := rt.MallocHost(ctx, 16)
	copy(host.Float32s(), []float32{1, 2, 3, 4})
	d0, _ := rt.Malloc(ctx, 0, 16)
	d1, _ := rt.Malloc(ctx, 1, 16)
	out, _ := rt.MallocHost(ctx, 16)

	rt.EnableActivityTracing()
	require.NoError(t, rt.Memcpy(ctx, d0, host, 16))
	s1, _ := rt.DefaultStream(1)
	require.NoError(t, rt.MemcpyAsync(ctx, d1, d0, 16, s1)) // d0 is ready: Memcpy waited
	require.NoError(t, s1.Synchronize())                    // before d0 is overwritten
	require.NoError(t, rt.MemsetAsync(ctx, d0, 0, 8, nil))
	require.NoError(t, rt.Memcpy(ctx, out, d1, 16))
	assert.Equal(t, []float32{1, 2, 3, 4}, out.Float32s())
	require.NoError(t, rt.Memcpy(ctx, out, d0, 16))
	assert.Equal(t, []float32{0, 0, 3, 4}, out.Float32s())
	hh, _ := rt.MallocHost(ctx, 16)
	require.NoError(t, rt.Memcpy(ctx, hh, host, 16))
	assert.Equal(t, []float32{1, 2, 3, 4}, hh.Float32s())
	acts := rt.DisableActivityTracing()

	var names []string
	for _, a := range acts {
		names = append(names, a.Kind.String()+" "+a.Name)
	}
	assert.ElementsMatch(t, []string{"gpu_memcpy Memcpy HtoD", "gpu_memcpy Memcpy DtoD", "gpu_memset Memset (Device)",
		"gpu_memcpy Memcpy DtoH", "gpu_memcpy Memcpy DtoH"}, names)
	c0, _ := rt.Counters(0)
	c1, _ := rt.Counters(1)
	assert.Equal(t, int64(2), c0.Memcpys, "HtoD and DtoH run on device 0's stream")
	assert.Equal(t, int64(2), c1.Memcpys, "DtoD and DtoH run on device 1's stream")
	assert.Equal(t, int64(1), c0.Memsets)

	errs := []error{
		rt.Memcpy(ctx, nil, host, 4),
		rt.Memcpy(ctx, d0, host, 17),
		rt.Memcpy(ctx, d0, host, -1),
		rt.MemcpyAsync(ctx, d0, host, 4, newStreamOf(t, newRuntime(t, Options{}))),
		rt.MemsetAsync(ctx, host, 0, 4, nil),
		rt.MemsetAsync(ctx, d0, 0, 32, nil),
		rt.MemsetAsync(ctx, nil, 0, 4, nil),
	}
	for i, err := range errs {
		assert.ErrorIs(t, err, ErrUnknown, "case %d", i)
	}
	require.NoError(t, rt.Free(ctx, d0))
	assert.Error(t, rt.Memcpy(ctx, out, d0, 4), "freed buffer")
}

func newStreamOf(t *testing.T, rt *Runtime) *Stream {
	s, err := rt.NewStream(0, 0)
	require.NoError(t, err)
	return s
}

func TestActivitiesUnderConcurrency(t *testing.T) {
	rt := newRuntime(t, Options{})
	rt.EnableActivityTracing()
	const goroutines, perG = 8, 150
	var wg sync.WaitGroup
	errs := make(chan error, goroutines)
	for g := 0; g < goroutines; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var s *Stream
			var err error
			switch g % 3 {
			case 0:
				s, err = rt.DefaultStream(g % 2)
			case 1:
				s, err = rt.StreamFromPool(g%2, g%4 == 1)
			default:
				s, err = rt.NewStream(g%2, 0)
			}
			if err != nil {
				errs <- err
				return
			}
			for i := 0; i < perG; i++ {
				if err := s.LaunchKernel(context.Background(), "k", KernelWork{Flops: 10, BytesRead: 4, BytesWritten: 8}, func() {}); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	require.NoError(t, rt.Synchronize())
	acts := rt.DisableActivityTracing()
	require.Len(t, acts, goroutines*perG)
	ids := map[int64]bool{}
	var flops int64
	for _, a := range acts {
		require.False(t, ids[a.ID], "duplicate id %d", a.ID)
		ids[a.ID] = true
		require.LessOrEqual(t, a.StartNs, a.EndNs)
		require.Equal(t, ActivityKernel, a.Kind)
		flops += a.Flops
	}
	c0, _ := rt.Counters(0)
	c1, _ := rt.Counters(1)
	assert.Equal(t, int64(goroutines*perG), c0.Kernels+c1.Kernels)
	assert.Equal(t, flops, c0.Flops+c1.Flops)
	assert.Equal(t, flops/10*8, c0.BytesWritten+c1.BytesWritten)
	assert.False(t, rt.ActivityTracing())

	// Disabled: nothing is recorded.
	s, _ := rt.DefaultStream(0)
	require.NoError(t, s.LaunchKernel(context.Background(), "k", noWork(), func() {}))
	require.NoError(t, s.Synchronize())
	assert.Empty(t, rt.DisableActivityTracing())
	_, err := rt.Counters(2)
	assert.Error(t, err)
}

func TestSetDefault(t *testing.T) {
	rt := newRuntime(t, Options{Devices: 3})
	prev := SetDefault(rt)
	assert.Same(t, rt, Default())
	assert.Same(t, rt, SetDefault(nil), "nil is ignored")
	n, _ := DefaultStubs().DeviceCount()
	assert.Equal(t, 3, n)
	SetDefault(prev)
	ctx, err := WithDevice(context.Background(), 1)
	require.NoError(t, err)
	s, err := CurrentStream(ctx)
	require.NoError(t, err)
	assert.Equal(t, 1, s.DeviceIndex())
}
