package orprof

import (
	"context"
	"math/bits"
	"runtime"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/orprof/orprof/events"
	"github.com/orprof/orprof/internal/gid"
	"github.com/orprof/orprof/kineto"
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

// slot is one raw record while a session runs: 48 bytes for a CPU range, and no pointers, so
// the chunks of slots are memory the garbage collector never scans (a collection during
// recording would otherwise scan every live chunk) and writing a slot takes no write barrier.
// What a slot refers to lives beside it: its name in the lane's names, its rare fields in the
// lane's exts, its device events in its chunk's dev at the slot's index.
type slot struct {
	handle int64 // a MemoryRecord's bytes
	start  int64 // TSC ticks or ns while recording; ns once Stop converted them
	end    int64
	// endThread is the id of the Thread the range ended on when that was another one (EndOn),
	// 0 otherwise; written with end, before the slot becomes ended.
	endThread int64
	state     atomic.Uint32
	name      int32 // 0 for "", else 1 + the name's index in the lane's names
	ext       int32 // 0 unless the op had shapes, a stack or a sequence number: 1 + its index in exts
	scope     int16 // the RecordScope (PyTorch's are < 16), or a MemoryRecord's device type
	kind      events.RecordKind
	async     bool
}

// The slot's size is the recording's memory per range (TestSlotHasNoPointers checks that it
// holds no pointers, which makes its chunks noscan).
var _ [48 - unsafe.Sizeof(slot{})]struct{}

// slotExt holds what few ranges have.
type slotExt struct {
	shapes    [][]int64
	stack     []string
	seq       int64
	fwdThread int64
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
	dev   []devSlot    // beside slots in a fallback session: dev[i] is slots[i]'s
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
	// names and exts are what the slots' name and ext index; the goroutine appends to them
	// and Stop reads the entries of the slots it collected (see table).
	names table[string]
	exts  table[slotExt]

	// The fields the goroutine writes on every range sit on cache lines of their own, so that
	// two goroutines' lanes, allocated side by side, do not share one.
	_         [64]byte
	mu        sync.Mutex
	tail      *chunk
	n         int     // slots used in tail
	open      []*slot // ranges begun here and not ended here, innermost last
	handle    int64   // next handle of the block
	handleEnd int64
	nameIdx   map[string]int32 // every name in names, for the names the cache misses
	cache     [nameCache]nameEntry
	_         [64]byte
}

// The names cache: a range's name is nearly always a constant, the same string data every
// time, so the name's index is found by the address and length of its bytes, without hashing
// or comparing them. An entry is filled only from a string held in the lane's names, which
// keeps its bytes alive and unchanged while the lane lives: the same address and length are
// the same name.
const (
	nameCacheLog = 5
	nameCache    = 1 << nameCacheLog
)

type nameEntry struct {
	p   uintptr // unsafe.StringData of the name in names
	n   uint32  // its length (< 1<<32: longer names are not cached)
	idx int32   // slot.name
}

// name returns the slot.name of s, adding s to the lane's names when it is new.
func (l *lane) name(s string) int32 {
	// "" finds its 0 here too: an entry never filled is {0, 0, 0}, and one filled from an
	// empty string (whatever its address) holds 0.
	p := uintptr(unsafe.Pointer(unsafe.StringData(s)))
	e := &l.cache[uint64(p)*0x9E3779B97F4A7C15>>(64-nameCacheLog)]
	if e.p == p && uint64(e.n) == uint64(len(s)) {
		return e.idx
	}
	return l.nameMiss(s, e)
}

func (l *lane) nameMiss(s string, e *nameEntry) int32 {
	if len(s) == 0 {
		*e = nameEntry{p: uintptr(unsafe.Pointer(unsafe.StringData(s)))}
		return 0
	}
	idx, ok := l.nameIdx[s]
	if !ok {
		if l.nameIdx == nil {
			l.nameIdx = map[string]int32{}
		}
		idx = int32(l.names.add(s)) + 1
		l.nameIdx[s] = idx
	}
	if uint64(len(s)) < 1<<32 {
		kept := *l.names.at(int(idx - 1))
		*e = nameEntry{p: uintptr(unsafe.Pointer(unsafe.StringData(kept))), n: uint32(len(kept)), idx: idx}
	}
	return idx
}

// nameOf is the name a slot's name index stands for.
func (l *lane) nameOf(idx int32) string {
	if idx == 0 {
		return ""
	}
	return *l.names.at(int(idx - 1))
}

// ext returns the rare fields of sl, nil when it has none.
func (l *lane) ext(sl *slot) *slotExt {
	if sl.ext == 0 {
		return nil
	}
	return l.exts.at(int(sl.ext - 1))
}

// table is an append-only list whose elements never move: segments of doubling size, each
// allocated once. Its goroutine appends while Stop reads the elements that the slots it
// collected index; those were written, and their segments allocated, before the slots were
// published, and nothing a reader touches (a segment's slice header, the element) is written
// again, so the reader needs no lock.
type table[T any] struct {
	n    int
	segs *[tableSegs][]T // allocated with the first element
}

const (
	firstSegLog = 4                // the first segment holds 16 elements
	tableSegs   = 32 - firstSegLog // enough for the int32 indexes of the slots
	firstSeg    = 1 << firstSegLog
)

// seg returns the segment of element i and its index there.
func seg(i int) (k, j int) {
	x := uint(i) + firstSeg
	k = bits.Len(x) - 1 - firstSegLog
	return k, int(x - firstSeg<<k)
}

// add appends v and returns its index.
func (t *table[T]) add(v T) int {
	k, j := seg(t.n)
	if t.segs == nil {
		t.segs = new([tableSegs][]T)
	}
	if t.segs[k] == nil {
		t.segs[k] = make([]T, firstSeg<<k)
	}
	t.segs[k][j] = v
	t.n++
	return t.n - 1
}

func (t *table[T]) at(i int) *T {
	k, j := seg(i)
	return &t.segs[k][j]
}

func newLane(s *Session, t *Thread, g uintptr) *lane {
	// The open stack is written on every range: 8 pointers fill a 64-byte allocation, a cache
	// line of its own (appending to a nil slice makes an 8-byte one, and two lanes' stacks
	// then share a line that both goroutines write on every range).
	l := &lane{sess: s, t: t, g: g, id: t.id, open: make([]*slot, 0, 8)}
	l.head = l.newChunk(firstChunk)
	l.tail = l.head
	if !raceEnabled {
		// Once nothing refers to the lane any more (its session's result and every Range of
		// it are gone), its full-size chunks are kept for new lanes. (Not under the race
		// detector: it cannot see that the collector ordered the recorder's writes before
		// the cleanup's.)
		runtime.AddCleanup(l, keepChunks, l.head)
	}
	return l
}

// spare holds the full-size chunks of CPU-only lanes that are gone, spareDev those of fallback
// sessions' lanes, for new lanes: a program that profiles again and again (a schedule's cycles,
// a benchmark's rounds) records into memory it already has instead of fresh memory that the
// allocator must find, zero and fault in, and the collector then free (2× RDTSC plus a 48-byte
// record in fresh chunks costs 1.5–1.7× the clock reads alone, and scales 1.2–1.4× on 2 goroutines:
// BenchmarkRange). A sync.Pool, so that a program that stops profiling gets the memory back
// after two collections.
var spare, spareDev sync.Pool

// keepChunks puts the full-size chunks from head on in spare or spareDev. Their slots are not
// cleared: a recorder writes every field of a slot it takes (clearing them here wrote 24 KB a
// chunk on the cleanup goroutine, which runs beside the next session's recorders).
func keepChunks(head *chunk) {
	for c := head; c != nil; {
		next := c.next.Load()
		if len(c.slots) == maxChunk {
			c.n.Store(0)
			c.next.Store(nil)
			if c.dev == nil {
				spare.Put(c)
			} else {
				// The device records hold contexts and backend events: cleared, so that a
				// kept chunk keeps nothing of them alive, and a new range starts from none.
				clear(c.dev)
				spareDev.Put(c)
			}
		}
		c = next
	}
}

func (l *lane) newChunk(size int) *chunk {
	if size == maxChunk {
		pool := &spare
		if l.sess.fallback {
			pool = &spareDev
		}
		if c, _ := pool.Get().(*chunk); c != nil {
			return c
		}
	}
	c := &chunk{slots: make([]slot, size)}
	if l.sess.fallback {
		c.dev = make([]devSlot, size)
	}
	return c
}

// next returns the next free slot, which the recorder writes whole (a chunk from spare holds
// an earlier lane's slots); publish makes it visible to Stop.
func (l *lane) next() *slot {
	if t := l.tail; l.n < len(t.slots) {
		return &t.slots[l.n]
	}
	return l.grow()
}

// grow links a new chunk after the full tail and returns its first slot.
func (l *lane) grow() *slot {
	c := l.newChunk(min(2*len(l.tail.slots), maxChunk))
	l.tail.next.Store(c)
	l.tail, l.n = c, 0
	return &c.slots[0]
}

func (l *lane) publish() {
	l.n++
	l.tail.n.Store(int32(l.n))
}

// devFor returns the device record of the slot next returned.
func (l *lane) devFor() *devSlot {
	d := &l.tail.dev[l.n]
	d.elapsedUs = -1
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

// pop removes sl from the open ranges. The entries past the stack's end are not cleared: they
// point into the lane's own chunks, which the lane keeps alive anyway.
func (l *lane) pop(sl *slot) {
	if n := len(l.open) - 1; n >= 0 && l.open[n] == sl {
		l.open = l.open[:n] // the innermost: nearly every End
		return
	}
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
// d is its device record, nil when it has none.
func (s *Session) orphan(sl *slot, d *devSlot) bool {
	if sl.state.CompareAndSwap(stateOpen, stateOrphan) || sl.state.CompareAndSwap(stateEnded, stateOrphan) {
		d.releaseAll(s)
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

// records counts what the session holds so far: what a capture's bound
// (CaptureOptions.MaxEvents) compares. The host records are the slots the lanes have
// published; in a fallback session each slot also holds its device events (devSlot), one
// device record more; and the child profilers that can say so (kineto.RecordCounter) add the
// device activities they have buffered (kernels mode). It walks the chunks, not the slots.
func (s *Session) records() int {
	s.mu.Lock()
	lanes := s.lanes
	s.mu.Unlock()
	n := 0
	for _, l := range lanes {
		for c := l.head; c != nil; c = c.next.Load() {
			k := int(c.n.Load())
			if c.dev != nil {
				k *= 2
			}
			n += k
		}
	}
	for _, c := range s.children {
		if rc, ok := c.sess.(kineto.RecordCounter); ok {
			n += rc.Records()
		}
	}
	return n
}
