package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orprof/orprof/events"
)

// TestWriteTraceEscapesNames is PyTorch issue 146900 (and the legacy exporter's flaw): names
// with quotes, backslashes, newlines or control bytes must still give valid JSON, and read
// back unchanged.
func TestWriteTraceEscapesNames(t *testing.T) {
	name := "my \"quoted\" op\\path\nline\x01"
	tr := &Trace{BaseTimeNs: 1_000_000, StartNs: 1_000_000, EndNs: 1_100_000, Events: []TraceEvent{
		{Ph: 'X', Cat: "cpu_op", Name: name, Pid: 1, Tid: 1, TsNs: 1_000_500, DurNs: 2_000,
			Args: []Arg{{Key: "External id", Value: "1"}}},
		{Ph: 'C', Cat: "xpu_scope_profiler", Name: "xpu", Pid: 0, Tid: 0, TsNs: 1_001_000, Args: []Arg{{Key: "GpuTime", Value: "5"}}},
	}}
	var buf bytes.Buffer
	require.NoError(t, WriteTrace(&buf, tr))
	require.NoError(t, CheckTrace(buf.Bytes()), buf.String())
	var doc struct {
		TraceEvents []struct {
			Name string  `json:"name"`
			Ts   float64 `json:"ts"`
			Dur  float64 `json:"dur"`
		} `json:"traceEvents"`
	}
	require.NoError(t, json.Unmarshal(buf.Bytes(), &doc))
	assert.Equal(t, name, doc.TraceEvents[0].Name)
	assert.Equal(t, 0.5, doc.TraceEvents[0].Ts, "µs relative to baseTimeNanoseconds")
	assert.Equal(t, 2.0, doc.TraceEvents[0].Dur)
	data, err := ReadTrace(bytes.NewReader(buf.Bytes()), "escaped.json")
	require.NoError(t, err)
	require.Len(t, data.Events, 1)
	assert.Equal(t, name, data.Events[0].Name)
}

func TestAppendUs(t *testing.T) {
	for ns, want := range map[int64]string{1234567: "1234.567", 8000: "8.000", 5: "0.005", -3: "0.000"} {
		assert.Equal(t, want, string(appendUs(nil, ns)))
	}
}

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
	require.NoError(t, WriteLegacyTrace(&buf, l, "openreg"))
	out := buf.String()
	assert.True(t, strings.HasPrefix(out, `[{"name": "aten::zeros", "ph": "X", "ts": 81.522, "dur": 45.98599999999999, "tid": 1, "pid": "CPU functions", "args": {}}, `), out)
	assert.Contains(t, out, `{"name": "quo\"te", "ph": "s", "ts": 90.0, "tid": 1, "pid": "CPU functions", "id": 0, "cat": "cpu_to_openreg", "args": {}}`)
	var arr []map[string]any
	require.NoError(t, json.Unmarshal(buf.Bytes(), &arr), "valid JSON even with a quote in a name")
	// Read back: the CPU table is the same.
	data, err := ReadTrace(bytes.NewReader(buf.Bytes()), "legacy.json")
	require.NoError(t, err)
	assert.Equal(t, FormatLegacy, data.Format)
	back := events.NewList(data.Events, events.ListOptions{})
	// The legacy form has no device time: the table read back is the CPU-only table.
	b.Kernels, b.IsLegacy = nil, false
	cpu := events.NewList([]events.FunctionEvent{a, b}, events.ListOptions{})
	var t1, t2 bytes.Buffer
	require.NoError(t, WriteTable(&t1, cpu.KeyAverages(events.AverageOptions{}), TableOptions{}))
	require.NoError(t, WriteTable(&t2, back.KeyAverages(events.AverageOptions{}), TableOptions{}))
	assert.Equal(t, t1.String(), t2.String())
}

// TestWriteLegacyTraceOnlyMemory: PyTorch's exporter crashes ("negative seek position") when
// every event is a [memory] event; ours writes an empty array.
func TestWriteLegacyTraceOnlyMemory(t *testing.T) {
	m := events.NewFunctionEvent(0, "[memory]", 0, 0, 0)
	m.TraceName = ""
	m.CPUMemoryUsage = 64
	var buf bytes.Buffer
	require.NoError(t, WriteLegacyTrace(&buf, events.NewList([]events.FunctionEvent{m}, events.ListOptions{}), ""))
	assert.Equal(t, "[]", buf.String())
}

func TestCheckTraceFindsProblems(t *testing.T) {
	bad := `{"distributedInfo": {"rank": 0}, "traceEvents": [
  {"ph": "X", "name": "a", "pid": 1, "tid": 1, "ts": 0, "dur": 10},
  {"ph": "X", "name": "b", "pid": 1, "tid": 1, "ts": 5, "dur": 10},
  {"ph": "s", "cat": "ac2g", "name": "ac2g", "pid": 1, "tid": 1, "ts": 5, "id": 7},
  {"ph": "X", "name": "c", "pid": 1, "tid": 2, "ts": -1, "dur": 1},
  {"ph": "C", "name": "ctr", "pid": 1, "tid": 2, "ts": 1, "args": {"v": "x"}}
]}`
	err := CheckTrace([]byte(bad))
	require.Error(t, err)
	for _, want := range []string{"overlaps", "has a start and no end", "ts is negative", "is not a number"} {
		assert.Contains(t, err.Error(), want)
	}
	assert.ErrorContains(t, CheckTrace([]byte(`{"traceEvents": []}`)), "distributedInfo.rank is missing")
	assert.Error(t, CheckTrace([]byte(`[`)))
}
