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

// TestKernelsMergeEqualsReadingAllRanks: `orprof kernels` of each rank's `--format json`
// summary prints the same bytes as `orprof kernels` over all the traces at once, in every
// format, with --by-op too; a directory of traces reads as its ranks.
func TestKernelsMergeEqualsReadingAllRanks(t *testing.T) {
	traces := []string{"../../testdata/kineto/cuda_alexnet.json.gz", "../../testdata/kineto-extra/hta_sampled_rank0.json.gz",
		"../../testdata/kineto/cuda_cupti_range_profiler.json.gz"}
	dir := t.TempDir()
	var sums []string
	for i, tr := range traces {
		js, _ := run(t, "kernels", "--format", "json", tr)
		p := filepath.Join(dir, "r"+string(rune('0'+i))+".json")
		require.NoError(t, os.WriteFile(p, []byte(js), 0o644))
		sums = append(sums, p)
	}
	for _, flags := range [][]string{{"--format", "text"}, {"--format", "markdown", "--by-op"}, {"--format", "csv"},
		{"--format", "json"}, {"--row-limit", "-1", "--by-op"}} {
		direct, _ := run(t, append(append([]string{"kernels"}, flags...), traces...)...)
		merged, stderr := run(t, append(append([]string{"kernels"}, flags...), sums...)...)
		assert.Equal(t, direct, merged, "%v", flags)
		assert.Empty(t, stderr, "summaries carry no warnings")
	}
	rankDir := t.TempDir()
	for i, tr := range traces[:2] {
		b, err := os.ReadFile(tr)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(rankDir, "rank"+string(rune('0'+i))+".json.gz"), b, 0o644))
	}
	b, err := os.ReadFile(traces[0])
	require.NoError(t, err)
	var stdout, stderr bytes.Buffer
	require.Equal(t, 0, dispatch([]string{"kernels", "-"}, bytes.NewReader(b), &stdout, &stderr), stderr.String())
	fromFile, _ := run(t, "kernels", traces[0])
	assert.Equal(t, fromFile, stdout.String(), "- reads standard input")
	fromDir, _ := run(t, "kernels", "--format", "csv", rankDir)
	fromFiles, _ := run(t, "kernels", "--format", "csv", traces[0], traces[1])
	assert.Equal(t, fromFiles, fromDir)
}

// TestKernelsView: the text view of a real trace: rows largest first, the launching op, the
// categories, the footer; --by-op lists each op with its kernels; --rules changes a category;
// --link external-id leaves the 2022 trace's kernels with no op.
func TestKernelsView(t *testing.T) {
	trace := "../../testdata/kineto/cuda_alexnet.json.gz"
	out, stderr := run(t, "kernels", "--row-limit", "3", trace)
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	require.Len(t, lines, 3+3+1+1, out)
	assert.Contains(t, lines[1], "Kernel")
	assert.Contains(t, lines[3], "Memcpy HtoD (Pageable -> Device)")
	assert.Contains(t, lines[3], "aten::copy_")
	assert.Contains(t, lines[4], "ampere_sgemm_32x32_sliced1x4_tn")
	assert.Contains(t, lines[4], " gemm ")
	assert.Contains(t, lines[5], " convolution ")
	assert.Equal(t, "Device time total: 67.681ms in 139 calls of 21 kernels", lines[7])
	assert.Contains(t, stderr, "10.000 µs of 67681.000 µs of device time (0.0%, 1 event) reached no operator")

	byOp, _ := run(t, "kernels", "--by-op", "--row-limit", "2", trace)
	assert.Contains(t, byOp, "aten::copy_")
	assert.Contains(t, byOp, "aten::cudnn_convolution")

	rules := filepath.Join(t.TempDir(), "r.rules")
	require.NoError(t, os.WriteFile(rules, []byte("# ours\nattention ^ampere_sgemm_32x32\n"), 0o644))
	custom, _ := run(t, "kernels", "--row-limit", "3", "--rules", rules, trace)
	assert.Contains(t, strings.Split(custom, "\n")[4], " attention ")

	strict, _ := run(t, "kernels", "--link", "external-id", "--format", "csv", trace)
	for _, l := range strings.Split(strings.TrimSpace(strict), "\n")[1:] {
		assert.Contains(t, l, ",(none),0", "no kernel reaches an op by the file's External id: %s", l)
	}
}

