package tracefile

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orprof/orprof/analysis/optable"
	"github.com/orprof/orprof/devices"
	"github.com/orprof/orprof/events"
)

const scopeMetricsTrace = `{"traceEvents": [
  {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 0.000, "dur": 10.000, "args": {"External id": 5}},
  {"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": 7, "ts": 2.000, "dur": 4.000, "args": {"External id": 5}},
  {"ph": "X", "cat": "kernel", "name": "metrics: gemm", "pid": 0, "tid": 7, "ts": 1.999, "dur": 4.002, "args": {"kernel_id": 1, "GpuTime::ns": 4000}},
  {"ph": "C", "cat": "xpu_scope_profiler", "name": "xpu", "pid": 0, "tid": 7, "ts": 1.999, "args": {"GpuTime": 4000}}
]}`

// TestReadScopeMetricsSlices: the "metrics: <kernel>" slice a scope profiler writes around each
// kernel is a device row of its own, as in PyTorch's key_averages() (test_xpu_scope_profiler
// looks for rows starting "metrics: "), linked to no op and counted in no total: the op's
// device time, the table's device total and the unlinked-time warning see the kernel once.
// SkipScopeMetrics leaves the rows out.
func TestReadScopeMetricsSlices(t *testing.T) {
	data, err := Read(strings.NewReader(scopeMetricsTrace), "m.json", Options{})
	require.NoError(t, err)
	var dev []string
	for _, e := range data.Events {
		if e.DeviceType != devices.CPU {
			dev = append(dev, e.Name)
		}
		if e.Name == "aten::mm" {
			require.Len(t, e.Kernels, 1, "the op gets its kernel once")
			assert.Equal(t, "gemm", e.Kernels[0].Name)
		}
	}
	assert.ElementsMatch(t, []string{"metrics: gemm", "gemm"}, dev)
	assert.Zero(t, data.DeviceLink.Unlinked, "the metrics slice is not unlinked device time")
	assert.InDelta(t, 4.0, data.DeviceLink.TotalUs, 1e-9)
	assert.Empty(t, data.Warnings("m.json"))

	rows := events.NewList(data.Events, events.ListOptions{UseDevice: "cuda"}).KeyAverages(events.AverageOptions{})
	keys := map[string]bool{}
	for _, r := range rows {
		keys[r.Key] = true
	}
	assert.True(t, keys["metrics: gemm"], "a row keyed \"metrics: …\", as PyTorch's")
	assert.InDelta(t, 4.0, optable.TableTotals(rows).SelfDevice, 1e-9, "the kernel's 4 µs counted once")

	data, err = Read(strings.NewReader(scopeMetricsTrace), "m.json", Options{SkipScopeMetrics: true})
	require.NoError(t, err)
	dev = nil
	for _, e := range data.Events {
		if e.DeviceType != devices.CPU {
			dev = append(dev, e.Name)
		}
	}
	assert.Equal(t, []string{"gemm"}, dev)
}

// TestConsumersSeeScopeMetricsKind: a consumer sees the kernel as a kernel and the metrics
// slice around it as KindScopeMetrics (not device time: it would count the kernel's twice).
func TestConsumersSeeScopeMetricsKind(t *testing.T) {
	var c kindsSeen
	_, err := ReadConsumers(strings.NewReader(scopeMetricsTrace), "m.json", Options{Consumers: []Consumer{&c}})
	require.NoError(t, err)
	assert.Equal(t, []string{"gemm"}, c.deviceTime)
	assert.Len(t, c.metrics, 1)
}

type kindsSeen struct {
	linked
	deviceTime, metrics []string
}

func (k *kindsSeen) Event(ev *Event) {
	switch {
	case ev.Kind == KindScopeMetrics:
		k.metrics = append(k.metrics, ev.Name)
	case ev.Kind.DeviceTime():
		k.deviceTime = append(k.deviceTime, ev.Name)
	}
}
