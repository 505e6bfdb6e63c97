package orprof

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/orprof/orprof/events"
	"github.com/orprof/orprof/internal/gid"
	"github.com/orprof/orprof/stubs"
)

// The recording buffers. Every goroutine records into a lane of its own per Thread it uses:
// chunks of slots that only that goroutine appends to, so recording takes no lock and no
// atomic operation other goroutines contend for. A slot is published to Stop, which may run
// at any moment, by an atomic count per chunk; its end by an atomic state per slot:
//
//	open ──End──────────▶ ended ──Stop──▶ collected
//	  │    (End by another goroutine passes through claimed)
//	  └──Stop──▶ abandoned (counted in Result.Unfinished)
//	open, ended ──recorder that sees Stop began after it wrote──▶ orphan (not in the session)
//
// Stop sets Session.stopped before it walks the lanes and a recorder checks it after it
// publishes (both sequentially consistent), so a slot is either walked by Stop or handled by its
// recorder, never neither: device events are always released, exactly once.

const (
	stateOpen uint32 = iota
	stateEnded
	stateClaimed
	stateAbandoned
	stateOrphan
	stateCollected
)

const (
	firstChunk  = 16  // slots of a lane's first chunk: a goroutine that records little costs little
	maxChunk    = 512 // chunks double up to this many slots
	handleBlock = 256 // handles a lane takes from the session at a time
)

// slot is one raw record while a session runs: 64 bytes for a CPU range.
type slot struct {
	name   string
	handle int64 // a MemoryRecord's bytes
	start  int64 // TSC ticks or ns while recording; ns once Stop converted them
	end    int64
	ext    *slotExt // nil unless the op had shapes, a stack, a sequence number or ended elsewhere
	dev    *devSlot // the device events of a fallback session; nil otherwise
	state  atomic.Uint32
	scope  int32 // a MemoryRecord's device type
	kind   events.RecordKind
	async  bool
}

// slotExt holds what few ranges have.
type slotExt struct {
	shapes    [][]int64
	stack     []string
	seq       int64
	fwdThread int64
	endThread *Thread // set when the range ended on another Thread (EndOn)
}

// devSlot holds a range's device events in a fallback session.
type devSlot struct {
	ctx        context.Context // the op's context: its end event goes to the same device and stream
	start, end stubs.Event
	stream     int64
	device     int
	elapsedUs  float64 // measured at Stop; < 0 when not measured
}

func (d *devSlot) releaseEnd(s *Session) {
	if d != nil {
		s.release(d.end)
		d.end = nil
	}
}

func (d *devSlot) releaseAll(s *Session) {
	if d != nil {
		s.release(d.start)
		s.release(d.end)
		d.start, d.end = nil, nil
	}
}

type chunk struct {
	slots []slot       // allocated once: slots never move
	dev   []devSlot    // beside slots in a fallback session
	n     atomic.Int32 // slots published
	next  atomic.Pointer[chunk]
}

// lane is one goroutine's records on one Thread in one session. Only the goroutine g appends
// to it; the fields below mu are that goroutine's alone (under the race detector they are
// also guarded by mu, because a goroutine descriptor, and so a lane, can pass to a new
// goroutine after the old one exits, through synchronization the detector does not see).
type lane struct {
	sess *Session
	t    *Thread
	g    uintptr
	head *chunk
	// id is the thread id the lane's records get: t.id, or a new id when its ranges overlap
	// those of another lane of t (set at Stop).
	id int64

	// The fields the goroutine writes on every range sit on cache lines of their own, so that
	// two goroutines' lanes, allocated side by side, do not share one.
	_         [64]byte
	mu        sync.Mutex
	tail      *chunk
	n         int     // slots used in tail
	open      []*slot // ranges begun here and not ended here, innermost last
	handle    int64   // next handle of the block
	handleEnd int64
	_         [64]byte
}

func newLane(s *Session, t *Thread, g uintptr) *lane {
	l := &lane{sess: s, t: t, g: g, id: t.id}
	l.head = l.newChunk(firstChunk)
	l.tail = l.head
	return l
}

func (l *lane) newChunk(size int) *chunk {
	c := &chunk{slots: make([]slot, size)}
	if l.sess.fallback {
		c.dev = make([]devSlot, size)
	}
	return c
}

// next returns the next free slot; publish makes it visible to Stop.
func (l *lane) next() *slot {
	if l.n == len(l.tail.slots) {
		c := l.newChunk(min(2*len(l.tail.slots), maxChunk))
		l.tail.next.Store(c)
		l.tail, l.n = c, 0
	}
	return &l.tail.slots[l.n]
}

func (l *lane) publish() {
	l.n++
	l.tail.n.Store(int32(l.n))
}

// devFor returns the device record of sl, the slot next returned.
func (l *lane) devFor(sl *slot) *devSlot {
	d := &l.tail.dev[l.n]
	d.elapsedUs = -1
	sl.dev = d
	return d
}

