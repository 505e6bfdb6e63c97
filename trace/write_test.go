package trace

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestAppendUs(t *testing.T) {
	for ns, want := range map[int64]string{1234567: "1234.567", 8000: "8.000", 5: "0.005", -3: "0.000"} {
		assert.Equal(t, want, string(appendUs(nil, ns)))
	}
}

// TestWriteBeforeBase: an event that starts before the trace's base is written from the base
// with its end where it was, so it overlaps nothing it did not overlap (the writer used to keep
// its duration, which moved its end: two events that did not touch came out overlapping, which
// the plugin trace fuzzer found).
func TestWriteBeforeBase(t *testing.T) {
	tests := []struct {
		name          string
		tsNs, durNs   int64
		wantTs, wantD string
	}{
		{"wholly before", 1000 - 90, 44, "0.000", "0.000"},
		{"across the base", 1000 - 10, 30, "0.000", "0.020"},
		{"at the base", 1000, 30, "0.000", "0.030"},
		{"after it", 1032, 16, "0.032", "0.016"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr := &Trace{BaseTimeNs: 1000, Events: []Event{{Ph: 'X', Name: "e", Pid: 1, Tid: 1, TsNs: tt.tsNs, DurNs: tt.durNs}}}
			var out bytes.Buffer
			require.NoError(t, Write(&out, tr))
			assert.Contains(t, out.String(), `"ts": `+tt.wantTs+`, "dur": `+tt.wantD)
		})
	}
	// The fuzzer's case: [-90, -46] and [32, 48] ns do not overlap, and must not once written.
	tr := &Trace{Events: []Event{{Ph: 'X', Name: "a", Pid: 1, Tid: 1, TsNs: 32, DurNs: 16},
		{Ph: 'X', Name: "b", Pid: 1, Tid: 1, TsNs: -90, DurNs: 44}}}
	var out bytes.Buffer
	require.NoError(t, Write(&out, tr))
	assert.NoError(t, Check(out.Bytes()))
}

func TestCheckFindsProblems(t *testing.T) {
	bad := `{"distributedInfo": {"rank": 0}, "traceEvents": [
  {"ph": "X", "name": "a", "pid": 1, "tid": 1, "ts": 0, "dur": 10},
  {"ph": "X", "name": "b", "pid": 1, "tid": 1, "ts": 5, "dur": 10},
  {"ph": "s", "cat": "ac2g", "name": "ac2g", "pid": 1, "tid": 1, "ts": 5, "id": 7},
  {"ph": "X", "name": "c", "pid": 1, "tid": 2, "ts": -1, "dur": 1},
  {"ph": "C", "name": "ctr", "pid": 1, "tid": 2, "ts": 1, "args": {"v": "x"}}
]}`
	err := Check([]byte(bad))
	require.Error(t, err)
	for _, want := range []string{"overlaps", "has a start and no end", "ts is negative", "is not a number"} {
		assert.Contains(t, err.Error(), want)
	}
	assert.ErrorContains(t, Check([]byte(`{"traceEvents": []}`)), "distributedInfo.rank is missing")
	assert.Error(t, Check([]byte(`[`)))
}

func TestAppendString(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"", `""`},
		{"aten::mm", `"aten::mm"`},
		{`"q"`, `"\"q\""`},
		{`a\b`, `"a\\b"`},
		{"tab\there\nnl\r\x01\x1f", `"tab\there\nnl\r\u0001\u001f"`},
		{"plain then \"", `"plain then \""`},
		{"héllo ✓", `"héllo ✓"`},
		{"bad \xff utf8", "\"bad \ufffd utf8\""},
		{"\x7f del is plain", "\"\x7f del is plain\""},
	} {
		assert.Equal(t, c.want, string(AppendString([]byte("x"), c.in))[1:], "%q", c.in)
	}
}
