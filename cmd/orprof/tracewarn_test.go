package main

import (
	"bytes"
	"compress/gzip"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestTableTraceWarnings: what the reader could not use is said in one line each on stderr,
// and the table still prints: device time that reached no op (with how much and why), skipped
// malformed events, bytes after the gzip data. Strict JSON errors are one line with exit 2.
func TestTableTraceWarnings(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, data []byte) string { return writeIn(t, dir, name, data) }
	good := `{"traceEvents": [
 {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 100, "dur": 50, "args": {"External id": 5}},
 {"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": 7, "ts": 120, "dur": 20, "args": {"External id": 5, "correlation": 77}}`
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	zw.Write([]byte(good + "]}"))
	zw.Close()
	cases := []struct {
		name, path string
		warn       []string
		flags      []string
	}{
		{"clean", write("clean.json", []byte(good+"]}")), nil, nil},
		{"BOM", write("bom.json", []byte("\uFEFF"+good+"]}")), nil, nil},
		{"2021", "../../testdata/kineto-extra/tbplugin_2021_small.json.gz", nil, nil},
		{"self-correlated, strict", "../../testdata/kineto/cuda_alexnet.json.gz", []string{
			`../../testdata/kineto/cuda_alexnet.json.gz: 67681.000 µs of 67681.000 µs of device time (100.0%, 139 events) reached no operator: its "External id" equals the event's own "correlation"`},
			[]string{"--link", "external-id"}},
		// Linked by their launches (rule 2), but for one memcpy whose cudaMemcpyAsync lies in
		// no operator: only that is left to warn about.
		{"self-correlated", "../../testdata/kineto/cuda_alexnet.json.gz", []string{
			`../../testdata/kineto/cuda_alexnet.json.gz: 10.000 µs of 67681.000 µs of device time (0.0%, 1 event) reached no operator: its runtime launch lies within no operator on its thread`}, nil},
		{"malformed", write("bad.json", []byte(good+`, {}, {"ph": "X", "cat": "cpu_op", "name": 1, "ts": 1, "dur": 1}]}`)), []string{
			"bad.json: skipped 2 malformed or unknown trace events (the first at byte 275: trace event has no \"ph\" (a one-letter string))"}, nil},
		{"trailing garbage", write("t.json.gz", append(z.Bytes(), "garbage"...)), []string{
			"t.json.gz: ignored 7 bytes of trailing data after the gzip stream"}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			args := append(append([]string{"table"}, c.flags...), c.path)
			require.Equal(t, 0, dispatch(args, nil, &out, &errb), errb.String())
			assert.Contains(t, out.String(), "Self CPU time total")
			lines := strings.Split(strings.TrimSuffix(errb.String(), "\n"), "\n")
			if c.warn == nil {
				assert.Empty(t, errb.String())
				return
			}
			require.Len(t, lines, len(c.warn), errb.String())
			for i, w := range c.warn {
				assert.True(t, strings.HasPrefix(lines[i], "orprof: warning: "), lines[i])
				assert.Contains(t, lines[i], w)
			}
		})
	}
	// The 2021 trace's kernels reach their ops: an op row has device time.
	var out, errb bytes.Buffer
	require.Equal(t, 0, dispatch([]string{"table", "--format", "csv", "--sort-by", "self_cuda_time_total", "../../testdata/kineto-extra/tbplugin_2021_small.json.gz"}, nil, &out, &errb))
	hasOpDevice := false
	for _, l := range strings.Split(out.String(), "\n")[1:] {
		if f := strings.Split(l, ","); len(f) > 6 && strings.HasPrefix(f[0], "aten::") && f[5] != "0" {
			hasOpDevice = true
		}
	}
	assert.True(t, hasOpDevice, "an aten:: op has self device time:\n%s", out.String())

	for name, in := range map[string]string{
		"NaN":         good + `, {"ph": "C", "name": "c", "ts": 1, "args": {"v": NaN}}]}`,
		"long number": `{"traceEvents": [], "x": 1.` + strings.Repeat("9", 100000) + `.5}`,
	} {
		var out, errb bytes.Buffer
		p := write(strings.ReplaceAll(name, " ", "_")+".json", []byte(in))
		assert.Equal(t, 2, dispatch([]string{"table", p}, nil, &out, &errb), name)
		assert.Equal(t, 1, strings.Count(errb.String(), "\n"), "%s: one line: %s", name, errb.String())
		assert.Less(t, len(errb.String()), len(p)+260, "%s: at most ~100 bytes of the input quoted", name)
	}
}
