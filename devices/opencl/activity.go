package opencl

import (
	"context"
	"errors"
	"sort"
	"unsafe"

	"github.com/orprof/orprof"
	"github.com/orprof/orprof/kineto"
)

// ActivityKind says what an Activity records: the Kineto activity type, as in openreg, so the
// kind is the trace category and what a session's activity set selects.
type ActivityKind = kineto.ActivityType

// The kinds of work the runtime traces.
const (
	// ActivityKernel is a kernel (clEnqueueNDRangeKernel), timed by its own event.
	ActivityKernel = kineto.ConcurrentKernel
	// ActivityMemcpy is a copy (clEnqueueWriteBuffer, clEnqueueReadBuffer).
	ActivityMemcpy = kineto.GPUMemcpy
	// ActivityMemset is a fill (clEnqueueFillBuffer).
	ActivityMemset = kineto.GPUMemset
	// ActivityRuntime is the host side of a launch: the enqueue call on the launching thread.
	ActivityRuntime = kineto.PrivateUse1Runtime
)

// Activity is one traced kernel, copy or fill, or the enqueue call that launched it.
type Activity struct {
	Kind ActivityKind
	// Name is the kernel's function name ("gemm_f32"), "Memcpy HtoD", "Memcpy DtoH",
	// "Memset", or for runtime activities the OpenCL call ("clEnqueueNDRangeKernel").
	Name   string
	Device int
	Stream int64
	// StartNs and EndNs are on the host clock (Unix ns): for runtime activities as read around
	// the call, for device work mapped from the device clock by the profiler's calibration.
	StartNs, EndNs int64
	// DeviceStartNs and DeviceEndNs are the event's CL_PROFILING_COMMAND_START and _END on the
	// device clock (device work only).
	DeviceStartNs, DeviceEndNs int64
	// Correlation is orprof.CorrelationID of the launching context (0 when no op was open).
	Correlation int64
	// ID numbers launches from 1; a launch and its work share it.
	ID int64
	// Thread is the launching logical thread (orprof.Thread id).
	Thread int64
	// Bytes moved by a copy or fill.
	Bytes int64

	ev uintptr
}

// subscription collects the launches made while it is open.
type subscription struct {
	rt     *Runtime
	work   []Activity
	launch []Activity
	closed bool
}

// subscribe starts collecting every launch from now on; safe for concurrent use.
func (rt *Runtime) subscribe() *subscription {
	s := &subscription{rt: rt}
	rt.actMu.Lock()
	rt.subs = append(rt.subs, s)
	rt.tracing.Store(true)
	rt.actMu.Unlock()
	return s
}

// close stops the subscription, waits for the events of its device work, reads their
// START/END and releases them (one clReleaseEvent per event this subscription holds). Call
// it after the queues have finished the work, or it waits for them.
func (s *subscription) close() (work, launches []Activity, err error) {
	rt := s.rt
	rt.actMu.Lock()
	if s.closed {
		rt.actMu.Unlock()
		return nil, nil, nil
	}
	s.closed = true
	rest := rt.subs[:0:0]
	for _, o := range rt.subs {
		if o != s {
			rest = append(rest, o)
		}
	}
	rt.subs = rest
	rt.tracing.Store(len(rest) > 0)
	work, launches = s.work, s.launch
	s.work, s.launch = nil, nil
	rt.actMu.Unlock()
	l := rt.cl
	var errs []error
	for i := range work {
		a := &work[i]
		if e := l.wait(a.ev); e != nil {
			errs = append(errs, e)
		} else {
			var e1, e2 error
			a.DeviceStartNs, e1 = l.profilingNs(a.ev, clProfilingCommandStart)
			a.DeviceEndNs, e2 = l.profilingNs(a.ev, clProfilingCommandEnd)
			if e1 != nil || e2 != nil {
				errs = append(errs, errors.Join(e1, e2))
			}
		}
		l.call(l.releaseEvent, a.ev)
		a.ev = 0
	}
	sort.SliceStable(work, func(i, j int) bool { return work[i].ID < work[j].ID })
	sort.SliceStable(launches, func(i, j int) bool { return launches[i].ID < launches[j].ID })
	if len(errs) > 0 {
		err = errors.Join(errs...)
	}
	return work, launches, err
}

// launch runs enqueue, which enqueues one command on st and returns its cl_int; ev is where
// the command's event goes (nil when the runtime is not tracing, so OpenCL makes none). When
// tracing, the call is timed on the host, the event kept for every open subscription, and
// the context's correlation id and thread recorded. The queue is flushed so the command starts
// as soon as the device is free, as a GPU runtime submits at once.
func (rt *Runtime) launch(ctx context.Context, st *Stream, kind ActivityKind, name, api string, bytes int64,
	enqueue func(ev *uintptr) uintptr) error {
	l := rt.cl
	if !rt.tracing.Load() {
		if err := check(api, enqueue(nil)); err != nil {
			return err
		}
		return check("clFlush", l.call(l.flush, st.queue))
	}
	corr := orprof.CorrelationID(ctx)
	thread := orprof.ThreadFrom(ctx).ID()
	var ev uintptr
	h0 := rt.clock.Now()
	code := enqueue(&ev)
	h1 := rt.clock.Now()
	if err := check(api, code); err != nil {
		return err
	}
	if err := check("clFlush", l.call(l.flush, st.queue)); err != nil {
		l.call(l.releaseEvent, ev)
		return err
	}
	id := rt.launchID.Add(1)
	w := Activity{Kind: kind, Name: name, Device: st.device.Index, Stream: st.id, Correlation: corr, ID: id,
		Thread: thread, Bytes: bytes, ev: ev}
	r := Activity{Kind: ActivityRuntime, Name: api, Device: st.device.Index, Stream: st.id, StartNs: h0, EndNs: h1,
		Correlation: corr, ID: id, Thread: thread}
	rt.actMu.Lock()
	n := 0
	for _, s := range rt.subs {
		if n > 0 {
			l.call(l.retainEvent, ev)
		}
		s.work = append(s.work, w)
		s.launch = append(s.launch, r)
		n++
	}
	rt.actMu.Unlock()
	if n == 0 { // the last subscription closed meanwhile
		l.call(l.releaseEvent, ev)
	}
	return nil
}

// launchKernel sets k's arguments and enqueues it over a 1-D or 2-D global range on ctx's
// current stream of device d.
func (rt *Runtime) launchKernel(ctx context.Context, st *Stream, k *kernel, global []uintptr, args ...arg) error {
	l := rt.cl
	k.mu.Lock()
	defer k.mu.Unlock()
	if err := l.setArgs(k, args); err != nil {
		return err
	}
	return rt.launch(ctx, st, ActivityKernel, k.name, "clEnqueueNDRangeKernel", 0, func(ev *uintptr) uintptr {
		return l.call(l.enqueueNDRange, st.queue, k.handle, uintptr(len(global)), 0,
			uintptr(unsafe.Pointer(&global[0])), 0, 0, 0, uintptr(unsafe.Pointer(ev)))
	})
}
