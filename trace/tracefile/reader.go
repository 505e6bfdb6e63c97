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
//	ROCm                        as 2024+, HIP kernels under cat kernel                  µs          1 external-id
//	MTIA / HPU                  mtia_runtime, mtia_ccp_events, mtia_workloadd, hpu_op;  µs          2 launch (runFunction),
//	                            own rows as in PyTorch, which attaches none to ops                  4 enclosing (dma_request)
//	graph replay                kernels carry their cudaGraphLaunch's correlation       µs          2 launch
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
package tracefile

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strconv"
	"strings"

	"github.com/orprof/orprof/devices"
	"github.com/orprof/orprof/events"
	gunzip "github.com/orprof/orprof/internal/gz"
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
	// OriginNs is the trace time (ns, as the file's ts × 1000) that the events' StartUs and
	// EndUs (and a Consumer Event's) are measured from, in the Kineto form; 0 in the legacy
	// form, whose times are the file's own.
	OriginNs int64
	// Rank is the trace's "distributedInfo" "rank" (a distributed job's rank that wrote it),
	// when HasRank.
	Rank    int64
	HasRank bool
	// Bytes is the number of (uncompressed) bytes read.
	Bytes int64
	// DeviceLink says how much of the device time reached an operator.
	DeviceLink DeviceLink
	// Skipped counts the trace events skipped as malformed or unknown; SkipReason is the first
	// one's problem ("byte N: …").
	Skipped    int
	SkipReason string
	// TrailingBytes counts the bytes after the gzip data that were ignored (0 for plain input).
	TrailingBytes int64
	// BadNames counts the distinct event names that were not valid UTF-8 (JSON text is UTF-8);
	// each is read with U+FFFD in place of its invalid bytes, as JSON decoders read it.
	// BadNameFirst is the first as it was in the file.
	BadNames     int
	BadNameFirst string
}

// Warnings are the one-line notes a reader of the table should see: trace events skipped as
// malformed or unknown, bytes after the gzip data (ReadWarnings), and device time that reached
// no operator (DeviceLink.Warning). Each starts with name, the trace's name.
func (d *Data) Warnings(name string) []string {
	w := d.ReadWarnings(name)
	if s := d.DeviceLink.Warning(); s != "" {
		w = append(w, name+": "+s)
	}
	return w
}

// ReadWarnings are Warnings without the one about device time: what reading the file skipped.
func (d *Data) ReadWarnings(name string) []string {
	var w []string
	if d.Skipped > 0 {
		what := fmt.Sprintf("%d malformed or unknown trace events (the first", d.Skipped)
		if d.Skipped == 1 {
			what = "1 malformed or unknown trace event (it is"
		}
		w = append(w, fmt.Sprintf("%s: skipped %s at %s)", name, what, d.SkipReason))
	}
	if d.BadNames > 0 {
		what := fmt.Sprintf("%d event names are", d.BadNames)
		if d.BadNames == 1 {
			what = "1 event name is"
		}
		w = append(w, fmt.Sprintf("%s: %s not valid UTF-8, as JSON must be (the first: %s); shown with U+FFFD for the invalid bytes",
			name, what, jsonscan.Clip(d.BadNameFirst)))
	}
	if d.TrailingBytes > 0 {
		bytes := fmt.Sprintf("%d bytes", d.TrailingBytes)
		if d.TrailingBytes == 1 {
			bytes = "1 byte"
		}
		w = append(w, fmt.Sprintf("%s: ignored %s of trailing data after the gzip stream", name, bytes))
	}
	return w
}

// DeviceLink is how much of a trace's device time was attached to host operators: the sum of
// the device events' durations (device-side user annotations, which span kernels, left out),
// the part attached to no operator, and the likeliest cause of most of that part.
type DeviceLink struct {
	TotalUs    float64
	UnlinkedUs float64
	// Unlinked is the number of device events attached to no operator.
	Unlinked int
	Cause    string
	// ByRuleUs is the device time each rule attached (indexed by LinkRule; [Unlinked] is
	// UnlinkedUs).
	ByRuleUs [NumLinkRules]float64
}

// NumLinkRules is the number of LinkRule values, Unlinked included.
const NumLinkRules = int(numRules)

