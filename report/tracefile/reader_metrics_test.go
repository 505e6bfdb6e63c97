package tracefile

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/orprof/orprof/devices"
)

// TestReadSkipsScopeMetricsSlices: the "metrics: <kernel>" slices a scope profiler writes
// around each kernel (cat "kernel") are not device work of their own.
func TestReadSkipsScopeMetricsSlices(t *testing.T) {
	trace := `{"traceEvents": [
  {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 0.000, "dur": 10.000, "args": {"External id": 5}},
  {"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": 7, "ts": 2.000, "dur": 4.000, "args": {"External id": 5}},
  {"ph": "X", "cat": "kernel", "name": "metrics: gemm", "pid": 0, "tid": 7, "ts": 1.999, "dur": 4.002, "args": {"kernel_id": 1, "GpuTime::ns": 4000}},
  {"ph": "C", "cat": "xpu_scope_profiler", "name": "xpu", "pid": 0, "tid": 7, "ts": 1.999, "args": {"GpuTime": 4000}}
]}`
	data, err := Read(strings.NewReader(trace), "m.json", Options{})
	require.NoError(t, err)
	var dev int
	for _, e := range data.Events {
		if e.DeviceType != devices.CPU {
			dev++
			require.Equal(t, "gemm", e.Name)
		}
	}
	require.Equal(t, 1, dev)
}
