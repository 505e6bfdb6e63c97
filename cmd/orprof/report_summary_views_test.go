package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// viewTraces are the traces whose report summaries orprof kernels and orprof timeline read
// back: GPU traces of CUDA and ROCm (kernels, copies, steps), one that names its rank, and
// two ranks of a job whose collectives carry c10d's process group and sequence number (the
// stragglers are derived across ranks).
var viewTraces = []string{
	"../../testdata/kineto/rocm_mi250_train.json.gz",
	"../../testdata/kineto/cuda_ns_resolution.json.gz",
	"../../testdata/kineto/cuda_alexnet.json.gz",
	"../../testdata/kineto-extra/hta_sampled_rank0.json.gz",
	"../../analysis/timeline/testdata/pgseq/rank0.json",
	"../../analysis/timeline/testdata/pgseq/rank1.json",
}

// cliRun runs orprof in-process with stdin and returns its exit code, stdout and stderr.
func cliRun(stdin []byte, args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := dispatch(args, bytes.NewReader(stdin), &out, &errb)
	return code, out.String(), errb.String()
}

// TestViewsReadReportSummaries: orprof kernels and orprof timeline read a report summary
// (orprof report --format json) — a file, gzip, on stdin, in a directory, among traces and
// their own summaries — as its kernels and timeline members, and print the very bytes the
// traces give: one trace read alone, and every trace read together against the summaries
// merged (the map and reduce steps of a large job).
func TestViewsReadReportSummaries(t *testing.T) {
	dir := t.TempDir()
	rdir := filepath.Join(dir, "rsums")
	require.NoError(t, os.Mkdir(rdir, 0o755))
	reports := make([]string, len(viewTraces))
	for i, tr := range viewTraces {
		reports[i] = filepath.Join(rdir, fmt.Sprintf("r%d.json", i))
		runCLI(t, "report", "--format", "json", "-o", reports[i], tr)
	}
	for _, cmd := range []string{"kernels", "timeline"} {
		own := make([]string, len(viewTraces)) // the command's own summaries
		for i, tr := range viewTraces {
			own[i] = filepath.Join(dir, fmt.Sprintf("%s%d.json", cmd, i))
			require.NoError(t, os.WriteFile(own[i], runCLI(t, cmd, "--format", "json", tr), 0o644))
		}
		for _, format := range []string{"json", "text"} {
			// One rank: the trace, and its report summary in every form.
			for i, tr := range viewTraces {
				want := runCLI(t, cmd, "--format", format, tr)
				rep := mustRead(t, reports[i])
				gz := filepath.Join(dir, fmt.Sprintf("r%d.json.gz", i))
				require.NoError(t, os.WriteFile(gz, gzipBytes(t, rep), 0o644))
				for _, in := range []struct {
					name  string
					arg   string
					stdin []byte
				}{
					{"file", reports[i], nil},
					{"gzip file", gz, nil},
					{"stdin", "-", rep},
					{"gzip stdin", "-", gzipBytes(t, rep)},
				} {
					code, got, errOut := cliRun(in.stdin, cmd, "--format", format, in.arg)
					require.Equal(t, 0, code, "%s %s of %s: %s", cmd, in.name, tr, errOut)
					assert.Empty(t, errOut, "%s %s of %s", cmd, in.name, tr)
					assert.Equal(t, string(want), got, "%s --format %s, report summary of %s (%s)", cmd, format, tr, in.name)
				}
			}
			// Every rank: the traces read together against the summaries merged, whatever the
			// mix of traces, report summaries and the command's own summaries.
			want := string(runCLI(t, append([]string{cmd, "--format", format}, viewTraces...)...))
			mixed := make([]string, len(viewTraces))
			for i := range viewTraces {
				mixed[i] = [...]string{viewTraces[i], reports[i], own[i]}[i%3]
			}
			for _, in := range []struct {
				name string
				args []string
			}{
				{"a directory of report summaries", []string{rdir}},
				{"report summaries", reports},
				{"traces, report and own summaries", mixed},
			} {
				got := string(runCLI(t, append([]string{cmd, "--format", format}, in.args...)...))
				assert.Equal(t, want, got, "%s --format %s of %s", cmd, format, in.name)
			}
		}
	}
}

