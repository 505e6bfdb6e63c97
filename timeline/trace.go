package timeline

import (
	"github.com/orprof/orprof/report/tracefile"
)

// OpenTrace reads the trace at path in one pass ("-": standard input), handing its events to
// an Analyzer as the reader converts them, and returns the summary of its rank: the trace's
// distributedInfo rank, else pos. The warnings are the reader's.
func OpenTrace(path string, o Options, pos int) (*Summary, []string, error) {
	a := NewAnalyzer(o)
	td, err := tracefile.OpenEach(path, tracefile.Options{}, func() func(*tracefile.TimedEvent) {
		p := a.Part()
		var e Event
		return func(t *tracefile.TimedEvent) {
			fromTimed(t, &e)
			p.Add(&e)
		}
	})
	if err != nil {
		return nil, nil, err
	}
	name := path
	if name == "-" {
		name = "<stdin>"
	}
	info := RankInfo{Rank: int64(pos), Trace: name, Device: td.DeviceName}
	if td.HasRank {
		info.Rank, info.HasRank = td.Rank, true
	}
	return a.Finish(info), td.ReadWarnings(name), nil
}

// fromTimed fills e from the reader's event t.
func fromTimed(t *tracefile.TimedEvent, e *Event) {
	*e = Event{Name: t.Name, StartNs: t.StartNs, EndNs: t.EndNs, Device: int(t.Pid), Stream: t.Tid,
		Correlation: t.Correlation}
	switch t.Kind {
	case tracefile.HostOp:
		e.Kind = Op
	case tracefile.RuntimeCall:
		e.Kind = Launch
	case tracefile.DeviceActivity:
		e.Kind = Device
		if t.DeviceAnnotation {
			e.Class = Annotation
		}
	}
}
