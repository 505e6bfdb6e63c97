package devices

import (
	"sync/atomic"
	"time"
	_ "unsafe" // for go:linkname
)

// Clock is the time source of everything that timestamps: the profiler, the OpenReg device, the
// stream workers. Tests inject a fake one to make overlap and elapsed logic deterministic.
type Clock interface {
	// Now returns nanoseconds since the Unix epoch (CLOCK_REALTIME, like c10::getTime). It must
	// be safe for concurrent use and must not block.
	Now() int64
}

// SystemClock reads the host's real-time clock the cheap way: CLOCK_REALTIME sampled once at
// start-up, advanced by the monotonic clock. It never goes backwards (an NTP step after start-up
// does not move it) and costs one vDSO read instead of time.Now's two.
type SystemClock struct{}

//go:linkname nanotime runtime.nanotime
func nanotime() int64

var wallAtStart, monoAtStart = func() (int64, int64) {
	m := nanotime()
	w := time.Now().UnixNano()
	return w, m
}()

// Now returns Unix nanoseconds.
func (SystemClock) Now() int64 { return wallAtStart + (nanotime() - monoAtStart) }

// FakeClock is a manual clock for tests: it only moves when told to. Safe for concurrent use.
type FakeClock struct{ ns atomic.Int64 }

// NewFakeClock returns a clock standing at ns.
func NewFakeClock(ns int64) *FakeClock { c := &FakeClock{}; c.ns.Store(ns); return c }

// Now returns the current fake time.
func (c *FakeClock) Now() int64 { return c.ns.Load() }

// Advance moves the clock forward by d and returns the new time.
func (c *FakeClock) Advance(d time.Duration) int64 { return c.ns.Add(int64(d)) }

// Set moves the clock to ns.
func (c *FakeClock) Set(ns int64) { c.ns.Store(ns) }

// Stream is an ordered queue of device work, as a backend exposes it.
type Stream interface {
	// ID is the stream's identifier, unique per device; it becomes the trace tid of its work.
	ID() int64
	// DeviceIndex is the device the stream belongs to.
	DeviceIndex() int
	// Synchronize blocks until all work queued so far has completed.
	Synchronize() error
	// Query reports whether the stream has no queued work left.
	Query() bool
}

// Event marks a point in a stream's work.
type Event interface {
	// Record enqueues the event on s; the event completes when s reaches it.
	Record(s Stream) error
	// Synchronize blocks until the event has completed; an event never recorded returns at once.
	Synchronize() error
	// Query reports whether the event has completed.
	Query() bool
}
