package tracefile

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orprof/orprof/analysis/optable"
	"github.com/orprof/orprof/events"
)

func TestAppendPyFloat(t *testing.T) {
	for f, want := range map[float64]string{45.98599999999999: "45.98599999999999", 81.522: "81.522",
		3: "3.0", 0: "0.0", 1e16: "1e+16", 1.5e-05: "1.5e-05", 2147.658: "2147.658"} {
		assert.Equal(t, want, string(appendPyFloat(nil, f)))
	}
}

func TestWriteLegacyTrace(t *testing.T) {
	a := events.NewFunctionEvent(1, "aten::zeros", 1, 81.522, 127.508)
	b := events.NewFunctionEvent(2, `quo"te`, 1, 90, 100)
	b.Kernels, b.IsLegacy = []events.Kernel{{Name: `quo"te`, DurationUs: 4}}, true
	l := events.NewList([]events.FunctionEvent{a, b}, events.ListOptions{})
	var buf bytes.Buffer
	require.NoError(t, WriteLegacy(&buf, l, "openreg"))
	out := buf.String()
	assert.True(t, strings.HasPrefix(out, `[{"name": "aten::zeros", "ph": "X", "ts": 81.522, "dur": 45.98599999999999, "tid": 1, "pid": "CPU functions", "args": {}}, `), out)
	assert.Contains(t, out, `{"name": "quo\"te", "ph": "s", "ts": 90.0, "tid": 1, "pid": "CPU functions", "id": 0, "cat": "cpu_to_openreg", "args": {}}`)
	var arr []map[string]any
	require.NoError(t, json.Unmarshal(buf.Bytes(), &arr), "valid JSON even with a quote in a name")
	// Read back: the CPU table is the same.
	data, err := Read(bytes.NewReader(buf.Bytes()), "legacy.json", Options{})
	require.NoError(t, err)
	assert.Equal(t, Legacy, data.Form)
	back := events.NewList(data.Events, events.ListOptions{})
	// The legacy form has no device time: the table read back is the CPU-only table.
	b.Kernels, b.IsLegacy = nil, false
	cpu := events.NewList([]events.FunctionEvent{a, b}, events.ListOptions{})
	var t1, t2 bytes.Buffer
	require.NoError(t, optable.WriteTable(&t1, cpu.KeyAverages(events.AverageOptions{}), optable.TableOptions{}))
	require.NoError(t, optable.WriteTable(&t2, back.KeyAverages(events.AverageOptions{}), optable.TableOptions{}))
	assert.Equal(t, t1.String(), t2.String())
}

// TestWriteLegacyTraceOnlyMemory: PyTorch's exporter crashes ("negative seek position") when
// every event is a [memory] event; ours writes an empty array.
func TestWriteLegacyTraceOnlyMemory(t *testing.T) {
	m := events.NewFunctionEvent(0, "[memory]", 0, 0, 0)
	m.TraceName = ""
	m.CPUMemoryUsage = 64
	var buf bytes.Buffer
	require.NoError(t, WriteLegacy(&buf, events.NewList([]events.FunctionEvent{m}, events.ListOptions{}), ""))
	assert.Equal(t, "[]", buf.String())
}
