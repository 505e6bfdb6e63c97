package timeline

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/orprof/orprof/trace/tracefile"
)

// Phases (Options.Phase): a phase is the outermost user annotation that holds an op on its
// thread, ProfilerStep#N and 0 ns annotations aside, as orprof code --by phase has it
// (analysis/code). A device event is the phase's when the op the reader linked it to is; the
// phase's windows are its annotations' host ranges, each to the end of its device work at
// the latest, as a step's window is.

// ErrNoPhase is (wrapped) the error of a read whose trace has not the phase Options.Phase.
var ErrNoPhase = errors.New("no such phase")

// phaseCollect is what a Consumer keeps for a phase selection: the host ops and phase
// annotations of the read, and each device event's op.
type phaseCollect struct {
	n     int       // converted events seen: OpIndex's numbering
	hosts []hostRec // in read order
	anns  []annRec
	devOp []int32 // per device event handed to the Part, in order: its op's index (−1: none)
}

type hostRec struct {
	idx     int32
	tid     int64
	startNs int64
}

type annRec struct {
	tid, start, end int64
	name            string
}

// add takes one event of the read (the Consumer's Event, which adds device events to its
// Part in the same order).
func (c *phaseCollect) add(ev *tracefile.Event) {
	i := c.n
	c.n++
	switch {
	case ev.Kind.Host():
		st, en := usToNs(ev.StartUs), usToNs(ev.EndUs)
		c.hosts = append(c.hosts, hostRec{int32(i), ev.Tid, st})
		if ev.Kind == tracefile.KindUserAnnotation && en > st && !strings.HasPrefix(ev.Name, "ProfilerStep#") {
			c.anns = append(c.anns, annRec{ev.Tid, st, en, ev.Name})
		}
	case ev.Kind.Device():
		c.devOp = append(c.devOp, int32(ev.OpIndex))
	}
}

// selection returns the host ranges of phase name (the outermost annotations so named) and,
// per device event, the index of the range whose thread and time hold its op's start (−1:
// another phase's, or none); an error naming the trace's phases when none is name.
func (c *phaseCollect) selection(name string) ([]span, []int32, error) {
	slices.SortStableFunc(c.anns, func(a, b annRec) int {
		return cmp.Or(cmp.Compare(a.tid, b.tid), cmp.Compare(a.start, b.start), cmp.Compare(b.end, a.end))
	})
	type rng struct {
		tid int64
		span
	}
	var ranges []rng
	var names []string
	var openEnd int64
	for k, a := range c.anns {
		if k > 0 && a.tid == c.anns[k-1].tid && a.start < openEnd {
			openEnd = max(openEnd, a.end) // nested in an outer annotation (or past its end)
			continue
		}
		openEnd = a.end
		if !slices.Contains(names, a.name) {
			names = append(names, a.name)
		}
		if a.name == name {
			ranges = append(ranges, rng{a.tid, span{a.start, a.end}})
		}
	}
	if len(ranges) == 0 {
		if len(names) == 0 {
			return nil, nil, fmt.Errorf("--phase %s: %w: the trace has no user annotation naming a phase (record_function(\"decode\") and the like; ProfilerStep#N aside)", name, ErrNoPhase)
		}
		slices.Sort(names)
		return nil, nil, fmt.Errorf("--phase %s: %w; the trace's are %s", name, ErrNoPhase, strings.Join(names, ", "))
	}
	of := make([]int32, len(c.devOp))
	for k, op := range c.devOp {
		of[k] = -1
		if op < 0 {
			continue
		}
		j, ok := slices.BinarySearchFunc(c.hosts, op, func(h hostRec, op int32) int { return cmp.Compare(h.idx, op) })
		if !ok {
			continue
		}
		h := c.hosts[j]
		r, _ := slices.BinarySearchFunc(ranges, h, func(x rng, h hostRec) int {
			return cmp.Or(cmp.Compare(x.tid, h.tid), cmp.Compare(x.start, h.startNs+1))
		})
		// r is the first range after (tid, start]: the one before may hold the op.
		if r > 0 && ranges[r-1].tid == h.tid && ranges[r-1].start <= h.startNs && h.startNs < ranges[r-1].end {
			of[k] = int32(r - 1)
		}
	}
	out := make([]span, len(ranges))
	for i, r := range ranges {
		out[i] = r.span
	}
	return out, of, nil
}

// phaseWindows is the union of the phase's windows: each range from its host start to the
// later of its host end and the end of the work of its device events.
func phaseWindows(recs []rec, ranges []span) []span {
	w := slices.Clone(ranges)
	for i := range recs {
		if r := &recs[i]; r.phase >= 0 && r.work() {
			w[r.phase].end = max(w[r.phase].end, r.end)
		}
	}
	slices.SortFunc(w, func(a, b span) int { return cmp.Compare(a.start, b.start) })
	out := w[:0]
	for _, s := range w {
		if k := len(out) - 1; k >= 0 && s.start <= out[k].end {
			out[k].end = max(out[k].end, s.end)
			continue
		}
		out = append(out, s)
	}
	return out
}
