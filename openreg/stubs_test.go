package openreg

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/orprof/orprof/devices"
	"github.com/orprof/orprof/stubs"
	"github.com/orprof/orprof/stubs/stubstest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestStubsRegistered(t *testing.T) {
	require.True(t, stubs.Registered("openreg"))
	assert.Same(t, DefaultStubs(), stubs.Lookup("openreg"))
	assert.Equal(t, "openreg", devices.PrivateUse1.String())
	assert.True(t, DefaultStubs().Enabled())
	assert.Same(t, Default(), DefaultStubs().Runtime())
}

func TestStubsRecord(t *testing.T) {
	clock := devices.NewFakeClock(5_000)
	rt := newRuntime(t, Options{Clock: clock})
	st := NewStubs(rt)
	pool, err := rt.StreamFromPool(1, false)
	require.NoError(t, err)
	onPool := WithStream(context.Background(), pool)
	dev1, err := rt.WithDevice(context.Background(), 1)
	require.NoError(t, err)

	tests := []struct {
		name   string
		ctx    context.Context
		want   stubs.Want
		device int
		stream int64
		event  bool
		cpu    bool
	}{
		{"nothing", context.Background(), 0, 0, 0, false, false},
		{"device only", dev1, stubs.WantDevice, 1, 0, false, false},
		{"cpu time only", context.Background(), stubs.WantCPUTime, 0, 0, false, true},
		{"event on the default stream", context.Background(), stubs.WantEvent | stubs.WantDevice, 0, 0, true, false},
		{"everything on device 1", dev1, stubs.WantEvent | stubs.WantDevice | stubs.WantCPUTime, 1, 0, true, true},
		{"event on the current stream", onPool, stubs.WantEvent | stubs.WantDevice, 1, pool.ID(), true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := st.Record(tt.ctx, tt.want)
			require.NoError(t, err)
			assert.Equal(t, tt.device, r.Device)
			assert.Equal(t, tt.stream, r.Stream)
			if tt.cpu {
				assert.Equal(t, int64(5_000), r.CPUNs)
			} else {
				assert.Zero(t, r.CPUNs)
			}
			if !tt.event {
				assert.Nil(t, r.Event)
				return
			}
			ev, ok := r.Event.(*Event)
			require.True(t, ok)
			assert.True(t, ev.Timing())
			assert.Equal(t, tt.device, ev.Device())
			require.NoError(t, ev.Synchronize())
			st.ReleaseEvent(ev)
			st.ReleaseEvent(nil) // harmless
		})
	}
}

func TestStubsElapsed(t *testing.T) {
	clock := devices.NewFakeClock(0)
	rt := newRuntime(t, Options{Clock: clock})
	st := NewStubs(rt)
	ctx := context.Background()
	start, err := st.Record(ctx, stubs.WantEvent)
	require.NoError(t, err)
	require.NoError(t, rt.LaunchKernel(ctx, "work", noWork(), func() { clock.Advance(1500 * time.Microsecond) }))
	end, err := st.Record(ctx, stubs.WantEvent)
	require.NoError(t, err)
	us, err := st.Elapsed(start.Event, end.Event) // waits for both
	require.NoError(t, err)
	assert.Equal(t, 1500.0, us)
	us, err = st.Elapsed(end.Event, start.Event)
	require.NoError(t, err)
	assert.Equal(t, -1500.0, us)

	ctx1, _ := rt.WithDevice(ctx, 1)
	other, err := st.Record(ctx1, stubs.WantEvent)
	require.NoError(t, err)
	var nilEvent *Event
	tests := []struct {
		name       string
		start, end stubs.Event
	}{
		{"nil start", nil, end.Event},
		{"nil end", start.Event, nil},
		{"typed nil", nilEvent, end.Event},
		{"foreign event", "not an event", end.Event},
		{"different devices", start.Event, other.Event},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := st.Elapsed(tt.start, tt.end)
			require.ErrorIs(t, err, ErrUnknown)
		})
	}
	st.ReleaseEvent(start.Event)
	_, err = st.Elapsed(start.Event, end.Event)
	require.Error(t, err, "released events are unusable")
}