// TestKernelsBadInput: one line naming the flag, file or line, exit 2.
func TestKernelsBadInput(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.rules")
	require.NoError(t, os.WriteFile(bad, []byte("gemm ok\nnot-a-category x\n"), 0o644))
	badSum := filepath.Join(dir, "s.json")
	require.NoError(t, os.WriteFile(badSum, []byte(`{"orprof_kernels": 7, "ranks": []}`), 0o644))
	trace := "../../testdata/kineto/rocm_mi250_train.json.gz"
	v1 := "../../analysis/kernels/testdata/rocm_v1.kernels.json" // orprof kernels --format json before the exact statistics
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"kernels"}, "kernels: need a TRACE argument"},
		{[]string{"kernels", "--format", "xml", trace}, `--format "xml": must be text, markdown, csv or json; run 'orprof kernels -h'`},
		{[]string{"kernels", "--row-limit", "-2", trace}, "--row-limit -2: must be -1 (all), 0 (none) or a count ≥ 1; run 'orprof kernels -h'"},
		{[]string{"kernels", "--link", "some", trace}, `--link "some": must be all or external-id; run 'orprof kernels -h'`},
		{[]string{"kernels", "--rules", bad, trace}, `bad.rules:2: "not-a-category" is not a category`},
		{[]string{"kernels", "--rules", filepath.Join(dir, "none"), trace}, "no such file"},
		{[]string{"kernels", badSum}, "kernels summary version 7"},
		{[]string{"kernels", v1}, "rocm_v1.kernels.json: kernels summary version 1: its float statistics (field \"m2\") do not merge exactly"},
		{[]string{"merge", v1, v1}, "rocm_v1.kernels.json: kernels summary version 1"},
		{[]string{"diff", v1, v1}, "rocm_v1.kernels.json: kernels summary version 1"},
		{[]string{"kernels", filepath.Join(dir, "missing.json")}, "no such file"},
		{[]string{"kernels", "-", trace}, "- (stdin) can only be read alone"},
	} {
		var out, errb bytes.Buffer
		assert.Equal(t, 2, dispatch(c.args, strings.NewReader(""), &out, &errb), "%v", c.args)
		assert.Contains(t, errb.String(), c.want, "%v", c.args)
		assert.Equal(t, 1, strings.Count(errb.String(), "\n"), "%v: one line: %s", c.args, errb.String())
		assert.Empty(t, out.String())
	}
}

// TestKernelsMergeAndDiffCommands: `orprof merge` of kernels summaries prints what `orprof
// kernels` of the same summaries prints; `orprof diff` of two gives the kernel by kernel diff;
// mixing kinds of summaries is one line, exit 2.
func TestKernelsMergeAndDiffCommands(t *testing.T) {
	dir := t.TempDir()
	var sums []string
	for i, tr := range []string{"../../testdata/kineto/cuda_alexnet.json.gz", "../../testdata/kineto-extra/hta_sampled_rank0.json.gz"} {
		js, _ := run(t, "kernels", "--format", "json", tr)
		p := filepath.Join(dir, "k"+string(rune('0'+i))+".json")
		require.NoError(t, os.WriteFile(p, []byte(js), 0o644))
		sums = append(sums, p)
	}
	want, _ := run(t, append([]string{"kernels", "--row-limit", "20"}, sums...)...)
	got, _ := run(t, append([]string{"merge", "--row-limit", "20"}, sums...)...)
	assert.Equal(t, want, got)
	diff, _ := run(t, "diff", sums[0], sums[1])
	assert.Contains(t, diff, "Calls before")
	assert.Contains(t, diff, "Device time total: 67.681 ms before, 607.844 ms after (+540.163 ms, 798.10%)")
	table, _ := run(t, "table", "--format", "json", "../../testdata/kineto/rocm_mi250_train.json.gz")
	tp := filepath.Join(dir, "t.json")
	require.NoError(t, os.WriteFile(tp, []byte(table), 0o644))
	for _, args := range [][]string{{"merge", sums[0], tp}, {"diff", sums[0], tp}, {"merge", "--by-rank", sums[0]}} {
		var out, errb bytes.Buffer
		assert.Equal(t, 2, dispatch(args, nil, &out, &errb), "%v", args)
		assert.Equal(t, 1, strings.Count(errb.String(), "\n"), "%v: %s", args, errb.String())
	}
}

