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
// A read keeps none of them unless a consumer needs them (NeedPython): they are not
// FunctionEvents, and a trace with stacks has more of them than operators.

// wantsPython reports whether a read must keep the Python layer for one of cs.
func wantsPython(cs []Consumer) bool {
	for _, c := range cs {
		if c.Needs()&NeedPython != 0 {
			return true
		}
	}
	return false
}

// pyRecord is what a read keeps of a python_function event or a flow end: less than a
// rawEvent, as a trace with stacks has more of them than of operators.
type pyRecord struct {
	ts, dur  int64 // as rawEvent's (legacy form: float64 bits of µs); a flow's id in dur
	pid, tid int64
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

// addPython appends r to d.py. The records go on in the decoder's current chunk (pyCur)
// whatever list they join: a parallel read gives each segment a list of its own, and a
// chunk per segment would cost a fresh allocation for the few records a segment holds.
// A list's chunks are runs of pyCur's arrays, each grown in place while it ends where
// pyCur does.
func (d *decoder) addPython(r pyRecord) {
	if len(d.pyCur) == cap(d.pyCur) {
		d.pyCur = make([]pyRecord, 0, pyChunk)
	}
	i := len(d.pyCur)
	d.pyCur = append(d.pyCur, r)
	l := &d.py
	if k := len(l.chunks) - 1; k >= 0 && i > 0 {
		c := l.chunks[k]
		if n := len(c); n < cap(c) && &c[:n+1][n] == &d.pyCur[i] {
			l.chunks[k] = c[:n+1]
			l.n++
			return
		}
	}
	l.chunks = append(l.chunks, d.pyCur[i:i+1])
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
		r.dur, r.flow = ev.flowID, ev.ph
	}
	if d.format == Legacy {
		r.ts = int64(math.Float64bits(ev.tsUs))
		if !flow {
			r.dur = int64(math.Float64bits(ev.durUs))
		}
	}
	d.addPython(r)
}

// feedPython hands the Python layer to the consumers among cs that need it, as events of
// KindPython and KindFlow.
func (d *decoder) feedPython(cs []Consumer, times func(*rawEvent) (float64, float64)) {
	var pcs []Consumer
	for _, c := range cs {
		if c.Needs()&NeedPython != 0 {
			pcs = append(pcs, c)
		}
	}
	if len(pcs) == 0 {
		return
	}
	kineto := d.format == Kineto
	var ev Event
	var raw rawEvent
	for _, ch := range d.py.chunks {
		for i := range ch {
			r := &ch[i]
			raw.ts, raw.dur = r.ts, r.dur
			ev = Event{Kind: KindPython, Name: d.nameStrs[r.name], Pid: r.pid, Tid: r.tid, Stream: -1, OpIndex: -1,
				SequenceNr: -1}
			if r.flow != 0 {
				ev.Kind, ev.FlowID, ev.FlowStart = KindFlow, r.dur, r.flow == 's'
				raw.dur = 0
			}
			ev.StartUs, ev.EndUs = times(&raw)
			ev.StartNs, ev.EndNs = raw.timesNs(kineto)
			for _, c := range pcs {
				c.Event(&ev)
			}
		}
	}
}
