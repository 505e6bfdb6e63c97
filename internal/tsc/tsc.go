// Package tsc reads the x86 time-stamp counter: a clock read in about a third of the time of the
// vDSO clock, for the profiler's hot path. Ticks become nanoseconds by linear interpolation
// between two anchors that pair a tick count with a nanosecond clock reading, as PyTorch's
// approximate clock does.
package tsc

import "sync"

var (
	once  sync.Once
	avail bool
)

// Available reports whether Read can stand in for a nanosecond clock: an amd64 CPU whose TSC
// the kernel reports as invariant. Set ORPROF_NO_TSC=1 to never use it.
func Available() bool {
	once.Do(func() { avail = invariant() && !disabledByEnv() })
	return avail
}

// Anchor pairs a tick count with the nanosecond time of the same instant.
type Anchor struct{ Ticks, Ns int64 }

// NewAnchor reads the counter between two readings of now() and dates it at their midpoint.
func NewAnchor(now func() int64) Anchor {
	before := now()
	t := Read()
	after := now()
	return Anchor{Ticks: t, Ns: before + (after-before)/2}
}

// Converter maps ticks to nanoseconds through two anchors.
type Converter struct {
	a     Anchor
	nsPer float64
}

// NewConverter interpolates between a and b (b later than a). When they are not ordered it
// counts 1 ns per tick.
func NewConverter(a, b Anchor) Converter {
	c := Converter{a: a, nsPer: 1}
	if dt := b.Ticks - a.Ticks; dt > 0 && b.Ns > a.Ns {
		c.nsPer = float64(b.Ns-a.Ns) / float64(dt)
	}
	return c
}

// Ns converts ticks to nanoseconds.
func (c Converter) Ns(ticks int64) int64 {
	return c.a.Ns + int64(float64(ticks-c.a.Ticks)*c.nsPer)
}
