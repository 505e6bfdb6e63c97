package tracefile

import (
	"fmt"
	"io"
	"os"
	"runtime"

	"github.com/orprof/orprof/trace"
)

// ReadConsumers reads a trace as Read does for its Options.Consumers alone: they get every
// event, and no FunctionEvent is made or kept (Data.Events is nil), so the read costs the
// records and the links and no more. Shapes and stacks are not rendered. Options.Tree
// is refused: there are no events to walk.
func ReadConsumers(r io.Reader, name string, opts Options) (*Data, error) {
	if opts.Tree != nil {
		return nil, &Error{File: name, Offset: -1, Msg: "Options.Tree needs the events: use Read or ReadAverages"}
	}
	skip := skipArgs{shapes: true, stacks: true}
	return decodeTrace(r, name, opts, defaultParConfig(), skip, func(d *decoder) *Data {
		if d.collects() {
			// As resolve does: the parse's garbage goes before the link tables are made, so
			// that they reuse its pages (the peak RSS of a large trace is here).
			runtime.GC()
			d.parseCollected = true
		}
		d.noEvents = true
		return d.resolveInto(func(int) eventSink { return nil })
	})
}

// OpenConsumers is ReadConsumers of the trace file at path, opened as Open opens it ("-" is
// standard input).
func OpenConsumers(path string, opts Options) (*Data, error) {
	if path == "-" {
		return ReadConsumers(os.Stdin, "<stdin>", opts)
	}
	r, close, err := openInput(path)
	if err != nil {
		return nil, err
	}
	defer close()
	return ReadConsumers(r, path, opts)
}

// Consumer is an analysis fed by a read: it says what it needs, is told about the trace,
// takes the events one at a time and finishes (package analysis states the contract). The
// calls never overlap and come in that order, not necessarily on one goroutine; when and
// where each runs is the read's business.
//
//	type busy struct{ ns int64 }
//
//	func (*busy) Needs() tracefile.Needs       { return 0 }
//	func (*busy) Begin(*tracefile.Info)         {}
//	func (b *busy) Event(ev *tracefile.Event) {
//		if ev.Kind.DeviceTime() {
//			b.ns += ev.EndNs - ev.StartNs
//		}
//	}
//	func (*busy) Finish() {}
//
//	_, err := tracefile.Open(path, tracefile.Options{Consumers: []tracefile.Consumer{&b}})
type Consumer interface {
	// Needs is what the consumer wants of the read beyond the events; it is called once,
	// before Begin.
	Needs() Needs
	// Begin is called once, before the first event.
	Begin(info *Info)
	// Event is called once per event, in file order.
	Event(ev *Event)
	// Finish is called once, after the last event, before the read returns.
	Finish()
}

// Needs says what a consumer wants of a read beyond the events themselves.
type Needs uint8

const (
	// NeedLinks: the events' links to their operators (Event.Op, OpIndex, Rule, Launch, and
	// a device event's Comm found through its launch). Without it they are zero and a device
	// event's Comm is only what its own args say.
	NeedLinks Needs = 1 << iota
	// NeedMemory: the "[memory]" records of a Kineto trace too, as events of KindMemory.
	NeedMemory
	// NeedDeviceNames: the names of the device events, each once, in Info.DeviceNames.
	NeedDeviceNames
	// NeedPython: the trace's Python layer too — its python_function events (KindPython)
	// and the ends of its fwdbwd flows (KindFlow) — in file order, before any other event. A
	// read keeps none of it otherwise: a trace with stacks has more of it than operators.
	NeedPython
)

// Info is what a consumer is told before its first event.
type Info struct {
	// Rank is the trace's: its distributedInfo rank (Named), else Options.Position; Trace is
	// the name the read was given.
	Rank trace.Rank
	// Form, DeviceName and OriginNs are the Data's.
	Form       Form
	DeviceName string
	OriginNs   int64
	// Counts is how many events of each kind the consumer will get: a hint to size its lists
	// by, exact for the events it is handed.
	Counts Counts
	// DeviceNames are the device events' names, each once, in no set order (NeedDeviceNames
	// only; the consumer's to keep).
	DeviceNames []string
}

// Counts is how many events of each kind a read hands its consumers: host operators and user
// annotations, runtime calls, device events, "[memory]" records (NeedMemory's), and
// python_function events and fwdbwd flow ends (NeedPython's; 0 for a read without it).
type Counts struct {
	Host, Runtime, Device, Memory int
	Python                        int
}

// Memory is what a "[memory]" record says: the bytes allocated (negative: freed), the device (a
// c10::DeviceType number and an index, −1 when absent) and the allocator's totals after it
// (−1 when absent).
type Memory struct {
	Bytes                         int64
	DeviceType, DeviceID          int64
	TotalAllocated, TotalReserved int64
	// Addr is the block's address ("Addr"; 0 when absent): an allocation and its free share it.
	Addr int64
}

// Kind is what a converted event is.
type Kind uint8

