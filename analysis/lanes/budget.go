package lanes

import (
	"cmp"
	"math/bits"
	"slices"
)

// threshold is the smallest of 0 and the powers of two, at least floor, such that at most
// budget of the durations are at least that long.
func threshold(durs func(yield func(int64)), budget int, floor int64) int64 {
	// hist[k]: durations d with bits.Len64(d) == k, i.e. 2^(k−1) ≤ d < 2^k (k = 0: d = 0).
	var hist [65]int
	n := 0
	durs(func(d int64) {
		hist[bits.Len64(uint64(max(d, 0)))]++
		n++
	})
	// at(t): the durations ≥ t; t = 0 keeps all, t = 2^j those with Len64 > j.
	if floor == 0 && n <= budget {
		return 0
	}
	kept := n
	for j := 0; j < 63; j++ {
		// keep Len64 ≥ j+1: drop those with Len64 ≤ j.
		kept -= hist[j]
		t := int64(1) << j
		if t >= floor && kept <= budget {
			return t
		}
	}
	return 1 << 62
}

// budgets are DeviceBudget, HostBudget and GapBudget (tests make them small).
var budgets = [3]int{DeviceBudget, HostBudget, GapBudget}

// binsFor is the bins per rank's span on a page of n ranks.
func binsFor(n int) int64 { return int64(max(MinBins, BinsPerSpan/max(n, 1))) }

// binWidth is the smallest power of two ns that cuts span into at most bins bins.
func binWidth(span, bins int64) int64 {
	w := int64(1)
	for w*bins < span && w < 1<<62 {
		w <<= 1
	}
	return w
}

// floorDiv is ⌊a/b⌋ for b > 0.
func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && a < 0 {
		q--
	}
	return q
}

// rebudget sets s's thresholds over the events of every rank (evs[r][l], the lanes of
// s.Ranks[r] in order: their kept events, s's thresholds the inputs' highest), bins the events
// and gaps below them, coarsens the bins to the page's width, puts the events on rows and
// writes every lane's columns and the totals.
func (s *Summary) rebudget(evs [][]laneEvents) {
	s.Version, s.Categories, s.Causes = Version, Categories, Causes
	each := func(dev bool) func(yield func(int64)) {
		return func(yield func(int64)) {
			for r := range evs {
				for l := range evs[r] {
					if (s.Ranks[r].Lanes[l].Kind == "stream") == dev {
						for _, e := range evs[r][l].evs {
							yield(e.dur)
						}
					}
				}
			}
		}
	}
	s.DeviceMinNs = threshold(each(true), budgets[0], s.DeviceMinNs)
	s.HostMinNs = threshold(each(false), budgets[1], s.HostMinNs)
	s.GapMinNs = threshold(func(yield func(int64)) {
		for r := range evs {
			for l := range evs[r] {
				for _, g := range evs[r][l].gaps {
					yield(g.dur)
				}
			}
		}
	}, budgets[2], s.GapMinNs)
	s.Events, s.Kept, s.Binned = 0, 0, 0
	s.OriginNs = 0
	for i := range s.Ranks {
		if i == 0 || s.Ranks[i].StartNs < s.OriginNs {
			s.OriginNs = s.Ranks[i].StartNs
		}
	}
	bins := binsFor(len(s.Ranks))
	for ri := range s.Ranks {
		r := &s.Ranks[ri]
		r.OffsetNs = r.StartNs - s.OriginNs
		w := max(binWidth(r.SpanNs, bins), r.BinNs)
		used := make([]bool, len(r.Names))
		for li := range r.Lanes {
			l := &r.Lanes[li]
			min := s.HostMinNs
			if l.Kind == "stream" {
				min = s.DeviceMinNs
			}
			b := l.coarsen(r.StartNs, r.BinNs, w)
			kept := evs[ri][li].evs[:0]
			for _, e := range evs[ri][li].evs {
				if e.dur >= min {
					kept = append(kept, e)
					continue
				}
				b.add(r.StartNs+e.start, e.dur, w)
			}
			evs[ri][li].evs = kept
			l.Binned = l.Events - len(kept)
			l.BI, l.BC, l.BV = b.columns(r.StartNs, w)
			if l.Kind == "stream" {
				rows(kept)
			}
			l.Rows = 0
			for _, e := range kept {
				l.Rows = max(l.Rows, int(e.row)+1)
				used[e.name] = true
				if e.op >= 0 {
					used[e.op] = true
				}
			}
			gaps := evs[ri][li].gaps[:0]
			for _, g := range evs[ri][li].gaps {
				if g.dur >= s.GapMinNs {
					gaps = append(gaps, g)
					continue
				}
				l.GapCount[g.cause]++
				l.GapNs[g.cause] += g.dur
			}
			evs[ri][li].gaps = gaps
			s.Events += l.Events
			s.Kept += len(kept)
			s.Binned += l.Binned
		}
		r.BinNs, r.BinPhaseNs = w, r.StartNs-floorDiv(r.StartNs, w)*w
		// The names kept, in order: remap[i] is old name i's new index.
		var keep []int32
		for i, u := range used {
			if u {
				keep = append(keep, int32(i))
			}
		}
		slices.SortFunc(keep, func(a, b int32) int { return cmp.Compare(r.Names[a], r.Names[b]) })
		remap := make([]int32, len(r.Names))
		names := make([]string, len(keep))
		for i, k := range keep {
			remap[k], names[i] = int32(i), r.Names[k]
		}
		r.Names = names
		for li := range r.Lanes {
			r.Lanes[li].encode(evs[ri][li], remap)
		}
	}
}

