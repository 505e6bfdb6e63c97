// Package tracefile reads Chrome trace files — PyTorch's legacy JSON array and Kineto's JSON
// object, optionally gzip-compressed — streaming into the FunctionEvents PyTorch's parser builds
// (Read, Open), and writes the legacy array (WriteLegacy). Writing and checking the Kineto form
// is package trace's job; the JSON tokenizer is internal/jsonscan.
package tracefile

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"os"

	"github.com/orprof/orprof/devices"
	"github.com/orprof/orprof/events"
	"github.com/orprof/orprof/internal/jsonscan"
)

// Form is the container form of a Chrome trace file.
type Form int

const (
	// Legacy is the bare JSON array PyTorch's legacy EventList.export_chrome_trace writes
	// ([{"name": …, "ph": "X", …, "pid": "CPU functions", "args": {}}, …]).
	Legacy Form = iota
	// Kineto is the JSON object Kineto writes ({"schemaVersion": 1, …, "traceEvents": […]}).
	Kineto
)

// String returns "legacy" or "kineto".
func (f Form) String() string {
	switch f {
	case Legacy:
		return "legacy"
	case Kineto:
		return "kineto"
	}
	return fmt.Sprintf("Form(%d)", int(f))
}

// Data is what Read found in a trace: the flat FunctionEvent list PyTorch's own parser
// would have produced from the same profile (no tree is built; see events.NewList).
type Data struct {
	// Form is the container form the file used.
	Form Form
	// Events are the host events (operators, user ranges, runtime/driver calls) and the device
	// events (kernels, memcpys, …), in file order (not sorted), followed by the top-level
	// "[memory]" events for allocations no host event contains. Kernels slices are capped at
	// their length, so appending to one copies it; Stack slices are shared by events with the
	// same call stack and must not be modified in place.
	Events []events.FunctionEvent
	// Device is the accelerator type whose work the trace holds; CPU when it holds none.
	Device devices.Type
	// DeviceName is the lower-case name of Device for table headers ("cuda", "mtia",
	// "openreg", …); "" when Device is CPU.
	DeviceName string
	// BaseTimeNs is the Kineto "baseTimeNanoseconds" value; 0 when the file has none.
	BaseTimeNs int64
	// Bytes is the number of (uncompressed) bytes read.
	Bytes int64
}

// Error is a problem with a trace's content or with reading it. Offset is the byte offset in
// the uncompressed input where the problem was found, or −1 when it has no position. Its
// Error method renders "FILE: byte OFFSET: MSG[: ERR]"; Unwrap returns the read error.
type Error = jsonscan.Error

// Options tune Read and Open. The zero value is the default.
type Options struct {
	// Progress, when set, is called on the reading goroutine after each chunk of input with
	// the number of uncompressed bytes read so far. It should return quickly.
	Progress func(bytesRead int64)
}

