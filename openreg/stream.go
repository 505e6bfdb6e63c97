package openreg

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/orprof/orprof"
	"github.com/orprof/orprof/devices"
)

// Stream is an OpenReg stream: a worker goroutine that runs the tasks queued on it (kernels,
// copies, sets, event records, event waits) one at a time in FIFO order. Enqueueing never blocks
// and never starts a goroutine: it appends to the queue under a short lock and wakes the worker
// if it sleeps. A Stream implements devices.Stream. All methods are safe for concurrent use.
type Stream struct {
	rt       *Runtime
	dev      *device
	id       int64
	priority int
	pooled   bool

	pending atomic.Int64 // tasks queued or running
	running atomic.Bool  // the worker has taken a task and not finished it

	mu      sync.Mutex
	q       []task
	head    int
	waiting bool // the worker sleeps on kick
	closed  bool
	err     error // first asynchronous failure, reported once by Synchronize
	kick    chan struct{}
	exited  chan struct{}
}

var _ devices.Stream = (*Stream)(nil)

type taskKind uint8

const (
	taskEvent taskKind = iota // complete ev's record number gen
	taskWait                  // block until ev's record number gen has completed
	taskWork                  // run fn and report it as an activity of kind act
)

// task is one queued unit of work, stored by value in the queue.
type task struct {
	kind   taskKind
	act    ActivityKind
	gen    uint64
	ev     *Event
	fn     func()
	name   string
	work   KernelWork
	corr   int64
	id     int64
	thread int64 // logical thread of the launching context
}

// newStream creates and registers a stream and starts its worker. id < 0 takes the next
// user stream id. It fails once the runtime is closed.
func (d *device) newStream(id int64, priority int, pooled bool) (*Stream, error) {
	s := &Stream{rt: d.rt, dev: d, priority: priority, pooled: pooled,
		kick: make(chan struct{}, 1), exited: make(chan struct{})}
	d.mu.Lock()
	if d.rt.closed.Load() {
		d.mu.Unlock()
		return nil, unknown("StreamCreate", "runtime is closed")
	}
	if id < 0 {
		id = d.userIDs
		d.userIDs++
	}
	s.id = id
	d.streams = append(d.streams, s)
	d.mu.Unlock()
	go s.worker()
	return s, nil
}

// ID is the stream's device-local id (0 for the default stream); it is the trace tid of the
// stream's work.
func (s *Stream) ID() int64 { return s.id }

// DeviceIndex is the stream's device.
func (s *Stream) DeviceIndex() int { return s.dev.index }

// Priority is the priority the stream was created with. (OpenReg's orStreamGetPriority always
// reports 0; this reports the real one.)
func (s *Stream) Priority() int { return s.priority }

// Runtime is the runtime the stream belongs to.
func (s *Stream) Runtime() *Runtime { return s.rt }

// String names the stream for messages.
func (s *Stream) String() string {
	return fmt.Sprintf("openreg stream %d on device %d", s.id, s.dev.index)
}

// push appends t to the queue and wakes the worker; it fails once the stream is destroyed.
// When ev is non-nil the event's record number is taken under the queue lock, so record
// numbers and queue order agree.
func (s *Stream) push(op string, t task) error {
	var launchNs int64
	if t.kind == taskWork && s.rt.tracing.Load() {
		launchNs = s.rt.clock.Now()
	}
	var driverNs int64
	if launchNs != 0 {
		driverNs = s.rt.clock.Now()
	}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return unknown(op, "%v is destroyed", s)
	}
	if t.kind == taskEvent {
		t.gen = t.ev.nextRecord()
	}
	if len(s.q) == cap(s.q) && s.head > 0 {
		n := copy(s.q, s.q[s.head:])
		clear(s.q[n:])
		s.q = s.q[:n]
		s.head = 0
	}
	s.q = append(s.q, t)
	s.pending.Add(1)
	wake := s.waiting
	s.waiting = false
	s.mu.Unlock()
	if wake {
		s.kick <- struct{}{} // never blocks: one send per sleep, buffer of one
	}
	if launchNs != 0 {
		// The host side of the launch, as CUPTI records cudaLaunchKernel and cuLaunchKernel:
		// the runtime call on the launching thread, and inside it the driver layer, the
		// hand-off to the stream's work queue (queue lock, append, waking the worker); both
		// linked to the device work by the launch id.
		driverEnd := s.rt.clock.Now()
		s.rt.addActivity(Activity{Kind: ActivityRuntime, Name: launchAPI[t.act], Device: s.dev.index, Stream: s.id,
			StartNs: launchNs, EndNs: s.rt.clock.Now(), Correlation: t.corr, ID: t.id, Thread: t.thread})
		s.rt.addActivity(Activity{Kind: ActivityDriver, Name: driverAPI, Device: s.dev.index, Stream: s.id,
			StartNs: driverNs, EndNs: driverEnd, Correlation: t.corr, ID: t.id, Thread: t.thread})
	}
	return nil
}

