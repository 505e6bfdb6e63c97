package orprof

import (
	"iter"
	"math"
	"runtime"
	"slices"
	"sort"

	"github.com/orprof/orprof/devices"
	"github.com/orprof/orprof/events"
	"github.com/orprof/orprof/internal/tsc"
)

// recording is what Stop took from the lanes: the slots themselves (ended ones marked
// collected, times in ns), read in place to build the events and, when asked for, the trace.
type recording struct {
	lanes         []*lane
	baseNs, endNs int64
	devName       string
	fallback      bool
	ranges        int // collected range records
	unfinished    int
	intervals     []deviceInterval
}

// deviceInterval is an op's device work placed on the host timeline.
type deviceInterval struct {
	l              *lane
	at             slotAt
	device         int
	stream         int64
	startNs, endNs int64
}

// collect stops recording into s and takes every published slot: ended ones are collected
// (their ticks converted to ns when conv is set), open ones left behind as unfinished.
func (s *Session) collect(conv *tsc.Converter, endNs int64) *recording {
	s.mu.Lock()
	s.stopped.Store(true)
	lanes := s.lanes
	s.mu.Unlock()
	rec := &recording{lanes: lanes, baseNs: s.baseNs, endNs: endNs, devName: s.devName, fallback: s.fallback}
	for _, l := range lanes {
		for c := l.head; c != nil; c = c.next.Load() {
			n := int(c.n.Load())
			for i := 0; i < n; i++ {
				sl := &c.slots[i]
				d := slotAt{c, i}.dev()
				for {
					if sl.state.CompareAndSwap(stateEnded, stateCollected) {
						if conv != nil {
							sl.start, sl.end = conv.Ns(sl.start), conv.Ns(sl.end)
						}
						if sl.kind == events.RangeRecord {
							rec.ranges++
						}
						break
					}
					if sl.state.CompareAndSwap(stateOpen, stateAbandoned) {
						rec.unfinished++
						if d != nil {
							s.release(d.start)
							d.start = nil
						}
						break
					}
					if st := sl.state.Load(); st != stateClaimed {
						// Orphaned by its recorder, which saw Stop begin: a range that was open
						// then, or begun as Stop began, is counted with the unfinished ones.
						if st == stateOrphan && sl.kind == events.RangeRecord {
							rec.unfinished++
						}
						break
					}
					runtime.Gosched() // another goroutine is ending it: a few stores away
				}
			}
		}
	}
	s.forget(lanes)
	return rec
}

// slotAt is a slot where Stop reads it: its chunk, which also holds its device record, and its
// index there.
type slotAt struct {
	c *chunk
	i int
}

func (a slotAt) slot() *slot { return &a.c.slots[a.i] }

// dev is the slot's device record, nil outside a fallback session (an instant's is unused).
func (a slotAt) dev() *devSlot {
	if a.c.dev == nil {
		return nil
	}
	return &a.c.dev[a.i]
}

// all yields every collected slot, lane by lane in the order goroutines first recorded, each
// lane in recording order.
func (rec *recording) all() iter.Seq2[*lane, slotAt] {
	return func(yield func(*lane, slotAt) bool) {
		for _, l := range rec.lanes {
			for c := l.head; c != nil; c = c.next.Load() {
				n := int(c.n.Load())
				for i := 0; i < n; i++ {
					if c.slots[i].state.Load() == stateCollected && !yield(l, slotAt{c, i}) {
						return
					}
				}
			}
		}
	}
}

// record returns the slot at a as the events package's raw record.
func (l *lane) record(a slotAt) events.Record {
	sl := a.slot()
	r := events.Record{Kind: sl.kind, Name: l.nameOf(sl.name), Thread: l.id, EndThread: l.id, StartNs: sl.start, EndNs: sl.end,
		DeviceElapsedUs: -1}
	if sl.kind == events.MemoryRecord {
		r.Bytes, r.MemoryDevice = sl.handle, devices.Type(sl.scope)
		return r
	}
	if sl.kind != events.RangeRecord {
		return r
	}
	r.Handle, r.Scope, r.Async, r.SequenceNr = sl.handle, int(sl.scope), sl.async, -1
	if x := l.ext(sl); x != nil {
		r.Shapes, r.Stack, r.SequenceNr, r.FwdThread = x.shapes, x.stack, x.seq, x.fwdThread
	}
	if sl.endThread != 0 {
		r.EndThread = sl.endThread
	}
	if d := a.dev(); d != nil {
		r.DeviceElapsedUs, r.DeviceIndex = d.elapsedUs, d.device
	}
	return r
}

