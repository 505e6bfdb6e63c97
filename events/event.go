// Package events is orprof's data model: FunctionEvents (one per recorded operator or range, or
// one per device activity read from a trace), the list that holds them with PyTorch's tree
// (parents, children, same-name collapse, backward stacks), and KeyAverages. Everything here is
// a pure function of its input: nothing mutates an event list it summarises.
package events

import (
	"strings"

	"github.com/orprof/orprof/devices"
)

// RecordScope values PyTorch gives RecordFunction (at::RecordScope).
const (
	ScopeFunction         = 0
	ScopeBackwardFunction = 1
	ScopeUserScope        = 7
)

// Kernel is device time attributed to a host event: a real kernel (Kineto traces) or the single
// fake kernel the legacy/fallback path appends with the op's own name.
type Kernel struct {
	Name       string
	Device     int
	DurationUs float64
}

// FunctionEvent is one operator or range, PyTorch's autograd.profiler_util.FunctionEvent.
// Times are microseconds relative to the start of the profile.
type FunctionEvent struct {
	ID        int64  // RecordFunction handle or correlation id
	Name      string // key name: "ProfilerStep#N" rewritten to "ProfilerStep*"
	TraceName string // name as recorded; written to traces
	Thread    int64  // logical thread id (sessions, legacy traces) or system tid (Kineto traces)
	NodeID    int    // -1 unless distributed
	StartUs   float64
	EndUs     float64
	FwdThread int64
	// InputShapes is Python's str() of the input shapes ("[[64, 64], []]"); "" means None.
	InputShapes string
	Stack       []string
	Scope       int
	SequenceNr  int64
	// CPUMemoryUsage and DeviceMemoryUsage are the bytes allocated (minus freed) while the event
	// was open, children included.
	CPUMemoryUsage    int64
	DeviceMemoryUsage int64
	IsAsync           bool
	IsRemote          bool
	// IsLegacy marks a host event whose device time is one fake kernel covering its children
	// (the legacy and fallback paths); its device total does not add children.
	IsLegacy         bool
	IsUserAnnotation bool
	DeviceType       devices.Type
	DeviceIndex      int
	Kernels          []Kernel
	Flops            int64
	// Overload name, when the trace has one.
	OverloadName string
}

// NewFunctionEvent returns an event with PyTorch's defaults (node id −1, sequence number −1).
func NewFunctionEvent(id int64, name string, thread int64, startUs, endUs float64) FunctionEvent {
	return FunctionEvent{ID: id, Name: RewriteName(name, true), TraceName: RewriteName(name, false),
		Thread: thread, NodeID: -1, StartUs: startUs, EndUs: endUs, SequenceNr: -1}
}

// ElapsedUs is EndUs − StartUs.
func (e *FunctionEvent) ElapsedUs() float64 { return e.EndUs - e.StartUs }

// CPUTimeTotal is the event's wall time on the host; 0 for device events.
func (e *FunctionEvent) CPUTimeTotal() float64 {
	if e.DeviceType != devices.CPU {
		return 0
	}
	return e.ElapsedUs()
}

// IsDeviceEvent reports whether the event ran on an accelerator (a kernel, memcpy, …).
func (e *FunctionEvent) IsDeviceEvent() bool { return e.DeviceType != devices.CPU }

// RewriteName applies PyTorch's _rewrite_name: with the wildcard, "ProfilerStep#N" becomes
// "ProfilerStep*".
func RewriteName(name string, withWildcard bool) string {
	if withWildcard && len(name) >= 13 && name[:13] == "ProfilerStep#" {
		return "ProfilerStep*"
	}
	return name
}

var filteredNames = map[string]struct{}{
	"[memory]": {}, "[OutOfMemory]": {},
	"profiler::_record_function_enter": {}, "profiler::_record_function_enter_new": {},
	"profiler::_record_function_exit": {}, "aten::is_leaf": {}, "aten::output_nr": {}, "aten::_version": {},
}

// FilterName reports whether PyTorch drops records with this name from results (_filter_name).
func FilterName(name string) bool { _, ok := filteredNames[name]; return ok }

// ScopeMetricsPrefix starts the name of a scope profiler's metrics slice ("metrics: <kernel>",
// Kineto's XPU scope profiler and package xpu).
const ScopeMetricsPrefix = "metrics: "

// IsScopeMetrics reports whether a device-side event (or row) named name is a scope
// profiler's metrics slice. PyTorch's key_averages() has a row for each; its time is its
// kernel's, so totals leave it out (optable.TableTotals) rather than count the kernel twice.
func IsScopeMetrics(name string, t devices.Type) bool {
	return t != devices.CPU && strings.HasPrefix(name, ScopeMetricsPrefix)
}
