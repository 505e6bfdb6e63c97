// Package kineto is orprof's Kineto-compatible layer: activity types, Kineto's KEY = VALUE
// config, the child activity-profiler interfaces a session drives, the PrivateUse1 profiler
// registry, and the host for dynamic profiler plugins in shared libraries (kineto PR #1148's
// C ABI).
package kineto

import (
	"fmt"
	"sort"
	"strings"
)

// ActivityType is a kind of trace activity. Its numeric value is internal to this process and
// never written anywhere: traces and configs carry the names (String).
type ActivityType uint8

// Kineto main's activity types, in main's order, plus the generic types of kineto PR #1212.
const (
	CPUOp ActivityType = iota
	UserAnnotation
	GPUUserAnnotation
	GPUMemcpy
	GPUMemset
	ConcurrentKernel
	ExternalCorrelation
	CUDARuntime
	CUDADriver
	CPUInstantEvent
	PythonFunction
	Overhead
	MTIARuntime
	MTIACCPEvents
	MTIAInsight
	CUDASync
	CUDAEvent
	MTIACounters
	GlowRuntime
	CUDAProfilerRange
	HPUOp
	XPURuntime
	XPUDriver
	CollectiveComm
	PrivateUse1Runtime
	PrivateUse1Driver
	XPUScopeProfiler
	XPUSync
	HardwareCounters
	// Generic types of PR #1212.
	Runtime
	Driver
	GPUPMCounter
	numActivityTypes
)

var activityNames = [numActivityTypes]string{
	CPUOp: "cpu_op", UserAnnotation: "user_annotation", GPUUserAnnotation: "gpu_user_annotation",
	GPUMemcpy: "gpu_memcpy", GPUMemset: "gpu_memset", ConcurrentKernel: "kernel",
	ExternalCorrelation: "external_correlation", CUDARuntime: "cuda_runtime", CUDADriver: "cuda_driver",
	CPUInstantEvent: "cpu_instant_event", PythonFunction: "python_function", Overhead: "overhead",
	MTIARuntime: "mtia_runtime", MTIACCPEvents: "mtia_ccp_events", MTIAInsight: "mtia_insight",
	CUDASync: "cuda_sync", CUDAEvent: "cuda_event", MTIACounters: "mtia_counters",
	GlowRuntime: "glow_runtime", CUDAProfilerRange: "cuda_profiler_range", HPUOp: "hpu_op",
	XPURuntime: "xpu_runtime", XPUDriver: "xpu_driver", CollectiveComm: "collective_comm",
	PrivateUse1Runtime: "privateuse1_runtime", PrivateUse1Driver: "privateuse1_driver",
	XPUScopeProfiler: "xpu_scope_profiler", XPUSync: "xpu_sync", HardwareCounters: "hardware_counters",
	Runtime: "runtime", Driver: "driver", GPUPMCounter: "gpu_pm_counter",
}

// String is the activity's name as configs and trace "cat" fields spell it.
func (t ActivityType) String() string {
	if t < numActivityTypes {
		return activityNames[t]
	}
	return fmt.Sprintf("activity(%d)", uint8(t))
}

// ParseActivityType reads an activity name, case-insensitively. The old device-specific names
// are accepted as themselves; "runtime", "driver" and "gpu_pm_counter" are the generic types.
func ParseActivityType(s string) (ActivityType, error) {
	n := strings.ToLower(strings.TrimSpace(s))
	for i, name := range activityNames {
		if name == n {
			return ActivityType(i), nil
		}
	}
	return 0, fmt.Errorf("invalid activity type %q", s)
}

// ActivitySet is a set of activity types.
type ActivitySet uint64

// NewActivitySet returns the set of the given types.
func NewActivitySet(ts ...ActivityType) ActivitySet {
	var s ActivitySet
	for _, t := range ts {
		s |= 1 << t
	}
	return s
}

// Has reports whether t is in the set, directly or through PR #1212's aliasing: the generic
// Runtime covers every *_runtime type, Driver every *_driver type, GPUPMCounter MTIA counters,
// and the reverse.
func (s ActivitySet) Has(t ActivityType) bool {
	if s&(1<<t) != 0 {
		return true
	}
	for _, a := range aliasesOf(t) {
		if s&(1<<a) != 0 {
			return true
		}
	}
	return false
}

// aliasesOf lists the types PR #1212 gives the same value as t.
func aliasesOf(t ActivityType) []ActivityType {
	switch t {
	case Runtime:
		return []ActivityType{CUDARuntime, MTIARuntime, GlowRuntime, HPUOp, XPURuntime, PrivateUse1Runtime}
	case CUDARuntime, MTIARuntime, GlowRuntime, HPUOp, XPURuntime, PrivateUse1Runtime:
		return []ActivityType{Runtime}
	case Driver:
		return []ActivityType{CUDADriver, XPUDriver, PrivateUse1Driver}
	case CUDADriver, XPUDriver, PrivateUse1Driver:
		return []ActivityType{Driver}
	case GPUPMCounter:
		return []ActivityType{MTIACounters}
	case MTIACounters:
		return []ActivityType{GPUPMCounter}
	case MTIACCPEvents:
		return []ActivityType{ConcurrentKernel}
	}
	return nil
}

// Add returns the set with t added.
func (s ActivitySet) Add(t ActivityType) ActivitySet { return s | 1<<t }

// Intersect returns the types of s that o also has (aliases included).
func (s ActivitySet) Intersect(o ActivitySet) ActivitySet {
	var r ActivitySet
	for _, t := range s.Types() {
		if o.Has(t) {
			r |= 1 << t
		}
	}
	return r
}

// Empty reports whether the set has no type.
func (s ActivitySet) Empty() bool { return s == 0 }

// Types lists the set's types in their order.
func (s ActivitySet) Types() []ActivityType {
	var out []ActivityType
	for t := ActivityType(0); t < numActivityTypes; t++ {
		if s&(1<<t) != 0 {
			out = append(out, t)
		}
	}
	return out
}

// String lists the names, comma-separated, sorted.
func (s ActivitySet) String() string {
	var names []string
	for _, t := range s.Types() {
		names = append(names, t.String())
	}
	sort.Strings(names)
	return strings.Join(names, ",")
}

// DefaultActivities is Kineto's default set: every type before glow_runtime.
func DefaultActivities() ActivitySet {
	var s ActivitySet
	for t := CPUOp; t < GlowRuntime; t++ {
		s |= 1 << t
	}
	return s
}

// ParseActivities reads a comma-separated list of activity names. An empty list is the
// default set. A bad entry is an error naming it.
func ParseActivities(list string) (ActivitySet, error) {
	if strings.TrimSpace(list) == "" {
		return DefaultActivities(), nil
	}
	var s ActivitySet
	for _, part := range strings.Split(list, ",") {
		if strings.TrimSpace(part) == "" {
			continue
		}
		t, err := ParseActivityType(part)
		if err != nil {
			return 0, err
		}
		s |= 1 << t
	}
	return s, nil
}
