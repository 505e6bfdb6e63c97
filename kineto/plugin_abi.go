package kineto

import (
	"fmt"
	"structs"
	"unsafe"
)

// Go mirrors of the structs of kineto_plugin.h on LP64 targets. C enums are int32 here, C
// unions of two int32 one int32, function and opaque pointers uintptr (bound after NULL
// checks), pointers to host memory unsafe.Pointer (pinned while C may read them). Padding is
// explicit because purego does not align fields. Host memory C reads during a call is pinned
// for the call; memory it may keep (the enabled types) is C memory.

type cProfileEvent struct {
	_                structs.HostLayout
	size             uintptr
	eventType        int32
	_                [4]byte
	startNs, endNs   int64
	eventID          int64
	device, resource int32
}

// cEventFlow is read field by field (its unpadded size, 17, is below its sizeof, 24).
type cEventFlow struct {
	_            structs.HostLayout
	size         uintptr
	flowType     int32
	flowID       uint32
	isStartPoint uint8 // C bool: read as a byte so a value other than 0/1 cannot corrupt Go
}

type cDeviceInfo struct {
	_           structs.HostLayout
	size        uintptr
	deviceID    int64
	sortIndex   int64
	name, label *byte
}

type cResourceInfo struct {
	_                structs.HostLayout
	size             uintptr
	device, resource int32
	displayOrder     int32
	_                [4]byte
	name             *byte
}

type cTraceBuilder struct {
	_                    structs.HostLayout
	size                 uintptr
	handle               uintptr // an integer id, never a Go pointer
	addEvent             uintptr
	setLastEventName     uintptr
	setLastEventFlow     uintptr
	addLastEventMetadata uintptr
	addDeviceInfo        uintptr
	addResourceInfo      uintptr
}

type cCreateParams struct {
	_          structs.HostLayout
	size       uintptr
	handle     uintptr        // [out] by value: zero on entry, the plugin assigns its session handle
	enabled    unsafe.Pointer // *int32 array in C memory
	enabledLen uintptr
}

// cHandleParams is the Destroy, Start, Stop, PopCorrelationId and PopUserCorrelationId params.
type cHandleParams struct {
	_      structs.HostLayout
	size   uintptr
	handle uintptr
}

type cQueryParams struct {
	_        structs.HostLayout
	size     uintptr
	handle   uintptr
	name     unsafe.Pointer
	nameMax  uintptr
	types    unsafe.Pointer
	typesMax uintptr
}

type cProcessEventsParams struct {
	_       structs.HostLayout
	size    uintptr
	handle  uintptr
	builder unsafe.Pointer // *cTraceBuilder in host memory
}

// cPushParams is the PushCorrelationId and PushUserCorrelationId params: the id comes first.
type cPushParams struct {
	_      structs.HostLayout
	size   uintptr
	id     uint64
	handle uintptr
}

type cInterface struct {
	_                                   structs.HostLayout
	size                                uintptr
	create, destroy, query, start, stop uintptr
	pushCorrelation, popCorrelation     uintptr
	pushUserCorrelation                 uintptr
	popUserCorrelation                  uintptr
	processEvents                       uintptr
}

type cRegistry struct {
	_                structs.HostLayout
	size             uintptr
	handle           uintptr // an integer id, never a Go pointer
	registerProfiler uintptr
}

