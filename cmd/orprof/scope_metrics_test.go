package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// scopeMetricsTrace has two kernels, each with the scope profiler's "metrics: <kernel>" slice
// around it (testdata/scope_metrics.json, written for these tests).
const scopeMetricsTrace = "testdata/scope_metrics.json"

// withoutScopeMetrics writes the trace with the metrics slices' lines taken out: what
// --no-scope-metrics must print the table of.
func withoutScopeMetrics(t *testing.T, dir, name string) string {
	b, err := os.ReadFile(scopeMetricsTrace)
	require.NoError(t, err)
	var keep []string
	for _, l := range strings.SplitAfter(string(b), "\n") {
		if !strings.Contains(l, `"metrics: `) {
			keep = append(keep, l)
		}
	}
	require.Less(t, len(keep), strings.Count(string(b), "\n"), "the fixture has metrics slices")
	p := filepath.Join(dir, name)
	require.NoError(t, os.WriteFile(p, []byte(strings.Join(keep, "")), 0o644))
	return p
}

// TestNoScopeMetrics: every command that prints an operator table (table of one trace, of
// stdin, of several ranks; merge of traces and of summaries written with the rows; diff;
// report) prints with --no-scope-metrics what it prints for the same trace without the
// metrics slices, and the rows are there without the flag.
func TestNoScopeMetrics(t *testing.T) {
	dir := t.TempDir()
	plain := withoutScopeMetrics(t, dir, "plain.json")
	plain2 := withoutScopeMetrics(t, dir, "plain2.json")
	withRows, _ := run(t, "table", "--format", "json", scopeMetricsTrace)
	sum := filepath.Join(dir, "sum.json")
	require.NoError(t, os.WriteFile(sum, []byte(withRows), 0o644))
	plainSum, _ := run(t, "table", "--format", "json", plain)
	sumPlain := filepath.Join(dir, "sum_plain.json")
	require.NoError(t, os.WriteFile(sumPlain, []byte(plainSum), 0o644))
	trace, err := os.ReadFile(scopeMetricsTrace)
	require.NoError(t, err)
	plainBytes, err := os.ReadFile(plain)
	require.NoError(t, err)

	for _, tc := range []struct {
		name       string
		args, want []string // the command with the flag on the metrics trace; the same on the plain trace
		stdin      []byte   // for the flagged command
		wantStdin  []byte
	}{
		{"table", []string{"table", scopeMetricsTrace}, []string{"table", plain}, nil, nil},
		{"table markdown", []string{"table", "--format", "markdown", scopeMetricsTrace}, []string{"table", "--format", "markdown", plain}, nil, nil},
		{"table csv", []string{"table", "--format", "csv", scopeMetricsTrace}, []string{"table", "--format", "csv", plain}, nil, nil},
		{"table stdin", []string{"table", "-"}, []string{"table", "-"}, trace, plainBytes},
		{"table ranks", []string{"table", "--by-rank", scopeMetricsTrace, scopeMetricsTrace}, []string{"table", "--by-rank", scopeMetricsTrace, scopeMetricsTrace}, nil, nil},
		{"merge of traces", []string{"merge", scopeMetricsTrace, scopeMetricsTrace}, []string{"merge", plain, plain2}, nil, nil},
		{"merge of summaries", []string{"merge", "--format", "json", sum, sum}, []string{"merge", "--format", "json", sumPlain, sumPlain}, nil, nil},
		{"diff", []string{"diff", scopeMetricsTrace, sum}, []string{"diff", plain, sumPlain}, nil, nil},
		{"diff stdin", []string{"diff", "-", sum}, []string{"diff", "-", sumPlain}, trace, plainBytes},
		{"report", []string{"report", "-o", "-", "-"}, []string{"report", "-o", "-", "-"}, trace, plainBytes},
		{"report summaries", []string{"report", "-o", "-", sum}, []string{"report", "-o", "-", sum}, nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			flagged := append([]string{tc.args[0], "--no-scope-metrics"}, tc.args[1:]...)
			var out, errb bytes.Buffer
			require.Equal(t, 0, dispatch(flagged, bytes.NewReader(tc.stdin), &out, &errb), errb.String())
			got := out.String()
			assert.NotContains(t, got, "metrics: ")
			out.Reset()
			require.Equal(t, 0, dispatch(tc.args, bytes.NewReader(tc.stdin), &out, &errb), errb.String())
			assert.Contains(t, out.String(), "metrics: gemm", "without the flag the rows are there")
			if tc.name == "table ranks" || tc.name == "report summaries" {
				return // the same inputs: the rows are gone, checked above
			}
			out.Reset()
			require.Equal(t, 0, dispatch(tc.want, bytes.NewReader(tc.wantStdin), &out, &errb), errb.String())
			want := strings.ReplaceAll(out.String(), plain2, scopeMetricsTrace)
			want = strings.ReplaceAll(want, plain, scopeMetricsTrace)
			want = strings.ReplaceAll(want, sumPlain, sum)
			assert.Equal(t, want, got)
		})
	}
}

