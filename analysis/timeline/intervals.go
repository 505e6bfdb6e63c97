package timeline

import (
	"cmp"
	"slices"
)

// span is the half-open interval [start, end) of trace time in ns.
type span struct{ start, end int64 }

func (s span) len() int64 { return s.end - s.start }

// union sorts s in place and returns its union as disjoint spans in time order (in s's storage):
// spans that overlap or touch (start == previous end) merge; empty spans vanish.
func union(s []span) []span {
	slices.SortFunc(s, func(a, b span) int { return cmp.Compare(a.start, b.start) })
	out := s[:0]
	for _, x := range s {
		if x.end <= x.start {
			continue
		}
		if n := len(out); n > 0 && x.start <= out[n-1].end {
			out[n-1].end = max(out[n-1].end, x.end)
			continue
		}
		out = append(out, x)
	}
	return out
}

// total is the summed length of disjoint spans.
func total(u []span) int64 {
	var n int64
	for _, x := range u {
		n += x.len()
	}
	return n
}

// coveredLen is |x ∩ u| for u disjoint and in time order.
func coveredLen(x span, u []span) int64 {
	i, _ := slices.BinarySearchFunc(u, x.start, func(s span, t int64) int {
		if s.end <= t {
			return -1
		}
		return 1
	})
	var n int64
	for ; i < len(u) && u[i].start < x.end; i++ {
		if d := min(x.end, u[i].end) - max(x.start, u[i].start); d > 0 {
			n += d
		}
	}
	return n
}

// Class bits of the sweep: the device work of each class running at a moment.
const (
	bitCompute = 1 << iota
	bitComm
	bitMemory
	bitOther
	nMasks = 16
)

// item is one interval of device work with its class bit.
type item struct {
	start, end int64
	bit        uint8
}

// maskTimes is, for each set of classes running together (a mask of the bits above), how long
// that set ran; maskTimes[0] is unused (idle is the window minus the rest).
type maskTimes [nMasks]int64

// sweep walks the boundaries of items in time order and adds the length of every elementary
// segment (between two consecutive boundaries) to its mask's time, within each window of each
// set of windows (each set disjoint and in time order), one maskTimes per window. Intervals on
// several streams are never summed: a segment is counted once whatever number of items cover it.
func sweep(items []item, sets ...[]span) [][]maskTimes {
	out := make([][]maskTimes, len(sets))
	for i, ws := range sets {
		out[i] = make([]maskTimes, len(ws))
	}
	if len(items) == 0 {
		return out
	}
	// Each boundary packs into one integer, so that sorting them is a plain integer sort: its
	// time from the first start (3 low bits: the class and whether it starts or ends).
	lo, hi := items[0].start, items[0].end
	for _, it := range items {
		lo, hi = min(lo, it.start), max(hi, it.end)
	}
	if uint64(hi-lo) >= 1<<60 {
		return sweepWide(items, sets, out)
	}
	// The starts and the ends are sorted apart and walked as one merged list: the events of a
	// stream come in time order, so each list is nearly sorted already (a sort's quick case),
	// where starts and ends together were not.
	starts, ends := make([]uint64, 0, len(items)), make([]uint64, 0, len(items))
	for _, it := range items {
		if it.end <= it.start {
			continue
		}
		c := uint64(bitIndex(it.bit))
		starts, ends = append(starts, uint64(it.start-lo)<<3|4|c), append(ends, uint64(it.end-lo)<<3|c)
	}
	slices.Sort(starts)
	slices.Sort(ends)
	// next is the least point not taken yet, from either list (ok false when both are done).
	i, j := 0, 0
	next := func() (uint64, bool) {
		switch {
		case i < len(starts) && (j == len(ends) || starts[i] < ends[j]):
			return starts[i], true
		case j < len(ends):
			return ends[j], true
		}
		return 0, false
	}
	var count [4]int32
	w := make([]int, len(sets))
	p, ok := next()
	for ok {
		t := p >> 3
		for ok && p>>3 == t {
			if p&4 != 0 {
				count[p&3]++
				i++
			} else {
				count[p&3]--
				j++
			}
			p, ok = next()
		}
		if !ok {
			break
		}
		var m uint8
		for k, c := range count {
			if c > 0 {
				m |= 1 << k
			}
		}
		if m == 0 {
			continue
		}
		addSegment(int64(t)+lo, int64(p>>3)+lo, m, sets, w, out)
	}
	return out
}

// addSegment adds [a, b) of mask m to the windows it meets; w holds each set's first window
// that may still meet a segment (segments come in time order).
func addSegment(a, b int64, m uint8, sets [][]span, w []int, out [][]maskTimes) {
	for s, windows := range sets {
		for w[s] < len(windows) && windows[w[s]].end <= a {
			w[s]++
		}
		for j := w[s]; j < len(windows) && windows[j].start < b; j++ {
			if d := min(b, windows[j].end) - max(a, windows[j].start); d > 0 {
				out[s][j][m] += d
			}
		}
	}
}

