package trace

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestOmitSpans: with OmitSpans the span event with the string pid (and its sort-index row)
// is left out, for speedscope; everything else is written as before, and the trace still
// passes the checker.
func TestOmitSpans(t *testing.T) {
	tr := func(omit bool) *Trace {
		return &Trace{BaseTimeNs: 1000, StartNs: 1000, EndNs: 9000, OmitSpans: omit, Events: []Event{
			{Ph: 'X', Cat: "Trace", Name: "PyTorch Profiler (0)", PidStr: "Spans", TidStr: "PyTorch Profiler", TsNs: 1000, DurNs: 8000},
			{Ph: 'i', Name: "Iteration Start: PyTorch Profiler", PidStr: "Traces", TidStr: "Trace PyTorch Profiler", TsNs: 1000, Scope: 'g'},
			{Ph: 'X', Cat: "cpu_op", Name: "aten::mm", Pid: 7, Tid: 1, TsNs: 2000, DurNs: 500},
		}}
	}
	var with, without bytes.Buffer
	require.NoError(t, Write(&with, tr(false)))
	require.NoError(t, Write(&without, tr(true)))
	assert.Contains(t, with.String(), `"pid": "Spans"`)
	assert.NotContains(t, without.String(), `"Spans"`)
	assert.Contains(t, without.String(), `"aten::mm"`)
	assert.Contains(t, without.String(), `"pid": "Traces"`, "only complete events with a string pid go")
	require.NoError(t, Check(without.Bytes()))
	// Everything but the span's two lines is the same.
	var kept []byte
	for _, line := range bytes.SplitAfter(with.Bytes(), []byte("\n")) {
		if !bytes.Contains(line, []byte(`"Spans"`)) {
			kept = append(kept, line...)
		}
	}
	assert.Equal(t, string(kept), without.String())
}