// Coverage is one line saying how much of the device time each rule attached to operators
// and how much reached none ("" when the trace has no device time), e.g.
// "device time linked to operators: 1234.000 µs of 1250.000 µs (98.7%): external-id 0.0%,
// launch 98.7%, order 0.0%, enclosing 0.0%, unlinked 16.000 µs (1.3%)".
func (l DeviceLink) Coverage() string {
	if l.TotalUs <= 0 {
		return ""
	}
	pct := func(us float64) string { return strconv.FormatFloat(100*us/l.TotalUs, 'f', 1, 64) + "%" }
	linked := l.TotalUs - l.ByRuleUs[Unlinked]
	var b strings.Builder
	fmt.Fprintf(&b, "device time linked to operators: %s µs of %s µs (%s):",
		strconv.FormatFloat(linked, 'f', 3, 64), strconv.FormatFloat(l.TotalUs, 'f', 3, 64), pct(linked))
	for r := ByExternalID; r < numRules; r++ {
		fmt.Fprintf(&b, " %s %s,", r, pct(l.ByRuleUs[r]))
	}
	fmt.Fprintf(&b, " unlinked %s µs (%s)", strconv.FormatFloat(l.ByRuleUs[Unlinked], 'f', 3, 64), pct(l.ByRuleUs[Unlinked]))
	return b.String()
}

// Add sums the figures of two traces (several ranks of a job); the cause of the larger
// unlinked time is kept.
func (l DeviceLink) Add(o DeviceLink) DeviceLink {
	sum := DeviceLink{TotalUs: l.TotalUs + o.TotalUs, UnlinkedUs: l.UnlinkedUs + o.UnlinkedUs,
		Unlinked: l.Unlinked + o.Unlinked, Cause: l.Cause}
	for i := range sum.ByRuleUs {
		sum.ByRuleUs[i] = l.ByRuleUs[i] + o.ByRuleUs[i]
	}
	if o.UnlinkedUs > l.UnlinkedUs || sum.Cause == "" {
		sum.Cause = o.Cause
	}
	return sum
}

