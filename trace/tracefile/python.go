package tracefile

import "math"

// The Python layer of a trace, for the consumers that ask for it.
//
// A trace recorded with with_stack=True holds "X" events of cat python_function: one per
// Python call the profiler's tracer saw, named "file.py(12): func" for a Python function,
// "nn.Module: Linear_0" for a module's forward call, "<built-in method …>" for a C function.
// They nest in time on their thread (their "Python parent id" says the same). A training
// trace also links each autograd node run in backward to the forward op that made it with
// a "fwdbwd" flow: an "s" event on the forward op's thread at its start, an "f" event
// ("bp": "e") on the backward op's thread at its start, the two sharing an "id".
//
// A read keeps none of them unless a consumer is a PythonConsumer: they are not FunctionEvents,
// and a trace with stacks has more of them than operators.

// PythonEvent is a python_function event or one end of a fwdbwd flow.
type PythonEvent struct {
	// Flow is 0 for a python_function event, 's' or 'f' for the start or the end of a fwdbwd
	// flow.
	Flow byte
	// Name is the python_function event's name ("fwdbwd" for a flow).
	Name string
	// StartUs, EndUs, StartNs and EndNs are the event's times as an Event's are; a flow's
	// end is its start.
	StartUs, EndUs float64
	StartNs, EndNs int64
	Pid, Tid       int64
	// ID is a flow's "id" (0 for a python_function event).
	ID int64
}

// PythonConsumer is a Consumer that also takes the trace's python_function events and
// fwdbwd flows: Python is called for each, in file order, on the consumer's goroutine, before
// its first Event. The *PythonEvent is valid during the call only (its strings may be kept).
type PythonConsumer interface {
	Consumer
	Python(p *PythonEvent)
}

// wantsPython reports whether a read must keep the Python layer for one of cs.
func wantsPython(cs []Consumer) bool {
	for _, c := range cs {
		if _, ok := c.(PythonConsumer); ok {
			return true
		}
	}
	return false
}

// pyRecord is what a read keeps of a python_function event or a flow end: less than a
// rawEvent, as a trace with stacks has more of them than of operators.
type pyRecord struct {
	ts, dur  int64 // as rawEvent's (legacy form: float64 bits of µs)
	pid, tid int64
	id       int64 // a flow's id
	name     uint32
	flow     byte // 0, 's' or 'f'
}

// pyChunk is how many pyRecords one allocation holds.
const pyChunk = 4096

// pyList is an append-only list of pyRecords in chunks (no copy as it grows).
type pyList struct {
	chunks [][]pyRecord
	n      int
}

func (l *pyList) add(r pyRecord) {
	k := len(l.chunks) - 1
	if k < 0 || len(l.chunks[k]) == cap(l.chunks[k]) {
		l.chunks = append(l.chunks, make([]pyRecord, 0, pyChunk))
		k++
	}
	l.chunks[k] = append(l.chunks[k], r)
	l.n++
}

// adopt appends o's records, keeping its chunks.
func (l *pyList) adopt(o *pyList) {
	l.chunks = append(l.chunks, o.chunks...)
	l.n += o.n
}

// keepPython records a python_function event or a fwdbwd flow's end in d.py.
func (d *decoder) keepPython(ev *evFields) {
	flow := ev.ph != 'X'
	if err := d.checkTimes(ev, !flow); err != nil {
		d.skipEvent(err)
		return
	}
	r := pyRecord{ts: ev.tsNs, pid: ev.pid, tid: ev.tid, name: ev.name}
	if !flow {
		r.dur = ev.durNs
	} else {
		r.id, r.flow = ev.flowID, ev.ph
	}
	if d.format == Legacy {
		r.ts, r.dur = int64(math.Float64bits(ev.tsUs)), int64(math.Float64bits(ev.durUs))
	}
	d.py.add(r)
}

// feedPython hands the Python layer to the PythonConsumers among cs.
func (d *decoder) feedPython(cs []Consumer, times func(*rawEvent) (float64, float64)) {
	var pcs []PythonConsumer
	for _, c := range cs {
		if pc, ok := c.(PythonConsumer); ok {
			pcs = append(pcs, pc)
		}
	}
	if len(pcs) == 0 {
		return
	}
	kineto := d.format == Kineto
	var p PythonEvent
	var raw rawEvent
	for _, ch := range d.py.chunks {
		for i := range ch {
			r := &ch[i]
			raw.ts, raw.dur = r.ts, r.dur
			p = PythonEvent{Flow: r.flow, Name: d.nameStrs[r.name], Pid: r.pid, Tid: r.tid, ID: r.id}
			p.StartUs, p.EndUs = times(&raw)
			p.StartNs, p.EndNs = raw.timesNs(kineto)
			for _, c := range pcs {
				c.Python(&p)
			}
		}
	}
}
