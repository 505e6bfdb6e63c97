package tracefile

import (
	"bytes"
	"iter"
	"math"
	"unsafe"
)

// The records the scan keeps: what kind of event each is, its category, and the chunked list
// that holds them until resolve.

// rawKind says what a kept trace event becomes.
type rawKind uint8

const (
	rawHostOp  rawKind = iota // cpu_op, user_annotation, or a legacy "X" event: a CPU operator
	rawRuntime                // a *_runtime / *_driver call: a CPU event that can be linked to an op
	rawDevice                 // kernel, memcpy, memset, …: an event on the accelerator
	rawMemory                 // a "[memory]" instant: bytes allocated (or freed, < 0)
	rawOOM                    // an "[OutOfMemory]" instant
)

// Event categories ("cat") the reader distinguishes.
const (
	catNone              uint8 = iota // no "cat": PyTorch's legacy exporter
	catCPUOp                          // cpu_op
	catUserAnnotation                 // user_annotation (record_function ranges)
	catRuntimeCUDA                    // cuda_runtime, cuda_driver
	catRuntimeXPU                     // xpu_runtime, xpu_driver
	catRuntimeMTIA                    // mtia_runtime
	catRuntimePU1                     // privateuse1_runtime, privateuse1_driver
	catRuntimeOther                   // any other *_runtime / *_driver (glow_runtime, …)
	catDevGeneric                     // kernel, gpu_memcpy, gpu_memset, cuda_sync, cuda_profiler_range
	catDevUserAnnotation              // gpu_user_annotation
	catDevMTIA                        // mtia_ccp_events, mtia_workloadd
	catDevHPU                         // hpu_op
	catDevEvent                       // cuda_event: a cudaEventRecord reached on the device
	catTrace                          // "Trace" spans (one per profiler buffer)
	catInstant                        // cpu_instant_event
	catDevScopeMetrics                // a scope profiler's "metrics: <kernel>" slice (cat "kernel"): set by keep
	catIgnored                        // overhead, counters, … : not FunctionEvents
	catPython                         // python_function: kept only for NeedPython (python.go)
	catFwdBwd                         // fwdbwd flows: kept only for NeedPython
)

// classifyCat maps a "cat" value to one of the categories above.
func classifyCat(b []byte) uint8 {
	switch string(b) {
	case "cpu_op", "Operator", "operator":
		return catCPUOp
	case "user_annotation":
		return catUserAnnotation
	case "cuda_runtime", "cuda_driver", "Runtime":
		return catRuntimeCUDA
	case "xpu_runtime", "xpu_driver":
		return catRuntimeXPU
	case "mtia_runtime":
		return catRuntimeMTIA
	case "privateuse1_runtime", "privateuse1_driver":
		return catRuntimePU1
	case "kernel", "Kernel", "gpu_memcpy", "gpu_memset", "cuda_sync", "cuda_profiler_range",
		"Memcpy", "Memset":
		return catDevGeneric
	case "gpu_user_annotation":
		return catDevUserAnnotation
	case "mtia_ccp_events", "mtia_workloadd":
		return catDevMTIA
	case "hpu_op":
		return catDevHPU
	case "cuda_event":
		return catDevEvent
	case "Trace":
		return catTrace
	case "cpu_instant_event":
		return catInstant
	case "python_function":
		return catPython
	case "fwdbwd":
		return catFwdBwd
	}
	if bytes.HasSuffix(b, []byte("_runtime")) || bytes.HasSuffix(b, []byte("_driver")) {
		return catRuntimeOther
	}
	return catIgnored
}

// deviceKind is the Kind of a device activity of category b (one classifyCat maps to a
// catDev* category).
func deviceKind(b []byte) Kind {
	switch string(b) {
	case "gpu_memcpy", "Memcpy":
		return KindMemcpy
	case "gpu_memset", "Memset":
		return KindMemset
	case "cuda_sync":
		return KindSync
	case "gpu_user_annotation":
		return KindDeviceAnnotation
	case "mtia_workloadd":
		return KindDeviceOther
	case "cuda_event":
		return KindEventRecord
	}
	return KindKernel // kernel, Kernel, cuda_profiler_range, mtia_ccp_events, hpu_op
}

// rawEvent is the compact record the scan keeps for an event it uses; resolve turns the records
// into FunctionEvents once the whole file (time base, device type, links) is known.
type rawEvent struct {
	ts, dur  int64 // Kineto form: ns as written (µs with 3 decimals); legacy: math.Float64bits of µs
	pid, tid int64
	extID    int64 // "External id" (0 = none); "[memory]": "Bytes"
	corr     int64 // "correlation" (0 = none); "[memory]": "Device Type" (a c10::DeviceType number)
	seq, fwd int64 // "Sequence number" (−1 = none), "Fwd thread id"; device events: fwd = stream()
	devUs    int64 // orprof fallback traces: "Device time us" (0 = none)
	name     uint32
	shapes   int32 // index into decoder.shapeStrs; −1 = none
	stack    int32 // index into decoder.stacks; −1 = none
	node     int32 // legacy remote events: node id; else −1
	devIdx   int32 // orprof fallback traces: "Device"
	kind     rawKind
	cat      uint8
	scope    int8  // an explicit "Scope" argument (orprof traces); −1 = none; device events: their Kind
	flags    uint8 // rawRemote, rawAsync: one byte for both keeps the record at 96 bytes, not 104
}