// Warning is one line saying how much device time reached no operator and why, or "" when all
// of it did.
func (l DeviceLink) Warning() string {
	if l.Unlinked == 0 {
		return ""
	}
	n := strconv.Itoa(l.Unlinked) + " events"
	if l.Unlinked == 1 {
		n = "1 event"
	}
	return fmt.Sprintf("%s µs of %s µs of device time (%.1f%%, %s) reached no operator: %s",
		strconv.FormatFloat(l.UnlinkedUs, 'f', 3, 64), strconv.FormatFloat(l.TotalUs, 'f', 3, 64),
		100*l.UnlinkedUs/max(l.TotalUs, 1e-300), n, l.Cause)
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
	// SkipScopeMetrics leaves out the "metrics: <kernel>" slices of a scope profiler (cat
	// "kernel"). By default each is a device row, as in PyTorch's key_averages(), linked to no
	// operator and not counted as device time (its time is its kernel's).
	SkipScopeMetrics bool
	// NoShapes and NoStacks leave the events' InputShapes and Stack empty: the "Input Dims"
	// and "Call stack" arguments are validated and skipped, not rendered (faster, for a caller
	// that groups by neither, as ReadAverages does on its own).
	NoShapes, NoStacks bool
	// Consumers are handed the read's events (Consumer; package analysis states the
	// contract); the read returns after each has finished.
	Consumers []Consumer
	// Position is the trace's place among the ranks of a job (0, 1, …): the rank Info.Rank
	// gives a trace that names none.
	Position int
	// Link selects the rules that charge device events to operators; the zero value applies
	// them all (LinkRule lists them).
	Link LinkMode
	// Tree, for ReadAverages and OpenAverages (other reads ignore it), is handed every event
	// of PyTorch's tree in list order, after the same-name collapse, with its parent, self
	// times and kernels (events.TreeEvent), while the rows are made: the op call tree of the
	// trace (analysis/flame.Builder.Add) from the same streaming read, no event kept. It is
	// called on one goroutine before ReadAverages returns.
	Tree func(*events.TreeEvent)
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
// reader does not use are not looked into, and arguments of an unexpected type (an "External
// id" that is a string, say) are ignored. JSON text is UTF-8: an event name that is not is read
// with U+FFFD for its invalid bytes, as JSON decoders read it, and counted in Data.BadNames (a
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
func Read(r io.Reader, name string, opts Options) (*Data, error) {
	return readTrace(r, name, opts, defaultParConfig())
}

// Averages is a trace read for its operator table alone (ReadAverages).
type Averages struct {
	// Data is what Read returns, without the events (Events is nil).
	Data *Data
	// Rows are the key averages of the events, as events.NewList(events, …).KeyAverages(g)
	// gives them.
	Rows []events.Avg
	// Memory is whether any event carries memory figures (the trace recorded memory).
	Memory bool
}

// ReadAverages reads a trace as Read does and returns the key averages of its events grouped
// by g, without keeping the events: the rows are those of events.NewList over Read's events,
// bit for bit, and the file is read the same way, with the same errors and warnings. Unless g
// groups by stack, the events are handed one by one to an events.Averager as they are
// converted, so the peak memory is the reader's records (about 100 bytes per event) instead of
// the events and their tree (about 300): for `orprof table` on a large trace.
func ReadAverages(r io.Reader, name string, opts Options, g events.AverageOptions) (*Averages, error) {
	return readAverages(r, name, opts, defaultParConfig(), g)
}

// OpenAverages is ReadAverages of the trace file at path, opened as Open opens it.
func OpenAverages(path string, opts Options, g events.AverageOptions) (*Averages, error) {
	if path == "-" {
		return ReadAverages(os.Stdin, "<stdin>", opts, g)
	}
	r, close, err := openInput(path)
	if err != nil {
		return nil, err
	}
	defer close()
	return ReadAverages(r, path, opts, g)
}

// readAverages is ReadAverages with the parallel-parsing configuration made explicit.
func readAverages(r io.Reader, name string, opts Options, par parConfig, g events.AverageOptions) (*Averages, error) {
	if _, ok := events.NewAverager(0, g); !ok {
		td, err := readTrace(r, name, opts, par)
		if err != nil {
			return nil, err
		}
		return averagesOf(td, g, opts.Tree), nil
	}
	var a *events.Averager
	// The rows carry input shapes only when grouped by them, and stacks never here (grouping
	// by stack took the branch above): the arguments that hold them are validated and skipped,
	// not rendered.
	skip := skipArgs{shapes: !g.GroupByInputShape, stacks: true}
	wait := func() {}
	td, err := decodeTrace(r, name, opts, par, skip, func(d *decoder) *Data {
		var td *Data
		d.deferConsumers, wait = true, d.waitConsumers
		td, a = d.resolveAverages(g, opts.Tree)
		return td
	})
	// The rows (and the op tree's walk) are made while the consumers finish; the read returns
	// when both are done.
	defer func() { wait() }()
	if err != nil {
		return nil, err
	}
	// No collection is forced here, unlike Read: the Averager's 64 bytes per event are
	// fewer than the records they replace, and under the table's memory limit the
	// collector runs when it should anyway (docs/performance.md has the measurement).
	return &Averages{Data: td, Memory: a.HasMemory(), Rows: a.Averages()}, nil
}

// AveragesOf returns the key averages of td's events grouped by g, with td: the events are
// taken over (td.Events is nil afterwards).
func AveragesOf(td *Data, g events.AverageOptions) *Averages { return averagesOf(td, g, nil) }

// averagesOf is AveragesOf that also walks the list's tree with tree (nil: not).
func averagesOf(td *Data, g events.AverageOptions, tree func(*events.TreeEvent)) *Averages {
	evs := td.Events
	td.Events = nil
	l := events.NewListOwned(evs, events.ListOptions{})
	if tree != nil {
		l.WalkTree(tree)
	}
	return &Averages{Data: td, Memory: hasMemory(evs), Rows: l.KeyAverages(g)}
}

// hasMemory reports whether any event carries memory figures.
func hasMemory(evs []events.FunctionEvent) bool {
	for i := range evs {
		if evs[i].CPUMemoryUsage != 0 || evs[i].DeviceMemoryUsage != 0 {
			return true
		}
	}
	return false
}

// readTrace is Read with the parallel-parsing configuration made explicit.
func readTrace(r io.Reader, name string, opts Options, par parConfig) (*Data, error) {
	return decodeTrace(r, name, opts, par, skipArgs{shapes: opts.NoShapes, stacks: opts.NoStacks}, (*decoder).resolve)
}

// decodeTrace reads a trace from r and returns what resolve makes of its records; the events
// get no input shapes or stacks as skip says.
func decodeTrace(r io.Reader, name string, opts Options, par parConfig, skip skipArgs, resolve func(*decoder) *Data) (*Data, error) {
	if in, ok := r.(*inPlace); ok && !isGzip(in.data) {
		return decodeInPlace(in, name, opts, par, skip, resolve)
	}
	var magic [2]byte
	n, err := readPrefix(r, magic[:])
	if err != nil {
		return nil, &Error{File: name, Offset: int64(n), Msg: "read failed", Err: err}
	}
	src := io.MultiReader(bytes.NewReader(magic[:n]), r)
	var zr *gunzip.Reader
	if isGzip(magic[:n]) {
		zr, err = gunzip.NewReader(src)
		if err != nil {
			return nil, &Error{File: name, Offset: -1, Msg: "not a valid gzip stream", Err: err}
		}
		// Inflated on this goroutine, straight into the parse's input buffers: the workers
		// parse while it inflates, and no second goroutine copies every byte once more.
		src = zr
	}
	d := newDecoder(src, name, opts, par)
	d.skip = skip
	if err := d.run(); err != nil {
		if zr != nil {
			err = gzipFirst(zr, name, err)
		}
		return nil, err
	}
	td := resolve(d)
	if zr != nil {
		td.TrailingBytes = zr.TrailingBytes()
	}
	return td, nil
}

func isGzip(b []byte) bool { return gunzip.IsGzip(b) }

// gzipFirst is the error of a read of gzip input that failed with err: when the gzip stream
// itself is corrupt (its CRC-32 or length check fails, or its DEFLATE data does not decode),
// the bytes the parse failed on were wrong, and the stream's error is the one to report.
// The rest of the stream is inflated to find out.
func gzipFirst(zr *gunzip.Reader, name string, err error) error {
	if errors.Is(err, gunzip.ErrChecksum) || errors.Is(err, gunzip.ErrCorrupt) || errors.Is(err, gunzip.ErrHeader) {
		return err // the stream's own error already
	}
	if _, zerr := io.Copy(io.Discard, zr); zerr != nil && (errors.Is(zerr, gunzip.ErrChecksum) || errors.Is(zerr, gunzip.ErrCorrupt)) {
		return &Error{File: name, Offset: -1, Msg: "the gzip stream is corrupt", Err: zerr}
	}
	return err
}

// decodeInPlace is decodeTrace of input that is in memory in full: the decoder scans it where
// it is. A mapped file that is cut short while it is read faults when the parse reaches its lost
// pages (SIGBUS), after reading zeros to the end of its last page: either is reported as the
// file having changed, not as a crash or a byte of JSON.
func decodeInPlace(in *inPlace, name string, opts Options, par parConfig, skip skipArgs, resolve func(*decoder) *Data) (td *Data, err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			if !isMappingFault(r) {
				panic(r)
			}
			err = errChanged(name)
		}
		if err != nil {
			td = nil
			if in.changed != nil && in.changed() {
				err = errChanged(name) // not the bytes' fault
			}
		}
	}()
	d := newDecoderInPlace(in, name, opts, par)
	d.skip = skip
	if err := d.run(); err != nil {
		return nil, err
	}
	td = resolve(d)
	td.Bytes = int64(len(in.data))
	return td, nil
}

func errChanged(name string) error {
	return &Error{File: name, Offset: -1, Msg: "the file changed while it was read (it was cut short or rewritten)"}
}

// isMappingFault reports whether r, recovered from a panic, is a memory fault in a mapped trace.
func isMappingFault(r any) bool {
	f, ok := r.(interface{ Addr() uintptr })
	return ok && inMapping(f.Addr())
}

// Open reads the trace file at path with Read, naming it path in errors; "-" reads
// standard input (named "<stdin>"). Gzip input (a ".gz" file, or any input starting with the
// gzip magic bytes) is decompressed on the fly by internal/gz's Reader. A file that cannot be
// opened gives os.Open's error (an *fs.PathError); every other error is a *Error.
func Open(path string, opts Options) (*Data, error) {
	if path == "-" {
		return Read(os.Stdin, "<stdin>", opts)
	}
	r, close, err := openInput(path)
	if err != nil {
		return nil, err
	}
	defer close()
	return Read(r, path, opts)
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
