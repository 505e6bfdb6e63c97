package kineto

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/orprof/orprof/trace"
)

// pluginEvent is one event a plugin reported, every field copied out of plugin memory.
type pluginEvent struct {
	typ              ActivityType
	startNs, endNs   int64
	id               int64
	device, resource int32
	name             string
	seq              int // 1-based position among the plugin's addEvent calls, for messages
	meta             []trace.Arg
	// link is the op's correlation id given as the "External id" metadata (0: none).
	link      int64
	flowType  int32
	flowID    uint32
	flowStart bool
}

// maxProblems bounds the messages one ProcessTrace keeps; the rest are counted.
const maxProblems = 20

// traceBuilder collects what a plugin reports during one profilerProcessEvents call. Its
// methods take values already copied from C and are safe for concurrent use (a plugin may call
// the builder from threads of its own while processEvents runs).
type traceBuilder struct {
	mu        sync.Mutex
	events    []pluginEvent
	added     int  // addEvent calls, accepted or not
	last      int  // index of the event the set-last calls apply to, -1 for none
	lastFail  bool // the last addEvent was rejected: its set-last calls fail quietly
	devices   []trace.Process
	resources []trace.Thread
	problems  []string
	nProblems int
}

func newTraceBuilder() *traceBuilder { return &traceBuilder{last: -1} }

// problem records a message; callers hold mu.
func (b *traceBuilder) problem(format string, a ...any) int32 {
	b.nProblems++
	if len(b.problems) < maxProblems {
		b.problems = append(b.problems, fmt.Sprintf(format, a...))
	}
	return -1
}

// recovered turns a panic in a callback into a recorded problem and a -1 return.
func (b *traceBuilder) recovered(what string, r any, rc *int32) {
	b.mu.Lock()
	*rc = b.problem("%s: host panic: %v", what, r)
	b.mu.Unlock()
}

// nullArg records a call made with a NULL struct pointer; for addEvent the set-last calls that
// follow fail too.
func (b *traceBuilder) nullArg(call string, isEvent bool) int32 {
	b.mu.Lock()
	defer b.mu.Unlock()
	if isEvent {
		b.added++
		b.lastFail = true
	}
	return b.problem("%s called with NULL", call)
}

// addEvent adds an event (size is the plugin's unpaddedStructSize, checked by the caller only
// for being readable: ev is nil when size < eventSize).
func (b *traceBuilder) addEvent(size uintptr, ev *cProfileEvent) int32 {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.added++
	n := b.added
	if ev == nil {
		b.lastFail = true
		return b.problem("event #%d rejected: %v", n, sizeError("KinetoPlugin_ProfileEvent", size, eventSize))
	}
	t, known, ok := activityFromPlugin(ev.eventType)
	if !ok {
		b.lastFail = true
		return b.problem("event #%d rejected: event type INVALID (0)", n)
	}
	if ev.endNs > ev.startNs && ev.endNs-ev.startNs < 0 {
		b.lastFail = true
		return b.problem("event #%d rejected: its duration, %d - %d ns, overflows int64", n, ev.endNs, ev.startNs)
	}
	if !known {
		b.problem("event #%d: unknown event type %d, recorded as kernel", n, ev.eventType)
	}
	b.events = append(b.events, pluginEvent{typ: t, startNs: ev.startNs, endNs: ev.endNs, id: ev.eventID,
		device: ev.device, resource: ev.resource, seq: n})
	b.last = len(b.events) - 1
	b.lastFail = false
	return 0
}

// lastEvent returns the event set-last calls apply to, or records why there is none.
func (b *traceBuilder) lastEvent(call string) (*pluginEvent, int32) {
	if b.lastFail {
		return nil, -1
	}
	if b.last < 0 {
		return nil, b.problem("%s called before any addEvent", call)
	}
	return &b.events[b.last], 0
}

func (b *traceBuilder) setLastEventName(name string, ok bool) int32 {
	b.mu.Lock()
	defer b.mu.Unlock()
	e, rc := b.lastEvent("setLastEventName")
	if e == nil {
		return rc
	}
	if !ok {
		return b.problem("event #%d: setLastEventName: NULL or unterminated name", e.seq)
	}
	e.name = name
	return 0
}