// recordEvent records ev on the stream, as push does, and returns the time the host clock read
// as it enqueued it. On an idle stream (nothing queued or running) the stream reaches the event
// at once: it completes then, stamped with that time, without waking the worker — the common
// case of a profiler's events around ops that launch nothing, at a fraction of the cost.
func (s *Stream) recordEvent(ev *Event) (int64, error) {
	s.mu.Lock()
	if s.closed || s.head != len(s.q) || s.running.Load() {
		s.mu.Unlock()
		now := s.rt.clock.Now()
		return now, s.push("EventRecord", task{kind: taskEvent, ev: ev})
	}
	now := s.rt.clock.Now()
	var stamp int64
	if ev.timing {
		stamp = now
	}
	ev.complete(ev.nextRecord(), stamp)
	s.mu.Unlock()
	return now, nil
}

// driverAPI names OpenReg's driver-layer call under every launch: the work-queue hand-off.
const driverAPI = "orStreamEnqueue"

// launchAPI names the runtime call that enqueues each kind of work.
var launchAPI = [...]string{ActivityKernel: "orLaunchKernel", ActivityMemcpy: "orMemcpyAsync", ActivityMemset: "orMemsetAsync"}

// worker runs the queue until the stream is destroyed and drained.
func (s *Stream) worker() {
	for {
		s.mu.Lock()
		for s.head == len(s.q) {
			if s.closed {
				s.mu.Unlock()
				close(s.exited)
				return
			}
			s.waiting = true
			s.mu.Unlock()
			<-s.kick
			s.mu.Lock()
		}
		t := s.q[s.head]
		s.q[s.head] = task{}
		s.head++
		if s.head == len(s.q) {
			s.q = s.q[:0]
			s.head = 0
		}
		s.running.Store(true)
		s.mu.Unlock()
		if t.kind == taskEvent {
			// An event is done once stamped: leave the pending count first, so whoever its
			// completion wakes (Synchronize) sees the stream idle.
			s.pending.Add(-1)
			s.run(&t)
			s.running.Store(false)
			continue
		}
		s.run(&t)
		s.running.Store(false)
		s.pending.Add(-1)
	}
}

func (s *Stream) run(t *task) {
	switch t.kind {
	case taskEvent:
		var now int64
		if t.ev.timing {
			now = s.rt.clock.Now()
		}
		t.ev.complete(t.gen, now)
	case taskWait:
		t.ev.waitRecord(t.gen)
	case taskWork:
		start := s.rt.clock.Now()
		err := safeRun(t.fn)
		end := s.rt.clock.Now()
		d := s.dev
		switch t.act {
		case ActivityKernel:
			d.kernels.Add(1)
			d.flops.Add(t.work.Flops)
		case ActivityMemcpy:
			d.memcpys.Add(1)
		case ActivityMemset:
			d.memsets.Add(1)
		}
		d.bytesRead.Add(t.work.BytesRead)
		d.bytesWritten.Add(t.work.BytesWritten)
		d.busyNs.Add(end - start)
		if s.rt.tracing.Load() {
			s.rt.addActivity(Activity{Kind: t.act, Name: t.name, Device: d.index, Stream: s.id,
				StartNs: start, EndNs: end, Correlation: t.corr, ID: t.id, Thread: t.thread,
				Flops: t.work.Flops, BytesRead: t.work.BytesRead, BytesWritten: t.work.BytesWritten})
		}
		if err != nil {
			s.mu.Lock()
			if s.err == nil {
				s.err = &Error{Code: ErrorUnknown, Op: t.name, Detail: fmt.Sprintf("%v on %v", err, s)}
			}
			s.mu.Unlock()
		}
	}
}

