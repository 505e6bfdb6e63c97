package timeline

import "github.com/orprof/orprof/report/tracefile"

// OpenTrace reads the trace at path in one pass ("-": standard input) for the analyses alone
// (tracefile.OpenConsumers, a Consumer: no event is kept) and returns the summary of its rank:
// the trace's distributedInfo rank, else pos. The warnings are the reader's.
func OpenTrace(path string, o Options, pos int) (*Summary, []string, error) {
	c := NewConsumer(o, nil)
	td, err := tracefile.OpenConsumers(path, tracefile.Options{Consumers: []tracefile.Consumer{c}})
	if err != nil {
		return nil, nil, err
	}
	name := path
	if name == "-" {
		name = "<stdin>"
	}
	return c.Finish(td, RankInfo{Rank: int64(pos), Trace: name}), td.ReadWarnings(name), nil
}

// TimedPart returns a function that hands the reader's events (tracefile.ReadEach,
// ReadKeepEach: on the converting goroutines, times on the trace's clock) to a new Part of a,
// for one converting goroutine, classed as a Consumer classes them: the same analyses for a
// caller that reads the trace itself, feeding other consumers in the same pass (orprof report).
func (a *Analyzer) TimedPart() func(*tracefile.TimedEvent) {
	p := a.Part()
	cls := newClassifier(nil)
	var e Event
	return func(t *tracefile.TimedEvent) {
		if fromTimed(t, &e, &cls) {
			p.Add(&e)
		}
	}
}

// fromTimed fills e from the reader's event t, and reports whether the analyses take it.
func fromTimed(t *tracefile.TimedEvent, e *Event, cls *classifier) bool {
	*e = Event{Name: t.Name, StartNs: t.StartNs, EndNs: t.EndNs, Device: int(t.Pid), Stream: t.Tid,
		Correlation: t.Correlation}
	switch t.Kind {
	case tracefile.HostOp:
		e.Kind = Op
	case tracefile.RuntimeCall:
		e.Kind = Launch
	case tracefile.DeviceActivity:
		e.Kind, e.Stream, e.Class = Device, t.Stream, cls.class(t.DeviceKind, t.Name)
		if t.DeviceAnnotation {
			e.Class = Annotation
		}
	default:
		return false
	}
	return true
}