func (l *lane) nextHandle() int64 {
	if l.handle == l.handleEnd {
		l.handleEnd = l.sess.handles.Add(handleBlock) + 1
		l.handle = l.handleEnd - handleBlock
	}
	h := l.handle
	l.handle++
	return h
}

// pop removes sl from the open ranges.
func (l *lane) pop(sl *slot) {
	for i := len(l.open) - 1; i >= 0; i-- {
		if l.open[i] == sl {
			copy(l.open[i:], l.open[i+1:])
			l.open[len(l.open)-1] = nil
			l.open = l.open[:len(l.open)-1]
			return
		}
	}
}

// prune drops the ranges on top of the open stack that other goroutines ended, so a lane
// whose ranges are all ended elsewhere keeps no growing stack.
func (l *lane) prune() {
	for n := len(l.open); n > 0 && l.open[n-1].state.Load() != stateOpen; n-- {
		l.open[n-1] = nil
		l.open = l.open[:n-1]
	}
}

// innermost is the handle of the innermost range still open.
func (l *lane) innermost() int64 {
	l.prune()
	if n := len(l.open); n > 0 {
		return l.open[n-1].handle
	}
	return 0
}

// orphan takes sl out of the session when Stop has not seen it: a recorder calls it when it
// finds the session stopping after it published sl. It reports whether it did.
func (s *Session) orphan(sl *slot) bool {
	if sl.state.CompareAndSwap(stateOpen, stateOrphan) || sl.state.CompareAndSwap(stateEnded, stateOrphan) {
		sl.dev.releaseAll(s)
		return true
	}
	return false
}

// laneTable maps goroutines to their lanes on one Thread in one session: open addressing over
// atomic pointers, read without locks, grown under Thread.mu.
type laneTable struct {
	sess  *Session
	slots []atomic.Pointer[lane]
	n     int
}

func (tb *laneTable) find(g uintptr) *lane {
	mask := uintptr(len(tb.slots) - 1)
	for i := hashG(g) & mask; ; i = (i + 1) & mask {
		l := tb.slots[i].Load()
		if l == nil || l.g == g {
			return l
		}
	}
}

func (tb *laneTable) insert(l *lane) {
	mask := uintptr(len(tb.slots) - 1)
	i := hashG(l.g) & mask
	for tb.slots[i].Load() != nil {
		i = (i + 1) & mask
	}
	tb.slots[i].Store(l)
	tb.n++
}

func hashG(g uintptr) uintptr { return uintptr(uint64(g>>3) * 0x9E3779B97F4A7C15 >> 32) }

// laneOf returns the calling goroutine's lane of t in s, creating it on first use; nil when s
// is stopping.
func (s *Session) laneOf(t *Thread) *lane {
	g := gid.G()
	if l := t.cur.Load(); l != nil && l.g == g && l.sess == s {
		return l
	}
	return s.laneSlow(t, g, true)
}

// laneIfAny is laneOf without creating a lane.
func (s *Session) laneIfAny(t *Thread) *lane {
	g := gid.G()
	if l := t.cur.Load(); l != nil && l.g == g && l.sess == s {
		return l
	}
	return s.laneSlow(t, g, false)
}

func (s *Session) laneSlow(t *Thread, g uintptr, create bool) *lane {
	if tb := t.lanes.Load(); tb != nil && tb.sess == s {
		if l := tb.find(g); l != nil {
			if c := t.cur.Load(); (c == nil || c.sess != s) && !s.stopped.Load() {
				t.cur.Store(l)
			}
			return l
		}
	}
	if !create {
		return nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	tb := t.lanes.Load()
	if tb == nil || tb.sess != s {
		tb = &laneTable{sess: s, slots: make([]atomic.Pointer[lane], 8)}
	} else if l := tb.find(g); l != nil {
		return l
	}
	if 2*(tb.n+1) > len(tb.slots) {
		grown := &laneTable{sess: s, slots: make([]atomic.Pointer[lane], 2*len(tb.slots))}
		for i := range tb.slots {
			if l := tb.slots[i].Load(); l != nil {
				grown.insert(l)
			}
		}
		tb = grown
	}
	l := newLane(s, t, g)
	if !s.addLane(l) {
		return nil
	}
	tb.insert(l)
	t.lanes.Store(tb)
	if c := t.cur.Load(); c == nil || c.sess != s {
		t.cur.Store(l)
	}
	return l
}

// addLane registers l with the session unless it is stopping.
func (s *Session) addLane(l *lane) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopped.Load() {
		return false
	}
	s.lanes = append(s.lanes, l)
	return true
}

// forget drops the Threads' references to the session's lanes, so their memory goes with the
// result.
func (s *Session) forget(lanes []*lane) {
	for _, l := range lanes {
		l.t.cur.CompareAndSwap(l, nil)
		if tb := l.t.lanes.Load(); tb != nil && tb.sess == s {
			l.t.lanes.CompareAndSwap(tb, nil)
		}
	}
}