// setLastEventFlow sets the flow; f is nil when size < flowSize.
func (b *traceBuilder) setLastEventFlow(size uintptr, f *cEventFlow) int32 {
	b.mu.Lock()
	defer b.mu.Unlock()
	e, rc := b.lastEvent("setLastEventFlow")
	if e == nil {
		return rc
	}
	if f == nil {
		return b.problem("event #%d: flow rejected: %v", e.seq, sizeError("KinetoPlugin_ProfileEventFlow", size, flowSize))
	}
	if f.flowType != pluginFlowFwdBwd && f.flowType != pluginFlowAsyncGPU {
		return b.problem("event #%d %q: unknown flow type %d, no flow written", e.seq, e.name, f.flowType)
	}
	e.flowType, e.flowID, e.flowStart = f.flowType, f.flowID, f.isStartPoint != 0
	return 0
}

// addLastEventMetadata adds key: value. value must be JSON text; anything else is kept as a
// JSON string, with a problem recorded. A repeated key keeps its first value, as Kineto does.
// "External id" links the event to the op with that correlation id.
func (b *traceBuilder) addLastEventMetadata(key string, keyOK bool, value string, valueOK bool) int32 {
	b.mu.Lock()
	defer b.mu.Unlock()
	e, rc := b.lastEvent("addLastEventMetadata")
	if e == nil {
		return rc
	}
	if !keyOK || !valueOK {
		return b.problem("event #%d %q: addLastEventMetadata: NULL or unterminated key or value", e.seq, e.name)
	}
	value = strings.TrimSpace(value)
	if key == trace.ArgExternalID {
		id, err := strconv.ParseInt(value, 10, 64)
		if err != nil {
			return b.problem("event #%d %q: metadata %q = %s is not an integer correlation id", e.seq, e.name, key, value)
		}
		if e.link != 0 {
			b.problem("event #%d %q: metadata key %q repeated; first value kept", e.seq, e.name, key)
			return 0
		}
		e.link = id
		return 0
	}
	for _, a := range e.meta {
		if a.Key == key {
			b.problem("event #%d %q: metadata key %q repeated; first value kept", e.seq, e.name, key)
			return 0
		}
	}
	if !json.Valid([]byte(value)) {
		b.problem("event #%d %q: metadata %q: %q is not JSON; written as a string", e.seq, e.name, key, value)
		q, _ := json.Marshal(value) // a JSON string; invalid UTF-8 becomes U+FFFD
		value = string(q)
	}
	e.meta = append(e.meta, trace.Raw(key, value))
	return 0
}

// addDeviceInfo adds a process row; d is nil when size < deviceInfoSize.
func (b *traceBuilder) addDeviceInfo(size uintptr, d *cDeviceInfo) int32 {
	b.mu.Lock()
	defer b.mu.Unlock()
	if d == nil {
		return b.problem("device info rejected: %v", sizeError("KinetoPlugin_ProfileDeviceInfo", size, deviceInfoSize))
	}
	name, ok := goString(d.name)
	if !ok {
		name = strconv.FormatInt(d.deviceID, 10)
	}
	label, _ := goString(d.label)
	b.devices = append(b.devices, trace.Process{Pid: d.deviceID, Name: name, Label: label, SortIndex: d.sortIndex})
	return 0
}

// addResourceInfo adds a thread row; r is nil when size < resourceInfoSize.
func (b *traceBuilder) addResourceInfo(size uintptr, r *cResourceInfo) int32 {
	b.mu.Lock()
	defer b.mu.Unlock()
	if r == nil {
		return b.problem("resource info rejected: %v", sizeError("KinetoPlugin_ProfileResourceInfo", size, resourceInfoSize))
	}
	name, ok := goString(r.name)
	if !ok {
		name = strconv.FormatInt(int64(r.resource), 10)
	}
	b.resources = append(b.resources, trace.Thread{Pid: int64(r.device), Tid: sanitizeTid(int64(r.resource)),
		Name: name, SortIndex: int64(r.displayOrder)})
	return 0
}

// sanitizeTid is Kineto's tid rule: the absolute value, with the minimum integer as 0.
func sanitizeTid(tid int64) int64 {
	if tid < 0 {
		if -tid < 0 {
			return 0
		}
		return -tid
	}
	return tid
}

// ownExternalID reports whether an unlinked event of type t carries its own id as External id
// (Kineto's rule: device work, runtime and driver calls and counters do not).
func ownExternalID(t ActivityType) bool {
	switch t {
	case GPUMemcpy, GPUMemset, ConcurrentKernel, CUDARuntime, CUDADriver, XPURuntime, XPUDriver,
		PrivateUse1Runtime, PrivateUse1Driver, GPUPMCounter, Runtime, Driver:
		return false
	}
	return true
}

