package timeline

import "github.com/orprof/orprof/report/tracefile"

// TimedPart returns a function that hands the reader's events (tracefile.ReadEach,
// ReadKeepEach) to a new Part of a, for one converting goroutine: what OpenTrace does, for a
// caller that reads the trace itself, feeding other consumers in the same pass (orprof report).
func (a *Analyzer) TimedPart() func(*tracefile.TimedEvent) {
	p := a.Part()
	var e Event
	return func(t *tracefile.TimedEvent) {
		fromTimed(t, &e)
		p.Add(&e)
	}
}