// rows puts each of a stream's events (in start order) on the first row free at its start.
func rows(evs []ev) {
	var ends []int64
	for i := range evs {
		e := &evs[i]
		k := 0
		for k < len(ends) && ends[k] > e.start {
			k++
		}
		if k == len(ends) {
			ends = append(ends, 0)
		}
		ends[k] = e.start + e.dur
		e.row = int32(k)
	}
}

// binSet is a lane's bins by absolute index (the time ⌊t / width⌋).
type binSet map[int64]*[2]int64

// coarsen is l's bins (of width from, relative to start) in bins of width to.
func (l *Lane) coarsen(start, from, to int64) binSet {
	b := binSet{}
	if from == 0 {
		return b
	}
	base := floorDiv(start, from)
	shift := bits.TrailingZeros64(uint64(to / from))
	for i, bi := range l.BI {
		a := (bi + base) >> shift
		x := b[a]
		if x == nil {
			x = new([2]int64)
			b[a] = x
		}
		x[0] += l.BC[i]
		x[1] += l.BV[i]
	}
	return b
}

// add bins an event starting at t (the trace's clock) of dur ns.
func (b binSet) add(t, dur, w int64) {
	a := floorDiv(t, w)
	x := b[a]
	if x == nil {
		x = new([2]int64)
		b[a] = x
	}
	x[0]++
	for end := t + dur; t < end; a++ {
		next := (a + 1) * w
		if x == nil {
			x = b[a]
			if x == nil {
				x = new([2]int64)
				b[a] = x
			}
		}
		x[1] += min(end, next) - t
		t = next
		x = nil
	}
}

// columns are b's bins relative to start, in order.
func (b binSet) columns(start, w int64) (bi, bc, bv []int64) {
	keys := make([]int64, 0, len(b))
	for a := range b {
		keys = append(keys, a)
	}
	slices.Sort(keys)
	base := floorDiv(start, w)
	bi, bc, bv = make([]int64, len(keys)), make([]int64, len(keys)), make([]int64, len(keys))
	for i, a := range keys {
		bi[i], bc[i], bv[i] = a-base, b[a][0], b[a][1]
	}
	return bi, bc, bv
}

// encode writes the lane's kept events and gaps as its columns.
func (l *Lane) encode(le laneEvents, names []int32) {
	n := len(le.evs)
	l.T, l.D, l.N, l.C, l.R = make([]int64, n), make([]int64, n), make([]int32, n), make([]int16, n), make([]int32, n)
	l.Op, l.LL, l.LT = []int32{}, []int32{}, []int64{}
	stream := l.Kind == "stream"
	if stream {
		l.Op, l.LL, l.LT = make([]int32, n), make([]int32, n), make([]int64, n)
	}
	var prev int64
	for i, e := range le.evs {
		l.T[i], l.D[i], l.N[i], l.C[i], l.R[i] = e.start-prev, e.dur, names[e.name], e.cat, e.row
		prev = e.start
		if stream {
			l.Op[i], l.LL[i], l.LT[i] = -1, e.ll, e.lt
			if e.op >= 0 {
				l.Op[i] = names[e.op]
			}
		}
	}
	g := len(le.gaps)
	l.GT, l.GD, l.GC = make([]int64, g), make([]int64, g), make([]int16, g)
	prev = 0
	for i, x := range le.gaps {
		l.GT[i], l.GD[i], l.GC[i] = x.start-prev, x.dur, x.cause
		prev = x.start
	}
}

// decode is the lane's kept events and gaps, as encode wrote them (names: the rank's).
func (l *Lane) decode() laneEvents {
	le := laneEvents{evs: make([]ev, len(l.T)), gaps: make([]gap, len(l.GT))}
	var t int64
	for i := range l.T {
		t += l.T[i]
		e := ev{start: t, dur: l.D[i], name: l.N[i], op: -1, cat: l.C[i], row: l.R[i], ll: -1}
		if l.Kind == "stream" {
			e.ll, e.lt, e.op = l.LL[i], l.LT[i], l.Op[i]
		}
		le.evs[i] = e
	}
	t = 0
	for i := range l.GT {
		t += l.GT[i]
		le.gaps[i] = gap{t, l.GD[i], l.GC[i]}
	}
	return le
}

// Merge merges the summaries in order into a new one (nil ones skipped; nil when all are):
// every rank's lanes, ranks in number order, then the budgets applied to them all. nums[i]
// renumbers sums[i]'s ranks (internal/ranknum.Map; nil: none moves).
func Merge(sums []*Summary, nums []map[int64]int64) *Summary {
	out := &Summary{}
	var evs [][]laneEvents
	type rk struct {
		r   Rank
		evs []laneEvents
	}
	var all []rk
	for i, s := range sums {
		if s == nil {
			continue
		}
		out.DeviceMinNs = max(out.DeviceMinNs, s.DeviceMinNs)
		out.HostMinNs = max(out.HostMinNs, s.HostMinNs)
		out.GapMinNs = max(out.GapMinNs, s.GapMinNs)
		for _, r := range s.Ranks {
			if to, ok := nums[i][r.Rank]; ok && nums[i] != nil {
				r.Rank = to
			}
			le := make([]laneEvents, len(r.Lanes))
			for li := range r.Lanes {
				le[li] = r.Lanes[li].decode()
			}
			all = append(all, rk{r, le})
		}
	}
	if len(all) == 0 {
		return nil
	}
	slices.SortStableFunc(all, func(a, b rk) int { return cmp.Compare(a.r.Rank, b.r.Rank) })
	for _, x := range all {
		out.Ranks = append(out.Ranks, x.r)
		evs = append(evs, x.evs)
	}
	out.rebudget(evs)
	return out
}
