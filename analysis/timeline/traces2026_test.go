package timeline

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestTraces2026Streams: the traces of 2026 (testdata/kineto-2026) keyed by their streams. A
// Stream Sync drawn on tid stream + 1000000 is stream 7's; ROCm kernels on two HIP streams of
// one hardware queue are two streams; a CUDA event record is on its stream but no work; an
// ncclDevKernel is communication.
func TestTraces2026Streams(t *testing.T) {
	type key struct {
		dev    int
		stream int64
	}
	for _, tc := range []struct {
		file           string
		streams        []key
		busyNs, commNs int64
	}{
		{"stream_sync.json", []key{{0, 7}}, 85_000, 0},
		{"rocm_streams.json", []key{{0, 1}, {0, 2}}, 40_000, 0},
		{"cuda_event.json", []key{{0, 7}}, 40_000, 0},
		{"nccl_dev_kernel.json", []key{{0, 7}, {0, 20}}, 300_000, 300_000},
	} {
		t.Run(tc.file, func(t *testing.T) {
			s, _, err := OpenTrace(filepath.Join("..", "..", "testdata", "kineto-2026", tc.file), DefaultOptions(), 0)
			require.NoError(t, err)
			var idle, queue []key
			for _, i := range s.Idle {
				idle = append(idle, key{i.Device, i.Stream})
			}
			for _, q := range s.Queue {
				queue = append(queue, key{q.Device, q.Stream})
			}
			assert.ElementsMatch(t, tc.streams, idle, "idle per stream")
			assert.Subset(t, tc.streams, queue, "queue per stream")
			require.Len(t, s.Breakdown, 1)
			assert.Equal(t, tc.busyNs, s.Breakdown[0].BusyNs)
			assert.Equal(t, tc.commNs, s.Breakdown[0].CommunicationNs)
		})
	}
}