// isDeviceWork reports whether events of type t are device work the operator table counts.
func isDeviceWork(t ActivityType) bool {
	switch t {
	case ConcurrentKernel, GPUMemcpy, GPUMemset, GPUUserAnnotation:
		return true
	}
	return false
}

// isLaunchCall reports whether t is a runtime or driver call: the host side of a launch, which
// the table shows as a host event.
func isLaunchCall(t ActivityType) bool {
	switch t {
	case CUDARuntime, CUDADriver, MTIARuntime, XPURuntime, XPUDriver, PrivateUse1Runtime,
		PrivateUse1Driver, Runtime, Driver, GlowRuntime, HPUOp:
		return true
	}
	return false
}

// pluginSpan is the plugin session's span: its name and capture window.
type pluginSpan struct {
	name            string
	startNs, stopNs int64
}

// appendTo writes what the builder collected into t: the span, device and resource rows (a
// row t already has is kept, and the clash recorded), the events (X, i for instant events, C
// for counters) each followed by its flow event, and returns the device work for the table.
func (b *traceBuilder) appendTo(t *trace.Trace, span pluginSpan) []DeviceActivity {
	b.mu.Lock()
	defer b.mu.Unlock()
	t.Events = append(t.Events,
		trace.Event{Ph: 'X', Cat: "Trace", Name: span.name + " (-1)", PidStr: "Spans", TidStr: span.name,
			TsNs: span.startNs, DurNs: max(0, span.stopNs-span.startNs), Args: []trace.Arg{trace.Int(trace.ArgOpCount, 0)}},
		trace.Event{Ph: 'i', Name: "Iteration Start: " + span.name, PidStr: "Traces", TidStr: "Trace " + span.name,
			TsNs: span.startNs, Scope: 'g'})
	pids := map[int64]bool{}
	for _, p := range t.Processes {
		pids[p.Pid] = true
	}
	for _, d := range b.devices {
		if pids[d.Pid] {
			b.problem("device info %d (%q): the trace already has a process row with pid %d; kept the first", d.Pid, d.Name, d.Pid)
			continue
		}
		pids[d.Pid] = true
		t.Processes = append(t.Processes, d)
	}
	tids := map[[2]int64]bool{}
	for _, th := range t.Threads {
		tids[[2]int64{th.Pid, th.Tid}] = true
	}
	for _, r := range b.resources {
		k := [2]int64{r.Pid, r.Tid}
		if tids[k] {
			b.problem("resource info %d/%d (%q): the trace already has that thread row; kept the first", r.Pid, r.Tid, r.Name)
			continue
		}
		tids[k] = true
		t.Threads = append(t.Threads, r)
	}
	badFlow := b.unpairedFlows()
	b.checkNesting()
	var acts []DeviceActivity
	for i := range b.events {
		e := &b.events[i]
		ev := trace.Event{Ph: 'X', Cat: e.typ.String(), Name: e.name, Pid: int64(e.device),
			Tid: sanitizeTid(int64(e.resource)), TsNs: e.startNs, DurNs: max(0, e.endNs-e.startNs)}
		switch e.typ {
		case GPUPMCounter:
			ev.Ph, ev.DurNs = 'C', 0
			for _, a := range e.meta {
				var f float64
				if json.Unmarshal([]byte(a.JSON()), &f) != nil {
					b.problem("counter %q: series %q = %s is not a number", e.name, a.Key, a.JSON())
				}
			}
		case CPUInstantEvent:
			ev.Ph, ev.DurNs, ev.Scope = 'i', 0, 't'
		}
		ext := e.link
		if ext == 0 && e.typ != GPUPMCounter && ownExternalID(e.typ) {
			ext = e.id
		}
		if ext != 0 && e.typ != GPUPMCounter {
			ev.Args = append(ev.Args, trace.Int(trace.ArgExternalID, ext))
		}
		ev.Args = append(ev.Args, e.meta...)
		t.Events = append(t.Events, ev)
		if e.flowID != 0 && !badFlow[flowKey{e.flowType, e.flowID}] {
			cat := "fwdbwd"
			if e.flowType == pluginFlowAsyncGPU {
				cat = "ac2g"
			}
			ph := byte('f')
			if e.flowStart {
				ph = 's'
			}
			t.Events = append(t.Events, trace.Event{Ph: ph, Cat: cat, Name: cat, Pid: ev.Pid, Tid: ev.Tid,
				TsNs: e.startNs, ID: uint64(e.flowID)})
		}
		switch {
		case isDeviceWork(e.typ):
			acts = append(acts, DeviceActivity{Type: e.typ, Name: e.name, Device: int(e.device),
				Stream: int64(e.resource), StartNs: e.startNs, EndNs: e.endNs, Correlation: e.link})
		case isLaunchCall(e.typ):
			acts = append(acts, DeviceActivity{Type: e.typ, Name: e.name, Device: int(e.device),
				StartNs: e.startNs, EndNs: e.endNs, Correlation: e.link, Thread: int64(e.resource)})
		}
	}
	return acts
}

