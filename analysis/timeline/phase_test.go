package timeline

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestPhase: --phase keeps the device work of the ops its outermost annotations hold on
// their thread (a "decode" nested in "prefill" is prefill's; another thread's "decode" is
// decode's) and measures the breakdown over its windows (each range to the end of its work:
// the gemm runs 50 µs past its range). The device time is orprof code --by phase's row.
func TestPhase(t *testing.T) {
	fixture := filepath.Join("testdata", "phases.json")
	graph := filepath.Join("..", "..", "trace", "tracefile", "testdata", "cudagraph", "annotated.json")
	for _, tc := range []struct {
		file, phase           string
		totalNs, busyNs, work int64
	}{
		{fixture, "decode", 170_000, 35_000, 2},
		{fixture, "prefill", 50_000, 10_000, 1},
		{fixture, "", 187_000, 44_000, 4},
		{graph, "decode", 0, 90_000, 0},
		{graph, "prefill", 0, 30_000, 1},
	} {
		t.Run(filepath.Base(tc.file)+"/"+tc.phase, func(t *testing.T) {
			o := DefaultOptions()
			o.Phase = tc.phase
			s, _, err := OpenTrace(tc.file, o, 0)
			require.NoError(t, err)
			require.Len(t, s.Breakdown, 1)
			b := s.Breakdown[0]
			assert.Equal(t, tc.busyNs, b.BusyNs)
			if tc.totalNs > 0 {
				assert.Equal(t, tc.totalNs, b.TotalNs)
				assert.Equal(t, tc.work, int64(s.Ranks[0].Work))
			}
			assert.Equal(t, b.TotalNs, b.BusyNs+b.IdleNs)
		})
	}
	o := DefaultOptions()
	o.Phase = "nope"
	_, _, err := OpenTrace(fixture, o, 0)
	assert.EqualError(t, err, "testdata/phases.json: --phase nope: no such phase; the trace's are decode, prefill")
	_, _, err = OpenTrace(filepath.Join("..", "..", "testdata", "kineto-2026", "stream_sync.json"), o, 0)
	assert.ErrorContains(t, err, "the trace has no user annotation naming a phase")
	o.Phase, o.Steps = "decode", []int64{1}
	assert.Error(t, o.Check())
}
