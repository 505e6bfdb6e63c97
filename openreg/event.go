package openreg

import (
	"sync"

	"github.com/orprof/orprof/devices"
)

// Event marks a point in a stream's work (orEvent). Recording it enqueues a task; the event is
// complete when the stream's worker reaches that task, and an event made with timing takes the
// runtime clock's time at that moment. An event never recorded counts as complete. Recording an
// event again replaces the point it marks. An Event implements devices.Event; all methods are
// safe for concurrent use. Events hold no resources beyond memory: Destroy only marks the event
// unusable, and a record already queued still completes.
type Event struct {
	rt     *Runtime
	device int
	timing bool

	mu        sync.Mutex
	recorded  uint64 // number of the latest record
	done      uint64 // number of the latest record that completed
	timeNs    int64  // completion time of record number done (timing events)
	wake      chan struct{}
	destroyed bool
}

var _ devices.Event = (*Event)(nil)

// NewEvent creates an event on device d (orEventCreateWithFlags); timing selects
// orEventEnableTiming. It never blocks.
func (rt *Runtime) NewEvent(d int, timing bool) (*Event, error) {
	if _, err := rt.dev("EventCreateWithFlags", d); err != nil {
		return nil, err
	}
	return &Event{rt: rt, device: d, timing: timing}, nil
}

// Device is the device the event was created on.
func (e *Event) Device() int { return e.device }

// Timing reports whether the event records its completion time.
func (e *Event) Timing() bool { return e.timing }

// Record enqueues the event on s (orEventRecord); it completes when s's worker reaches it. s
// must be an OpenReg *Stream of the event's runtime and device. It never blocks.
func (e *Event) Record(s devices.Stream) error {
	if e == nil {
		return unknown("EventRecord", "nil event")
	}
	st, ok := s.(*Stream)
	if !ok || st == nil {
		return unknown("EventRecord", "stream %v is not an OpenReg stream", s)
	}
	return e.RecordOn(st)
}

// RecordOn is Record for a *Stream.
func (e *Event) RecordOn(s *Stream) error {
	if e == nil || s == nil {
		return unknown("EventRecord", "nil event or stream")
	}
	if s.rt != e.rt {
		return unknown("EventRecord", "event and stream belong to different runtimes")
	}
	if s.dev.index != e.device {
		return unknown("EventRecord", "event is on device %d, stream on device %d", e.device, s.dev.index)
	}
	e.mu.Lock()
	gone := e.destroyed
	e.mu.Unlock()
	if gone {
		return unknown("EventRecord", "event is destroyed")
	}
	return s.push("EventRecord", task{kind: taskEvent, ev: e})
}

// nextRecord numbers a new record of the event; the stream calls it under its queue lock.
func (e *Event) nextRecord() uint64 {
	e.mu.Lock()
	e.recorded++
	g := e.recorded
	e.mu.Unlock()
	return g
}

func (e *Event) recordedNum() uint64 {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.recorded
}

// complete runs on the stream worker that reached record number g.
func (e *Event) complete(g uint64, now int64) {
	e.mu.Lock()
	if g > e.done {
		e.done = g
		e.timeNs = now
	}
	if e.wake != nil {
		close(e.wake)
		e.wake = nil
	}
	e.mu.Unlock()
}

// waitRecord blocks until record number g has completed (at once when g is 0).
func (e *Event) waitRecord(g uint64) {
	for {
		e.mu.Lock()
		if e.done >= g {
			e.mu.Unlock()
			return
		}
		if e.wake == nil {
			e.wake = make(chan struct{})
		}
		ch := e.wake
		e.mu.Unlock()
		<-ch
	}
}

// Synchronize blocks until the event's latest record (as of the call) has completed
// (orEventSynchronize); an event never recorded returns at once. A nil event is an error.
func (e *Event) Synchronize() error {
	if e == nil {
		return unknown("EventSynchronize", "nil event")
	}
	e.waitRecord(e.recordedNum())
	return nil
}

// Query reports whether the event's latest record has completed (true when never recorded). It
// never blocks.
func (e *Event) Query() bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.done >= e.recorded
}

// Status is Query in OpenReg's form (orEventQuery): nil when complete, an ErrorNotReady error
// otherwise.
func (e *Event) Status() error {
	if e == nil {
		return unknown("EventQuery", "nil event")
	}
	if e.Query() {
		return nil
	}
	return notReady("EventQuery", "event on device %d has not completed", e.device)
}

// Destroy marks the event unusable (orEventDestroy): later Record and ElapsedTime calls fail. A
// record already queued still completes. Destroying twice is harmless.
func (e *Event) Destroy() {
	if e == nil {
		return
	}
	e.mu.Lock()
	e.destroyed = true
	e.mu.Unlock()
}

// reset makes a completed event as new, for reuse, and reports whether it did: an event whose
// record is still queued, or that someone waits on, is left alone.
func (e *Event) reset() bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.done != e.recorded || e.wake != nil || e.destroyed {
		return false
	}
	e.recorded, e.done, e.timeNs = 0, 0, 0
	return true
}

// snapshot reads what ElapsedTime needs under the lock.
func (e *Event) snapshot() (recorded, done uint64, t int64, destroyed bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.recorded, e.done, e.timeNs, e.destroyed
}

// ElapsedTime returns the time from start's completion to end's in milliseconds
// (orEventElapsedTime). It does not wait: both events must be complete. It is not clamped, so it
// is negative when end completed first (events on different streams). It fails with ErrorUnknown
// when an event is nil or destroyed, the events are on different devices (or runtimes), either
// was made without timing, was never recorded, or has not completed.
func ElapsedTime(start, end *Event) (float32, error) {
	ns, err := elapsedNs(start, end)
	return float32(float64(ns) / 1e6), err
}

func elapsedNs(start, end *Event) (int64, error) {
	const op = "EventElapsedTime"
	if start == nil || end == nil {
		return 0, unknown(op, "nil event")
	}
	if start.rt != end.rt {
		return 0, unknown(op, "events belong to different runtimes")
	}
	if start.device != end.device {
		return 0, unknown(op, "events are on different devices (%d and %d)", start.device, end.device)
	}
	if !start.timing || !end.timing {
		return 0, unknown(op, "event was created without timing")
	}
	r1, d1, t1, x1 := start.snapshot()
	r2, d2, t2, x2 := end.snapshot()
	switch {
	case x1 || x2:
		return 0, unknown(op, "event is destroyed")
	case r1 == 0 || r2 == 0:
		return 0, unknown(op, "event was never recorded")
	case d1 < r1 || d2 < r2:
		return 0, unknown(op, "event has not completed")
	}
	return t2 - t1, nil
}