// The unpadded sizes of kineto_plugin.h, as this host knows them: what a plugin's
// unpaddedStructSize must at least be, and what the host writes into the structs it fills.
const (
	eventSize          = unsafe.Offsetof(cProfileEvent{}.resource) + unsafe.Sizeof(cProfileEvent{}.resource)               // 48
	flowSize           = unsafe.Offsetof(cEventFlow{}.isStartPoint) + unsafe.Sizeof(cEventFlow{}.isStartPoint)             // 17
	deviceInfoSize     = unsafe.Offsetof(cDeviceInfo{}.label) + unsafe.Sizeof(cDeviceInfo{}.label)                         // 40
	resourceInfoSize   = unsafe.Offsetof(cResourceInfo{}.name) + unsafe.Sizeof(cResourceInfo{}.name)                       // 32
	traceBuilderSize   = unsafe.Offsetof(cTraceBuilder{}.addResourceInfo) + unsafe.Sizeof(cTraceBuilder{}.addResourceInfo) // 64
	createParamsSize   = unsafe.Offsetof(cCreateParams{}.enabledLen) + unsafe.Sizeof(cCreateParams{}.enabledLen)           // 32
	handleParamsSize   = unsafe.Offsetof(cHandleParams{}.handle) + unsafe.Sizeof(cHandleParams{}.handle)                   // 16
	queryParamsSize    = unsafe.Offsetof(cQueryParams{}.typesMax) + unsafe.Sizeof(cQueryParams{}.typesMax)                 // 48
	processParamsSize  = unsafe.Offsetof(cProcessEventsParams{}.builder) + unsafe.Sizeof(cProcessEventsParams{}.builder)   // 24
	pushParamsSize     = unsafe.Offsetof(cPushParams{}.handle) + unsafe.Sizeof(cPushParams{}.handle)                       // 24
	interfaceSize      = unsafe.Offsetof(cInterface{}.processEvents) + unsafe.Sizeof(cInterface{}.processEvents)           // 88
	registrySize       = unsafe.Offsetof(cRegistry{}.registerProfiler) + unsafe.Sizeof(cRegistry{}.registerProfiler)       // 24
	pluginNameBufSize  = 32                                                                                                // name buffer handed to profilerQuery
	pluginNumTypes     = 25                                                                                                // KINETO_PLUGIN_PROFILE_EVENT_NUM_TYPES
	pluginFlowFwdBwd   = 1
	pluginFlowAsyncGPU = 2
)

// pluginEventTypes maps KinetoPlugin_ProfileEventType values to activity types; 0 is INVALID.
var pluginEventTypes = [pluginNumTypes]ActivityType{
	1: CPUOp, 2: UserAnnotation, 3: GPUUserAnnotation, 4: GPUMemcpy, 5: GPUMemset,
	6: ConcurrentKernel, 7: ExternalCorrelation, 8: CUDARuntime, 9: CUDADriver,
	10: CPUInstantEvent, 11: PythonFunction, 12: Overhead, 13: MTIARuntime, 14: MTIACCPEvents,
	15: MTIAInsight, 16: CUDASync, 17: GlowRuntime, 18: CUDAProfilerRange, 19: HPUOp,
	20: XPURuntime, 21: CollectiveComm, 22: GPUPMCounter, 23: PrivateUse1Runtime,
	24: PrivateUse1Driver,
}

// activityFromPlugin maps a plugin event type to an activity type. Like Kineto, a value this
// host does not know (a newer header) is treated as a kernel; known is false then. INVALID (0)
// is not a type: ok is false.
func activityFromPlugin(v int32) (t ActivityType, known, ok bool) {
	switch {
	case v == 0:
		return 0, false, false
	case v > 0 && v < pluginNumTypes:
		return pluginEventTypes[v], true, true
	}
	return ConcurrentKernel, false, true
}

// maxCString bounds how far a C string is read looking for its NUL.
const maxCString = 1 << 20

// goString copies a NUL-terminated C string; ok is false for NULL or a string with no NUL in
// its first maxCString bytes.
func goString(p *byte) (s string, ok bool) {
	if p == nil {
		return "", false
	}
	base := unsafe.Pointer(p)
	for n := 0; n < maxCString; n++ {
		if *(*byte)(unsafe.Add(base, n)) == 0 {
			return string(unsafe.Slice(p, n)), true
		}
	}
	return "", false
}

// sizeError says a struct's unpaddedStructSize is below what this host needs.
func sizeError(what string, got, want uintptr) error {
	return fmt.Errorf("%s: unpaddedStructSize %d < %d (plugin built against an incompatible kineto_plugin.h)", what, got, want)
}
