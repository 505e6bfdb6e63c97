package tracefile

import (
	"io"
	"os"
	"runtime"

	"github.com/orprof/orprof/events"
)

// ReadKeepEach is Read that also hands each event, as it is converted, to a function of
// newPart as ReadEach does: one read of the file for a caller that needs the events (a List:
// the op tree, the table) and consumers that take them one at a time (the timeline analyses).
// The events are Read's (opts.NoShapes and NoStacks apply), the TimedEvents ReadEach's.
func ReadKeepEach(r io.Reader, name string, opts Options, newPart func() func(*TimedEvent)) (*Data, error) {
	skip := skipArgs{shapes: opts.NoShapes, stacks: opts.NoStacks}
	return decodeTrace(r, name, opts, defaultParConfig(), skip, func(d *decoder) *Data {
		if d.raws.n >= 1<<16 {
			runtime.GC() // as resolve does, before the events are made
		}
		var s sliceSink
		td := d.resolveInto(func(n int) eventSink {
			s.evs = make([]events.FunctionEvent, n)
			return keepEachSink{s: &s, newPart: newPart, kineto: d.format == Kineto}
		})
		td.Events = s.evs
		return td
	})
}

// OpenKeepEach is ReadKeepEach of the trace file at path, opened as Open opens it.
func OpenKeepEach(path string, opts Options, newPart func() func(*TimedEvent)) (*Data, error) {
	if path == "-" {
		return ReadKeepEach(os.Stdin, "<stdin>", opts, newPart)
	}
	r, close, err := openInput(path)
	if err != nil {
		return nil, err
	}
	defer close()
	return ReadKeepEach(r, path, opts, newPart)
}

// keepEachSink keeps every event, as sliceSink does, and hands each to a function as eachSink
// does.
type keepEachSink struct {
	s       *sliceSink
	newPart func() func(*TimedEvent)
	kineto  bool
}

type keepEachPart struct {
	s    *sliceSink
	cur  int
	each eachPart
}

func (k keepEachSink) part() sinkPart {
	return &keepEachPart{s: k.s, each: eachPart{f: k.newPart(), kineto: k.kineto}}
}

func (k keepEachSink) apply(lk *links) { k.s.apply(lk) }

func (p *keepEachPart) event(i int) *events.FunctionEvent {
	p.cur = i
	return &p.s.evs[i]
}

func (p *keepEachPart) done(int) {}

func (p *keepEachPart) memory(r *rawEvent) { p.each.memory(r) }

// record hands the record r, just converted into event cur, to the part's function.
func (p *keepEachPart) record(r *rawEvent) {
	p.each.fe.TraceName = p.s.evs[p.cur].TraceName
	p.each.record(r)
}
