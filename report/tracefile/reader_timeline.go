package tracefile

import (
	"io"
	"os"

	"github.com/orprof/orprof/events"
)

// EventKind is what a trace event is on the timeline (TimedEvent).
type EventKind uint8

const (
	// HostOp is a host operator or user range (cpu_op, user_annotation, a legacy event).
	HostOp EventKind = iota + 1
	// RuntimeCall is a host runtime or driver call (cudaLaunchKernel, runFunction, …).
	RuntimeCall
	// DeviceActivity is an event on the accelerator (kernel, memcpy, memset, sync, …).
	DeviceActivity
	// MemoryRecord is a "[memory]" instant (Kineto form): an allocation or a free, at StartNs
	// (= EndNs), with the Memory fields. Consumers that do not know it ignore it.
	MemoryRecord
)

// Memory is what a MemoryRecord says: the bytes allocated (negative: freed), the device (a
// c10::DeviceType number and an index, −1 when absent) and the allocator's totals after it
// (−1 when absent).
type Memory struct {
	Bytes                         int64
	DeviceType, DeviceID          int64
	TotalAllocated, TotalReserved int64
}

// TimedEvent is one trace event as ReadEach hands it over: its kind, name and times on the
// trace's own (absolute) clock in ns, so that the ranks of one job line up.
type TimedEvent struct {
	Kind           EventKind
	Name           string
	StartNs, EndNs int64
	// Pid and Tid are the event's process and thread (a device event's device and stream).
	Pid, Tid int64
	// Correlation is the "correlation" argument of a runtime call or device event (0: none).
	Correlation int64
	// DeviceAnnotation marks a device-side user range (gpu_user_annotation).
	DeviceAnnotation bool
	// DeviceKind is a device activity's kind as a Consumer's Event has it (KindKernel,
	// KindMemcpy, KindMemset, KindSync, KindDeviceAnnotation, KindDeviceOther).
	DeviceKind Kind
	// Stream is a device activity's "stream" argument, or its tid when it has none.
	Stream int64
	// Memory describes a MemoryRecord.
	Memory Memory
}

// ReadEach reads a trace as Read does and hands each event to a function of newPart, as the
// reader converts it, without keeping the events: each call of newPart makes the function
// of one converting goroutine. It returns the Data without events (Events is nil).
func ReadEach(r io.Reader, name string, opts Options, newPart func() func(*TimedEvent)) (*Data, error) {
	skip := skipArgs{shapes: true, stacks: true}
	return decodeTrace(r, name, opts, defaultParConfig(), skip, func(d *decoder) *Data {
		return d.resolveInto(func(int) eventSink { return eachSink{newPart: newPart, kineto: d.format == Kineto} })
	})
}

// OpenEach is ReadEach of the trace file at path, opened as Open opens it.
func OpenEach(path string, opts Options, newPart func() func(*TimedEvent)) (*Data, error) {
	if path == "-" {
		return ReadEach(os.Stdin, "<stdin>", opts, newPart)
	}
	r, close, err := openInput(path)
	if err != nil {
		return nil, err
	}
	defer close()
	return ReadEach(r, path, opts, newPart)
}

// eachSink hands each record to a function and keeps nothing.
type eachSink struct {
	newPart func() func(*TimedEvent)
	kineto  bool
}

type eachPart struct {
	f      func(*TimedEvent)
	kineto bool
	fe     events.FunctionEvent
	ev     TimedEvent
}

func (s eachSink) part() sinkPart  { return &eachPart{f: s.newPart(), kineto: s.kineto} }
func (s eachSink) apply(lk *links) {}

func (p *eachPart) event(int) *events.FunctionEvent {
	p.fe = events.FunctionEvent{}
	return &p.fe
}

func (p *eachPart) done(int) {}

// memory hands the "[memory]" record r to the part's function.
func (p *eachPart) memory(r *rawEvent) {
	alloc, res := r.memTotals()
	p.ev = TimedEvent{Kind: MemoryRecord, Name: "[memory]", StartNs: r.ts, EndNs: r.ts, Pid: r.pid, Tid: r.tid,
		Memory: Memory{Bytes: r.memBytes(), DeviceType: r.memDevice(), DeviceID: r.memDeviceID(),
			TotalAllocated: alloc, TotalReserved: res}}
	p.f(&p.ev)
}

// record hands the record r, just converted into p.fe, to the part's function.
func (p *eachPart) record(r *rawEvent) {
	e := &p.ev
	*e = TimedEvent{Name: p.fe.TraceName, Pid: r.pid, Tid: r.tid, Correlation: r.corr}
	e.StartNs, e.EndNs = r.timesNs(p.kineto)
	switch r.kind {
	case rawHostOp:
		e.Kind = HostOp
	case rawRuntime:
		e.Kind = RuntimeCall
	case rawDevice:
		if r.cat == catDevScopeMetrics {
			return // a metrics slice over a kernel, not device work of its own
		}
		e.Kind = DeviceActivity
		e.DeviceAnnotation = r.cat == catDevUserAnnotation
		e.DeviceKind, e.Stream = r.devKind(), r.stream()
	default:
		return
	}
	p.f(e)
}
