package opencl

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/orprof/orprof/stubs"
)

// Event is a timing event from Record: an OpenCL marker (clEnqueueMarkerWithWaitList) on the
// current stream, with its cl_event. ReleaseEvent releases the cl_event once.
type Event struct {
	ev       uintptr
	rt       *Runtime
	device   int
	released atomic.Bool
}

var (
	defaultOnce sync.Once
	defaultRT   *Runtime
	defaultErr  error
)

// Default opens, on first use, the runtime the "opencl" stubs, the activity profiler and the
// workloads use, with OptionsFromEnv; later calls return the same runtime or the same error.
func Default() (*Runtime, error) {
	defaultOnce.Do(func() { defaultRT, defaultErr = Open(OptionsFromEnv()) })
	return defaultRT, defaultErr
}

// Stubs are the OpenCL profiler stubs registered as "opencl": Record enqueues a marker on the
// context's current stream, Elapsed is the difference of two markers' CL_PROFILING_COMMAND_END,
// Synchronize is clFinish on every queue of every device. They implement stubs.Stubs,
// stubs.EventReleaser, stubs.DeviceCounter and stubs.DeviceWorker; OpenCL has no annotation API of its own, so
// they implement neither stubs.Marker nor stubs.Ranger (orprof's own trace still shows marks).
// All methods are safe for concurrent use; only Elapsed and Synchronize wait for device work.
type Stubs struct {
	rt   *Runtime                 // nil: open, else Default()
	open func() (*Runtime, error) // nil: Default()
}

var (
	_ stubs.Stubs         = (*Stubs)(nil)
	_ stubs.EventReleaser = (*Stubs)(nil)
	_ stubs.DeviceCounter = (*Stubs)(nil)
	_ stubs.DeviceWorker  = (*Stubs)(nil)
)

// NewStubs returns stubs over rt.
func NewStubs(rt *Runtime) *Stubs { return &Stubs{rt: rt} }

func init() {
	stubs.Register("opencl", &Stubs{})
}

// Runtime is the runtime the stubs act on, opening Default on first use.
func (s *Stubs) Runtime() (*Runtime, error) {
	if s.rt != nil {
		return s.rt, nil
	}
	if s.open != nil {
		return s.open()
	}
	return Default()
}

// Enabled reports whether an OpenCL platform with a device could be opened. The first call
// opens it (loading libOpenCL and creating contexts takes milliseconds); later calls do not
// block.
func (s *Stubs) Enabled() bool {
	_, err := s.Runtime()
	return err == nil
}

// Record reads ctx's current device, and/or enqueues a marker on ctx's current stream (and
// flushes the queue, so the marker is timed when the device reaches it, not when something
// later flushes), reading the host clock just before. The event is an *Event; Stream is the
// stream's id. It does not wait for device work.
func (s *Stubs) Record(ctx context.Context, want stubs.Want) (stubs.Recorded, error) {
	rt, err := s.Runtime()
	if err != nil {
		return stubs.Recorded{}, err
	}
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
	st, err := rt.CurrentStream(ctx)
	if err != nil {
		return stubs.Recorded{}, err
	}
	if want&stubs.WantCPUTime != 0 {
		r.CPUNs = rt.clock.Now()
	}
	ev, err := st.marker()
	if err != nil {
		return stubs.Recorded{}, err
	}
	r.Event = &Event{ev: ev, rt: rt, device: d}
	r.Stream = st.id
	return r, nil
}

// marker enqueues a marker on s, flushes s and returns the marker's event.
func (s *Stream) marker() (uintptr, error) {
	l := s.device.rt.cl
	var ev uintptr
	if err := check("clEnqueueMarkerWithWaitList", l.call(l.enqueueMarker, s.queue, 0, 0, uintptr(unsafe.Pointer(&ev)))); err != nil {
		return 0, err
	}
	if err := check("clFlush", l.call(l.flush, s.queue)); err != nil {
		l.call(l.releaseEvent, ev)
		return 0, err
	}
	return ev, nil
}

// asEvent checks an event given to Elapsed. Its errors do not name the device or hook: the
// caller's stubs.CallError does.
func asEvent(e stubs.Event) (*Event, error) {
	ev, ok := e.(*Event)
	switch {
	case e == nil || (ok && ev == nil):
		return nil, errors.New("nil event")
	case !ok:
		return nil, fmt.Errorf("event %T is not an OpenCL event", e)
	case ev.released.Load():
		return nil, errors.New("event already released")
	}
	return ev, nil
}

