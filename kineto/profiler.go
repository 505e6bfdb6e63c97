package kineto

import (
	"github.com/orprof/orprof/report"
	"sync"
)

// ActivityProfiler is a child profiler, the Go form of Kineto's IActivityProfiler: it names
// itself, says which activities it can record, and makes a session for a profile.
type ActivityProfiler interface {
	// Name identifies the profiler in messages and trace spans.
	Name() string
	// AvailableActivities is the set of activity types it can record. It must not block.
	AvailableActivities() ActivitySet
	// Configure returns a session recording the activities of want it supports, or nil when it
	// has nothing to record for want. cfg is the profile's Kineto config (never nil).
	Configure(want ActivitySet, cfg *Config) (ActivityProfilerSession, error)
}

// ActivityProfilerSession is one profile's worth of a child profiler, the Go form of Kineto's
// IActivityProfilerSession. The session calls Start, then Push/PopCorrelationID around every
// op (from many goroutines at once: they must be safe for concurrent use, cheap and
// non-blocking), then Stop, then ProcessTrace once.
type ActivityProfilerSession interface {
	Start() error
	Stop() error
	// PushCorrelationID is called as an op begins with the op's correlation id (its
	// RecordFunction handle); PopCorrelationID as it ends.
	PushCorrelationID(id uint64)
	PopCorrelationID()
	// ProcessTrace adds the session's events and its device and resource rows to t. Events
	// linked to an op carry "External id" = the op's correlation id.
	ProcessTrace(t *report.Trace) error
}

// DeviceActivity is device work a session recorded, for the operator table: the table
// attributes its duration to the op whose correlation id it carries, the way torch.profiler
// attributes kernels.
type DeviceActivity struct {
	Type        ActivityType
	Name        string
	Device      int
	Stream      int64
	StartNs     int64
	EndNs       int64
	Correlation int64
}

// DeviceActivitySource is implemented by sessions that record device work the table should
// count (kernels, copies).
type DeviceActivitySource interface {
	DeviceActivities() []DeviceActivity
}

// UserCorrelator is implemented by sessions that also take user correlation ids.
type UserCorrelator interface {
	PushUserCorrelationID(id uint64)
	PopUserCorrelationID()
}

var (
	registered []ActivityProfiler
)

// RegisteredProfilers returns the child profilers every session configures: the PrivateUse1
// profiler and loaded plugins.
func RegisteredProfilers() []ActivityProfiler {
	regMu.Lock()
	defer regMu.Unlock()
	return append([]ActivityProfiler(nil), registered...)
}

var regMu sync.Mutex
