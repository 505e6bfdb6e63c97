package trace_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orprof/orprof/trace"
	"github.com/orprof/orprof/trace/tracefile"
)

// TestWriteEscapesNames is PyTorch issue 146900 (and the legacy exporter's flaw): names
// with quotes, backslashes, newlines or control bytes must still give valid JSON, and read
// back unchanged.
func TestWriteEscapesNames(t *testing.T) {
	name := "my \"quoted\" op\\path\nline\x01"
	tr := &trace.Trace{BaseTimeNs: 1_000_000, StartNs: 1_000_000, EndNs: 1_100_000, Events: []trace.Event{
		{Ph: 'X', Cat: "cpu_op", Name: name, Pid: 1, Tid: 1, TsNs: 1_000_500, DurNs: 2_000,
			Args: []trace.Arg{trace.Int(trace.ArgExternalID, 1)}},
		{Ph: 'C', Cat: "xpu_scope_profiler", Name: "xpu", Pid: 0, Tid: 0, TsNs: 1_001_000, Args: []trace.Arg{trace.Raw("GpuTime", "5")}},
	}}
	var buf bytes.Buffer
	require.NoError(t, trace.Write(&buf, tr))
	require.NoError(t, trace.Check(buf.Bytes()), buf.String())
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
	data, err := tracefile.Read(bytes.NewReader(buf.Bytes()), "escaped.json", tracefile.Options{})
	require.NoError(t, err)
	require.Len(t, data.Events, 1)
	assert.Equal(t, name, data.Events[0].Name)
}