// Elapsed waits for both markers and returns the microseconds between their
// CL_PROFILING_COMMAND_END timestamps (negative when end completed first). Nil events, events
// not made by Record and released events are errors.
func (s *Stubs) Elapsed(start, end stubs.Event) (float64, error) {
	a, err := asEvent(start)
	if err != nil {
		return 0, err
	}
	b, err := asEvent(end)
	if err != nil {
		return 0, err
	}
	switch {
	case a.rt != b.rt:
		return 0, errors.New("events of two OpenCL runtimes")
	case a.device != b.device:
		return 0, fmt.Errorf("events on different devices (%d and %d)", a.device, b.device)
	}
	l := a.rt.cl
	if err := l.wait(a.ev); err != nil {
		return 0, err
	}
	if b != a {
		if err := l.wait(b.ev); err != nil {
			return 0, err
		}
	}
	ta, err := l.profilingNs(a.ev, clProfilingCommandEnd)
	if err != nil {
		return 0, err
	}
	tb, err := l.profilingNs(b.ev, clProfilingCommandEnd)
	if err != nil {
		return 0, err
	}
	return float64(tb-ta) / 1000, nil
}

// clComplete is CL_COMPLETE, the status that completes a user event.
const clComplete = 0

// QueueWork holds ctx's current stream for at least d once the stream reaches it, and returns
// without waiting (stubs.DeviceWorker). It enqueues a marker, then a marker that waits for a user
// event (clCreateUserEvent); a goroutine waits for the first marker, sleeps d and completes the
// user event (clSetUserEventStatus), so every later command on the in-order stream ends at least
// d after the stream reached the work. OpenCL C has no clock a kernel could spin against, so the
// host keeps the time.
func (s *Stubs) QueueWork(ctx context.Context, d time.Duration) error {
	if d < 0 {
		return fmt.Errorf("negative duration %v", d)
	}
	rt, err := s.Runtime()
	if err != nil {
		return err
	}
	st, err := rt.CurrentStream(ctx)
	if err != nil {
		return err
	}
	l := rt.cl
	if l.createUserEvent == 0 || l.setUserEventStatus == 0 {
		return fmt.Errorf("%w: the OpenCL loader has no user events (OpenCL 1.1)", errors.ErrUnsupported)
	}
	var code int32
	ue := l.call(l.createUserEvent, st.device.Platform.context, uintptr(unsafe.Pointer(&code)))
	if err := checkCode("clCreateUserEvent", code); err != nil {
		return err
	}
	complete := func() {
		l.call(l.setUserEventStatus, ue, clComplete)
		l.call(l.releaseEvent, ue)
	}
	var reached, held uintptr
	if err := check("clEnqueueMarkerWithWaitList", l.call(l.enqueueMarker, st.queue, 0, 0, uintptr(unsafe.Pointer(&reached)))); err != nil {
		complete()
		return err
	}
	if err := check("clEnqueueMarkerWithWaitList", l.call(l.enqueueMarker, st.queue, 1, uintptr(unsafe.Pointer(&ue)), uintptr(unsafe.Pointer(&held)))); err != nil {
		complete()
		l.call(l.releaseEvent, reached)
		return err
	}
	l.call(l.releaseEvent, held)
	if err := check("clFlush", l.call(l.flush, st.queue)); err != nil {
		complete()
		l.call(l.releaseEvent, reached)
		return err
	}
	go func() {
		_ = l.wait(reached) // a failed wait still completes the work, so nothing hangs on it
		l.call(l.releaseEvent, reached)
		time.Sleep(d)
		complete()
	}()
	return nil
}

// ReleaseEvent releases the marker's cl_event (clReleaseEvent). A second release of the same
// event does nothing. It never blocks.
func (s *Stubs) ReleaseEvent(e stubs.Event) {
	ev, ok := e.(*Event)
	if !ok || ev == nil || ev.released.Swap(true) {
		return
	}
	ev.rt.cl.call(ev.rt.cl.releaseEvent, ev.ev)
}

// OnEachDevice calls fn for every device in index order — platforms in the ICD loader's order,
// then devices in clGetDeviceIDs order — each time with a context in which that device is
// current. It stops at the first error. The caller's ctx is not changed.
func (s *Stubs) OnEachDevice(ctx context.Context, fn func(ctx context.Context, device int) error) error {
	rt, err := s.Runtime()
	if err != nil {
		return err
	}
	if ctx == nil {
		ctx = context.Background()
	}
	for i := range rt.DeviceCount() {
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

// Synchronize is clFinish on every queue of every device.
func (s *Stubs) Synchronize(ctx context.Context) error {
	rt, err := s.Runtime()
	if err != nil {
		return err
	}
	return rt.Synchronize()
}

// DeviceCount is the number of selected devices.
func (s *Stubs) DeviceCount() (int, error) {
	rt, err := s.Runtime()
	if err != nil {
		return 0, err
	}
	return rt.DeviceCount(), nil
}
