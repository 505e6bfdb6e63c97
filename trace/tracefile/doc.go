// Package tracefile reads Chrome trace files — PyTorch's legacy JSON array and Kineto's JSON
// object, optionally gzip-compressed — streaming into the FunctionEvents PyTorch's parser builds
// (Read, Open), and writes the legacy array (WriteLegacy). Writing and checking the Kineto form
// is package trace's job; the JSON tokenizer is internal/jsonscan.
//
// The dialects Read accepts, each tested by TestDialects (reader_dialect_test.go) on a real or a
// minimal trace of its kind, and the rule (LinkRule) that charges their device time to ops:
//
//	dialect                     container, keys and categories                         ts/dur      device time → op
//	legacy (PyTorch ≤ 1.13)     bare array; "X" events without cat; pid "CPU functions"  float µs    (none in the file)
//	Kineto 2021 (PyTorch 1.8/9) object; cat Operator/Runtime/Kernel/Memcpy/Memset;     integer µs  1 external-id
//	                            link key "external id" (lower case) and "correlation"
//	Kineto 2022–2023            object; cpu_op, cuda_runtime, kernel, gpu_memcpy, …;    integer µs  2 launch
//	                            "External id" equal to the event's own correlation
//	                            (no link: rule 2 finds the op around the launch)
//	Kineto 2024+                "External id" = the launching op's id; cpu_op,          µs with 3   1 external-id
//	                            user_annotation, cuda_runtime, kernel, gpu_memcpy,      decimals
//	                            gpu_memset, gpu_user_annotation, cuda_sync, …
//	Kineto ns-resolution        ts/dur floats with more than three decimals             rounded ns  1 external-id
//	CUPTI range profiler        cuda_profiler_range kernels with no correlation          µs          3 order
//	ROCm                        as 2024+, HIP kernels under cat kernel; since kineto    µs          1 external-id
//	                            #1424 tid and "stream" are the HIP stream's index on
//	                            the device, "hsa_queue" the hardware queue
//	Kineto 2026                 "Stream Sync" on tid stream + 1000000 ("stream N        µs, or a    1 external-id
//	                            (sync)"); cuda_event; "C" counters (hardware_counters,  string
//	                            pid "GPU N Counters"); typed metadata: numbers or
//	                            strings holding them; PyTorch's Python exporter
//	MTIA / HPU                  mtia_runtime, mtia_ccp_events, mtia_workloadd, hpu_op;  µs          2 launch (runFunction),
//	                            own rows as in PyTorch, which attaches none to ops                  4 enclosing (dma_request)
//	graph replay                kernels carry their cudaGraphLaunch's correlation       µs          2 launch
//	graph replay, annotated     "graph node id" and the scope's "name" in kernel args  µs          0 graph
//	                            (PyTorch's exporter, pytorch#194854)
//	GPU-only                    device events and no host ops: own rows, a warning      µs          (none)
//	distributed (HTA)           "distributedInfo": {"rank": N} → Data.Rank             µs          as its era
//	orprof                      top-level "orprof" object: fallback device time,        µs          1 external-id
//	                            Scope, Async; "External id" always a link
//	gzip                        any of the above, gzip-compressed, one or more members
//
// Options.Link = LinkExternalID (`--link external-id`) applies rule 1 alone, to CUDA, XPU and
// PrivateUse1 activity: PyTorch's own reading of the file.
//
// One pass, many consumers: every converted event, its link resolved, also goes to the
// Consumers of Options (Consumer; package analysis states the contract).
//
// # Reading
//
// A large input's array of trace events is parsed on up to GOMAXPROCS goroutines (at most 8):
// the calling goroutine reads the input and cuts it into segments at what look like event
// boundaries, the others parse them, and results are used only where the cut is proven to be
// a boundary; elsewhere the calling goroutine parses in sequence. The result, and every error
// with its offset, is the same as a sequential read's. Memory stays bounded by a few segments
// of input beyond the records kept.
//
// One rule for what is accepted: the input must be strict JSON (RFC 8259; a UTF-8 byte order
// mark at the start is allowed and skipped), and valid JSON that is not a valid trace event is
// skipped and counted, never fatal. Every error is a *Error naming name and, where it has one,
// the byte offset, quoting at most ~100 bytes of the input: invalid or truncated JSON
// (including Python's NaN and Infinity, which JSON does not have, wherever they appear), a
// top level that is not an array or an object with "traceEvents", and a read error. Skipped
// and counted in Data.Skipped, with the first one's problem in Data.SkipReason: an element of
// the event array that is not an object; an event without a one-letter "ph" string, or whose
// "ph" is not a Trace Event Format type; and an event the reader uses (below) with a missing or
// mistyped name/ts/dur, a negative dur, or an out-of-range time. Events of known types the
// reader does not use are not looked into. An integer argument (rank, "External id",
// "correlation", "stream", "Sequence number", "Fwd thread id", a collective's sizes) is read
// whether it is a number or a string holding one, as typed metadata (kineto #1464, #1482)
// writes numbers where older builds wrote quoted strings; a ts or dur that is a string holding
// a number is read as that number; arguments of another type are ignored. JSON text is
// UTF-8: an event name that is not is read with U+FFFD for its invalid bytes, as JSON decoders read it, and counted in Data.BadNames (a
// warning) rather than refused: one name is no reason to lose a whole trace, and a trace
// viewer in a browser, which decodes the file the same way, shows it so too. An empty array, or an empty
// "traceEvents", is a valid trace with no events. Gzip input may hold several members (as gzip -d reads them); bytes after
// the last one are ignored and counted in Data.TrailingBytes. Data.Warnings puts all of this,
// and device time that reached no operator (Data.DeviceLink), in one line each.
//
// The rules follow torch.autograd.profiler's _parse_kineto_results (Kineto form) and the legacy
// export (legacy form); where a file lacks what PyTorch had in memory, the choice is stated.
//
// Which events: "X" events whose cat is cpu_op or user_annotation (host operators), a
// *_runtime or *_driver call (host runtime events), or a device activity (kernel, gpu_memcpy,
// gpu_memset, gpu_user_annotation, cuda_sync, cuda_profiler_range, mtia_ccp_events,
// mtia_workloadd, hpu_op, cuda_event). An "X" event without cat is a host operator (the
// legacy exporter writes none). python_function (hidden by PyTorch unless verbose), Trace spans, overhead and
// any other category, counters, flows, metadata and B/E events are not FunctionEvents. Names
// PyTorch filters (events.FilterName) are dropped.
//
// Streams: a device event's stream is its "stream" argument, else its tid. Since kineto #1356
// a "Stream Sync" is drawn on tid stream + 1000000 ("stream N (sync)") while its "stream"
// still names stream N, so it belongs to stream N. A cuda_event ("cudaEvent", 1 ns: a
// cudaEventRecord reached on the device) is KindEventRecord, a device event that is no device
// time and no op's; in the table it is the CPU row PyTorch makes of it (deviceTypeFromActivity
// has no case for CUDA_EVENT). One with ts 0, which CUPTI before CUDA 12.8 gives it, is left
// out. Counter ("C") events of the Kineto form are series, never events: Data.Counters
// (CounterSeries) by cat, name, args key and pid as written, CUPTI PM sampling's "GPU N
// Counters" naming device N.
//
// Times: legacy events keep the float µs the file holds (StartUs = ts, EndUs = ts + dur).
// Kineto-form times are read as ns from their decimal text: three decimals exactly, more
// rounded half away from zero (exactly: µs since the epoch exceed a float64's ns).
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
// Device time, rule 1 (the only one with Options.Link = LinkExternalID; LinkRule lists the
// others, applied in order to what it leaves): a device event's linked op is its "External id"
// ("external id" in 2021 traces);
// without one, the "External id" of the runtime event with the same "correlation". Some Kineto
// builds of 2022–2023 wrote each runtime and device event's own "correlation" as its "External
// id" (cuda_alexnet and cuda_train_step in testdata/kineto show it), which says nothing about
// the launching op, and taking it as a link would attach kernels to unrelated ops whose ids
// happen to match. So an "External id" equal to the event's own "correlation" counts on a
// runtime event only when that call lies within the op of that id on the same thread, and on a
// device event only when the runtime call with its correlation is linked to that same op; in
// orprof's own traces, whose ids come from separate counters, it always counts. A linked device
// event is appended as a Kernel (its name, device index and EndUs − StartUs) to the host
// operator whose ID is the linked id (by rules 2–4, to the operator they found), in file order.
// With LinkExternalID only CUDA, PrivateUse1 and XPU events are, the types
// _parse_kineto_results attaches; by default MTIA and HPU activity is too (it keeps its own
// rows and its place in the device total, as PyTorch prints them). If several host operators
// share an id, the first one in the file gets the kernels. A runtime event linked to an op by
// its External id takes that op's Thread. Data.DeviceLink sums the device time, the part each
// rule linked and the part that reached no operator, with the likeliest cause.
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
package tracefile
