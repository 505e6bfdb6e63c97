package tracefile

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Every test of the package reads with released chunks poisoned: a reader that read a record
// after passing its chunk (the feed reading an operator's record for a kernel that follows
// it, say) would fail the test that read it.
func init() { poisonReleased = true }

// TestFeedAfterRelease: on a trace whose device events all follow its operators (mtia_rank0's
// layout), whose kernels name operators and launches chunks before them, with released
// chunks poisoned, every kernel is handed over with its operator's name, its launch's
// correlation and the collective of the operator around its launch.
func TestFeedAfterRelease(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"traceEvents": [` + "\n")
	const n = 3 * rawChunk
	for i := range n {
		fmt.Fprintf(&b, `{"ph": "X", "cat": "cpu_op", "name": "op%d", "pid": 1, "tid": 1, "ts": %d.000, "dur": 2.000, "args": {"External id": %d}},`+"\n", i, 10*i, i+1)
		fmt.Fprintf(&b, `{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": %d.500, "dur": 1.000, "args": {"External id": %d, "correlation": %d}},`+"\n", 10*i, i+1, 100000+i)
	}
	b.WriteString(`{"ph": "X", "cat": "cpu_op", "name": "nccl:all_reduce", "pid": 1, "tid": 2, "ts": 5.000, "dur": 900000.000, "args": {"External id": 999999, "Collective name": "allreduce", "Process Group Name": "0", "Process Group Ranks": "[0, 1]", "Seq": 3}},` + "\n")
	b.WriteString(`{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 2, "ts": 6.000, "dur": 1.000, "args": {"correlation": 777}},` + "\n")
	for i := range n {
		fmt.Fprintf(&b, `{"ph": "X", "cat": "kernel", "name": "k%d", "pid": 0, "tid": 7, "ts": %d.000, "dur": 1.000, "args": {"External id": %d, "correlation": %d, "stream": 7}},`+"\n", i, 10*n+10*i, i+1, 100000+i)
	}
	fmt.Fprintf(&b, `{"ph": "X", "cat": "kernel", "name": "ncclDevKernel_AllReduce", "pid": 0, "tid": 7, "ts": %d.000, "dur": 1.000, "args": {"correlation": 777, "stream": 7}}`+"\n]}", 30*n)
	for _, par := range []parConfig{{workers: 1}, {workers: 3, segSize: 1 << 16}} {
		var c collect
		_, err := readTrace(strings.NewReader(b.String()), "late.json", Options{Consumers: []Consumer{&c}}, par)
		require.NoError(t, err)
		var kernels int
		for _, ev := range c.evs {
			if ev.Kind != KindKernel {
				continue
			}
			if ev.Name == "ncclDevKernel_AllReduce" {
				assert.Equal(t, int64(777), ev.Launch)
				require.NotNil(t, ev.Comm, "the collective of the operator around the launch")
				assert.Equal(t, "allreduce", ev.Comm.Name)
				continue
			}
			var k int
			_, err := fmt.Sscanf(ev.Name, "k%d", &k)
			require.NoError(t, err)
			assert.Equal(t, fmt.Sprintf("op%d", k), ev.Op)
			assert.Equal(t, int64(100000+k), ev.Launch)
			assert.Nil(t, ev.Comm)
			kernels++
		}
		assert.Equal(t, n, kernels)
	}
}

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

// TestChunkHoldLastReader: with lastReader, a chunk's channel is closed once every reader
// but one has passed it (at once for a chunk with one reader), before it is released.
func TestChunkHoldLastReader(t *testing.T) {
	closed := func(c chan struct{}) bool {
		select {
		case <-c:
			return true
		default:
			return false
		}
	}
	chunks := [][]rawEvent{make([]rawEvent, 1), make([]rawEvent, 1)}
	h := newChunkHold(chunks, 3, nil)
	h.lastReader()
	assert.False(t, closed(h.last[0]))
	h.pass(0)
	assert.False(t, closed(h.last[0]), "two readers left")
	h.pass(0)
	assert.True(t, closed(h.last[0]), "one reader left")
	assert.NotNil(t, chunks[0])
	h.pass(0)
	assert.Nil(t, chunks[0])
	assert.False(t, closed(h.last[1]))

	one := newChunkHold([][]rawEvent{make([]rawEvent, 1)}, 1, nil)
	one.lastReader()
	assert.True(t, closed(one.last[0]), "the one reader is the last")
}