// Read reads a Chrome trace — PyTorch's legacy JSON array or Kineto's JSON object,
// optionally gzip-compressed (detected by its magic bytes) — from r, streaming, and returns the
// flat FunctionEvent list PyTorch's parser would have built from the same profile. name is used
// in error messages; opts may be the zero Options. Read does not close r, and does not use it after returning.
//
// A large input's array of trace events is parsed on up to GOMAXPROCS goroutines (at most 8):
// the calling goroutine reads the input and cuts it into segments at what look like event
// boundaries, the others parse them, and results are used only where the cut is proven to be
// a boundary; elsewhere the calling goroutine parses in sequence. The result, and every error
// with its offset, is the same as a sequential read's. Memory stays bounded by a few segments
// of input beyond the records kept.
//
// Every error is a *Error naming name and, where it has one, the byte offset. Invalid or
// truncated JSON, a read error, and — in an event the reader uses — a missing or mistyped
// name/ts/dur, a negative dur, or a non-finite or out-of-range time are errors. Problems in
// events it does not use, and arguments of an unexpected type (an "External id" that is a
// string, say), are ignored. An empty array, or an empty "traceEvents", is a valid trace with no
// events. Python's NaN/Infinity literals are accepted where a value is skipped.
//
// The rules follow torch.autograd.profiler's _parse_kineto_results (Kineto form) and the legacy
// export (legacy form); where a file lacks what PyTorch had in memory, the choice is stated.
//
// Which events: "X" events whose cat is cpu_op or user_annotation (host operators), a
// *_runtime or *_driver call (host runtime events), or a device activity (kernel, gpu_memcpy,
// gpu_memset, gpu_user_annotation, cuda_sync, cuda_profiler_range, mtia_ccp_events,
// mtia_workloadd, hpu_op). An "X" event without cat is a host operator (the legacy exporter
// writes none). python_function (hidden by PyTorch unless verbose), Trace spans, overhead and
// any other category, counters, flows, metadata and B/E events are not FunctionEvents. Names
// PyTorch filters (events.FilterName) are dropped.
//
// Times: legacy events keep the float µs the file holds (StartUs = ts, EndUs = ts + dur).
// Kineto events are read as integer ns and made relative to the profile start, which is the
// start of the "PyTorch Profiler (N)" Trace span when the file has one (PyTorch writes that
// span from the same start time its parser subtracts, so the floats come out bit-identical),
// else, in orprof's own traces, the ts origin (baseTimeNanoseconds, which is where orprof's
// sessions measure from), else the earliest host event. StartUs = (ts − base)/1000,
// EndUs = (ts + dur − base)/1000.
//
// orprof's own traces (those with a top-level "orprof" object) also carry what PyTorch keeps in
// memory: "Scope" sets Scope, "Async": true sets IsAsync, "Device time us" and "Device" on an
// operator are the fallback device time, which becomes PyTorch's single fake kernel named after
// the op with IsLegacy set, and device rows marked "device_time": "fallback" (drawings of that
// same interval) are skipped. The "orprof" object's "device" names the accelerator, and an
// "External id" is always a link.
//
// Host operators: ID = "External id" (their own correlation id; legacy events without a cat
// are numbered 1, 2, … in file order); Thread = tid (a string tid " node_id:N, thread_id:T "
// gives thread T on node N, remote); InputShapes = Python str() of "Input Dims" as
// KinetoEvent.shapes() would give it ("[]" when absent, as PyTorch has it then); Stack =
// "Call stack" split at ';' and filtered like _filter_stack_entry; SequenceNr = "Sequence
// number" (−1); FwdThread = "Fwd thread id"; Scope = 7 for user_annotation, 1 (backward
// function) for a cpu_op with a non-zero "Fwd thread id" (only autograd nodes have one), else
// 0. IsUserAnnotation is true for user_annotation and gpu_user_annotation, as KinetoEvent's
// is_user_annotation is in PyTorch main. Legacy-form host events have IsLegacy set. Kineto
// files carry no async flag, so IsAsync is false.
//
// Device events: DeviceType from the category — mtia_* → MTIA, hpu_op → HPU, the CUDA
// activity names → the trace's accelerator when it is PrivateUse1 or XPU, else CUDA (and every
// device category → PrivateUse1 in a PrivateUse1 trace, as PyTorch's deviceTypeFromActivity
// does); DeviceIndex = pid; Thread = tid; ID = "correlation".
//
// Device time: a device event's linked op is its "External id"; without one, the "External
// id" of the runtime event with the same "correlation". An "External id" equal to the event's
// own "correlation" is not a link: older Kineto versions wrote that for unlinked activities
// (cuda_alexnet and cuda_train_step in shared/testdata show it; taking it as a link would
// attach kernels to unrelated ops whose ids happen to match). A linked device event is
// appended as a Kernel (its name, device index and EndUs − StartUs) to the host operator whose
// ID is the linked id, in file order — only for CUDA, PrivateUse1 and XPU events, the types _parse_kineto_results attaches
// (MTIA and HPU activity gets its own rows but no kernel on an op). If several host operators
// share an id, the first one in the file gets the kernels. A runtime event linked to an op
// takes that op's Thread. Runtime events are not linked by time containment.
//
// Memory (Kineto form): each "[memory]" instant ("Bytes", "Device Type" as a c10::DeviceType
// number) is added to every host event (operators and runtime calls, on any thread, as
// _parse_kineto_results does) whose closed interval [ts, ts + dur] contains its ts — to
// CPUMemoryUsage for CPU/MKLDNN/IDEEP, to DeviceMemoryUsage for CUDA/HIP/XPU/PrivateUse1, to
// neither for other device types. Instants inside no host event, and every "[OutOfMemory]"
// instant, become top-level "[memory]"/"[OutOfMemory]" events after the others: ID = the
// largest ID + 1, 2, …; StartUs = EndUs = their time; Thread = FwdThread = tid; TraceName ""
// (not written to traces); InputShapes "[]".
//
// The accelerator (Data.Device): a top-level "deviceName" string wins ("cpu", "cuda",
// "xpu", "mtia", "hpu", or any other name = a PrivateUse1 backend of that name); else the
// strongest evidence among process labels ("MTIA 0", "XPU 0", "<NAME> 0" for another
// backend name) and event categories, in the order PrivateUse1 > XPU > MTIA > HPU > CUDA;
// else CPU.
func Read(r io.Reader, name string, opts Options) (*Data, error) {
	return readTrace(r, name, opts, defaultParConfig())
}

// readTrace is Read with the parallel-parsing configuration made explicit.
func readTrace(r io.Reader, name string, opts Options, par parConfig) (*Data, error) {
	var magic [2]byte
	n, err := readPrefix(r, magic[:])
	if err != nil {
		return nil, &Error{File: name, Offset: int64(n), Msg: "read failed", Err: err}
	}
	src := io.MultiReader(bytes.NewReader(magic[:n]), r)
	if n == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		gz, err := gzip.NewReader(src)
		if err != nil {
			return nil, &Error{File: name, Offset: -1, Msg: "not a valid gzip stream", Err: err}
		}
		// Decompress on another goroutine so that inflating and parsing overlap.
		ra := newReadAhead(gz)
		defer ra.Close()
		src = ra
	}
	d := newDecoder(src, name, opts, par)
	if err := d.run(); err != nil {
		return nil, err
	}
	return d.resolve(), nil
}

// Open reads the trace file at path with Read, naming it path in errors; "-" reads
// standard input (named "<stdin>"). Gzip input (a ".gz" file, or any input starting with the
// gzip magic bytes) is decompressed on the fly, on a second goroutine. A file that cannot be
// opened gives os.Open's error (an *fs.PathError); every other error is a *Error.
func Open(path string, opts Options) (*Data, error) {
	if path == "-" {
		return Read(os.Stdin, "<stdin>", opts)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return Read(f, path, opts)
}

// readPrefix reads up to len(p) bytes, stopping early only at the end of the input. Like
// bufio it gives up with io.ErrNoProgress on a reader that keeps returning nothing.
func readPrefix(r io.Reader, p []byte) (int, error) {
	n, empty := 0, 0
	for n < len(p) {
		m, err := r.Read(p[n:])
		if m < 0 || m > len(p)-n {
			return n, fmt.Errorf("reader returned invalid count %d", m)
		}
		n += m
		if err == io.EOF {
			return n, nil
		}
		if err != nil {
			return n, err
		}
		if m == 0 {
			if empty++; empty == 100 {
				return n, io.ErrNoProgress
			}
		}
	}
	return n, nil
}
