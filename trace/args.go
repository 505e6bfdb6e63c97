package trace

import "strconv"

// The args keys of trace events that more than one package writes or reads. Kineto's and
// PyTorch's names are spelled as they spell them; the orprof-only ones carry what PyTorch keeps
// in memory and a trace would otherwise lose.
const (
	// ArgExternalID links an event to the operator that caused it: an op's own correlation id,
	// on a runtime call or device event the id of its op.
	ArgExternalID = "External id"
	// ArgCorrelation is a runtime call's or device event's correlation id.
	ArgCorrelation = "correlation"
	// ArgRecordFunctionID is an operator's record-function id.
	ArgRecordFunctionID = "Record function id"
	// ArgSequenceNumber is an autograd operator's sequence number.
	ArgSequenceNumber = "Sequence number"
	// ArgFwdThreadID is the thread of the forward operator of a backward one.
	ArgFwdThreadID = "Fwd thread id"
	// ArgInputDims is an operator's input shapes, a JSON array of arrays.
	ArgInputDims = "Input Dims"
	// ArgCallStack is an operator's Python stack, frames joined by ';'.
	ArgCallStack = "Call stack"
	// ArgOpCount is the number of operators in a "Trace" span.
	ArgOpCount = "Op count"
	// ArgMemBytes is a "[memory]" instant's allocation size (negative when freed).
	ArgMemBytes = "Bytes"
	// ArgMemDeviceType is a "[memory]" instant's device as a c10::DeviceType number.
	ArgMemDeviceType = "Device Type"
	// ArgMemDeviceID is a "[memory]" instant's device index; ArgMemTotalAllocated and
	// ArgMemTotalReserved are the allocator's totals after the allocation or free (bytes).
	ArgMemDeviceID       = "Device Id"
	ArgMemTotalAllocated = "Total Allocated"
	ArgMemTotalReserved  = "Total Reserved"
	// ArgMemAddr is a "[memory]" instant's block address.
	ArgMemAddr = "Addr"
	// ArgBlocksPerSM and ArgOccupancy are a kernel's CUPTI estimates of its blocks per SM and
	// achieved occupancy in percent.
	ArgBlocksPerSM = "blocks per SM"
	ArgOccupancy   = "est. achieved occupancy %"
	// ArgDevice is a device event's device index (Kineto's "device").
	ArgDevice = "device"
	// ArgStream is a device event's stream (Kineto's "stream").
	ArgStream = "stream"
	// ArgFlops is a kernel's floating-point operation count.
	ArgFlops = "flops"
	// ArgBytes is the number of bytes a kernel or copy moved.
	ArgBytes = "bytes"
	// ArgLabels is the args key of a "process_labels" metadata event.
	ArgLabels = "labels"

	// ArgScope (orprof) is an operator's RecordScope number when not 0.
	ArgScope = "Scope"
	// ArgAsync (orprof) is true on an operator that ended on another thread or was marked async.
	ArgAsync = "Async"
	// ArgEndThreadID (orprof) is the thread an async operator ended on.
	ArgEndThreadID = "End thread id"
	// ArgDeviceTimeUs (orprof) is an operator's fallback device time in whole µs (PyTorch's
	// single legacy kernel), measured on the device whose index is ArgOpDevice.
	ArgDeviceTimeUs = "Device time us"
	// ArgOpDevice (orprof) is the device index of ArgDeviceTimeUs.
	ArgOpDevice = "Device"
	// ArgDeviceTime (orprof) is DeviceTimeFallback on a device row that draws an operator's
	// fallback interval; it is also a key of the top-level MetaOrprof object.
	ArgDeviceTime = "device_time"
)

// Top-level keys and values orprof writes besides Kineto's.
const (
	// MetaOrprof is the top-level object orprof's sessions write:
	// {"device": NAME, "device_time": "kernels" | "fallback"}.
	MetaOrprof = "orprof"
	// MetaDevice is the MetaOrprof member naming the session's device ("cpu" for none).
	MetaDevice = "device"
	// MetaDeviceName is a top-level string naming the accelerator ("cuda", "xpu", …).
	MetaDeviceName = "deviceName"
	// DeviceTimeKernels and DeviceTimeFallback are the values of ArgDeviceTime: device time
	// from kernels the device reported, or from intervals measured around each operator.
	DeviceTimeKernels  = "kernels"
	DeviceTimeFallback = "fallback"
)

type argKind uint8

const (
	argRaw argKind = iota
	argInt
	argStr
	argBool
)

// Arg is one args entry (or top-level metadata member): a key and a value the writer encodes.
// Make one with Int, Str, Bool or Raw.
type Arg struct {
	Key  string
	kind argKind
	num  int64  // Int's value; Bool's as 0 or 1
	text string // Str's string, or Raw's JSON text
}

// Int is an integer arg.
func Int(key string, v int64) Arg { return Arg{Key: key, kind: argInt, num: v} }

// Str is a string arg; the writer quotes and escapes it.
func Str(key, v string) Arg { return Arg{Key: key, kind: argStr, text: v} }

// Bool is a true/false arg.
func Bool(key string, v bool) Arg {
	a := Arg{Key: key, kind: argBool}
	if v {
		a.num = 1
	}
	return a
}

// Raw is an arg whose value is JSON text, written as it is (an object, an array, a number in
// a format of the producer's own); the caller makes sure it is valid JSON.
func Raw(key, json string) Arg { return Arg{Key: key, kind: argRaw, text: json} }

// AppendJSON appends the arg's value as JSON.
func (a Arg) AppendJSON(b []byte) []byte {
	switch a.kind {
	case argInt:
		return strconv.AppendInt(b, a.num, 10)
	case argStr:
		return AppendString(b, a.text)
	case argBool:
		return strconv.AppendBool(b, a.num != 0)
	}
	return append(b, a.text...)
}

// JSON returns the arg's value as JSON text.
func (a Arg) JSON() string {
	if a.kind == argRaw {
		return a.text
	}
	return string(a.AppendJSON(nil))
}

// Int returns the value of an integer arg, or of a Raw one whose text is a decimal integer;
// ok is false for any other.
func (a Arg) Int() (v int64, ok bool) {
	switch a.kind {
	case argInt:
		return a.num, true
	case argRaw:
		if n, err := strconv.ParseInt(a.text, 10, 64); err == nil {
			return n, true
		}
	}
	return 0, false
}
