package events

import (
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAvgRecs: records set from two goroutines at once land in blocks made on first use, the
// last one no longer than the records left; fill makes the blocks nothing was set in, whose
// records are zero.
func TestAvgRecs(t *testing.T) {
	n := 3*recBlock + 5
	s := newAvgRecs(n)
	require.Len(t, s.blocks, 4)
	var wg sync.WaitGroup
	for _, half := range [][2]int{{0, recBlock + 10}, {recBlock + 10, 2 * recBlock}} {
		wg.Go(func() {
			for i := half[0]; i < half[1]; i++ {
				s.set(i).thread = int64(i)
			}
		})
	}
	wg.Wait()
	assert.Nil(t, s.blocks[2].Load(), "no record of block 2 set")
	s.fill()
	for k := range s.blocks {
		want := recBlock
		if k == 3 {
			want = 5
		}
		assert.Len(t, s.block(k), want, "block %d", k)
	}
	for i := range 2 * recBlock {
		require.Equal(t, int64(i), s.at(int32(i)).thread)
	}
	assert.Zero(t, *s.at(int32(n - 1)))
}