// TestNoDeviceActivity: kernels and timeline of a trace without device activity (empty, CPU
// only, orprof run's fallback mode, or a report summary of one) say why in one line and exit
// 2, as table refuses an empty trace, where they printed an empty table (or a device idle
// all along) and exited 0; among traces with device activity such a trace is a warning.
func TestNoDeviceActivity(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
		return p
	}
	empty, emptyObj := write("empty.json", "[]"), write("obj.json", `{"traceEvents": []}`)
	cpu := "../../testdata/kineto/cpu_only.json.gz"
	fallback := "../../trace/tracefile/testdata/reader/orprof_fallback.json"
	run(t, "run", "--trace", filepath.Join(dir, "run.json"), "--row-limit", "1") // the README's own: fallback mode
	rsum := filepath.Join(dir, "r.report.json")
	run(t, "report", "--format", "json", "-o", rsum, fallback)
	const cpuWhy = "no device activity: an empty or CPU-only trace; profile the device too"
	const fbWhy = "no device activity: no OPENREG kernels, copies or fills (orprof run's default fallback mode times each op, not its kernels); record them with orprof run --activities cpu_op,kernel,gpu_memcpy,privateuse1_runtime"
	for _, cmd := range []string{"kernels", "timeline"} {
		for _, c := range []struct {
			args  []string
			stdin string
			want  string
		}{
			{[]string{empty}, "", empty + ": " + cpuWhy},
			{[]string{emptyObj}, "", emptyObj + ": " + cpuWhy},
			{[]string{"-"}, "[]", "<stdin>: " + cpuWhy},
			{[]string{cpu}, "", cpu + ": " + cpuWhy},
			{[]string{fallback}, "", fallback + ": " + fbWhy},
			{[]string{filepath.Join(dir, "run.json")}, "", "run.json: " + fbWhy},
			{[]string{rsum}, "", rsum + ": " + fbWhy},
			{[]string{cpu, fallback}, "", cpu + ": " + cpuWhy},
		} {
			var out, errb bytes.Buffer
			code := dispatch(append([]string{cmd}, c.args...), strings.NewReader(c.stdin), &out, &errb)
			assert.Equal(t, 2, code, "%s %v", cmd, c.args)
			assert.Empty(t, out.String(), "%s %v", cmd, c.args)
			assert.Equal(t, 1, strings.Count(errb.String(), "\n"), "one line: %q", errb.String())
			assert.Contains(t, errb.String(), "orprof: "+cmd+": ", "%s %v", cmd, c.args)
			assert.Contains(t, errb.String(), c.want, "%s %v", cmd, c.args)
		}
		// Beside a trace with device work: a warning, and the other's figures.
		var out, errb bytes.Buffer
		code := dispatch([]string{cmd, fallback, "../../testdata/kineto/cuda_alexnet.json.gz"}, strings.NewReader(""), &out, &errb)
		assert.Equal(t, 0, code, errb.String())
		assert.Contains(t, errb.String(), "orprof: warning: "+fallback+": "+fbWhy)
		assert.NotEmpty(t, out.String())
	}
}

// TestMergeMessagesNameFiles: a merge of kernels summaries names the files (it said "summary
// 2"), and the report's device mismatch describes the profiles before a file without
// quoting the description as a file name.
func TestMergeMessagesNameFiles(t *testing.T) {
	dir := t.TempDir()
	cuda, other := "../../testdata/kineto/cuda_alexnet.json.gz", "../../testdata/kineto/cuda_cupti_range_profiler.json.gz"
	k1, k2 := filepath.Join(dir, "k1.json"), filepath.Join(dir, "k2.json")
	js, _ := run(t, "kernels", "--format", "json", cuda)
	require.NoError(t, os.WriteFile(k1, []byte(js), 0o644))
	js, _ = run(t, "kernels", "--format", "json", other)
	js = strings.Replace(js, `"device": "cuda"`, `"device": "mtia"`, 1)
	require.NoError(t, os.WriteFile(k2, []byte(js), 0o644))
	for _, cmd := range []string{"merge", "kernels"} {
		var out, errb bytes.Buffer
		assert.Equal(t, 2, dispatch([]string{cmd, k1, k2}, strings.NewReader(""), &out, &errb))
		assert.Equal(t, "orprof: "+cmd+`: "`+k2+`" is of device "mtia", "`+k1+`" of "cuda"`+"\n", errb.String())
	}
	var out, errb bytes.Buffer
	assert.Equal(t, 2, dispatch([]string{"report", "-o", filepath.Join(dir, "r.html"), cuda, "../../testdata/kineto/mtia_rank0.json.gz"},
		strings.NewReader(""), &out, &errb))
	assert.Equal(t, `orprof: report: "../../testdata/kineto/mtia_rank0.json.gz" is of device "mtia", the profiles before it of "cuda"`+"\n", errb.String())
}