// TestViewsReportSummaryBadInput: a report summary without the command's member (the report
// of a table summary has the table alone), or with a bad one, is refused in one line naming
// the file and the member, exit 2 — alone, on stdin, in a directory, among traces.
func TestViewsReportSummaryBadInput(t *testing.T) {
	dir := t.TempDir()
	tr := viewTraces[0]
	tsum := filepath.Join(dir, "t.table.json")
	require.NoError(t, os.WriteFile(tsum, runCLI(t, "table", "--format", "json", tr), 0o644))
	tableOnly := filepath.Join(dir, "tableonly.json")
	runCLI(t, "report", "--format", "json", "-o", tableOnly, tsum)
	good := string(runCLI(t, "report", "--format", "json", "-o", "-", tr))
	badTimeline := filepath.Join(dir, "badtimeline.json")
	require.NoError(t, os.WriteFile(badTimeline, []byte(strings.Replace(good, `"orprof_timeline": 1`, `"orprof_timeline": 9`, 1)), 0o644))
	badKernels := filepath.Join(dir, "badkernels.json")
	require.NoError(t, os.WriteFile(badKernels, []byte(strings.Replace(good, `"orprof_kernels"`, `"orprof_kernelz"`, 1)), 0o644))
	sub := filepath.Join(dir, "sub")
	require.NoError(t, os.Mkdir(sub, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(sub, "r0.json"), mustRead(t, tableOnly), 0o644))

	for _, c := range []struct {
		name  string
		args  []string
		stdin []byte
		file  string // what the line names
		want  string
	}{
		{"kernels, no kernels member", []string{"kernels", tableOnly}, nil, tableOnly, "field kernels: null: this report summary has no kernels summary"},
		{"timeline, no timeline member", []string{"timeline", tableOnly}, nil, tableOnly, "field timeline: null: this report summary has no timeline summary"},
		{"kernels, on stdin", []string{"kernels", "-"}, mustRead(t, tableOnly), "<stdin>", "field kernels: null"},
		{"timeline, gzip on stdin", []string{"timeline", "-"}, gzipBytes(t, mustRead(t, tableOnly)), "<stdin>", "field timeline: null"},
		{"kernels, in a directory", []string{"kernels", tr, sub}, nil, filepath.Join(sub, "r0.json"), "field kernels: null"},
		{"timeline, among traces", []string{"timeline", tr, tableOnly}, nil, tableOnly, "field timeline: null"},
		{"timeline, a bad timeline member", []string{"timeline", badTimeline}, nil, badTimeline, "field timeline"},
		{"kernels, a bad kernels member", []string{"kernels", badKernels}, nil, badKernels, "field kernels"},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, out, errOut := cliRun(c.stdin, c.args...)
			assert.Equal(t, 2, code)
			assert.Empty(t, out)
			assert.Equal(t, 1, strings.Count(errOut, "\n"), "one line: %q", errOut)
			assert.Contains(t, errOut, c.file)
			assert.Contains(t, errOut, c.want)
			assert.NotContains(t, errOut, "traceEvents", "not read as a trace")
		})
	}
}

