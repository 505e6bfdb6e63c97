package events

import "sync/atomic"

// recBlockShift sets the records an avgRecs block holds: 4096 (256 KiB).
const (
	recBlockShift = 12
	recBlock      = 1 << recBlockShift
	recBlockMask  = recBlock - 1
)

// avgRecs holds an Averager's records in blocks, each allocated when its first record is set.
// A large trace's events are set as its records are released, chunk by chunk: grown this way
// the Averager reuses their memory, where one slice for every event would exist beside all of
// them (64 bytes per event beside their 96).
type avgRecs struct {
	n      int
	blocks []atomic.Pointer[[]avgRec]
}

// newAvgRecs returns room for n records, none allocated.
func newAvgRecs(n int) avgRecs {
	return avgRecs{n: n, blocks: make([]atomic.Pointer[[]avgRec], (n+recBlockMask)>>recBlockShift)}
}

// at returns record i, whose block exists.
func (s *avgRecs) at(i int32) *avgRec {
	return &(*s.blocks[i>>recBlockShift].Load())[i&recBlockMask]
}

// set returns record i, allocating its block if need be. It may be called from several
// goroutines at once.
func (s *avgRecs) set(i int) *avgRec {
	p := &s.blocks[i>>recBlockShift]
	b := p.Load()
	if b == nil {
		start := i &^ recBlockMask
		nb := make([]avgRec, min(recBlock, s.n-start))
		if !p.CompareAndSwap(nil, &nb) {
			b = p.Load()
		} else {
			b = &nb
		}
	}
	return &(*b)[i&recBlockMask]
}

// block returns block k, allocating it if no record of it was set.
func (s *avgRecs) block(k int) []avgRec {
	s.set(k << recBlockShift)
	return *s.blocks[k].Load()
}

// fill allocates every block no record of which was set, so that at may read any record:
// the zero record, as a slice of every event had it.
func (s *avgRecs) fill() {
	for k := range s.blocks {
		s.block(k)
	}
}