// measure computes every op's device time (elapsed between its events) and, from the
// per-device reference events, where that time sits on the host timeline. Every event is
// released.
func (s *Session) measure(rec *recording) {
	refs := map[int]deviceRef{}
	for _, r := range s.refs {
		refs[r.device] = r
	}
	for l, at := range rec.all() {
		d := at.dev()
		if d == nil || at.slot().kind != events.RangeRecord {
			continue
		}
		if d.start == nil || d.end == nil {
			d.releaseAll(s)
			continue
		}
		us, err := s.dev.Elapsed(d.start, d.end)
		if r := l.record(at); err != nil {
			s.fail("elapsed", err)
		} else if !r.IsAsync() {
			d.elapsedUs = us
			if ref, ok := refs[d.device]; ok && int64(us) > 0 {
				if a, err := s.dev.Elapsed(ref.event, d.start); err == nil {
					// Both ends are offsets from the reference rounded to the ns, a monotonic map:
					// intervals that nest or follow each other on the device still do (truncating
					// µs that came from ns stamps, x.999… ns, could make one end 1 ns after the
					// next one starts).
					rec.intervals = append(rec.intervals, deviceInterval{l: l, at: at, device: d.device, stream: d.stream,
						startNs: ref.cpuNs + int64(math.Round(a*1000)), endNs: ref.cpuNs + int64(math.Round((a+us)*1000))})
				}
			}
		}
		d.releaseAll(s)
		d.ctx = nil
	}
	s.releaseRefs()
}

// assignThreadIDs gives the lanes of one Thread whose ranges overlap in time (goroutines that
// used the Thread at once) thread ids of their own: the first lane keeps the Thread's id, and
// so does every later lane whose ranges fit between those already kept; the others get new
// ids. Sequential use by several goroutines keeps one id.
func (rec *recording) assignThreadIDs() {
	byThread := map[*Thread][]*lane{}
	var order []*Thread
	for _, l := range rec.lanes {
		if byThread[l.t] == nil {
			order = append(order, l.t)
		}
		byThread[l.t] = append(byThread[l.t], l)
	}
	for _, t := range order {
		ls := byThread[t]
		if len(ls) < 2 {
			continue
		}
		var kept []span
		for i, l := range ls {
			busy := l.busy()
			if i == 0 || !overlaps(kept, busy) {
				kept = mergeSpans(kept, busy)
				continue
			}
			l.id = threadSeq.Add(1)
		}
	}
}

type span struct{ start, end int64 }

// busy is the union of the lane's synchronous ranges, sorted.
func (l *lane) busy() []span {
	var sp []span
	for c := l.head; c != nil; c = c.next.Load() {
		n := int(c.n.Load())
		for i := 0; i < n; i++ {
			sl := &c.slots[i]
			if !included(sl) {
				continue
			}
			if r := l.record(slotAt{c, i}); !r.IsAsync() {
				sp = append(sp, span{sl.start, sl.end})
			}
		}
	}
	return unionSpans(sp)
}

// unionSpans sorts spans and merges the overlapping ones, in place. Spans that only touch stay
// apart: a range that starts where another ends does not nest in it.
func unionSpans(all []span) []span {
	slices.SortFunc(all, func(x, y span) int {
		switch {
		case x.start < y.start:
			return -1
		case x.start > y.start:
			return 1
		}
		return 0
	})
	out := all[:0]
	for _, s := range all {
		if n := len(out); n > 0 && s.start < out[n-1].end {
			out[n-1].end = max(out[n-1].end, s.end)
			continue
		}
		out = append(out, s)
	}
	return out
}

// overlaps reports whether b shares any time with kept, both sorted lists of disjoint spans:
// a binary search in kept per span of b, so a Thread handed through many goroutines costs
// little per goroutine.
func overlaps(kept, b []span) bool {
	for _, x := range b {
		i := sort.Search(len(kept), func(i int) bool { return kept[i].end > x.start })
		if i < len(kept) && kept[i].start < x.end {
			return true
		}
	}
	return false
}

// mergeSpans merges two sorted lists of disjoint spans that do not overlap each other.
func mergeSpans(a, b []span) []span {
	out := make([]span, 0, len(a)+len(b))
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		if a[i].start <= b[j].start {
			out = append(out, a[i])
			i++
		} else {
			out = append(out, b[j])
			j++
		}
	}
	return append(append(out, a[i:]...), b[j:]...)
}

