// Package stubs is the Go form of PyTorch's ProfilerStubs: the hooks a device backend implements
// so the profiler can time work on it (Record, Elapsed, Synchronize, OnEachDevice, optionally
// Mark/RangePush/RangePop), with a registry of backends by device name. It also loads backends
// written in C against orprof_stubs.h (Open) and wraps their failures once (CallError, Wrap).
package stubs

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"
)

// Event is a device event created by Record. It is owned by the backend that made it: only that
// backend's Elapsed and ReleaseEvent may look inside it.
type Event any

// Want selects which outputs of Record the caller needs, mirroring the optional out-pointers of
// ProfilerStubs::record. A backend must not create an event unless WantEvent is set.
type Want uint8

// The outputs Record can produce.
const (
	WantDevice  Want = 1 << iota // the current device index
	WantEvent                    // a new timing event enqueued on the current stream
	WantCPUTime                  // the host time, CLOCK_REALTIME ns, taken just before enqueueing
)

// Recorded is what Record produced; fields not asked for are zero.
type Recorded struct {
	Device int
	Event  Event
	CPUNs  int64
	// Stream is the id of the stream the event was enqueued on, when the backend knows it
	// (0 otherwise). It places device work on trace rows.
	Stream int64
}

// Stubs is the contract a device backend implements. Methods are called from many goroutines
// at once and must be safe for concurrent use. ctx carries the caller's device state (its
// current device and stream, for backends that keep them in the context); backends that keep
// such state elsewhere may ignore it.
type Stubs interface {
	// Enabled reports whether the backend is usable. It must not block.
	Enabled() bool
	// Record creates an event on the current stream of the current device and/or reads the
	// current device and host clock, as want asks. It should not block on device work.
	Record(ctx context.Context, want Want) (Recorded, error)
	// Elapsed waits until both events have completed and returns the time from start to end in
	// microseconds (negative when end ran first). Events from a different backend (or another
	// instance), events on two devices and released events are an error; a nil event gives 0
	// or an error (PyTorch's OpenReg returns 0, CUDA fails). It may be called on any goroutine,
	// not only the one that recorded the events.
	Elapsed(start, end Event) (float64, error)
	// OnEachDevice calls fn for every device index 0..count−1 in order, each time with a
	// context in which that device is current; the caller's current device is unchanged after.
	// It stops at and returns the first error fn returns.
	OnEachDevice(ctx context.Context, fn func(ctx context.Context, device int) error) error
	// Synchronize blocks until all work queued on the devices has completed.
	Synchronize(ctx context.Context) error
}

// Marker is implemented by backends that can place an instant marker in their own tracing
// tools (NVTX's nvtxMark). It must not block.
type Marker interface {
	Mark(name string) error
}

// Ranger is implemented by backends that can show nested ranges in their own tracing tools
// (NVTX's push/pop). Each OS thread has its own stack: RangePop must be called on the same OS
// thread as its RangePush, and a pop with nothing pushed on that thread is an error. A backend
// without an annotation tool may instead make both no-ops that always succeed, as PyTorch's
// OpenReg does.
type Ranger interface {
	RangePush(name string) error
	RangePop() error
}

// ThreadRanger is implemented by backends whose range stack belongs to an OS thread and that can
// push and pop on the calling goroutine's OS thread, which the caller keeps locked
// (runtime.LockOSThread) from a push to its pop. C backends loaded with Open implement it (their
// RangePush and RangePop instead serve every goroutine from one thread of their own). The
// conformance kit uses it to check that each thread has its own stack.
type ThreadRanger interface {
	ThreadRangePush(name string) error
	ThreadRangePop() error
}

// DeviceWorker is implemented by backends that can queue work for a given time: QueueWork
// enqueues, on ctx's current stream of its current device, work that keeps the stream busy for at
// least d of wall time once the stream reaches it, and returns without waiting for it. Events
// recorded after it complete after it; Synchronize waits for it. It is optional (the C ABI's
// queueWork hook); the conformance kit uses it to check that Elapsed spans queued work and that
// Synchronize waits for every device.
type DeviceWorker interface {
	QueueWork(ctx context.Context, d time.Duration) error
}

// EventReleaser is implemented by backends whose events hold resources; the profiler calls
// ReleaseEvent exactly once for every event it got from Record, after its last Elapsed.
type EventReleaser interface {
	ReleaseEvent(e Event)
}