// TestNoScopeMetricsRun: orprof run --metrics has the "metrics: …" rows in its table and
// report, and --no-scope-metrics takes them out of both.
func TestNoScopeMetricsRun(t *testing.T) {
	dir := t.TempDir()
	args := []string{"run", "--workload", "mlp", "--metrics", "GpuTime", "--trace", "", "--row-limit", "-1"}
	out, _ := run(t, append(args, "--report", filepath.Join(dir, "a.html"))...)
	assert.Contains(t, out, "metrics: ")
	page, err := os.ReadFile(filepath.Join(dir, "a.html"))
	require.NoError(t, err)
	assert.Contains(t, string(page), "metrics: ")
	out, _ = run(t, append(args, "--no-scope-metrics", "--report", filepath.Join(dir, "b.html"))...)
	assert.NotContains(t, out, "metrics: ")
	assert.Contains(t, out, "aten::", "the op rows stay")
	page, err = os.ReadFile(filepath.Join(dir, "b.html"))
	require.NoError(t, err)
	assert.NotContains(t, string(page), "metrics: ")
}

// TestNoScopeMetricsRefused: where no "metrics: …" rows can be (kernels summaries, and the
// commands whose views never have them: kernels, timeline, pprof), the flag is refused in one
// line naming it.
func TestNoScopeMetricsRefused(t *testing.T) {
	dir := t.TempDir()
	ks, _ := run(t, "kernels", "--format", "json", scopeMetricsTrace)
	k := filepath.Join(dir, "k.json")
	require.NoError(t, os.WriteFile(k, []byte(ks), 0o644))
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"merge", "--no-scope-metrics", k}, "merge: --no-scope-metrics does not apply to kernels summaries"},
		{[]string{"diff", "--no-scope-metrics", k, k}, "diff: --no-scope-metrics does not apply to kernels summaries"},
		{[]string{"kernels", "--no-scope-metrics", scopeMetricsTrace}, "-no-scope-metrics"},
		{[]string{"timeline", "--no-scope-metrics", scopeMetricsTrace}, "-no-scope-metrics"},
		{[]string{"pprof", "--no-scope-metrics", scopeMetricsTrace, "-o", filepath.Join(dir, "p.pb.gz")}, "-no-scope-metrics"},
	} {
		var out, errb bytes.Buffer
		code := dispatch(tc.args, nil, &out, &errb)
		assert.Equal(t, 2, code, "%v", tc.args)
		lines := strings.Split(strings.TrimSuffix(errb.String(), "\n"), "\n")
		assert.Len(t, lines, 1, "%v: %s", tc.args, errb.String())
		assert.Contains(t, lines[0], tc.want)
		assert.Contains(t, lines[0], "run 'orprof "+tc.args[0]+" -h'")
		assert.Empty(t, out.String())
	}
}

// TestDiffStdinLink: diff reads - with the --link rules the files get (stdin was read with the
// default rules whatever --link said).
func TestDiffStdinLink(t *testing.T) {
	trace := "../../testdata/kineto/cuda_alexnet.json.gz"
	b, err := os.ReadFile(trace)
	require.NoError(t, err)
	for _, link := range []string{"all", "external-id"} {
		want, _ := run(t, "diff", "--format", "json", "--link", link, trace, trace)
		var out, errb bytes.Buffer
		require.Equal(t, 0, dispatch([]string{"diff", "--format", "json", "--link", link, "-", trace}, bytes.NewReader(b), &out, &errb), errb.String())
		assert.Equal(t, want, out.String(), "--link %s", link)
	}
}
