package openreg

import (
	"context"
	"sync"
	"time"

	"github.com/orprof/orprof/devices"
	"github.com/orprof/orprof/stubs"
)

// Stubs are OpenReg's profiler stubs (OpenRegMethods): device events on the caller's current
// stream, elapsed time between them, device synchronization. They implement stubs.Stubs and the
// optional stubs.Marker, stubs.Ranger, stubs.EventReleaser, stubs.DeviceCounter and
// stubs.DeviceWorker. All methods are safe for concurrent use; only Elapsed and Synchronize wait
// for device work.
//
// Where Go's contract differs from OpenReg's C++:
//   - Elapsed of a nil event is an error, not OpenReg's quiet 0 (the contract allows both).
//   - Synchronize waits for every device, as orprof's contract asks; OpenReg's
//     orDeviceSynchronize waits only for the current device.
//
// Mark, RangePush and RangePop are no-ops that succeed, as in OpenReg: OpenReg has no annotation
// tool (the conformance kit skips its range checks for that reason).
type Stubs struct {
	rt *Runtime // nil: follow Default()
}

var (
	_ stubs.Stubs         = (*Stubs)(nil)
	_ stubs.Marker        = (*Stubs)(nil)
	_ stubs.Ranger        = (*Stubs)(nil)
	_ stubs.EventReleaser = (*Stubs)(nil)
	_ stubs.DeviceCounter = (*Stubs)(nil)
	_ stubs.DeviceWorker  = (*Stubs)(nil)
)

// NewStubs returns stubs for rt.
func NewStubs(rt *Runtime) *Stubs { return &Stubs{rt: rt} }

var defaultStubs = &Stubs{}

// DefaultStubs returns the stubs registered as "openreg": they act on Default(), following
// SetDefault.
func DefaultStubs() *Stubs { return defaultStubs }

func init() {
	_ = devices.RenamePrivateUse1Backend("openreg") // fails only when already named otherwise
	stubs.Register("openreg", DefaultStubs())
}

// Runtime is the runtime the stubs act on now.
func (s *Stubs) Runtime() *Runtime {
	if s.rt != nil {
		return s.rt
	}
	return Default()
}

// Enabled is true: OpenReg is always usable.
func (s *Stubs) Enabled() bool { return true }

// Record reads ctx's current device, and/or creates a timing event and enqueues it on ctx's
// current stream, taking the host clock (the runtime's) just before enqueueing. The event is
// an *Event; Stream is the stream's id. It never blocks on device work; it allocates one Event.
func (s *Stubs) Record(ctx context.Context, want stubs.Want) (stubs.Recorded, error) {
	rt := s.Runtime()
	var r stubs.Recorded
	d := CurrentDevice(ctx)
	if want&stubs.WantDevice != 0 {
		r.Device = d
	}
	if want&stubs.WantEvent == 0 {
		if want&stubs.WantCPUTime != 0 {
			r.CPUNs = rt.clock.Now()
		}
		return r, nil
	}
	st, err := rt.streamFor(ctx, d)
	if err != nil {
		return stubs.Recorded{}, err
	}
	ev, _ := eventPool.Get().(*Event)
	if ev == nil {
		ev = new(Event)
	}
	ev.rt, ev.device, ev.timing = rt, d, true
	now, err := st.recordEvent(ev)
	if err != nil {
		return stubs.Recorded{}, err
	}
	if want&stubs.WantCPUTime != 0 {
		r.CPUNs = now
	}
	r.Event = ev
	r.Stream = st.id
	return r, nil
}

func asEvent(e stubs.Event) (*Event, error) {
	if e == nil {
		return nil, unknown("EventElapsedTime", "nil event")
	}
	ev, ok := e.(*Event)
	if !ok {
		return nil, unknown("EventElapsedTime", "event %T is not an OpenReg event", e)
	}
	if ev == nil {
		return nil, unknown("EventElapsedTime", "nil event")
	}
	return ev, nil
}

// Elapsed waits for both events and returns the microseconds from start to end: ElapsedTime
// times 1000, computed from the nanosecond stamps without rounding through float32. Negative
// when end completed first. Nil events and events not made by Record are errors.
func (s *Stubs) Elapsed(start, end stubs.Event) (float64, error) {
	a, err := asEvent(start)
	if err != nil {
		return 0, err
	}
	b, err := asEvent(end)
	if err != nil {
		return 0, err
	}
	if err := a.Synchronize(); err != nil {
		return 0, err
	}
	if err := b.Synchronize(); err != nil {
		return 0, err
	}
	ns, err := elapsedNs(a, b)
	if err != nil {
		return 0, err
	}
	return float64(ns) / 1000, nil
}

// ReleaseEvent destroys an event from Record. It never blocks.
func (s *Stubs) ReleaseEvent(e stubs.Event) {
	if ev, ok := e.(*Event); ok {
		if ev.reset() {
			eventPool.Put(ev)
			return
		}
		ev.Destroy()
	}
}

// eventPool recycles the events Record hands out: the profiler releases each exactly once,
// after its last use (stubs.EventReleaser), so a released event whose record has completed is
// nobody's any more.
var eventPool sync.Pool

// OnEachDevice calls fn(ctx with device i current, i) for every device in order, stopping at the
// first error. The caller's ctx is not changed.
func (s *Stubs) OnEachDevice(ctx context.Context, fn func(ctx context.Context, device int) error) error {
	rt := s.Runtime()
	if ctx == nil {
		ctx = context.Background()
	}
	for i := 0; i < rt.DeviceCount(); i++ {
		c, err := rt.WithDevice(ctx, i)
		if err != nil {
			return err
		}
		if err := fn(c, i); err != nil {
			return err
		}
	}
	return nil
}

// Synchronize blocks until all work queued on every device has completed.
func (s *Stubs) Synchronize(ctx context.Context) error { return s.Runtime().Synchronize() }

// DeviceCount is the runtime's device count.
func (s *Stubs) DeviceCount() (int, error) { return s.Runtime().DeviceCount(), nil }

// Mark does nothing, as OpenReg's mark.
func (s *Stubs) Mark(name string) error { return nil }

// RangePush does nothing, as OpenReg's rangePush.
func (s *Stubs) RangePush(name string) error { return nil }

// RangePop does nothing, as OpenReg's rangePop: there is no stack to pop.
func (s *Stubs) RangePop() error { return nil }

// QueueWorkKernel is the name of the kernel QueueWork launches.
const QueueWorkKernel = "orprof::queue_work"

// QueueWork launches on ctx's current stream a kernel (QueueWorkKernel) that keeps the stream's
// worker busy for d, and returns without waiting for it (stubs.DeviceWorker).
func (s *Stubs) QueueWork(ctx context.Context, d time.Duration) error {
	if d < 0 {
		return unknown("QueueWork", "negative duration %v", d)
	}
	rt := s.Runtime()
	st, err := rt.streamFor(ctx, CurrentDevice(ctx))
	if err != nil {
		return err
	}
	return st.LaunchKernel(ctx, QueueWorkKernel, KernelWork{}, func() { time.Sleep(d) })
}