// memoryRecords returns the collected memory records.
func (rec *recording) memoryRecords() []events.Record {
	var out []events.Record
	for l, a := range rec.all() {
		if a.slot().kind == events.MemoryRecord {
			out = append(out, l.record(a))
		}
	}
	return out
}

// functionEvents turns the collected ranges into FunctionEvents (events.Record.Event) sorted
// by (start, −end), ties in lane then recording order — the order a stable sort of all lanes'
// records one after the other gives — by merging the lanes, each already in that order but for
// rare ties, so no sort of the whole runs and nothing but the result is allocated. extra is
// room left for events added later.
func (rec *recording) functionEvents(extra int) []events.FunctionEvent {
	out := make([]events.FunctionEvent, 0, rec.ranges+extra)
	var h cursorHeap
	for i, l := range rec.lanes {
		cu := &cursor{l: l, lane: i, c: l.head}
		if !l.inOrder() {
			cu.order = rec.laneSlots(l)
			slices.SortStableFunc(cu.order, func(a, b slotAt) int {
				if before(a.slot(), b.slot()) {
					return -1
				}
				if before(b.slot(), a.slot()) {
					return 1
				}
				return 0
			})
		}
		if cu.advance() {
			h = append(h, cu)
		}
	}
	h.init()
	for len(h) > 0 {
		cu := h[0]
		r := cu.l.record(cu.cur)
		if ev, ok := r.Event(rec.baseNs); ok {
			out = append(out, ev)
		}
		if cu.advance() {
			h.fix0()
		} else {
			h.pop0()
		}
	}
	return out
}

// before is the events' order, (start, −end).
func before(a, b *slot) bool {
	if a.start != b.start {
		return a.start < b.start
	}
	return a.end > b.end
}

// included reports whether sl is a collected range; those with filtered names are left out
// later, by events.Record.Event.
func included(sl *slot) bool {
	return sl.state.Load() == stateCollected && sl.kind == events.RangeRecord
}

// laneSlots returns l's collected ranges, in recording order.
func (rec *recording) laneSlots(l *lane) []slotAt {
	var out []slotAt
	for c := l.head; c != nil; c = c.next.Load() {
		n := int(c.n.Load())
		for i := 0; i < n; i++ {
			if included(&c.slots[i]) {
				out = append(out, slotAt{c, i})
			}
		}
	}
	return out
}

// inOrder reports whether l's ranges are already in (start, −end) order.
func (l *lane) inOrder() bool {
	var prev *slot
	for c := l.head; c != nil; c = c.next.Load() {
		n := int(c.n.Load())
		for i := 0; i < n; i++ {
			sl := &c.slots[i]
			if !included(sl) {
				continue
			}
			if prev != nil && before(sl, prev) {
				return false
			}
			prev = sl
		}
	}
	return true
}

// cursor walks one lane's events in order.
type cursor struct {
	l     *lane
	lane  int
	cur   slotAt
	c     *chunk
	i     int
	order []slotAt // the lane's events sorted, when recording order was not their order
	k     int
}

func (cu *cursor) advance() bool {
	if cu.order != nil {
		if cu.k == len(cu.order) {
			return false
		}
		cu.cur = cu.order[cu.k]
		cu.k++
		return true
	}
	for cu.c != nil {
		n := int(cu.c.n.Load())
		for cu.i < n {
			sl := &cu.c.slots[cu.i]
			cu.i++
			if included(sl) {
				cu.cur = slotAt{cu.c, cu.i - 1}
				return true
			}
		}
		cu.c, cu.i = cu.c.next.Load(), 0
	}
	return false
}

// cursorHeap is a min-heap of cursors by their current event, ties by lane.
type cursorHeap []*cursor

func (h cursorHeap) less(i, j int) bool {
	a, b := h[i].cur.slot(), h[j].cur.slot()
	if before(a, b) {
		return true
	}
	if before(b, a) {
		return false
	}
	return h[i].lane < h[j].lane
}

func (h cursorHeap) init() {
	for i := len(h)/2 - 1; i >= 0; i-- {
		h.down(i)
	}
}

func (h cursorHeap) fix0() { h.down(0) }

func (h *cursorHeap) pop0() {
	old := *h
	n := len(old) - 1
	old[0] = old[n]
	old[n] = nil
	*h = old[:n]
	h.down(0)
}

func (h cursorHeap) down(i int) {
	for {
		l := 2*i + 1
		if l >= len(h) {
			return
		}
		m := l
		if r := l + 1; r < len(h) && h.less(r, l) {
			m = r
		}
		if !h.less(m, i) {
			return
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
}