// rawEvent flags.
const (
	rawRemote = 1 << iota // a legacy remote event (node holds its node id)
	rawAsync              // an explicit "Async": true argument (orprof traces)
	rawComm               // collective args (not a remote event): node is their index in decoder.comms
)

// remote and async read the flags.
func (r *rawEvent) remote() bool { return r.flags&rawRemote != 0 }
func (r *rawEvent) async() bool  { return r.flags&rawAsync != 0 }

// The record's size is what a large trace's peak memory is made of.
var _ [96 - unsafe.Sizeof(rawEvent{})]struct{}

// rawChunk is how many rawEvents one allocation holds: the records are kept in chunks so that
// a large trace never copies them to grow a slice.
const rawChunk = 2048

// rawList is an append-only list of rawEvents in chunks. Chunks may be shorter than rawChunk
// (a parallel parse adopts each segment's records as they are).
type rawList struct {
	chunks [][]rawEvent
	starts []int // starts[k] is the index of chunks[k][0]
	n      int
	spare  []rawEvent // unused capacity to start the next chunk in
}

func (l *rawList) add(r rawEvent) {
	k := len(l.chunks) - 1
	if k < 0 || len(l.chunks[k]) == cap(l.chunks[k]) {
		c := l.spare[:0:cap(l.spare)]
		l.spare = nil
		if cap(c) == 0 {
			c = make([]rawEvent, 0, rawChunk)
		}
		l.chunks = append(l.chunks, c)
		l.starts = append(l.starts, l.n)
		k++
	}
	l.chunks[k] = append(l.chunks[k], r)
	l.n++
}

// adopt appends the records of c, keeping c as a chunk (capped at its length, so that no later
// add writes past it).
func (l *rawList) adopt(c []rawEvent) {
	if len(c) == 0 {
		return
	}
	if k := len(l.chunks) - 1; k >= 0 && cap(l.spare) == 0 {
		// Records added later go on in the unused part of the last chunk, not in a new one.
		last := l.chunks[k]
		l.chunks[k], l.spare = last[:len(last):len(last)], last[len(last):]
	}
	l.chunks = append(l.chunks, c[:len(c):len(c)])
	l.starts = append(l.starts, l.n)
	l.n += len(c)
}

// at returns record i (0 ≤ i < n).
func (l *rawList) at(i int) *rawEvent {
	lo, hi := 0, len(l.starts)
	for hi-lo > 1 { // the last chunk k with starts[k] ≤ i
		m := int(uint(lo+hi) >> 1)
		if l.starts[m] <= i {
			lo = m
		} else {
			hi = m
		}
	}
	return &l.chunks[lo][i-l.starts[lo]]
}

// all yields every record with its index, in order.
func (l *rawList) all() iter.Seq2[int, *rawEvent] {
	return func(yield func(int, *rawEvent) bool) {
		i := 0
		for _, c := range l.chunks {
			for j := range c {
				if !yield(i, &c[j]) {
					return
				}
				i++
			}
		}
	}
}

// stream and devKind read a device record's fields (kept where a host record keeps its
// "Fwd thread id" and "Scope").
func (r *rawEvent) stream() int64 { return r.fwd }
func (r *rawEvent) devKind() Kind { return Kind(r.scope) }

// rangeKernel reports whether a device record is a CUPTI range-profiler kernel
// (cuda_profiler_range; kept in seq).
func (r *rawEvent) rangeKernel() bool { return r.kind == rawDevice && r.seq == 1 }

// memBytes and memDevice read a "[memory]" record's fields.
func (r *rawEvent) memBytes() int64  { return r.extID }
func (r *rawEvent) memDevice() int64 { return r.corr }

// memTotals are a "[memory]" record's "Total Allocated" and "Total Reserved" (−1: absent) and
// memDeviceID its "Device Id" (−1: absent).
func (r *rawEvent) memTotals() (alloc, reserved int64) { return r.seq, r.fwd }
func (r *rawEvent) memDeviceID() int64                 { return int64(r.devIdx) }

// memAddr is a "[memory]" record's "Addr" (0: absent), kept where a host record keeps its
// fallback device time.
func (r *rawEvent) memAddr() int64 { return r.devUs }

// packKernelArgs keeps a kernel's "blocks per SM" and "est. achieved occupancy %" (−1:
// absent) as two float32 in one int64 (a device record's devUs); kernelArgs reads them back.
func packKernelArgs(blocks, occ float32) int64 {
	return int64(uint64(math.Float32bits(blocks))<<32 | uint64(math.Float32bits(occ)))
}

func (r *rawEvent) kernelArgs() (blocks, occ float32) {
	u := uint64(r.devUs)
	return math.Float32frombits(uint32(u >> 32)), math.Float32frombits(uint32(u))
}
