package tracefile

import (
	"fmt"
	"io"
	"os"
	"runtime"
)

// One pass, many consumers.
//
// A read converts every kept trace event once, after the device events' links to their
// operators are resolved (the rules are on LinkRule), and hands each one, as an Event, to the
// Consumers of its Options: `orprof table`'s events.Averager is fed the same events as
// FunctionEvents; the kernel view (package kernels) and any other analysis are Consumers. So a
// command that wants the table, the kernels and a timeline reads the file once.
//
// Plugging a consumer in:
//
//	type busy struct{ us float64 }
//
//	func (b *busy) Event(ev *tracefile.Event) {
//		if ev.Kind.Device() {
//			b.us += ev.EndUs - ev.StartUs
//		}
//	}
//
//	var b busy
//	data, err := tracefile.Open(path, tracefile.Options{Consumers: []tracefile.Consumer{&b}})
//
// The contract: Event is called once per converted event (host operators, user annotations,
// runtime calls and device events; not memory instants, flows, counters or metadata), in file
// order, on one goroutine, before Read (Open, ReadAverages, …) returns; nothing else calls it.
// A consumer that also has a Memory method (MemoryConsumer) gets the "[memory]" records of a
// Kineto trace the same way, in file order among the events.
// The *Event and its strings are valid during the call only for the struct (copy what you
// keep; the strings themselves may be kept). A consumer that fails keeps its own error and
// reports it after the read. Each consumer should end in a mergeable summary of its own (as
// optable.Summary is), so that several ranks merge.

// ReadConsumers reads a trace as Read does for its Options.Consumers alone: they get every
// event, and no FunctionEvent is made or kept (Data.Events is nil), so the read costs the
// records and the links and no more. Shapes and stacks are not rendered.
func ReadConsumers(r io.Reader, name string, opts Options) (*Data, error) {
	skip := skipArgs{shapes: true, stacks: true}
	return decodeTrace(r, name, opts, defaultParConfig(), skip, func(d *decoder) *Data {
		if d.raws.n >= 1<<16 {
			// As resolve does: the parse's garbage goes before the link tables are made, so
			// that they reuse its pages (the peak RSS of a large trace is here).
			runtime.GC()
		}
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

// Consumer receives the converted events of a read (see the contract above).
type Consumer interface {
	Event(ev *Event)
}

// PreparingConsumer is a Consumer that is handed, before its first event, the names of the
// read's device events, each once, in no set order, to work out what it will want of each
// name (a class by regular expressions, say) while the read links its events, a step that
// keeps one core busy and leaves the others idle: Prepare is called on a goroutine of its
// own as soon as the trace is parsed, and Event is first called after Prepare returns. names
// is the consumer's to keep.
type PreparingConsumer interface {
	Consumer
	Prepare(names []string)
}

// LinkFreeConsumer is a Consumer that reads none of an Event's links: a read feeds it while
// it links its events (a step that keeps one core busy and leaves the others idle), on a
// goroutine of its own, before the linked consumers, rather than beside the conversion of
// the events afterwards. Its events carry no Op, OpIndex, Rule or Launch, and a device
// event's Comm is only what the event's own args say; everything else is as for any
// Consumer (one goroutine, file order, ConsumersDone after its last event too). AllFed is
// called on the same goroutine after its last event: the consumer may finish its work there,
// beside the linking too.
type LinkFreeConsumer interface {
	Consumer
	AllFed()
}

// Counts is how many events of each kind a read hands its consumers: host operators and user
// annotations, runtime calls, device events, and "[memory]" records (MemoryConsumer's).
type Counts struct {
	Host, Runtime, Device, Memory int
}

// SizedConsumer is a Consumer told, on its goroutine and before its first event, how many
// events the read will hand it, so that it can make its lists once at their size. A list
// grown by append past a few thousand elements allocates about five times its final size
// (Go grows large slices by a quarter), and every page of it is a fresh page, with its fault,
// while the read keeps the collector off: on the MTIA trace the report's consumers touched
// three times the memory they kept.
type SizedConsumer interface {
	Consumer
	Expect(n Counts)
}

// MemoryConsumer is a Consumer that takes the trace's "[memory]" records too (the memory
// curve): each, in file order among the events, on the same goroutine. The *MemoryEvent is
// valid during the call only.
type MemoryConsumer interface {
	Consumer
	Memory(m *MemoryEvent)
}

// Memory is what a "[memory]" record (MemoryEvent) says: the bytes allocated (negative: freed), the device (a
// c10::DeviceType number and an index, −1 when absent) and the allocator's totals after it
// (−1 when absent).
type Memory struct {
	Bytes                         int64
	DeviceType, DeviceID          int64
	TotalAllocated, TotalReserved int64
}

// MemoryEvent is one "[memory]" record (Kineto form): an allocation or a free.
type MemoryEvent struct {
	// AtUs is its time as an Event's times are (µs from the profile's start); TraceNs, the
	// same on the trace's own clock (the file's ts × 1000: Data.OriginNs + AtUs × 1000).
	AtUs    float64
	TraceNs int64
	Pid     int64
	Tid     int64
	Memory
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
)

var kindNames = [...]string{"op", "user_annotation", "runtime", "kernel", "memcpy", "memset", "sync",
	"device_annotation", "device_other", "scope_metrics"}

// String returns the kind's lower-case name ("op", "kernel", …).
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// Device reports whether the event runs on a device.
func (k Kind) Device() bool { return k >= KindKernel }

// Host reports whether the event is a host operator or user annotation (what the table's rows
// are made of).
func (k Kind) Host() bool { return k <= KindUserAnnotation }

// DeviceTime reports whether the event's duration is device time: a device event that is
// not a device-side annotation or a scope profiler's metrics slice (the table's device total
// counts the same events).
func (k Kind) DeviceTime() bool {
	return k.Device() && k != KindDeviceAnnotation && k != KindScopeMetrics
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
	// SequenceNr and FwdThread are a host operator's "Sequence number" (−1: none) and "Fwd
	// thread id" (0: none). An autograd node run in backward has both: the forward op that
	// made it has the same sequence number on the thread PyTorch numbers FwdThread (its own
	// thread count from 1, not the trace's tid). −1 and 0 for other events.
	SequenceNr, FwdThread int64
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
	numRules
)

var ruleNames = [...]string{"unlinked", "external-id", "launch", "order", "enclosing"}

// String returns the rule's name: "unlinked", "external-id", "launch", "order", "enclosing".
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
