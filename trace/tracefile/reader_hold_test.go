package tracefile

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestFeedDue: a chunk of records is passed by the feed only after the last event whose
// links name a record in it (an operator, a launch) has been fed.
func TestFeedDue(t *testing.T) {
	newDecoder := func() *decoder {
		d := &decoder{}
		for range 3 {
			d.raws.adopt(make([]rawEvent, 3)) // records 0-2, 3-5, 6-8
		}
		return d
	}
	evStart := []int{0, 3, 6}
	for _, c := range []struct {
		name string
		lk   links
		want [][]int32
	}{
		{"no links: each chunk when fed", links{}, [][]int32{{0}, {1}, {2}}},
		{"a kernel in chunk 2 names an op in chunk 0 and a launch in chunk 1",
			links{pairs: []kernelPair{{dev: 7, opRaw: 1, launch: 4 + 1}}}, [][]int32{nil, nil, {0, 1, 2}}},
		{"a kernel without launch", links{pairs: []kernelPair{{dev: 4, opRaw: 0}}}, [][]int32{nil, {0, 1}, {2}}},
		{"a runtime call in chunk 1 charged to an op in chunk 0",
			links{rtOp: map[int32]opRef{5: {raw: 2}}}, [][]int32{nil, {0, 1}, {2}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			d := newDecoder()
			assert.Equal(t, c.want, d.feedDue(&c.lk, evStart))
		})
	}
}

// TestChunkHold: a chunk is dropped when its last reader passes it, not before; done is
// called once, when the last chunk is.
func TestChunkHold(t *testing.T) {
	chunks := [][]rawEvent{make([]rawEvent, 1), make([]rawEvent, 1)}
	done := 0
	h := newChunkHold(chunks, 2, func() { done++ })
	h.pass(0)
	assert.NotNil(t, chunks[0], "one reader of two passed")
	h.pass(0)
	assert.Nil(t, chunks[0])
	assert.NotNil(t, chunks[1])
	h.passAll()
	assert.NotNil(t, chunks[1])
	assert.Zero(t, done)
	h.pass(1)
	assert.Nil(t, chunks[1])
	assert.Equal(t, 1, done)
}
