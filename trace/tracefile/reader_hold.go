package tracefile

import (
	"math"
	"slices"
	"sync/atomic"
)

// chunkHold releases each chunk of records as soon as every reader of the records has passed
// it, rather than all of them when the last reader is done: with consumers, the conversion,
// the consumers' feed and the link-free consumers' early feed each read every chunk, and
// the records of a large trace are the larger part of its read's memory.
type chunkHold struct {
	chunks [][]rawEvent
	left   []atomic.Int32 // per chunk: the readers that have not passed it
	held   atomic.Int32   // the chunks not released yet
	done   func()         // called once every chunk is released
	// last, when not nil, is closed per chunk once one reader alone has not passed it
	// (lastReader: the conversion of a paced read, which waits for it).
	last []chan struct{}
}

// lastReader makes the hold close h.last[k] when every reader of chunk k but one has passed
// it. Call it before any pass.
func (h *chunkHold) lastReader() {
	h.last = make([]chan struct{}, len(h.chunks))
	for k := range h.last {
		h.last[k] = make(chan struct{})
		if h.left[k].Load() == 1 {
			close(h.last[k])
		}
	}
}

// newChunkHold holds chunks for readers readers; done (if not nil) is called by the reader
// that releases the last chunk.
func newChunkHold(chunks [][]rawEvent, readers int32, done func()) *chunkHold {
	h := &chunkHold{chunks: chunks, left: make([]atomic.Int32, len(chunks)), done: done}
	for k := range h.left {
		h.left[k].Store(readers)
	}
	h.held.Store(int32(len(chunks)))
	return h
}

// pass says that one reader is done with chunk k; the last one drops it from the list
// (which every reader shares), so that a collection frees it and its memory is reused. Its
// pages are kept, not given back with releaseRecords: given back, they would be faulted in
// again when reused.
func (h *chunkHold) pass(k int) {
	left := h.left[k].Add(-1)
	if left == 1 && h.last != nil {
		close(h.last[k])
	}
	if left == 0 {
		if poisonReleased {
			poison(h.chunks[k])
		}
		h.chunks[k] = nil
		if h.held.Add(-1) == 0 && h.done != nil {
			h.done()
		}
	}
}

// passAll is pass of every chunk: a reader that reads none.
func (h *chunkHold) passAll() {
	for k := range h.left {
		h.pass(k)
	}
}

// feedDue lists, per chunk k, the chunks the consumers' feed may pass once it has fed the
// events of chunk k: the feed reads, beside each record, the records its links name (an
// operator's name, a launch's correlation and thread), so a chunk is passed only when the
// last event whose links name a record in it has been fed. evStart[k] is the number of events
// (records other than memory records) before chunk k.
func (d *decoder) feedDue(lk *links, evStart []int) [][]int32 {
	n := len(d.raws.chunks)
	last := make([]int32, n) // per chunk: the last chunk whose feed reads it
	for k := range last {
		last[k] = int32(k)
	}
	rawChunk := func(i int32) int {
		k, found := slices.BinarySearch(d.raws.starts, int(i))
		if !found {
			k--
		}
		return k
	}
	use := func(ref int32, by int) {
		if ref < 0 {
			return
		}
		if c := rawChunk(ref); int32(by) > last[c] {
			last[c] = int32(by)
		}
	}
	for rt, op := range lk.rtOp {
		use(op.raw, rawChunk(rt))
	}
	by := 0
	for _, p := range lk.pairs { // in file order
		for by+1 < n && evStart[by+1] <= int(p.dev) {
			by++
		}
		use(p.opRaw, by)
		use(p.launch-1, by)
	}
	due := make([][]int32, n)
	for c, k := range last {
		due[k] = append(due[k], int32(c))
	}
	return due
}

// poisonReleased is set by the package's tests: every chunk is overwritten with records that
// name nothing as it is dropped, so that a reader that reads a record after its chunk is
// dropped fails (an index out of range) or hands over nonsense its test sees.
var poisonReleased bool

// poison overwrites the records of c.
func poison(c []rawEvent) {
	for i := range c {
		c[i] = rawEvent{ts: -1 << 40, dur: -1, pid: -7, tid: -7, extID: -7, corr: -7, seq: -7, fwd: -7,
			name: math.MaxUint32, shapes: math.MaxInt32, stack: math.MaxInt32, node: math.MaxInt32, kind: rawKind(0xff)}
	}
}
