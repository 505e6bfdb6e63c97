package kineto

import (
	"fmt"
	"sort"
	"strings"

	"github.com/orprof/orprof/internal/quote"
)

// ActivityType is a kind of trace activity. Its numeric value is internal to this process and
// never written anywhere: Kineto's C++ integers have changed between releases, so traces and
// configs carry the names (String), and plugins the enum of kineto_plugin.h.
type ActivityType uint8

// Kineto main's activity types, in main's order, then the generic types of kineto PR #1212.
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
	// Runtime is PR #1212's generic runtime type; every *_runtime type (and hpu_op) is its alias.
	Runtime
	// Driver is PR #1212's generic driver type; every *_driver type is its alias.
	Driver
	// GPUPMCounter is a GPU performance-monitoring counter sample (PR #1212, PR #1148's plugin
	// counters). It has no alias: PR #1212's header declares no MTIA_COUNTERS alias (it predates
	// that type), and it is not a default.
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

// extraNames are spellings accepted besides the names: the C++ enumerator where it differs
// from the string Kineto writes.
var extraNames = map[string]ActivityType{
	"concurrent_kernel": ConcurrentKernel,
}

// String is the activity's name as configs and trace "cat" fields spell it (Kineto main's
// names; the generic types use PR #1212's).
func (t ActivityType) String() string {
	if t < numActivityTypes {
		return activityNames[t]
	}
	return fmt.Sprintf("activity(%d)", uint8(t))
}

// MarshalText writes the name, so encoders never see the internal integer.
func (t ActivityType) MarshalText() ([]byte, error) {
	if t >= numActivityTypes {
		return nil, fmt.Errorf("kineto: no activity type %d", uint8(t))
	}
	return []byte(activityNames[t]), nil
}

// UnmarshalText reads a name as ParseActivityType does.
func (t *ActivityType) UnmarshalText(b []byte) error {
	v, err := ParseActivityType(string(b))
	if err != nil {
		return err
	}
	*t = v
	return nil
}

// allActivityTypes lists every activity type, in declaration order.
func allActivityTypes() []ActivityType {
	out := make([]ActivityType, numActivityTypes)
	for i := range out {
		out[i] = ActivityType(i)
	}
	return out
}

// ParseActivityType reads an activity name, case-insensitively, surrounding space ignored.
// Main's device-specific names ("cuda_runtime") are types of their own; "runtime", "driver"
// and "gpu_pm_counter" are PR #1212's generic types, which ActivitySet.Has treats as aliases of
// them. The C++ enumerator "concurrent_kernel" is accepted for "kernel".
func ParseActivityType(s string) (ActivityType, error) {
	n := strings.ToLower(strings.TrimSpace(s))
	for i, name := range activityNames {
		if name == n {
			return ActivityType(i), nil
		}
	}
	if t, ok := extraNames[n]; ok {
		return t, nil
	}
	return 0, fmt.Errorf("unknown activity type %q", s)
}

// ActivitySet is a set of activity types. It is an in-process value: write it with String.
type ActivitySet uint64

// NewActivitySet returns the set of the given types.
func NewActivitySet(ts ...ActivityType) ActivitySet {
	var s ActivitySet
	for _, t := range ts {
		s = s.Add(t)
	}
	return s
}

// Has reports whether t is in the set, directly or through PR #1212's aliasing, in which a
// generic type and its device-specific aliases share one value: Runtime ↔ cuda/mtia/glow/xpu/
// privateuse1 runtime and hpu_op, Driver ↔ cuda/xpu/privateuse1 driver, ConcurrentKernel ↔
// mtia_ccp_events.
//
// Unlike PR #1212, where cuda_runtime, xpu_runtime, privateuse1_runtime and runtime are one
// value, orprof keeps Kineto main's device-specific types apart (main and PyTorch's activity
// groups treat them as distinct; the trace writes main's names). So a set containing
// cuda_runtime has cuda_runtime and runtime, and not xpu_runtime, mtia_runtime,
// privateuse1_runtime or any other device's runtime; a set containing runtime has all of them.
func (s ActivitySet) Has(t ActivityType) bool {
	if t >= numActivityTypes {
		return false
	}
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
	case MTIACCPEvents:
		return []ActivityType{ConcurrentKernel}
	case ConcurrentKernel:
		return []ActivityType{MTIACCPEvents}
	}
	return nil
}

// Add returns the set with t added; an out-of-range t is ignored.
func (s ActivitySet) Add(t ActivityType) ActivitySet {
	if t >= numActivityTypes {
		return s
	}
	return s | 1<<t
}

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

// Len is the number of types in the set (aliases not counted).
func (s ActivitySet) Len() int { return len(s.Types()) }

// Types lists the set's types in declaration order.
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

// MarshalText writes String.
func (s ActivitySet) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText reads a list as ParseActivities does.
func (s *ActivitySet) UnmarshalText(b []byte) error {
	v, err := ParseActivities(string(b))
	if err != nil {
		return err
	}
	*s = v
	return nil
}

// DefaultActivities is Kineto main's default set: every type before glow_runtime (cpu_op ...
// mtia_counters, 18 types). Through aliasing it also has PR #1212's generic defaults (runtime,
// driver); like PR #1212's default list it does not have gpu_pm_counter, collective_comm or
// cuda_profiler_range.
func DefaultActivities() ActivitySet {
	var s ActivitySet
	for t := CPUOp; t < GlowRuntime; t++ {
		s |= 1 << t
	}
	return s
}

// ParseActivities reads a comma-separated list of activity names (ParseActivityType). An
// empty or all-blank list is the default set; blank entries are skipped. A bad entry is an
// error naming it and its position.
func ParseActivities(list string) (ActivitySet, error) {
	var s ActivitySet
	for i, part := range strings.Split(list, ",") {
		if strings.TrimSpace(part) == "" {
			continue
		}
		t, err := ParseActivityType(part)
		if err != nil {
			return 0, fmt.Errorf("activity list %s: entry %d: unknown activity type %s", quote.String(list), i+1, quote.String(strings.TrimSpace(part)))
		}
		s = s.Add(t)
	}
	if s.Empty() {
		return DefaultActivities(), nil
	}
	return s, nil
}