// safeRun runs fn, turning a panic into an error: a failing kernel must not take the process
// down; its failure is reported by the next Synchronize, like an asynchronous device error.
func safeRun(fn func()) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("kernel panicked: %v", r)
		}
	}()
	fn()
	return nil
}

// Query reports whether the stream has no work queued or running (orStreamQuery). Unlike
// OpenReg, whose query looks only at the queue, a task still running counts as not done. It
// never blocks.
func (s *Stream) Query() bool { return s.pending.Load() == 0 }

// Status is Query in OpenReg's form: nil when idle, an ErrorNotReady error otherwise.
func (s *Stream) Status() error {
	if s.Query() {
		return nil
	}
	return notReady("StreamQuery", "%v has queued work", s)
}

// Synchronize blocks until all work queued on the stream before the call has completed
// (orStreamSynchronize: a non-timing event recorded and waited for). It returns the stream's
// first asynchronous failure since the last Synchronize (a kernel that panicked), then forgets
// it. On a destroyed stream it returns at once with an error.
func (s *Stream) Synchronize() error {
	ev := &Event{rt: s.rt, device: s.dev.index}
	if err := s.push("StreamSynchronize", task{kind: taskEvent, ev: ev}); err != nil {
		return err
	}
	ev.waitRecord(ev.recordedNum())
	s.mu.Lock()
	defer s.mu.Unlock()
	err := s.err
	s.err = nil
	return err
}

// WaitEvent makes all work queued on s after this call wait until ev's most recent record
// (as of this call) has completed (orStreamWaitEvent). It never blocks the caller. An event
// never recorded is already complete, so the wait is a no-op. ev may belong to another device
// of the same runtime.
func (s *Stream) WaitEvent(ev *Event) error {
	if ev == nil {
		return unknown("StreamWaitEvent", "nil event")
	}
	if ev.rt != s.rt {
		return unknown("StreamWaitEvent", "event belongs to another runtime")
	}
	return s.push("StreamWaitEvent", task{kind: taskWait, ev: ev, gen: ev.recordedNum()})
}

// LaunchKernel enqueues fn as a kernel named name on s (orLaunchKernel). fn runs later on the
// stream's worker goroutine, after all earlier work on s; it must only touch memory that the
// stream order (or events) make safe. work is what the kernel computes, kept in the device
// counters and in its activity record. The activity's correlation id is orprof.CorrelationID(ctx)
// taken now, the innermost op open on ctx's thread. It never blocks. A panic in fn is reported
// by the next Synchronize.
func (s *Stream) LaunchKernel(ctx context.Context, name string, work KernelWork, fn func()) error {
	if fn == nil {
		return unknown("LaunchKernel", "kernel %q has no function", name)
	}
	return s.push("LaunchKernel", task{kind: taskWork, act: ActivityKernel, name: name, fn: fn, work: work,
		corr: orprof.CorrelationID(ctx), id: s.rt.kernelIDs.Add(1), thread: orprof.ThreadFrom(ctx).ID()})
}

// Destroy unregisters the stream, lets its worker drain the queue and blocks until the worker
// has exited (orStreamDestroy). Later calls that enqueue on it fail. Pool streams (including the
// default stream) belong to the runtime and cannot be destroyed.
func (s *Stream) Destroy() error {
	if s.pooled {
		return unknown("StreamDestroy", "%v is a pool stream owned by the runtime", s)
	}
	s.shutdown()
	return nil
}

func (s *Stream) shutdown() {
	d := s.dev
	d.mu.Lock()
	for i, x := range d.streams {
		if x == s {
			d.streams = append(d.streams[:i], d.streams[i+1:]...)
			break
		}
	}
	d.mu.Unlock()
	s.mu.Lock()
	s.closed = true
	wake := s.waiting
	s.waiting = false
	s.mu.Unlock()
	if wake {
		s.kick <- struct{}{}
	}
	<-s.exited
}
