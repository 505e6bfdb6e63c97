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

// keepPython records a python_function event or a fwdbwd flow (kind rawPython or rawFlow;
// extID holds a flow's id, seq its phase) in d.py.
func (d *decoder) keepPython(ev *evFields) {
	flow := ev.ph != 'X'
	if err := d.checkTimes(ev, !flow); err != nil {
		d.skipEvent(err)
		return
	}
	r := rawEvent{ts: ev.tsNs, pid: ev.pid, tid: ev.tid, name: ev.name, shapes: -1, stack: -1, node: -1, scope: -1}
	if !flow {
		r.dur = ev.durNs
	} else {
		r.extID, r.seq = ev.flowID, int64(ev.ph)
	}
	if d.format == Legacy {
		r.ts, r.dur = int64(math.Float64bits(ev.tsUs)), int64(math.Float64bits(ev.durUs))
	}
	d.py = append(d.py, r)
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
	for i := range d.py {
		r := &d.py[i]
		p = PythonEvent{Name: d.nameStrs[r.name], Pid: r.pid, Tid: r.tid, ID: r.extID}
		p.StartUs, p.EndUs = times(r)
		p.StartNs, p.EndNs = r.timesNs(kineto)
		if r.seq > 0 {
			p.Flow = byte(r.seq)
		}
		for _, c := range pcs {
			c.Python(&p)
		}
	}
}
