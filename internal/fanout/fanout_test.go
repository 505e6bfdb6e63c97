package fanout

import (
	"errors"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestEachRunsEveryJobOnce(t *testing.T) {
	for _, tc := range []struct{ n, workers int }{{0, 0}, {1, 0}, {7, 1}, {7, 3}, {100, 0}, {3, 10}} {
		var calls [100]atomic.Int32
		var running, peak atomic.Int32
		errs := Each(tc.n, tc.workers, func(k int) error {
			r := running.Add(1)
			for p := peak.Load(); r > p && !peak.CompareAndSwap(p, r); p = peak.Load() {
			}
			calls[k].Add(1)
			running.Add(-1)
			return nil
		})
		assert.Len(t, errs, tc.n)
		assert.NoError(t, First(errs))
		for k := range tc.n {
			assert.EqualValues(t, 1, calls[k].Load(), "n=%d workers=%d k=%d", tc.n, tc.workers, k)
		}
		if tc.workers > 0 {
			assert.LessOrEqual(t, int(peak.Load()), tc.workers)
		}
	}
}

func TestEachStopsAfterAnError(t *testing.T) {
	bad := errors.New("bad")
	var started atomic.Int32
	errs := Each(50, 1, func(k int) error {
		started.Add(1)
		if k == 3 {
			return bad
		}
		return nil
	})
	// One worker claims in order: 0..3 run, nothing after the failure starts.
	assert.EqualValues(t, 4, started.Load())
	assert.Same(t, bad, First(errs))
	assert.Nil(t, errs[4])
}

func TestFirstIsInOrder(t *testing.T) {
	a, b := errors.New("a"), errors.New("b")
	assert.Same(t, a, First([]error{nil, a, b}))
	assert.NoError(t, First(nil))
}
