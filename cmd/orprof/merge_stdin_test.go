package main

import (
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orprof/orprof/internal/golden"
)

func gzipBytes(t *testing.T, b []byte) []byte {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	_, err := zw.Write(b)
	require.NoError(t, err)
	require.NoError(t, zw.Close())
	return buf.Bytes()
}

// TestMergeStdin: `orprof merge -` reads one input from stdin — a table summary, a kernels
// summary or a trace, plain or gzip — and prints what merge of the same file prints; `orprof
// kernels -` reads a kernels summary too; - among other inputs is refused, as table and
// report refuse it.
func TestMergeStdin(t *testing.T) {
	dir := t.TempDir()
	trace := "../../testdata/kineto/cuda_alexnet.json.gz"
	tableSum, _ := run(t, "table", "--format", "json", trace)
	kernelsSum, _ := run(t, "kernels", "--format", "json", trace)
	ts, ks := filepath.Join(dir, "t.json"), filepath.Join(dir, "k.json")
	require.NoError(t, os.WriteFile(ts, []byte(tableSum), 0o644))
	require.NoError(t, os.WriteFile(ks, []byte(kernelsSum), 0o644))
	traceBytes, err := os.ReadFile(trace)
	require.NoError(t, err)

	for _, tc := range []struct {
		name  string
		flags []string
		file  string // what merge FILE reads
		stdin []byte
	}{
		{"table summary", nil, ts, []byte(tableSum)},
		{"table summary gzip", []string{"--format", "csv"}, ts, gzipBytes(t, []byte(tableSum))},
		{"table summary by rank", []string{"--by-rank", "--format", "markdown"}, ts, []byte(tableSum)},
		{"kernels summary", nil, ks, []byte(kernelsSum)},
		{"kernels summary gzip", []string{"--format", "json"}, ks, gzipBytes(t, []byte(kernelsSum))},
		{"trace", []string{"--format", "json"}, trace, traceBytes},
	} {
		want, _ := run(t, append(append([]string{"merge"}, tc.flags...), tc.file)...)
		var out, errb bytes.Buffer
		code := dispatch(append(append([]string{"merge"}, tc.flags...), "-"), bytes.NewReader(tc.stdin), &out, &errb)
		require.Equal(t, 0, code, "%s: %s", tc.name, errb.String())
		got := out.String()
		if tc.file == trace {
			got = strings.NewReplacer("<stdin>", trace, `\u003cstdin\u003e`, trace).Replace(got) // the rank's file name
		}
		assert.True(t, want == got, "%s:\n%s", tc.name, golden.Diff(want, got))
	}

	var out, errb bytes.Buffer
	require.Equal(t, 0, dispatch([]string{"kernels", "-"}, strings.NewReader(kernelsSum), &out, &errb), errb.String())
	want, _ := run(t, "kernels", ks)
	assert.Equal(t, want, out.String(), "kernels - reads a kernels summary")

	for _, tc := range []struct {
		args  []string
		stdin string
		want  string
	}{
		{[]string{"merge", "-", ts}, tableSum, "merge: - (stdin) can only be read alone"},
		{[]string{"merge", ts, "-"}, tableSum, "merge: - (stdin) can only be read alone"},
		{[]string{"merge", "--by-rank", "-"}, kernelsSum, "merge: --by-rank does not apply to kernels summaries"},
		{[]string{"merge", "-"}, kernelsSum[:len(kernelsSum)/2], "merge: <stdin>: "},
		{[]string{"merge", "-"}, "[", "<stdin>"},
	} {
		out.Reset()
		errb.Reset()
		assert.Equal(t, 2, dispatch(tc.args, strings.NewReader(tc.stdin), &out, &errb), "%v", tc.args)
		assert.Empty(t, out.String())
		assert.Equal(t, 1, strings.Count(errb.String(), "\n"), "one line: %q", errb.String())
		assert.Contains(t, errb.String(), tc.want, "%v", tc.args)
	}
}