const (
	// KindOp is a host operator: a cpu_op, or a legacy event.
	KindOp Kind = iota
	// KindUserAnnotation is a host range: user_annotation (record_function).
	KindUserAnnotation
	// KindRuntime is a runtime or driver call on a host thread (cudaLaunchKernel,
	// cudaMemcpyAsync, MTIA's runFunction, …): Correlation names the device work it launched.
	KindRuntime
	// KindKernel is a kernel on a device (cat kernel, mtia_ccp_events, hpu_op, and the CUPTI
	// range profiler's cuda_profiler_range, one per kernel).
	KindKernel
	// KindMemcpy is a device copy (gpu_memcpy).
	KindMemcpy
	// KindMemset is a device fill (gpu_memset).
	KindMemset
	// KindSync is device-side synchronization (cuda_sync: Stream Sync, Event Sync, …).
	KindSync
	// KindDeviceAnnotation is a device-side user range (gpu_user_annotation): it spans
	// kernels, so it is not device time of its own.
	KindDeviceAnnotation
	// KindDeviceOther is other device activity (mtia_workloadd, …).
	KindDeviceOther
	// KindScopeMetrics is a scope profiler's "metrics: <kernel>" slice around a kernel: a row
	// of its own in the table, whose time is its kernel's, so not device time.
	KindScopeMetrics
	// KindMemory is a "[memory]" record (NeedMemory): an allocation or a free at one time
	// (StartNs = EndNs), on a host thread; Event.Memory says what it is.
	KindMemory
	// KindPython is a python_function event (NeedPython): one Python call the profiler's
	// tracer saw, "file.py(12): func", "nn.Module: Linear_0" or "<built-in …>".
	KindPython
	// KindFlow is one end of a fwdbwd flow (NeedPython), at its time on its thread: it ties
	// an autograd node run in backward to the forward op that made it (FlowID, FlowStart).
	KindFlow
	// KindEventRecord is a CUDA event record reached on the device (cat cuda_event, named
	// "cudaEvent"): a marker on its stream, 1 ns long, that Event Syncs wait on. It is a
	// device event but not device time, and no op's.
	KindEventRecord
)

var kindNames = [...]string{"op", "user_annotation", "runtime", "kernel", "memcpy", "memset", "sync",
	"device_annotation", "device_other", "scope_metrics", "memory", "python", "flow", "event_record"}

// String returns the kind's lower-case name ("op", "kernel", …).
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// Device reports whether the event runs on a device.
func (k Kind) Device() bool { return k >= KindKernel && k <= KindScopeMetrics || k == KindEventRecord }

// Host reports whether the event is a host operator or user annotation (what the table's rows
// are made of).
func (k Kind) Host() bool { return k <= KindUserAnnotation }

// DeviceTime reports whether the event's duration is device time: a device event that is
// not a device-side annotation or a scope profiler's metrics slice (the table's device total
// counts the same events).
func (k Kind) DeviceTime() bool {
	return k.Device() && k != KindDeviceAnnotation && k != KindScopeMetrics && k != KindEventRecord
}

// Event is one converted trace event as a Consumer sees it.
type Event struct {
	Kind Kind
	// Name is the event's name as the file has it (the table prints it rewritten by
	// events.RewriteName).
	Name string
	// StartUs and EndUs are the times the table uses: µs from the profile's start (as
	// FunctionEvent.StartUs/EndUs; Kineto's ns-resolution times are exact to the ns).
	StartUs, EndUs float64
	// StartNs and EndNs are the same times in integer ns on the trace's own clock, as a
	// TimedEvent has them: the file's times in the Kineto form (µs with up to three decimals
	// exactly, finer ones rounded to the ns as they are read), round(µs × 1000) of the file's
	// float µs in the legacy form (saturated at ±2⁶³ ns). EndNs − StartNs is the event's
	// duration in whole ns, which the kernel view's exact statistics (package kernels) sum.
	StartNs, EndNs int64
	// Pid and Tid are the event's "pid" and "tid". For a device event Pid is the device index.
	Pid, Tid int64
	// Stream is a device event's "stream" argument, or its tid when it has none; −1 for host
	// events.
	Stream int64
	// Correlation is the event's "correlation" argument (0: none): on a runtime call and on
	// the device work it launched.
	Correlation int64
	// ExternalID is the event's "External id" (0: none). For a host operator, its id.
	ExternalID int64
	// Op is the name of the host operator a device event was charged to (as the table names
	// it, rewritten by events.RewriteName), "" when it reached none; Rule says how it was
	// found. For a runtime call, the operator its device work was charged to, when some was.
	Op   string
	Rule LinkRule
	// OpIndex identifies that operator within the read: the index of its event among the
	// converted events (file order, from 0); −1 when Op is "".
	OpIndex int
	// Launch is, for a device event linked through a runtime call (rules 1 through it, 2 and
	// 3), that call's correlation; 0 otherwise.
	Launch int64
	// Comm is the collective or point-to-point call the event is part of, as c10d recorded it
	// (collective.go): on the record_param_comms operator that carries its args, on a device
	// event that carries them (Kineto copies them onto the kernel), and on a device event
	// whose launch (or, without one, linked operator) lies within such an operator on its
	// thread. nil for every other event. It is the read's: the struct is valid during the
	// call only, as the Event is (its strings may be kept).
	Comm *Collective
	// BlocksPerSM and OccupancyPct are a kernel's "blocks per SM" and "est. achieved
	// occupancy %" as Kineto writes CUPTI's estimates (−1 when absent; 0 for host events).
	BlocksPerSM, OccupancyPct float32
	// Memory is a KindMemory event's record; zero for every other event.
	Memory Memory
	// SequenceNr and FwdThread are a host operator's "Sequence number" (−1: none) and "Fwd
	// thread id" (0: none). An autograd node run in backward has both: the forward op that
	// made it has the same sequence number on the thread PyTorch numbers FwdThread (its own
	// thread count from 1, not the trace's tid). −1 and 0 for other events.
	SequenceNr, FwdThread int64
	// FlowID is a KindFlow event's "id", shared by the flow's two ends; FlowStart is true at
	// its start ("s", the forward op) and false at its end ("f", the backward op).
	FlowID    int64
	FlowStart bool
}