// TestViewsForeignSummary: a summary orprof kernels or orprof timeline does not read (a table
// summary; the other command's) is refused in one line naming the file, what it is and which
// command reads it — not read as a trace and refused as "not a trace" — alone, on stdin (plain
// or gzip), or among traces and directories.
func TestViewsForeignSummary(t *testing.T) {
	dir := t.TempDir()
	tr := viewTraces[0]
	write := func(name string, data []byte) string { return writeIn(t, dir, name, data) }
	tsum := write("t.table.json", runCLI(t, "table", "--format", "json", tr))
	ksum := write("t.kernels.json", runCLI(t, "kernels", "--format", "json", tr))
	lsum := write("t.timeline.json", runCLI(t, "timeline", "--format", "json", tr))
	sub := filepath.Join(dir, "sub")
	require.NoError(t, os.Mkdir(sub, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(sub, "r1.json"), mustRead(t, tsum), 0o644))
	for _, c := range []struct {
		name  string
		args  []string
		stdin []byte
		file  string
		want  string
	}{
		{"kernels of a table summary", []string{"kernels", tsum}, nil, tsum, "is a table summary (orprof table --format json), not a trace or a summary orprof kernels reads: orprof merge prints its table"},
		{"kernels of a timeline summary", []string{"kernels", tr, lsum}, nil, lsum, "is a timeline summary (orprof timeline --format json), not a trace or a summary orprof kernels reads: orprof timeline reads it"},
		{"kernels of a gzip timeline summary on stdin", []string{"kernels", "-"}, gzipBytes(t, mustRead(t, lsum)), "<stdin>", "is a timeline summary"},
		{"kernels, a table summary in a directory", []string{"kernels", tr, sub}, nil, filepath.Join(sub, "r1.json"), "is a table summary"},
		{"timeline of a table summary", []string{"timeline", tsum}, nil, tsum, "is a table summary (orprof table --format json), not a trace or a summary orprof timeline reads: orprof merge prints its table"},
		{"timeline of a kernels summary", []string{"timeline", tr, ksum}, nil, ksum, "is a kernels summary (orprof kernels --format json), not a trace or a summary orprof timeline reads: orprof kernels reads it"},
		{"timeline of a kernels summary on stdin", []string{"timeline", "-"}, mustRead(t, ksum), "<stdin>", "is a kernels summary"},
		{"timeline of a gzip table summary on stdin", []string{"timeline", "-"}, gzipBytes(t, mustRead(t, tsum)), "<stdin>", "is a table summary"},
		{"merge of a timeline summary", []string{"merge", tr, lsum}, nil, lsum, "is a timeline summary (orprof timeline --format json), not a trace or a summary orprof merge reads: orprof timeline reads it"},
		{"merge of a timeline summary on stdin", []string{"merge", "-"}, mustRead(t, lsum), "<stdin>", "is a timeline summary"},
		{"diff of a timeline summary", []string{"diff", tr, lsum}, nil, lsum, "not a trace or a summary orprof diff reads: orprof timeline reads it"},
		{"report of a timeline summary", []string{"report", "-o", "-", lsum}, nil, lsum, "not a trace or a summary orprof report reads: orprof timeline reads it"},
		{"report of a kernels summary", []string{"report", "-o", "-", ksum}, nil, ksum, "is a kernels summary (orprof kernels --format json), not a trace or a summary orprof report reads: orprof kernels reads it"},
		{"report of a kernels summary among traces", []string{"report", "-o", "-", tr, ksum}, nil, ksum, "is a kernels summary"},
		{"table of a timeline summary", []string{"table", lsum}, nil, lsum, "not a trace or a summary orprof table reads: orprof timeline reads it"},
		{"table of a kernels summary", []string{"table", ksum}, nil, ksum, "is a kernels summary"},
		{"table of a kernels summary among traces", []string{"table", tr, ksum}, nil, ksum, "is a kernels summary"},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, out, errOut := cliRun(c.stdin, c.args...)
			assert.Equal(t, 2, code)
			assert.Empty(t, out)
			assert.Equal(t, 1, strings.Count(errOut, "\n"), "one line: %q", errOut)
			assert.Contains(t, errOut, fmt.Sprintf("%q", c.file))
			assert.Contains(t, errOut, c.want)
			assert.NotContains(t, errOut, "traceEvents", "not read as a trace")
		})
	}
}
