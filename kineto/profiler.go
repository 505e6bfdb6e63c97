package kineto

import (
	"sync"

	"github.com/orprof/orprof/trace"
)

// ActivityProfiler is a child profiler, the Go form of Kineto's IActivityProfiler: it names
// itself, says which activities it can record, and makes a session for a profile. Its methods
// may be called from any goroutine, including concurrently for different sessions.
type ActivityProfiler interface {
	// Name identifies the profiler in messages and trace spans. It must not block.
	Name() string
	// AvailableActivities is the set of activity types it can record. It must not block.
	AvailableActivities() ActivitySet
	// Configure returns a session recording the activities of want it supports, or nil, nil
	// when it has nothing to record for want. cfg is the profile's Kineto config (never nil;
	// read-only). It is called once per profile before the ops run and may block briefly
	// (setting up device tracing); an error leaves the profile running without this profiler.
	Configure(want ActivitySet, cfg *Config) (ActivityProfilerSession, error)
}

// ActivityProfilerSession is one profile's worth of a child profiler, the Go form of Kineto's
// IActivityProfilerSession. The profiling session calls Start, then Push/PopCorrelationID
// around every op, then Stop, then ProcessTrace once; Start, Stop and ProcessTrace are called
// from one goroutine, in that order, and may block.
type ActivityProfilerSession interface {
	// Start begins recording. On error the session is dropped: Stop and ProcessTrace are not
	// called, so a failing Start releases what Configure acquired.
	Start() error
	// Stop ends recording. An error is reported; ProcessTrace is still called.
	Stop() error
	// PushCorrelationID is called as an op begins, with the op's correlation id (its
	// RecordFunction handle); PopCorrelationID as it ends. They are called from many
	// goroutines at once, on whatever OS thread each runs: they must be safe for concurrent
	// use, cheap and non-blocking, and must not keep anything beyond the call.
	PushCorrelationID(id uint64)
	PopCorrelationID()
	// ProcessTrace adds the session's events and its device and resource rows to t (absolute
	// ns). Events linked to an op carry "External id" = the op's correlation id. t is owned by
	// the caller and must not be kept. An error is a warning: what was added stays.
	ProcessTrace(t *trace.Trace) error
}

// DeviceActivity is device work a session recorded, for the operator table: the table
// attributes its duration to the op whose correlation id it carries, the way torch.profiler
// attributes kernels. Times are absolute ns.
//
// Runtime and driver calls (IsHost) are the host side of launches: they become host events of
// their own, on the thread of the op they are linked to (Thread when none), as torch.profiler
// shows cudaLaunchKernel rows.
type DeviceActivity struct {
	Type        ActivityType
	Name        string
	Device      int
	Stream      int64
	StartNs     int64
	EndNs       int64
	Correlation int64
	// Thread is the thread that made a host-side call (IsHost); unused for device work.
	Thread int64
}

// IsHost reports whether the activity ran on the host: a runtime or driver call.
func (a DeviceActivity) IsHost() bool { return isHostActivity(a.Type) }

// isHostActivity reports whether activities of type t run on the host (runtime and driver
// calls of any device, CPU ops and annotations).
func isHostActivity(t ActivityType) bool {
	switch t {
	case CPUOp, UserAnnotation, ExternalCorrelation, CUDARuntime, CUDADriver, CPUInstantEvent,
		PythonFunction, Overhead, MTIARuntime, GlowRuntime, XPURuntime, XPUDriver,
		PrivateUse1Runtime, PrivateUse1Driver, Runtime, Driver, CUDASync, XPUSync:
		return true
	}
	return false
}

// DeviceActivitySource is implemented by sessions that record device work the table should
// count (kernels, copies). DeviceActivities is called after ProcessTrace, from the same
// goroutine; the returned slice belongs to the caller.
type DeviceActivitySource interface {
	DeviceActivities() []DeviceActivity
}

// RecordCounter is implemented by sessions that can say how many activities they hold so far
// while they record: a capture bounded by its records (orprof.CaptureOptions.MaxEvents,
// httpprof's MaxEvents) counts them with the host records, so that the bound bounds memory in
// kernels mode too. Records is called from another goroutine than the recording ones, every
// few milliseconds, before Stop: it must be safe for concurrent use and cheap.
type RecordCounter interface {
	Records() int
}

// UserCorrelator is implemented by sessions that also take user correlation ids. The methods
// follow the rules of PushCorrelationID.
type UserCorrelator interface {
	PushUserCorrelationID(id uint64)
	PopUserCorrelationID()
}

var (
	regMu      sync.Mutex
	registered []ActivityProfiler
)

// RegisteredProfilers returns the child profilers every session configures: the PrivateUse1
// profiler (PrivateUse1Profiler) first, then the registered plugins (RegisterPlugins,
// LoadPluginsFromEnv), in registration order. The slice is a copy; safe for concurrent use.
func RegisteredProfilers() []ActivityProfiler {
	var out []ActivityProfiler
	if p := PrivateUse1Profiler(); p != nil {
		out = append(out, p)
	}
	regMu.Lock()
	defer regMu.Unlock()
	return append(out, registered...)
}

// addRegisteredLocked appends p unless an equal profiler is registered; regMu is held.
func addRegisteredLocked(p ActivityProfiler) {
	for _, q := range registered {
		if sameProfiler(p, q) {
			return
		}
	}
	registered = append(registered, p)
}

func sameProfiler(a, b ActivityProfiler) bool {
	ra, aok := a.(refusedPlugin)
	rb, bok := b.(refusedPlugin)
	if aok || bok {
		return aok && bok && ra.err.Path == rb.err.Path && ra.err.Error() == rb.err.Error()
	}
	return a == b
}