// LinkRule says how a device event was charged to a host operator: the rules are tried in
// this order, and the first that finds an operator links it.
type LinkRule uint8

const (
	// Unlinked: no rule found an operator.
	Unlinked LinkRule = iota
	// ByExternalID (rule 1): the event's "External id", or that of the runtime call with the
	// same "correlation", names the operator — where the file's ids can be trusted (Kineto
	// builds of 2022–2023 wrote an event's own correlation there; such an id counts only when
	// the call lies within that operator on its thread).
	ByExternalID
	// ByLaunch (rule 2): the runtime call with the same "correlation" (cudaLaunchKernel,
	// cudaMemcpyAsync, cudaGraphLaunch, MTIA's runFunction, …) lies within host operators
	// on its thread; the innermost one (a cpu_op or a user_annotation, as the RecordFunction
	// active when the call was made) launched it. A CUDA-graph replay's kernels all carry
	// the correlation of the cudaGraphLaunch that replayed them, so each goes to the op that
	// launched the graph.
	ByLaunch
	// ByOrder (rule 3): a CUPTI range-profiler kernel (cuda_profiler_range) carries no
	// correlation; the k-th of them in time order is the k-th kernel launch
	// (cudaLaunchKernel, cuLaunchKernel, …) in time order, then that launch's operator as by
	// rules 1–2. HolisticTraceAnalysis pairs them the same way. It is sound only because
	// the range profiler serializes kernels (it replays each launch alone to read its
	// counters), so launches and kernels come in one order; the rule applies only when the
	// two counts are equal.
	ByOrder
	// ByEnclosing (rule 4): device work PyTorch does not attach (MTIA, HPU) that has no
	// correlation (MTIA's dma_request transfers) is charged to the operator running on the
	// host when it started: the innermost host operator whose interval holds its start, on
	// the host thread where that operator is shortest (a leaf call such as aten::_copy_from
	// on the thread that issued the copy, rather than a span such as a backward annotation on
	// another).
	ByEnclosing
	// ByGraphScope (tried before rule 1, on the device events it applies to): a CUDA-graph
	// replay's kernel whose args carry PyTorch's graph annotation (a "graph node id" and the
	// scope's "name", pytorch/pytorch#194854) is charged to an operator the read adds for that
	// scope of that replay: a 0 ns user annotation of the scope's name under the replay's
	// cudaGraphLaunch (reader_graph.go). Replayed kernels without a scope go by rule 2.
	ByGraphScope
	numRules
)

var ruleNames = [...]string{"unlinked", "external-id", "launch", "order", "enclosing", "graph"}

// String returns the rule's name: "unlinked", "external-id", "launch", "order", "enclosing",
// "graph".
func (r LinkRule) String() string {
	if int(r) < len(ruleNames) {
		return ruleNames[r]
	}
	return fmt.Sprintf("LinkRule(%d)", int(r))
}

// LinkMode selects the rules a read applies (Options.Link).
type LinkMode uint8

const (
	// LinkAll applies every rule (the default).
	LinkAll LinkMode = iota
	// LinkExternalID applies rule 1 alone, to the device types PyTorch attaches (CUDA, XPU,
	// PrivateUse1): the strict reading of the file, what PyTorch's own parser would do.
	LinkExternalID
)

// ParseLinkMode reads a --link value: "all" or "external-id".
func ParseLinkMode(s string) (LinkMode, bool) {
	switch s {
	case "all", "":
		return LinkAll, true
	case "external-id":
		return LinkExternalID, true
	}
	return 0, false
}

// String returns "all" or "external-id".
func (m LinkMode) String() string {
	if m == LinkExternalID {
		return "external-id"
	}
	return "all"
}
