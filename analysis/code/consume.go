package code

import (
	"github.com/orprof/orprof/trace"
	"github.com/orprof/orprof/trace/tracefile"
)

// The glue between the trace reader and the attribution: the one file that knows
// tracefile's consumer contract (Attribute knows only Input).

// Collector is a tracefile consumer that keeps what Attribute needs of a trace: the
// python_function events that can name a row (Keyed) and the fwdbwd flows
// (tracefile.NeedPython), the host ops, and the device events with the op each is linked to.
type Collector struct {
	in    Input
	n     int   // events seen: an Event's index in the read
	opEv  []int // the read's index of each op of in.Ops, ascending
	devOp []int // the read's index of each kernel's op (−1: none), resolved in Input
	// spans are the Keyed python_function events: one list of the read's count (Counts.Python),
	// else in chunks, as a list grown by append costs several times its size in fresh pages.
	spans   [][]Span
	nSpans  int
	nPython int // python_function events seen, kept or not
	rank    trace.Rank
	counts  tracefile.Counts
	// started is set at the first op or device event, which come after the Python layer;
	// off then says the trace had none, and the rest is not kept (nothing to charge it to).
	started, off bool
	// always keeps the ops of a trace without Python events (phases need none).
	always bool
	// phases counts the user annotations that name a phase (isPhase) of a trace whose ops
	// are not kept (off).
	phases int
}

// NewCollector returns an empty Collector.
func NewCollector() *Collector { return &Collector{} }

// newCollectorFor returns an empty Collector for attributing by by.
func newCollectorFor(by By) *Collector { return &Collector{always: by == ByPhase} }

// Needs asks for the device events' links to their operators and the Python layer.
func (c *Collector) Needs() tracefile.Needs { return tracefile.NeedLinks | tracefile.NeedPython }

// Begin keeps the trace's rank and the sizes the read will fill.
func (c *Collector) Begin(info *tracefile.Info) {
	c.rank = info.Rank
	c.counts = info.Counts
}

// start makes the lists at the sizes the read will fill, or turns the collector off for a
// trace without Python events.
func (c *Collector) start() {
	c.started = true
	if c.nPython == 0 && !c.always {
		c.off = true
		return
	}
	n := c.counts
	c.in.Ops = make([]Op, 0, n.Host+n.Runtime)
	c.opEv = make([]int, 0, n.Host+n.Runtime)
	c.in.Kernels = make([]Kernel, 0, n.Device)
	c.devOp = make([]int, 0, n.Device)
}

// Finish ends the read; Input has what was collected.
func (c *Collector) Finish() {}

// Rank is the trace's rank, as Begin was told it.
func (c *Collector) Rank() trace.Rank { return c.rank }

// python takes a python_function event or one end of a fwdbwd flow.
func (c *Collector) python(ev *tracefile.Event) {
	if ev.Kind == tracefile.KindPython {
		c.nPython++
		if !Keyed(ev.Name) {
			return // transparent (Input)
		}
		if k := len(c.spans) - 1; k < 0 || len(c.spans[k]) == cap(c.spans[k]) {
			n := spanChunk
			if k < 0 && c.counts.Python > 0 {
				n = c.counts.Python
			}
			c.spans = append(c.spans, make([]Span, 0, n))
		}
		k := len(c.spans) - 1
		c.spans[k] = append(c.spans[k], Span{Name: ev.Name, Tid: ev.Tid, StartNs: ev.StartNs, EndNs: ev.EndNs})
		c.nSpans++
		return
	}
	c.in.Flows = append(c.in.Flows, Flow{ID: ev.FlowID, Start: ev.FlowStart, Tid: ev.Tid, AtNs: ev.StartNs})
}

// Event takes a host op or a device event.
func (c *Collector) Event(ev *tracefile.Event) {
	if ev.Kind == tracefile.KindPython || ev.Kind == tracefile.KindFlow {
		c.python(ev) // (not counted: OpIndex counts the converted events)
		return
	}
	if !c.started {
		c.start()
	}
	if c.off {
		if namesPhase(ev.Kind == tracefile.KindUserAnnotation, ev.Name, ev.StartNs, ev.EndNs) {
			c.phases++
		}
		return
	}
	i := c.n
	c.n++
	switch {
	case ev.Kind.Host() || ev.Kind == tracefile.KindRuntime:
		c.opEv = append(c.opEv, i)
		c.in.Ops = append(c.in.Ops, Op{Name: ev.Name, Tid: ev.Tid, StartNs: ev.StartNs, EndNs: ev.EndNs,
			Seq: ev.SequenceNr, FwdThread: ev.FwdThread, Annotation: ev.Kind == tracefile.KindUserAnnotation})
	case ev.Kind.DeviceTime():
		c.in.Kernels = append(c.in.Kernels, Kernel{Name: ev.Name, DurNs: ev.EndNs - ev.StartNs})
		c.devOp = append(c.devOp, ev.OpIndex)
	}
}

// Input returns what was collected, each kernel's Op an index into its Ops. Call it once,
// after the read.
func (c *Collector) Input() *Input {
	in := c.in
	in.Python = c.nPython
	if len(c.spans) == 1 {
		in.Spans = c.spans[0]
	} else {
		in.Spans = make([]Span, 0, c.nSpans)
		for _, ch := range c.spans {
			in.Spans = append(in.Spans, ch...)
		}
	}
	// The kernels' ops are resolved in place: the read is over, and Input is called once.
	for k, ev := range c.devOp {
		in.Kernels[k].Op = -1
		if ev < 0 {
			continue
		}
		if j, ok := searchInts(c.opEv, ev); ok {
			in.Kernels[k].Op = j
		}
	}
	return &in
}

// spanChunk is how many spans one allocation of Collector holds.
const spanChunk = 4096

func searchInts(a []int, x int) (int, bool) {
	lo, hi := 0, len(a)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if a[m] < x {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo, lo < len(a) && a[lo] == x
}