// sweepWide is sweep for items spread over more than 2^60 ns (no real trace): boundaries
// sorted as structs.
func sweepWide(items []item, sets [][]span, out [][]maskTimes) [][]maskTimes {
	type point struct {
		t   int64
		d   int32
		bit uint8
	}
	pts := make([]point, 0, 2*len(items))
	for _, it := range items {
		if it.end > it.start {
			pts = append(pts, point{it.start, 1, it.bit}, point{it.end, -1, it.bit})
		}
	}
	slices.SortFunc(pts, func(a, b point) int { return cmp.Compare(a.t, b.t) })
	var count [4]int32
	w := make([]int, len(sets))
	for i := 0; i < len(pts); {
		t := pts[i].t
		for ; i < len(pts) && pts[i].t == t; i++ {
			count[bitIndex(pts[i].bit)] += pts[i].d
		}
		if i == len(pts) {
			break
		}
		var m uint8
		for k, c := range count {
			if c > 0 {
				m |= 1 << k
			}
		}
		if m != 0 {
			addSegment(t, pts[i].t, m, sets, w, out)
		}
	}
	return out
}

func bitIndex(b uint8) int {
	switch b {
	case bitCompute:
		return 0
	case bitComm:
		return 1
	case bitMemory:
		return 2
	}
	return 3
}

// Times is where the device time of a window went. Every figure is in ns. The unions may
// overlap one another; the Exclusive figures do not and sum to TotalNs.
type Times struct {
	// TotalNs is the window's length: busy plus idle.
	TotalNs int64 `json:"total_ns"`
	// BusyNs is the union of all device work (any class, any stream); IdleNs = TotalNs − BusyNs.
	BusyNs int64 `json:"busy_ns"`
	IdleNs int64 `json:"idle_ns"`
	// The union of each class's work across streams.
	ComputeNs       int64 `json:"compute_ns"`
	CommunicationNs int64 `json:"communication_ns"`
	MemoryNs        int64 `json:"memory_ns"`
	OtherNs         int64 `json:"other_ns"`
	// ExposedCommunicationNs is communication while no computation runs; ExposedMemoryNs is
	// memory work while no computation runs.
	ExposedCommunicationNs int64 `json:"exposed_communication_ns"`
	ExposedMemoryNs        int64 `json:"exposed_memory_ns"`
	// OverlapNs is communication while computation runs (CommunicationNs − ExposedCommunicationNs).
	OverlapNs int64 `json:"comm_compute_overlap_ns"`
	// Exclusive splits TotalNs by priority: computation, then communication, then memory, then
	// other work, then idle.
	Exclusive Exclusive `json:"exclusive"`
}

// Exclusive is a window's time split by priority (computation > communication > memory >
// other > idle): each instant counts once, under the first class running then. The five
// figures sum to the window's TotalNs.
type Exclusive struct {
	ComputeNs       int64 `json:"compute_ns"`
	CommunicationNs int64 `json:"communication_ns"`
	MemoryNs        int64 `json:"memory_ns"`
	OtherNs         int64 `json:"other_ns"`
	IdleNs          int64 `json:"idle_ns"`
}

// timesOf turns a window's mask times into Times.
func timesOf(m *maskTimes, window int64) Times {
	t := Times{TotalNs: window}
	for k := 1; k < nMasks; k++ {
		d := m[k]
		if d == 0 {
			continue
		}
		t.BusyNs += d
		comp := k&bitCompute != 0
		if comp {
			t.ComputeNs += d
		}
		if k&bitComm != 0 {
			t.CommunicationNs += d
			if comp {
				t.OverlapNs += d
			} else {
				t.ExposedCommunicationNs += d
			}
		}
		if k&bitMemory != 0 {
			t.MemoryNs += d
			if !comp {
				t.ExposedMemoryNs += d
			}
		}
		if k&bitOther != 0 {
			t.OtherNs += d
		}
		switch {
		case comp:
			t.Exclusive.ComputeNs += d
		case k&bitComm != 0:
			t.Exclusive.CommunicationNs += d
		case k&bitMemory != 0:
			t.Exclusive.MemoryNs += d
		default:
			t.Exclusive.OtherNs += d
		}
	}
	t.IdleNs = window - t.BusyNs
	t.Exclusive.IdleNs = t.IdleNs
	return t
}

// Add sums two windows' times (the steps of a rank, the ranks of a job).
func (t Times) Add(o Times) Times {
	return Times{TotalNs: t.TotalNs + o.TotalNs, BusyNs: t.BusyNs + o.BusyNs, IdleNs: t.IdleNs + o.IdleNs,
		ComputeNs: t.ComputeNs + o.ComputeNs, CommunicationNs: t.CommunicationNs + o.CommunicationNs,
		MemoryNs: t.MemoryNs + o.MemoryNs, OtherNs: t.OtherNs + o.OtherNs,
		ExposedCommunicationNs: t.ExposedCommunicationNs + o.ExposedCommunicationNs,
		ExposedMemoryNs:        t.ExposedMemoryNs + o.ExposedMemoryNs, OverlapNs: t.OverlapNs + o.OverlapNs,
		Exclusive: Exclusive{ComputeNs: t.Exclusive.ComputeNs + o.Exclusive.ComputeNs,
			CommunicationNs: t.Exclusive.CommunicationNs + o.Exclusive.CommunicationNs,
			MemoryNs:        t.Exclusive.MemoryNs + o.Exclusive.MemoryNs, OtherNs: t.Exclusive.OtherNs + o.Exclusive.OtherNs,
			IdleNs: t.Exclusive.IdleNs + o.Exclusive.IdleNs}}
}