// DeviceCounter is implemented by backends that can say how many devices they have.
type DeviceCounter interface {
	DeviceCount() (int, error)
}

// Closer is implemented by backends that hold process resources (a loaded library).
type Closer interface {
	Close() error
}

// NotEnabledError is the error of every call on the default stubs, the Go form of PyTorch's
// DefaultStubs::fail(): "<name> used in profiler but not enabled."
type NotEnabledError struct{ Device string }

func (e *NotEnabledError) Error() string { return e.Device + " used in profiler but not enabled." }

// ErrNotEnabled matches any NotEnabledError with errors.Is.
var ErrNotEnabled = errors.New("used in profiler but not enabled")

// Is makes errors.Is(err, ErrNotEnabled) true.
func (e *NotEnabledError) Is(target error) bool { return target == ErrNotEnabled }

// Default returns stubs for a device nobody registered: Enabled is false and every other call
// fails with NotEnabledError naming the device.
func Default(device string) Stubs { return defaultStubs{name: device} }

type defaultStubs struct{ name string }

func (d defaultStubs) fail() error                                    { return &NotEnabledError{Device: d.name} }
func (d defaultStubs) Enabled() bool                                  { return false }
func (d defaultStubs) Record(context.Context, Want) (Recorded, error) { return Recorded{}, d.fail() }
func (d defaultStubs) Elapsed(Event, Event) (float64, error)          { return 0, d.fail() }
func (d defaultStubs) Synchronize(context.Context) error              { return d.fail() }
func (d defaultStubs) Mark(string) error                              { return d.fail() }
func (d defaultStubs) RangePush(string) error                         { return d.fail() }
func (d defaultStubs) RangePop() error                                { return d.fail() }
func (d defaultStubs) DeviceCount() (int, error)                      { return 0, d.fail() }
func (d defaultStubs) OnEachDevice(context.Context, func(context.Context, int) error) error {
	return d.fail()
}

var (
	regMu    sync.RWMutex
	registry = map[string]Stubs{}
)

// Register makes s the stubs for device name (case-insensitive). Like PyTorch's
// register*Methods it is last-writer-wins: registering a name again replaces the previous
// stubs. It panics on an empty name or nil stubs, which are programming errors.
func Register(name string, s Stubs) {
	if name == "" || s == nil {
		panic("stubs: Register needs a device name and non-nil stubs")
	}
	regMu.Lock()
	registry[strings.ToLower(name)] = s
	regMu.Unlock()
}

// Unregister removes the stubs registered for name, if any.
func Unregister(name string) {
	regMu.Lock()
	delete(registry, strings.ToLower(name))
	regMu.Unlock()
}

// Lookup returns the stubs registered for device name, or Default(name) when there are none.
func Lookup(name string) Stubs {
	regMu.RLock()
	s, ok := registry[strings.ToLower(name)]
	regMu.RUnlock()
	if !ok {
		return Default(name)
	}
	return s
}

// Registered reports whether stubs were registered for name.
func Registered(name string) bool {
	regMu.RLock()
	_, ok := registry[strings.ToLower(name)]
	regMu.RUnlock()
	return ok
}

// Devices returns the registered device names, sorted.
func Devices() []string {
	regMu.RLock()
	defer regMu.RUnlock()
	out := make([]string, 0, len(registry))
	for n := range registry {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// CallError wraps a backend failure with the device and the hook that failed, keeping the
// backend's message: "DEVICE: HOOK: message". Make one with Wrap, which adds the prefix once.
type CallError struct {
	Device string
	Hook   string
	Err    error
}

// Wrap returns err as a *CallError naming device and hook, or err itself when it is nil or
// already holds a *CallError (errors.As): a failure passing through several layers of orprof
// keeps the one prefix of the call that failed.
func Wrap(device, hook string, err error) error {
	var ce *CallError
	if err == nil || errors.As(err, &ce) {
		return err
	}
	return &CallError{Device: device, Hook: hook, Err: err}
}

// Error is "DEVICE: HOOK: message".
func (e *CallError) Error() string { return fmt.Sprintf("%s: %s: %v", e.Device, e.Hook, e.Err) }

// Unwrap returns the backend's error.
func (e *CallError) Unwrap() error { return e.Err }