// flowKey is a flow's identity: its type (the trace category) and id.
type flowKey struct {
	typ int32
	id  uint32
}

// unpairedFlows returns the flows appendTo must not write: a trace viewer needs each flow to
// have exactly one start and one end, the end not before the start. Half a flow is left out
// quietly (see below); any other bad flow is recorded as a problem. Callers hold mu.
func (b *traceBuilder) unpairedFlows() map[flowKey]bool {
	type ends struct {
		starts, ends   int
		startNs, endNs int64
		firstSeq       int
	}
	flows := map[flowKey]*ends{}
	var order []flowKey
	for i := range b.events {
		e := &b.events[i]
		if e.flowID == 0 {
			continue
		}
		k := flowKey{e.flowType, e.flowID}
		f := flows[k]
		if f == nil {
			f = &ends{firstSeq: e.seq}
			flows[k] = f
			order = append(order, k)
		}
		if e.flowStart {
			f.starts++
			f.startNs = e.startNs
		} else {
			f.ends++
			f.endNs = e.startNs
		}
	}
	bad := map[flowKey]bool{}
	for _, k := range order {
		f := flows[k]
		switch {
		case f.starts+f.ends == 1:
			// Half a flow: its other event was of a type not enabled (a runtime call's start
			// when kernels are not traced). Normal; the arrow is left out.
		case f.starts != 1 || f.ends != 1:
			b.problem("event #%d: flow %d (type %d) has %d starts and %d ends, not written", f.firstSeq, k.id, k.typ, f.starts, f.ends)
		case f.endNs < f.startNs:
			b.problem("event #%d: flow %d (type %d) ends at %d before it starts at %d, not written", f.firstSeq, k.id, k.typ, f.endNs, f.startNs)
		default:
			continue
		}
		bad[k] = true
	}
	return bad
}

// checkNesting records complete events on one (device, resource) row that overlap without
// nesting: trace viewers draw a row as a stack, which such events break. They are still
// written. Callers hold mu.
func (b *traceBuilder) checkNesting() {
	type span struct {
		start, end int64
		i          int
	}
	rows := map[[2]int64][]span{}
	for i := range b.events {
		e := &b.events[i]
		if e.typ == GPUPMCounter || e.typ == CPUInstantEvent {
			continue
		}
		k := [2]int64{int64(e.device), sanitizeTid(int64(e.resource))}
		rows[k] = append(rows[k], span{e.startNs, e.startNs + max(0, e.endNs-e.startNs), i})
	}
	for _, sp := range rows {
		slices.SortStableFunc(sp, func(a, b span) int {
			if c := cmp.Compare(a.start, b.start); c != 0 {
				return c
			}
			return cmp.Compare(b.end, a.end)
		})
		var stack []span
		for _, s := range sp {
			for len(stack) > 0 && s.start >= stack[len(stack)-1].end {
				stack = stack[:len(stack)-1]
			}
			if len(stack) > 0 && s.end > stack[len(stack)-1].end {
				e, p := &b.events[s.i], &b.events[stack[len(stack)-1].i]
				b.problem("event #%d %q overlaps event #%d %q on device %d resource %d without nesting",
					e.seq, e.name, p.seq, p.name, e.device, e.resource)
			}
			stack = append(stack, s)
		}
	}
}

// err returns the recorded problems as one error, nil when there were none.
func (b *traceBuilder) err() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.nProblems == 0 {
		return nil
	}
	msg := strings.Join(b.problems, "; ")
	if more := b.nProblems - len(b.problems); more > 0 {
		msg += fmt.Sprintf("; and %d more", more)
	}
	return errors.New(msg)
}