func TestStubsRecordDoesNotBlock(t *testing.T) {
	rt := newRuntime(t, Options{})
	st := NewStubs(rt)
	g := newGate()
	require.NoError(t, rt.LaunchKernel(context.Background(), "blocked", noWork(), g.wait))
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 0; i < 100; i++ {
			r, err := st.Record(context.Background(), stubs.WantEvent|stubs.WantCPUTime)
			if err != nil {
				t.Error(err)
				return
			}
			st.ReleaseEvent(r.Event)
		}
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Record blocked on a busy stream")
	}
	g.open()
	require.NoError(t, st.Synchronize(context.Background()))
}

func TestStubsOnEachDevice(t *testing.T) {
	rt := newRuntime(t, Options{Devices: 3})
	st := NewStubs(rt)
	ctx, _ := rt.WithDevice(context.Background(), 2)
	var seen []int
	err := st.OnEachDevice(ctx, func(c context.Context, d int) error {
		assert.Equal(t, d, CurrentDevice(c))
		seen = append(seen, d)
		return nil
	})
	require.NoError(t, err)
	assert.Equal(t, []int{0, 1, 2}, seen)
	assert.Equal(t, 2, CurrentDevice(ctx))

	stop := errors.New("stop")
	seen = nil
	err = st.OnEachDevice(nil, func(c context.Context, d int) error { //nolint:staticcheck // nil is accepted
		seen = append(seen, d)
		if d == 1 {
			return stop
		}
		return nil
	})
	require.ErrorIs(t, err, stop)
	assert.Equal(t, []int{0, 1}, seen)
}

func TestStubsSynchronizeWaitsForEveryDevice(t *testing.T) {
	rt := newRuntime(t, Options{})
	st := NewStubs(rt)
	g := newGate()
	s1, _ := rt.NewStream(1, 0)
	require.NoError(t, s1.LaunchKernel(context.Background(), "blocked", noWork(), g.wait))
	done := make(chan error)
	go func() { done <- st.Synchronize(context.Background()) }() // device 0 is current
	select {
	case <-done:
		t.Fatal("Synchronize returned while device 1 had work")
	case <-time.After(20 * time.Millisecond):
	}
	g.open()
	require.NoError(t, <-done)
	n, err := st.DeviceCount()
	require.NoError(t, err)
	assert.Equal(t, 2, n)
}

// OpenReg's mark, rangePush and rangePop are no-ops that succeed, a pop with nothing pushed too.
func TestStubsRanges(t *testing.T) {
	st := NewStubs(newRuntime(t, Options{}))
	require.NoError(t, st.Mark("here"))
	require.NoError(t, st.RangePop(), "pop with nothing pushed")
	require.NoError(t, st.RangePush("a"))
	require.NoError(t, st.RangePop())
}

// OpenReg passes the conformance kit, skipping only what it has no tool for: its ranges are
// no-ops. Each case gets its own runtime, so elapsed-foreign measures an event of another one.
func TestConformance(t *testing.T) {
	stubstest.Run(t, func(t *testing.T) stubs.Stubs { return NewStubs(newRuntime(t, Options{})) },
		stubstest.Device("openreg"))
	var skipped []string
	for _, c := range stubstest.Cases() {
		if c.Name != "ranges" && c.Name != "ranges-per-thread" {
			continue
		}
		r := c.Run(func() (stubs.Stubs, error) { return NewStubs(newRuntime(t, Options{})), nil })
		skipped = append(skipped, r.String())
	}
	assert.Equal(t, []string{
		"SKIP ranges: no annotation tool: RangePop with nothing pushed succeeded, so push and pop are observable no-ops (as OpenReg's)",
		"SKIP ranges-per-thread: no annotation tool: RangePop with nothing pushed succeeded, so push and pop are observable no-ops (as OpenReg's)",
	}, skipped)
}
