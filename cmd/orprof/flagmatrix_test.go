package main

import (
	"bytes"
	"compress/gzip"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The flag matrix: every flag of every command that reads profiles, run in every input mode
// the command accepts, through dispatch (the injected stdin included). Each run either takes
// effect — its output differs from the run without the flag in the way the flag says, or the
// flag is a no-op by definition and the row says why — or is refused in exactly one stderr
// line naming the flag, exit 2. A flag silently ignored in some mode fails its row.

// fxBase names a trace the inputs of a row are made from: each flag needs one on which it has
// something to change.
type fxBase string

const (
	// baseLink: CUDA AlexNet (Kineto 2022): its External ids equal the kernels' correlation, so
	// --link external-id leaves every op without device time.
	baseLink fxBase = "../../testdata/kineto/cuda_alexnet.json.gz"
	// baseShape: HTA's CPU trace, with input shapes and call stacks.
	baseShape fxBase = "../../testdata/kineto-extra/hta_cpu_rank0.json.gz"
	// baseSteps: ROCm MI250, three ProfilerSteps and kernels of several lengths.
	baseSteps fxBase = "../../testdata/kineto/rocm_mi250_train.json.gz"
	// stepsPhase is baseSteps' one phase (orprof code --by phase).
	stepsPhase = "Optimizer.step#SGD.step"
	// baseMetrics: the scope profiler's "metrics: KERNEL" rows.
	baseMetrics fxBase = "testdata/scope_metrics.json"
	// baseHand: handTrace, written by the test (no testdata trace has call stacks).
	baseHand fxBase = "hand"
	// baseComm: commTrace, written by the test: a collective whose kernel says nothing of its
	// call, reached only through its launch (link rule 2), so --link external-id changes what
	// orprof timeline knows of it. One rank's text has no per-collective rows, so its runs
	// print json (args); of two ranks, the text's missing count changes too.
	baseComm fxBase = "comm"
)

// args are what both runs of a row on the base give before its inputs.
func (b fxBase) args() []string {
	if b == baseComm {
		return []string{"--format", "json"}
	}
	return nil
}

// commTrace: a record_param_comms op of process group 0 (ranks 0 and 1), sequence number 7,
// whose cudaLaunchKernel (no External id) launched an NCCL kernel that carries neither an
// External id nor c10d's args: the kernel's collective is known from its launch alone.
const commTrace = `{"schemaVersion": 1, "traceEvents": [
{"ph": "X", "cat": "cpu_op", "name": "record_param_comms", "pid": 10, "tid": 11, "ts": 100, "dur": 20,
 "args": {"External id": 1, "Collective name": "allreduce", "Group size": 2, "Process Group Name": "0",
  "Process Group Description": "default_pg", "Process Group Ranks": "[0, 1]", "Seq": 7, "Rank": 0}},
{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 10, "tid": 11, "ts": 105, "dur": 5, "args": {"correlation": 5}},
{"ph": "X", "cat": "kernel", "name": "ncclDevKernel_AllReduce_Sum_f32_RING_LL", "pid": 0, "tid": 20, "ts": 130, "dur": 20,
 "args": {"stream": 20, "correlation": 5}}
]}`

// handTrace has what no testdata trace has: ops whose call stacks differ past their first
// frame, input shapes that differ, and memory records (PyTorch 1.13 prints their sizes in Kb).
const handTrace = `{"traceEvents": [
{"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 1, "tid": 1, "ts": 100, "dur": 10,
 "args": {"External id": 1, "Input Dims": [[2, 2]], "Call stack": "a.py(1): f;b.py(2): g"}},
{"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 1, "tid": 1, "ts": 200, "dur": 20,
 "args": {"External id": 2, "Input Dims": [[3]], "Call stack": "a.py(1): f;c.py(3): h"}},
{"ph": "i", "cat": "cpu_instant_event", "name": "[memory]", "pid": 1, "tid": 1, "ts": 101, "s": "t",
 "args": {"Device Type": 0, "Device Id": -1, "Addr": 4096, "Bytes": 4096, "Total Allocated": 4096, "Total Reserved": 0}}
]}`

// fxMode is an input mode of a command.
type fxMode string

const (
	mTrace       fxMode = "trace"          // a plain .json trace
	mGz          fxMode = "gz"             // the trace, gzip-compressed
	mDir         fxMode = "dir"            // a directory: the trace and another rank
	mRanks       fxMode = "ranks"          // the trace and another rank as two arguments
	mStdin       fxMode = "stdin"          // - with the trace on the command's stdin
	mTableSum    fxMode = "table-summary"  // orprof table --format json
	mKernelsSum  fxMode = "kernels-sum"    // orprof kernels --format json
	mTimelineSum fxMode = "timeline-sum"   // orprof timeline --format json
	mReportSum   fxMode = "report-summary" // orprof report --format json
	mRSumDir     fxMode = "report-dir"     // a directory of report summaries of two ranks
	mStdinRSum   fxMode = "stdin-report"   // - with a report summary on stdin
	mSumDir      fxMode = "summary-dir"    // a directory of table summaries of two ranks
	mStdinSum    fxMode = "stdin-summary"  // - with a table summary on stdin
	mStdinKSum   fxMode = "stdin-kernels"  // - with a kernels summary on stdin
	mStdinTSum   fxMode = "stdin-timeline" // - with a timeline summary on stdin
	mDiff        fxMode = "diff"           // report --diff BEFORE AFTER (traces)
)

// flagFixtures are the inputs of every mode for every base, made once per test run.
type flagFixtures struct {
	t    *testing.T
	dir  string
	mu   sync.Mutex
	made map[fxBase]map[fxMode][]string // a mode's arguments
	raw  map[fxBase][]byte              // the plain trace
}

// other is the second rank of the dir and ranks modes.
func (b fxBase) other() fxBase {
	if b == baseSteps {
		return baseLink
	}
	return baseSteps
}

// readPlain is the file at path, gunzipped if it is gzip.
func readPlain(t *testing.T, path string) []byte {
	t.Helper()
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	if len(raw) > 2 && raw[0] == 0x1f && raw[1] == 0x8b {
		zr, err := gzip.NewReader(bytes.NewReader(raw))
		require.NoError(t, err, "%s", path)
		raw, err = io.ReadAll(zr)
		require.NoError(t, err, "%s", path)
	}
	return raw
}

// cliOut runs orprof in-process and returns stdout, failing the test unless it exits 0.
func cliOut(t *testing.T, stdin []byte, args ...string) []byte {
	t.Helper()
	var out, errb bytes.Buffer
	code := dispatch(args, bytes.NewReader(stdin), &out, &errb)
	require.Equal(t, 0, code, "orprof %s: %s", strings.Join(args, " "), errb.String())
	return out.Bytes()
}

// cliTry runs orprof in-process and returns stdout, or nil unless it exits 0.
func cliTry(stdin []byte, args ...string) []byte {
	var out, errb bytes.Buffer
	if dispatch(args, bytes.NewReader(stdin), &out, &errb) != 0 {
		return nil
	}
	return out.Bytes()
}

// inputs returns the arguments of mode for base, and what the command's stdin holds.
func (fx *flagFixtures) inputs(b fxBase, m fxMode) ([]string, []byte) {
	t := fx.t
	fx.mu.Lock()
	defer fx.mu.Unlock()
	if fx.made == nil {
		fx.made, fx.raw = map[fxBase]map[fxMode][]string{}, map[fxBase][]byte{}
	}
	if fx.made[b] == nil {
		d := filepath.Join(fx.dir, fmt.Sprintf("b%d", len(fx.made)))
		require.NoError(t, os.MkdirAll(filepath.Join(d, "ranks"), 0o755))
		require.NoError(t, os.MkdirAll(filepath.Join(d, "sums"), 0o755))
		require.NoError(t, os.MkdirAll(filepath.Join(d, "rsums"), 0o755))
		var raw []byte
		switch b {
		case baseHand:
			raw = []byte(handTrace)
		case baseComm:
			raw = []byte(commTrace)
		default:
			raw = readPlain(t, string(b))
		}
		other := readPlain(t, string(b.other()))
		tr, gz, tr2 := filepath.Join(d, "t.json"), filepath.Join(d, "t.json.gz"), filepath.Join(d, "other.json")
		require.NoError(t, os.WriteFile(tr, raw, 0o644))
		require.NoError(t, os.WriteFile(tr2, other, 0o644))
		require.NoError(t, os.WriteFile(gz, gzipBytes(t, raw), 0o644))
		require.NoError(t, os.WriteFile(filepath.Join(d, "ranks", "r0.json"), raw, 0o644))
		require.NoError(t, os.WriteFile(filepath.Join(d, "ranks", "r1.json"), other, 0o644))
		write := func(name string, data []byte) string { return writeIn(t, d, name, data) }
		ts := write("t.table.json", cliOut(t, nil, "table", "--format", "json", tr))
		write("sums/r0.json", cliOut(t, nil, "table", "--format", "json", tr))
		write("sums/r1.json", cliOut(t, nil, "table", "--format", "json", tr2))
		// kernels and timeline refuse a trace without device activity (baseShape, baseHand):
		// such a base has no kernels or timeline summary, and no row asks for one.
		var ks, tl []string
		if raw := cliTry(nil, "kernels", "--format", "json", tr); raw != nil {
			ks = []string{write("t.kernels.json", raw)}
		}
		if raw := cliTry(nil, "timeline", "--format", "json", tr); raw != nil {
			tl = []string{write("t.timeline.json", raw)}
		}
		rs := filepath.Join(d, "t.report.json")
		cliOut(t, nil, "report", "--format", "json", "-o", rs, tr)
		cliOut(t, nil, "report", "--format", "json", "-o", filepath.Join(d, "rsums", "r0.json"), tr)
		cliOut(t, nil, "report", "--format", "json", "-o", filepath.Join(d, "rsums", "r1.json"), tr2)
		fx.raw[b] = raw
		fx.made[b] = map[fxMode][]string{
			mTrace: {tr}, mGz: {gz}, mDir: {filepath.Join(d, "ranks")}, mRanks: {tr, tr2}, mStdin: {"-"},
			mTableSum: {ts}, mKernelsSum: ks, mTimelineSum: tl, mReportSum: {rs},
			mRSumDir: {filepath.Join(d, "rsums")}, mStdinRSum: {"-"},
			mSumDir: {filepath.Join(d, "sums")}, mStdinSum: {"-"}, mStdinKSum: {"-"}, mStdinTSum: {"-"},
			mDiff: {"--diff", gz, tr},
		}
	}
	args := fx.made[b][m]
	require.NotNil(t, args, "no mode %s", m)
	var stdin []byte
	switch m {
	case mStdin:
		stdin = fx.raw[b]
	case mStdinSum:
		stdin = mustRead(t, fx.made[b][mTableSum][0])
	case mStdinKSum:
		stdin = mustRead(t, fx.made[b][mKernelsSum][0])
	case mStdinTSum:
		stdin = gzipBytes(t, mustRead(t, fx.made[b][mTimelineSum][0])) // gzip as well as plain
	case mStdinRSum:
		stdin = mustRead(t, fx.made[b][mReportSum][0])
	}
	return args, stdin
}

func mustRead(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	require.NoError(t, err)
	return b
}

// outcome is what a row expects of the run with the flag.
type outcome struct {
	// refused: exit 2, one stderr line naming the flag.
	refused bool
	// effect checks the output with the flag against the output without it; nil with noop.
	effect func(base, got string) string
	// noop says why the flag changes nothing in this mode (the outputs must be equal).
	noop string
}

func refused() outcome { return outcome{refused: true} }

func noop(why string) outcome { return outcome{noop: why} }

func effect(f func(base, got string) string) outcome { return outcome{effect: f} }

// differs: the output changed.
var differs = effect(func(base, got string) string {
	if base == got {
		return "the output did not change"
	}
	return ""
})

func isJSON(base, got string) string {
	if !json.Valid([]byte(got)) || !strings.HasPrefix(strings.TrimSpace(got), "{") {
		return "not a JSON document"
	}
	if base == got {
		return "the output did not change"
	}
	return ""
}

func isCSV(base, got string) string {
	cr := csv.NewReader(strings.NewReader(got))
	cr.FieldsPerRecord = -1 // timeline's CSV is one table per view
	recs, err := cr.ReadAll()
	if err != nil || len(recs) < 2 {
		return fmt.Sprintf("not a CSV table (%v, %d records)", err, len(recs))
	}
	if base == got {
		return "the output did not change"
	}
	return ""
}

func isMarkdown(base, got string) string {
	if !strings.Contains(got, "| --") && !strings.Contains(got, "|--") && !strings.Contains(got, "| :-") && !strings.Contains(got, "|:-") {
		return "no markdown table"
	}
	if base == got {
		return "the output did not change"
	}
	return ""
}

// fewerLines: a row limit printed fewer lines.
func fewerLines(base, got string) string {
	if strings.Count(got, "\n") >= strings.Count(base, "\n") {
		return fmt.Sprintf("%d lines with the limit, %d without", strings.Count(got, "\n"), strings.Count(base, "\n"))
	}
	return ""
}

// narrower: the longest line is shorter (a name column capped).
func narrower(base, got string) string {
	w := func(s string) int {
		m := 0
		for _, l := range strings.Split(s, "\n") {
			m = max(m, len([]rune(l)))
		}
		return m
	}
	if w(got) >= w(base) {
		return fmt.Sprintf("widest line %d with the flag, %d without", w(got), w(base))
	}
	return ""
}

// gains: the output gained s.
func gains(s string) func(base, got string) string {
	return func(base, got string) string {
		if !strings.Contains(got, s) || strings.Contains(base, s) {
			return fmt.Sprintf("want %q in the output with the flag only", s)
		}
		return ""
	}
}

// lacks: the output lost s.
func lacks(s string) func(base, got string) string {
	return func(base, got string) string {
		if strings.Contains(got, s) || !strings.Contains(base, s) {
			return fmt.Sprintf("want %q in the output without the flag only", s)
		}
		return ""
	}
}

// flagRow is one flag of one command in one mode.
type flagRow struct {
	cmd  string
	flag []string
	base fxBase
	mode fxMode
	want outcome
	// out: the command writes to a file (-o), which is its output.
	out bool
}

// fmtRows are the --format rows of the table-like commands.
func fmtRows(cmd string, b fxBase, m fxMode) []flagRow {
	return []flagRow{
		{cmd, []string{"--format", "json"}, b, m, effect(isJSON), false},
		{cmd, []string{"--format", "csv"}, b, m, effect(isCSV), false},
		{cmd, []string{"--format", "markdown"}, b, m, effect(isMarkdown), false},
	}
}

func flagMatrix() []flagRow {
	var rows []flagRow
	add := func(r ...flagRow) { rows = append(rows, r...) }
	refuse := refused()

	// table: traces in every form; summaries are merge's (table refuses them itself).
	for _, m := range []fxMode{mTrace, mGz, mDir, mRanks, mStdin} {
		add(fmtRows("table", baseLink, m)...)
		add(
			flagRow{"table", []string{"--sort-by", "count"}, baseLink, m, differs, false},
			flagRow{"table", []string{"--row-limit", "3"}, baseLink, m, effect(fewerLines), false},
			flagRow{"table", []string{"--max-name-column-width", "12"}, baseLink, m, effect(narrower), false},
			flagRow{"table", []string{"--pytorch-1.13"}, baseHand, m, effect(gains("Kb")), false},
			flagRow{"table", []string{"--by-rank"}, baseLink, m, differs, false},
			flagRow{"table", []string{"--link", "external-id"}, baseLink, m, differs, false},
			flagRow{"table", []string{"--group-by-input-shape"}, baseHand, m, differs, false},
			flagRow{"table", []string{"--group-by-stack-n", "2"}, baseHand, m, differs, false},
			flagRow{"table", []string{"--no-scope-metrics"}, baseMetrics, m, effect(lacks("metrics: ")), false},
		)
	}

	// merge: table summaries (files, directories, stdin), report summaries (their table),
	// traces; kernels summaries print the kernels view.
	for _, m := range []fxMode{mTableSum, mSumDir, mStdinSum, mReportSum, mTrace, mGz, mDir, mStdin} {
		add(fmtRows("merge", baseLink, m)...)
		add(
			flagRow{"merge", []string{"--sort-by", "count"}, baseLink, m, differs, false},
			flagRow{"merge", []string{"--row-limit", "3"}, baseLink, m, effect(fewerLines), false},
			flagRow{"merge", []string{"--max-name-column-width", "12"}, baseLink, m, effect(narrower), false},
			flagRow{"merge", []string{"--pytorch-1.13"}, baseHand, m, effect(gains("Kb")), false},
			flagRow{"merge", []string{"--by-rank"}, baseLink, m, differs, false},
			// Grouping is chosen when a summary is written.
			flagRow{"merge", []string{"--group-by-input-shape"}, baseHand, m, refuse, false},
			flagRow{"merge", []string{"--group-by-stack-n", "2"}, baseHand, m, refuse, false},
			flagRow{"merge", []string{"--no-scope-metrics"}, baseMetrics, m, effect(lacks("metrics: ")), false},
		)
		switch m {
		case mTrace, mGz, mDir, mStdin:
			add(flagRow{"merge", []string{"--link", "external-id"}, baseLink, m, differs, false})
		default: // summaries: their device time was linked when they were written
			add(flagRow{"merge", []string{"--link", "external-id"}, baseLink, m, refuse, false})
		}
	}
	for _, m := range []fxMode{mKernelsSum, mStdinKSum} {
		add(fmtRows("merge", baseLink, m)...)
		add(
			flagRow{"merge", []string{"--row-limit", "3"}, baseLink, m, effect(fewerLines), false},
			flagRow{"merge", []string{"--max-name-column-width", "12"}, baseLink, m, effect(narrower), false},
			flagRow{"merge", []string{"--sort-by", "count"}, baseLink, m, refuse, false},
			flagRow{"merge", []string{"--pytorch-1.13"}, baseLink, m, refuse, false},
			flagRow{"merge", []string{"--by-rank"}, baseLink, m, refuse, false},
			flagRow{"merge", []string{"--group-by-input-shape"}, baseLink, m, refuse, false},
			flagRow{"merge", []string{"--group-by-stack-n", "2"}, baseLink, m, refuse, false},
			flagRow{"merge", []string{"--no-scope-metrics"}, baseLink, m, refuse, false},
			flagRow{"merge", []string{"--link", "external-id"}, baseLink, m, refuse, false},
		)
	}

	// diff: each side a trace, a summary, a directory, stdin; two kernels summaries.
	for _, m := range []fxMode{mTrace, mGz, mDir, mStdin, mTableSum, mSumDir, mStdinSum, mReportSum, mKernelsSum, mStdinKSum} {
		add(fmtRows("diff", baseLink, m)...)
		add(
			flagRow{"diff", []string{"--row-limit", "3"}, baseLink, m, effect(fewerLines), false},
			flagRow{"diff", []string{"--max-name-column-width", "12"}, baseLink, m, effect(narrower), false},
		)
		switch m {
		case mTrace, mGz, mDir, mStdin:
			add(flagRow{"diff", []string{"--link", "external-id"}, baseLink, m, differs, false})
			add(flagRow{"diff", []string{"--no-scope-metrics"}, baseMetrics, m, effect(lacks("metrics: ")), false})
		case mKernelsSum, mStdinKSum:
			add(flagRow{"diff", []string{"--link", "external-id"}, baseLink, m, refuse, false})
			add(flagRow{"diff", []string{"--no-scope-metrics"}, baseLink, m, refuse, false})
		default:
			add(flagRow{"diff", []string{"--link", "external-id"}, baseLink, m, refuse, false})
			add(flagRow{"diff", []string{"--no-scope-metrics"}, baseMetrics, m, effect(lacks("metrics: ")), false})
		}
	}

	// kernels: traces in every form, kernels summaries and report summaries (their kernels).
	for _, m := range []fxMode{mTrace, mGz, mDir, mRanks, mStdin, mKernelsSum, mStdinKSum, mReportSum, mRSumDir, mStdinRSum} {
		add(fmtRows("kernels", baseLink, m)...)
		add(
			flagRow{"kernels", []string{"--row-limit", "3"}, baseLink, m, effect(fewerLines), false},
			flagRow{"kernels", []string{"--max-name-column-width", "12"}, baseLink, m, effect(narrower), false},
			flagRow{"kernels", []string{"--by-op"}, baseLink, m, differs, false},
			flagRow{"kernels", []string{"--rules", "{rules}"}, baseLink, m, differs, false},
		)
		switch m {
		case mKernelsSum, mStdinKSum, mReportSum, mRSumDir, mStdinRSum:
			add(flagRow{"kernels", []string{"--link", "external-id"}, baseLink, m, refuse, false})
		default:
			add(flagRow{"kernels", []string{"--link", "external-id"}, baseLink, m, differs, false})
		}
	}

	// timeline: traces in every form, timeline summaries and report summaries (their timeline).
	for _, m := range []fxMode{mTrace, mGz, mDir, mRanks, mStdin, mTimelineSum, mStdinTSum, mReportSum, mRSumDir, mStdinRSum} {
		add(fmtRows("timeline", baseSteps, m)...)
		add(
			flagRow{"timeline", []string{"--view", "idle"}, baseSteps, m, effect(fewerLines), false},
			flagRow{"timeline", []string{"--ranks", "0"}, baseLink, m, noopOrEffect(m), false},
		)
		switch m {
		case mTimelineSum, mStdinTSum, mReportSum, mRSumDir, mStdinRSum:
			// The analyses ran, and the device events were linked, when the summary was written.
			add(
				flagRow{"timeline", []string{"--steps", "2"}, baseSteps, m, refuse, false},
				flagRow{"timeline", []string{"--micro-idle", "1ms"}, baseSteps, m, refuse, false},
				flagRow{"timeline", []string{"--short-kernel", "1ms"}, baseSteps, m, refuse, false},
				flagRow{"timeline", []string{"--queue-length", "2"}, baseSteps, m, refuse, false},
				flagRow{"timeline", []string{"--link", "external-id"}, baseComm, m, refuse, false},
				flagRow{"timeline", []string{"--rules", "{comm-rules}"}, baseLink, m, refuse, false},
				flagRow{"timeline", []string{"--phase", stepsPhase}, baseSteps, m, refuse, false},
			)
			continue
		}
		if m == mDir || m == mRanks {
			// The other rank (AlexNet) has no phase: an error naming it and the flag.
			add(flagRow{"timeline", []string{"--phase", stepsPhase}, baseSteps, m, refuse, false})
		} else {
			add(flagRow{"timeline", []string{"--phase", stepsPhase}, baseSteps, m, differs, false})
		}
		add(
			flagRow{"timeline", []string{"--steps", "2"}, baseSteps, m, differs, false},
			flagRow{"timeline", []string{"--micro-idle", "1us"}, baseLink, m, differs, false},
			flagRow{"timeline", []string{"--short-kernel", "1ms"}, baseSteps, m, differs, false},
			flagRow{"timeline", []string{"--queue-length", "2"}, baseSteps, m, differs, false},
			flagRow{"timeline", []string{"--link", "external-id"}, baseComm, m, differs, false},
			flagRow{"timeline", []string{"--rules", "{comm-rules}"}, baseLink, m, differs, false},
		)
	}

	// report: traces in every form, summaries of both kinds, --diff.
	for _, m := range []fxMode{mTrace, mGz, mDir, mRanks, mStdin, mTableSum, mReportSum, mDiff} {
		if m != mDiff {
			add(flagRow{"report", []string{"--format", "json"}, baseLink, m, effect(isJSON), true})
		} else {
			add(flagRow{"report", []string{"--format", "json"}, baseLink, m, refuse, true})
		}
		switch m {
		case mTableSum, mReportSum:
			add(
				flagRow{"report", []string{"--link", "external-id"}, baseLink, m, refuse, true},
				flagRow{"report", []string{"--group-by-input-shape"}, baseHand, m, refuse, true},
				flagRow{"report", []string{"--group-by-stack-n", "2"}, baseHand, m, refuse, true},
				flagRow{"report", []string{"--rules", "{comm-rules}"}, baseLink, m, refuse, true},
			)
		default:
			add(
				flagRow{"report", []string{"--link", "external-id"}, baseLink, m, differs, true},
				flagRow{"report", []string{"--group-by-input-shape"}, baseHand, m, differs, true},
				flagRow{"report", []string{"--group-by-stack-n", "2"}, baseHand, m, differs, true},
				flagRow{"report", []string{"--rules", "{comm-rules}"}, baseLink, m, differs, true},
			)
		}
		add(flagRow{"report", []string{"--no-scope-metrics"}, baseMetrics, m, effect(lacks("metrics: ")), true})
	}

	// pprof: one trace, plain, gzip or on stdin.
	for _, m := range []fxMode{mTrace, mGz, mStdin} {
		add(flagRow{"pprof", []string{"--link", "external-id"}, baseLink, m, differs, true})
	}
	return rows
}

// noopOrEffect is --ranks 0: of one rank (rank 0), it selects what there is.
func noopOrEffect(m fxMode) outcome {
	switch m {
	case mDir, mRanks, mRSumDir:
		return differs
	}
	return noop("one input is rank 0: --ranks 0 keeps all of it")
}

// TestFlagMatrix runs every row of flagMatrix.
func TestFlagMatrix(t *testing.T) {
	skipUnderRace(t)
	fx := &flagFixtures{t: t, dir: t.TempDir()}
	rules := filepath.Join(fx.dir, "rules.txt")
	require.NoError(t, os.WriteFile(rules, []byte("attention .\n"), 0o644))
	commRules := filepath.Join(fx.dir, "comm.rules")
	require.NoError(t, os.WriteFile(commRules, []byte("communication .\n"), 0o644))
	for _, r := range flagMatrix() {
		name := fmt.Sprintf("%s/%s/%s", r.cmd, strings.Join(r.flag, "="), r.mode)
		t.Run(name, func(t *testing.T) {
			in, stdin := fx.inputs(r.base, r.mode)
			flag := make([]string, len(r.flag))
			for i, f := range r.flag {
				flag[i] = strings.ReplaceAll(strings.ReplaceAll(f, "{rules}", rules), "{comm-rules}", commRules)
			}
			runOnce := func(withFlag bool, tag string) (int, string, string) {
				args := append([]string{r.cmd}, r.base.args()...)
				if withFlag {
					args = append(args, flag...)
				}
				var outPath string
				if r.out {
					outPath = filepath.Join(t.TempDir(), tag+".out")
					args = append(args, "-o", outPath)
				}
				args = append(args, in...)
				if r.cmd == "diff" {
					args = append(args, fx.diffAfter(r.base, r.mode)...)
				}
				var out, errb bytes.Buffer
				code := dispatch(args, bytes.NewReader(stdin), &out, &errb)
				if outPath != "" && code == 0 {
					b, err := os.ReadFile(outPath)
					require.NoError(t, err)
					out.Reset()
					out.Write(b)
				}
				return code, out.String(), errb.String()
			}
			code, base, berr := runOnce(false, "base")
			require.Equal(t, 0, code, "without %s: %s", r.flag[0], berr)
			code, got, gerr := runOnce(true, "flag")
			switch {
			case r.want.refused:
				require.Equal(t, 2, code, "want %s refused in mode %s; stderr: %s", r.flag[0], r.mode, gerr)
				lines := strings.Split(strings.TrimSuffix(gerr, "\n"), "\n")
				assert.Len(t, lines, 1, "one line: %q", gerr)
				assert.Contains(t, gerr, r.flag[0], "the line names the flag")
				assert.True(t, strings.HasSuffix(strings.TrimSpace(gerr), "run 'orprof "+r.cmd+" -h'"), "a bad flag's line points to -h: %q", gerr)
				assert.Empty(t, got, "a refused run writes nothing")
			case r.want.noop != "":
				require.Equal(t, 0, code, "stderr: %s", gerr)
				assert.Equal(t, base, got, "a no-op by definition (%s)", r.want.noop)
			default:
				require.Equal(t, 0, code, "want %s to take effect in mode %s; stderr: %s", r.flag[0], r.mode, gerr)
				if msg := r.want.effect(base, got); msg != "" {
					t.Errorf("%s in mode %s: %s", strings.Join(r.flag, " "), r.mode, msg)
				}
			}
		})
	}
}

// diffAfter is diff's AFTER in mode m: BEFORE again, or for stdin a file of the same kind.
func (fx *flagFixtures) diffAfter(b fxBase, m fxMode) []string {
	var args []string
	switch m {
	case mStdin:
		args, _ = fx.inputs(b, mTrace)
	case mStdinSum:
		args, _ = fx.inputs(b, mTableSum)
	case mStdinKSum:
		args, _ = fx.inputs(b, mKernelsSum)
	default:
		args, _ = fx.inputs(b, m)
	}
	return args
}

// TestLinkMixedInputs: --link with traces and summaries among the inputs applies to the traces
// (the output changes) and a note on stderr names the summaries it did not apply to.
func TestLinkMixedInputs(t *testing.T) {
	fx := &flagFixtures{t: t, dir: t.TempDir()}
	tr, _ := fx.inputs(baseLink, mTrace)
	other, _ := fx.inputs(baseSteps, mTrace)
	sum, _ := fx.inputs(baseSteps, mTableSum)
	ksum, _ := fx.inputs(baseSteps, mKernelsSum)
	rsum, _ := fx.inputs(baseSteps, mReportSum)
	tsum, _ := fx.inputs(baseSteps, mTimelineSum)
	// The timeline's links show in the collectives of commTrace, whose group has two ranks:
	// beside another rank, the text's missing count changes with --link.
	comm, _ := fx.inputs(baseComm, mTrace)
	for _, tc := range []struct {
		name    string
		args    []string
		summary string // the summary the note names
		out     bool   // -o: the output is the file
	}{
		{"merge trace and table summary", []string{"merge", tr[0], sum[0]}, sum[0], false},
		{"merge trace and report summary", []string{"merge", tr[0], rsum[0]}, rsum[0], false},
		{"diff trace against table summary", []string{"diff", tr[0], sum[0]}, sum[0], false},
		{"kernels trace and kernels summary", []string{"kernels", tr[0], ksum[0]}, ksum[0], false},
		{"kernels trace and report summary", []string{"kernels", tr[0], rsum[0]}, rsum[0], false},
		{"timeline trace and timeline summary", []string{"timeline", comm[0], tsum[0]}, tsum[0], false},
		{"timeline trace and report summary", []string{"timeline", comm[0], rsum[0]}, rsum[0], false},
		{"timeline of two traces", []string{"timeline", comm[0], other[0]}, "", false},
		{"report trace and report summary", []string{"report", tr[0], rsum[0]}, rsum[0], true},
		{"report --diff of two traces", []string{"report", "--diff", other[0], tr[0]}, "", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			runIt := func(extra ...string) (string, string) {
				args := append([]string{tc.args[0]}, extra...)
				var o string
				if tc.out {
					o = filepath.Join(t.TempDir(), "out")
					args = append(args, "-o", o)
				}
				args = append(args, tc.args[1:]...)
				var out, errb bytes.Buffer
				require.Equal(t, 0, dispatch(args, bytes.NewReader(nil), &out, &errb), "%v: %s", args, errb.String())
				if o != "" {
					return string(mustRead(t, o)), errb.String()
				}
				return out.String(), errb.String()
			}
			base, _ := runIt()
			got, errOut := runIt("--link", "external-id")
			assert.NotEqual(t, base, got, "--link took effect on the trace")
			if tc.summary == "" {
				assert.NotContains(t, errOut, "note: --link", "no summary among the inputs")
				return
			}
			assert.Contains(t, errOut, "orprof: note: --link applies to the traces among the inputs, not to "+fmt.Sprintf("%q", tc.summary))
		})
	}
}

// runMode is a mode of orprof run: its own flags ({dir} is the run's temporary directory).
type runMode struct {
	name string
	args []string
}

var (
	rmPlain    = runMode{"plain", []string{"--trace", "{dir}/t.json"}}
	rmNoTrace  = runMode{"no-trace", []string{"--trace", ""}}
	rmSteps    = runMode{"steps", []string{"--steps", "2", "--trace", "{dir}/t.json"}}
	rmSchedule = runMode{"schedule", []string{"--schedule", "wait=0,warmup=0,active=1,repeat=2", "--trace-dir", "{dir}/td"}}
	rmMetrics  = runMode{"metrics", []string{"--metrics", "GpuTime", "--trace", "{dir}/t.json"}}
	rmCPU      = runMode{"cpu", []string{"--device", "cpu", "--trace", "{dir}/t.json"}}
	// rmHTTP serves while one step runs (its captures are httpprof's tests').
	rmHTTP = runMode{"http", []string{"--http", "127.0.0.1:0", "--steps", "1"}}
)

// runOut is what a run left: stdout, and the files it wrote under its directory, by name
// relative to it (trace-dir files as td/*).
type runOut struct {
	stdout string
	files  map[string]string
}

// traces is every trace the run wrote, one after the other (gunzipped).
func (o runOut) traces() string {
	var b strings.Builder
	for name, data := range o.files {
		if strings.HasPrefix(name, "td/") || name == "t.json" {
			if strings.HasSuffix(name, ".gz") {
				zr, err := gzip.NewReader(strings.NewReader(data))
				if err == nil {
					raw, _ := io.ReadAll(zr)
					data = string(raw)
				}
			}
			b.WriteString(data)
		}
	}
	return b.String()
}

// runRow is one flag of orprof run in one mode. A run's times differ from one run to the
// next, so the checks look at what the flag says, not at the whole output.
type runRow struct {
	flag []string
	mode runMode
	// check is nil when the flag is refused; noop, when set, says why it changes nothing.
	check func(base, got runOut) string
	noop  string
}

func traceGains(s string) func(base, got runOut) string {
	return func(base, got runOut) string {
		if !strings.Contains(got.traces(), s) || strings.Contains(base.traces(), s) {
			return fmt.Sprintf("want %q in the trace with the flag only", s)
		}
		return ""
	}
}

func traceLacks(s string) func(base, got runOut) string {
	return func(base, got runOut) string {
		if strings.Contains(got.traces(), s) || !strings.Contains(base.traces(), s) {
			return fmt.Sprintf("want %q in the trace without the flag only", s)
		}
		return ""
	}
}

func stdoutCheck(f func(base, got string) string) func(base, got runOut) string {
	return func(base, got runOut) string { return f(base.stdout, got.stdout) }
}

// wrote: the run wrote the file name (relative to its directory), not empty.
func wrote(name string) func(base, got runOut) string {
	return func(base, got runOut) string {
		if len(got.files[name]) == 0 {
			return fmt.Sprintf("no %s written (files: %v)", name, len(got.files))
		}
		return ""
	}
}

// startsJSON: stdout is one JSON document per profiled cycle.
func startsJSON(base, got runOut) string {
	dec := json.NewDecoder(strings.NewReader(got.stdout))
	n := 0
	for {
		var v any
		if err := dec.Decode(&v); err == io.EOF {
			break
		} else if err != nil {
			return fmt.Sprintf("not JSON documents: %v", err)
		}
		n++
	}
	if n == 0 {
		return "no JSON document"
	}
	return ""
}

// sortedByCount: the text table's "# of Calls" (its last column) never increases down the rows.
func sortedByCount(base, got runOut) string {
	last := int64(1 << 62)
	rows := 0
	for _, l := range strings.Split(got.stdout, "\n") {
		if l == "" && rows > 0 {
			break // the first table (a cycle's; the metrics table follows in its own order)
		}
		f := strings.Fields(l)
		if len(f) < 3 || strings.HasPrefix(l, "-") || strings.HasPrefix(l, "Self") {
			continue
		}
		var n int64
		if _, err := fmt.Sscan(f[len(f)-1], &n); err != nil {
			continue
		}
		if n > last {
			return fmt.Sprintf("row %q has more calls than the row above", quoteArg(l))
		}
		last, rows = n, rows+1
	}
	if rows < 3 {
		return "no table rows"
	}
	return ""
}

// deviceRow is --device cpu: the host alone, which has no metric source for --metrics.
func deviceRow(m runMode) runRow {
	if m.name == rmMetrics.name {
		return runRow{[]string{"--device", "cpu"}, m, nil, ""}
	}
	return runRow{[]string{"--device", "cpu"}, m, stdoutCheck(lacks("OPENREG")), ""}
}

func runMatrix() []runRow {
	var rows []runRow
	add := func(r ...runRow) { rows = append(rows, r...) }
	// --device cpu: no fallback device events, no metric source.
	add(
		// Child profilers record device work under --device cpu too (a plugin's, OpenReg's: the
		// workloads run on OpenReg; cpu drops its fallback device events).
		runRow{[]string{"--activities", "cpu_op,kernel"}, rmCPU, traceGains(`"cat": "kernel"`), ""},
		runRow{[]string{"--activities", "cpu_op,user_annotation"}, rmCPU, nil, "a run records the host's ops and annotations in any case: host activities add no child profiler"},
		runRow{[]string{"--metrics", "GpuTime"}, rmCPU, nil, ""},
		runRow{[]string{"--profile-memory"}, rmCPU, traceGains("[memory]"), ""},
	)
	// --http: the captures' tables go to the clients, one log line each here: the table flags
	// are refused.
	for _, f := range [][]string{{"--format", "json"}, {"--row-limit", "3"}, {"--sort-by", "count"},
		{"--max-name-column-width", "12"}, {"--pytorch-1.13"}, {"--group-by-input-shape"}, {"--report", "{dir}/r.html"}} {
		add(runRow{f, rmHTTP, nil, ""})
	}
	// --report with --format json writes the report summary (orprof report --format json's).
	for _, m := range []runMode{rmPlain, rmNoTrace, rmSteps} {
		add(runRow{[]string{"--report", "{dir}/r.json", "--format", "json"}, m, func(base, got runOut) string {
			if !strings.HasPrefix(got.files["r.json"], `{"orprof_report": 1,`) {
				return "r.json is not a report summary"
			}
			return ""
		}, ""})
	}
	// --trace-dir is checked before the first cycle runs.
	add(runRow{[]string{"--trace-dir", "/proc/nope"}, rmSchedule, nil, ""})
	for _, m := range []runMode{rmPlain, rmNoTrace, rmSteps, rmSchedule, rmMetrics} {
		add(
			runRow{[]string{"--format", "json"}, m, startsJSON, ""},
			runRow{[]string{"--format", "markdown"}, m, stdoutCheck(isMarkdown), ""},
			runRow{[]string{"--row-limit", "3"}, m, stdoutCheck(fewerLines), ""},
			runRow{[]string{"--sort-by", "count"}, m, sortedByCount, ""},
			runRow{[]string{"--max-name-column-width", "12"}, m, stdoutCheck(narrower), ""},
			runRow{[]string{"--pytorch-1.13"}, m, stdoutCheck(gains("CUDA")), ""},
			runRow{[]string{"--group-by-input-shape", "--record-shapes"}, m, stdoutCheck(gains("Input Shapes")), ""},
			// The built-in workloads report no call stacks (ops carry none), PROFILE_WITH_STACK or not.
			runRow{[]string{"--group-by-stack-n", "2"}, m, nil, ""},
			deviceRow(m),
			runRow{[]string{"--workload", "multistream"}, m, stdoutCheck(lacks("aten::addmm")), ""},
			runRow{[]string{"--plugin-dir", "{dir}/plugins"}, m, nil, "the directory holds no plugin: nothing to load"},
			runRow{[]string{"--http-max-events", "5"}, m, nil, ""},
		)
		if m.name != rmSchedule.name {
			// With --schedule, --loop runs until a signal (run_schedule_test.go sends one).
			add(runRow{[]string{"--loop"}, m, nil, ""})
		}
		if m.name == rmMetrics.name {
			add(
				runRow{[]string{"--no-scope-metrics"}, m, stdoutCheck(lacks("metrics: ")), ""},
				runRow{[]string{"--metrics-out", "{dir}/m.txt"}, m, wrote("m.txt"), ""},
			)
		} else {
			add(
				runRow{[]string{"--no-scope-metrics"}, m, nil, "without --metrics there are no \"metrics: …\" rows to leave out"},
				runRow{[]string{"--metrics-out", "{dir}/m.txt"}, m, nil, ""},
			)
		}
		switch m.name {
		case rmNoTrace.name:
			// No trace is written: the flags that shape it have nothing to do.
			add(
				runRow{[]string{"--no-spans"}, m, nil, ""},
				runRow{[]string{"--legacy-trace"}, m, nil, ""},
				runRow{[]string{"--profile-memory"}, m, stdoutCheck(gains("CPU Mem")), ""},
				runRow{[]string{"--pprof", "{dir}/p.pb.gz"}, m, wrote("p.pb.gz"), ""},
				runRow{[]string{"--report", "{dir}/r.html"}, m, wrote("r.html"), ""},
				runRow{[]string{"--trace-gzip"}, m, nil, ""},
			)
		case rmSchedule.name:
			add(
				runRow{[]string{"--no-spans"}, m, traceLacks(`"Spans"`), ""},
				runRow{[]string{"--legacy-trace"}, m, nil, ""},
				runRow{[]string{"--record-shapes"}, m, traceGains("Input Dims"), ""},
				runRow{[]string{"--profile-memory"}, m, traceGains("[memory]"), ""},
				runRow{[]string{"--activities", "cpu_op,kernel,privateuse1_runtime"}, m, traceGains(`"cat": "kernel"`), ""},
				runRow{[]string{"--config", "{dir}/shapes.cfg"}, m, traceGains("Input Dims"), ""},
				runRow{[]string{"--pprof", "{dir}/p.pb.gz"}, m, nil, ""},
				runRow{[]string{"--report", "{dir}/r.html"}, m, nil, ""},
				runRow{[]string{"--trace-gzip"}, m, func(base, got runOut) string {
					for name := range got.files {
						if strings.HasPrefix(name, "td/") && strings.HasSuffix(name, ".pt.trace.json.gz") {
							return ""
						}
					}
					return "no .pt.trace.json.gz in --trace-dir"
				}, ""},
			)
		default:
			legacy := runRow{[]string{"--legacy-trace"}, m, func(base, got runOut) string {
				if !strings.HasPrefix(strings.TrimSpace(got.files["t.json"]), "[") {
					return "the trace is not a JSON array"
				}
				return ""
			}, ""}
			report := runRow{[]string{"--report", "{dir}/r.html"}, m, wrote("r.html"), ""}
			if m.name == rmSteps.name {
				legacy.check = nil // refused with --steps (a cycle at a time is written)
			}
			activities := runRow{[]string{"--activities", "cpu_op,kernel,privateuse1_runtime"}, m, traceGains(`"cat": "kernel"`), ""}
			if m.name == rmMetrics.name {
				activities.check, activities.noop = nil, "--metrics records the kernels already (kernel mode)"
			}
			add(
				legacy, report, activities,
				runRow{[]string{"--no-spans"}, m, traceLacks(`"Spans"`), ""},
				runRow{[]string{"--record-shapes"}, m, traceGains("Input Dims"), ""},
				runRow{[]string{"--profile-memory"}, m, traceGains("[memory]"), ""},
				runRow{[]string{"--config", "{dir}/shapes.cfg"}, m, traceGains("Input Dims"), ""},
				runRow{[]string{"--pprof", "{dir}/p.pb.gz"}, m, wrote("p.pb.gz"), ""},
				runRow{[]string{"--trace-gzip"}, m, nil, ""},
			)
		}
	}
	return rows
}

// TestRunFlagMatrix: every flag of orprof run in its modes (a plain run, one without a trace,
// --steps, --schedule, --metrics) takes effect or is refused in one line naming it (--http and
// --loop serve and run until a signal: their flags are refused outside them, here).
func TestRunFlagMatrix(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the workload twice per row")
	}
	skipUnderRace(t)
	for _, r := range runMatrix() {
		t.Run(fmt.Sprintf("%s/%s", strings.Join(r.flag, "="), r.mode.name), func(t *testing.T) {
			runOnce := func(withFlag bool) (int, runOut, string) {
				dir := t.TempDir()
				require.NoError(t, os.Mkdir(filepath.Join(dir, "plugins"), 0o755))
				require.NoError(t, os.WriteFile(filepath.Join(dir, "shapes.cfg"), []byte("PROFILE_REPORT_INPUT_SHAPES = true\n"), 0o644))
				args := []string{"run"}
				for _, a := range r.mode.args {
					args = append(args, strings.ReplaceAll(a, "{dir}", dir))
				}
				if withFlag {
					for _, a := range r.flag {
						args = append(args, strings.ReplaceAll(a, "{dir}", dir))
					}
				}
				var out, errb bytes.Buffer
				code := dispatch(args, bytes.NewReader(nil), &out, &errb)
				o := runOut{stdout: out.String(), files: map[string]string{}}
				_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
					if err == nil && !d.IsDir() {
						rel, _ := filepath.Rel(dir, p)
						b, _ := os.ReadFile(p)
						o.files[filepath.ToSlash(rel)] = string(b)
					}
					return nil
				})
				return code, o, errb.String()
			}
			code, base, berr := runOnce(false)
			require.Equal(t, 0, code, "without %s: %s", r.flag[0], berr)
			code, got, gerr := runOnce(true)
			switch {
			case r.check == nil && r.noop == "":
				require.Equal(t, 2, code, "want %s refused in mode %s; stderr: %s", r.flag[0], r.mode.name, gerr)
				lines := strings.Split(strings.TrimSuffix(gerr, "\n"), "\n")
				assert.Len(t, lines, 1, "one line: %q", gerr)
				names := r.flag[0]
				if r.flag[0] == "--device" && r.mode.name == rmMetrics.name {
					names = "--metrics" // the mode's flag that the CPU cannot serve
				}
				assert.Contains(t, gerr, names, "the line names the flag")
				assert.True(t, strings.HasSuffix(strings.TrimSpace(gerr), "run 'orprof run -h'"), "a bad flag's line points to -h: %q", gerr)
				assert.Empty(t, got.stdout, "a refused run prints nothing")
			case r.noop != "":
				require.Equal(t, 0, code, "a no-op by definition (%s); stderr: %s", r.noop, gerr)
			default:
				require.Equal(t, 0, code, "want %s to take effect in mode %s; stderr: %s", r.flag[0], r.mode.name, gerr)
				if msg := r.check(base, got); msg != "" {
					t.Errorf("%s in mode %s: %s", strings.Join(r.flag, " "), r.mode.name, msg)
				}
			}
		})
	}
}

// TestOtherCommandsFlags: the flags of plugins, conformance and version in their modes. The
// checks conformance runs (each in a child process) are TestConformance*'s: -v there
// (TestConformanceVerboseNoRace, TestConformancePlugin), --timeout (TestConformanceHangIsolatedNoRace);
// here, what each mode refuses, in one line naming the flag.
func TestOtherCommandsFlags(t *testing.T) {
	const exportTrace = "../../testdata/kineto/cpu_only.json.gz"
	empty := t.TempDir()
	notDir := filepath.Join(empty, "file")
	require.NoError(t, os.WriteFile(notDir, []byte("x"), 0o644))
	for _, tc := range []struct {
		name   string
		args   []string
		env    string // $KINETO_PLUGIN_LIB_DIR_PATH
		exit   int
		stdout string // exit 0: in stdout
		names  string // exit 2: the one stderr line names it
	}{
		{"plugins --dir", []string{"plugins", "--dir", empty}, "", 0, "no plugins (*.so) in " + empty, ""},
		{"plugins --dir over the env", []string{"plugins", "--dir", empty}, notDir, 0, "no plugins (*.so) in " + empty, ""},
		{"plugins env alone", []string{"plugins"}, empty, 0, "no plugins (*.so) in " + empty, ""},
		{"plugins --dir not a directory", []string{"plugins", "--dir", notDir}, "", 2, "", "--dir"},
		{"plugins --dir missing", []string{"plugins", "--dir", filepath.Join(empty, "nope")}, "", 2, "", "--dir"},
		{"plugins env not a directory", []string{"plugins"}, notDir, 2, "", "$KINETO_PLUGIN_LIB_DIR_PATH"},
		{"plugins argument", []string{"plugins", "x"}, "", 2, "", "x"},
		{"conformance --lib and --device", []string{"conformance", "--lib", notDir, "--device", "openreg"}, "", 2, "", "--device"},
		{"conformance --plugin and --device", []string{"conformance", "--plugin", notDir, "--device", "openreg"}, "", 2, "", "--device"},
		{"conformance --plugin and --lib", []string{"conformance", "--plugin", notDir, "--lib", notDir}, "", 2, "", "--lib"},
		{"conformance --device --timeout 0", []string{"conformance", "--device", "openreg", "--timeout", "0s"}, "", 2, "", "--timeout"},
		{"conformance --lib --timeout -1s", []string{"conformance", "--lib", notDir, "--timeout", "-1s"}, "", 2, "", "--timeout"},
		{"conformance --plugin --timeout -1s", []string{"conformance", "--plugin", notDir, "--timeout", "-1s"}, "", 2, "", "--timeout"},
		{"conformance --device unknown", []string{"conformance", "--device", "nope"}, "", 2, "", "--device"},
		// Not a library: one line naming it, as --lib's (not one FAIL line per check).
		{"conformance --plugin not a library", []string{"conformance", "--plugin", notDir}, "", 2, "", notDir},
		{"version takes no flag", []string{"version", "--dir", "x"}, "", 2, "", "--dir"},
		// code: its modes and flags are TestCodeModes'; the refusals here.
		{"code --by line", []string{"code", "--by", "line", "../../analysis/code/testdata/conv_train.json"}, "", 0, "Source line", ""},
		{"code --by unknown", []string{"code", "--by", "file", "../../analysis/code/testdata/conv_train.json"}, "", 2, "", "--by"},
		{"code --by phase", []string{"code", "--by", "phase", graphTrace}, "", 0, "Phase", ""},
		{"code --by phase without annotations", []string{"code", "--by", "phase", "../../trace/tracefile/testdata/reader/link.json"}, "", 2, "", "phase"},
		{"kernels --by phase", []string{"kernels", "--by", "phase", graphTrace}, "", 0, "decode", ""},
		{"table --phase", []string{"table", "--phase", "decode", graphTrace}, "", 0, "linear_fwd", ""},
		{"table --phase unknown", []string{"table", "--phase", "nope", graphTrace}, "", 2, "", "prefill, decode"},
		{"table --phase of several traces", []string{"table", "--phase", "decode", graphTrace, graphTrace}, "", 2, "", "--phase"},
		{"merge --phase", []string{"merge", "--phase", "decode", graphTrace}, "", 2, "", "--phase"},
		{"timeline --phase", []string{"timeline", "--phase", "decode", "--view", "breakdown", graphTrace}, "", 0, "of phase decode", ""},
		{"timeline --phase unknown", []string{"timeline", "--phase", "nope", graphTrace}, "", 2, "", "prefill"},
		{"timeline --phase without annotations", []string{"timeline", "--phase", "x", "../../testdata/kineto-2026/stream_sync.json"}, "", 2, "", "--phase"},
		{"timeline --phase and --steps", []string{"timeline", "--phase", "decode", "--steps", "1", graphTrace}, "", 2, "", "--steps"},
		{"code without python stacks", []string{"code", "../../testdata/kineto/cpu_only.json.gz"}, "", 2, "", "with_stack=True"},
		{"convert without -o", []string{"convert", notDir}, "", 2, "", "-o"},
		{"convert -o of no known kind", []string{"convert", "-o", filepath.Join(empty, "x.txt"), notDir}, "", 2, "", "-o"},
		{"convert -o -", []string{"convert", "-o", "-", notDir}, "", 2, "", "-o"},
		{"convert without a trace", []string{"convert", "-o", filepath.Join(empty, "x.pftrace")}, "", 2, "", "TRACE"},
		{"convert a missing trace", []string{"convert", "-o", filepath.Join(empty, "x.pftrace"), filepath.Join(empty, "nope")}, "", 2, "", "nope"},
		{"convert a bad trace", []string{"convert", "-o", filepath.Join(empty, "x.json"), notDir}, "", 2, "", notDir},
		{"convert an unknown flag", []string{"convert", "--format", "x", "-o", filepath.Join(empty, "x.pftrace"), notDir}, "", 2, "", "--format"},
		{"convert -o is an input", []string{"convert", "-o", notDir, notDir}, "", 2, "", "-o"},
		{"run --trace .pftrace --legacy-trace", []string{"run", "--steps", "1", "--trace", filepath.Join(empty, "r.pftrace"), "--legacy-trace"}, "", 2, "", "--legacy-trace"},
		{"run --trace .pftrace", []string{"run", "--steps", "1", "--trace", filepath.Join(empty, "r.pftrace")}, "", 0, "", ""},
		{"convert to .pftrace", []string{"convert", "-o", filepath.Join(empty, "ok.pftrace"), "../../trace/perfetto/testdata/overlaps.json"}, "", 0, "", ""},
		{"convert to .perfetto-trace.gz", []string{"convert", "-o", filepath.Join(empty, "ok.perfetto-trace.gz"), "../../trace/perfetto/testdata/overlaps.json"}, "", 0, "", ""},
		{"convert to .json.gz", []string{"convert", "-o", filepath.Join(empty, "ok.json.gz"), "../../trace/perfetto/testdata/overlaps.json"}, "", 0, "", ""},
		{"export", []string{"export", "-o", filepath.Join(empty, "out"), exportTrace}, "", 0, "kernels: ", ""},
		{"export --quiet", []string{"export", "--quiet", "-o", filepath.Join(empty, "outq"), exportTrace}, "", 0, "", ""},
		{"export --group-by-input-shape --group-by-stack-n --no-scope-metrics --link",
			[]string{"export", "--group-by-input-shape", "--group-by-stack-n", "2", "--no-scope-metrics", "--link", "external-id",
				"-o", filepath.Join(empty, "out2"), exportTrace}, "", 0, "ops: ", ""},
		{"export --ops-tree", []string{"export", "--ops-tree", "-o", filepath.Join(empty, "out10"), exportTrace}, "", 0, "ops_tree: ", ""},
		{"export --ops-tree --group-by-stack-n", []string{"export", "--ops-tree", "--group-by-stack-n", "1", "-o", filepath.Join(empty, "out11"), exportTrace}, "", 0, "ops_tree: ", ""},
		{"export without -o", []string{"export", exportTrace}, "", 2, "", "-o"},
		{"export -o -", []string{"export", "-o", "-", exportTrace}, "", 2, "", "-o -"},
		{"export -o a file", []string{"export", "-o", notDir, exportTrace}, "", 2, "", "not a directory"},
		{"export -o an input directory", []string{"export", "-o", empty, empty}, "", 2, "", "-o"},
		{"export no trace", []string{"export", "-o", filepath.Join(empty, "out3")}, "", 2, "", "TRACE"},
		{"export stdin with a trace", []string{"export", "-o", filepath.Join(empty, "out4"), "-", exportTrace}, "", 2, "", "- (stdin)"},
		{"export stdin empty", []string{"export", "-o", filepath.Join(empty, "out9"), "-"}, "", 2, "", "<stdin>"},
		{"export --group-by-stack-n -1", []string{"export", "--group-by-stack-n", "-1", "-o", filepath.Join(empty, "out5"), exportTrace}, "", 2, "", "--group-by-stack-n"},
		{"export --rules missing", []string{"export", "--rules", filepath.Join(empty, "nope"), "-o", filepath.Join(empty, "out6"), exportTrace}, "", 2, "", "--rules"},
		{"export --link bad", []string{"export", "--link", "nope", "-o", filepath.Join(empty, "out7"), exportTrace}, "", 2, "", "--link"},
		{"export not a trace", []string{"export", "-o", filepath.Join(empty, "out8"), notDir}, "", 2, "", "file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("KINETO_PLUGIN_LIB_DIR_PATH", tc.env)
			var out, errb bytes.Buffer
			code := dispatch(tc.args, bytes.NewReader(nil), &out, &errb)
			require.Equal(t, tc.exit, code, "stderr: %s", errb.String())
			if tc.exit == 0 {
				assert.Contains(t, out.String(), tc.stdout)
				return
			}
			line := errb.String()
			assert.Len(t, strings.Split(strings.TrimSuffix(line, "\n"), "\n"), 1, "one line: %q", line)
			assert.Contains(t, line, tc.names, "the line names it")
			assert.NotContains(t, line, "<nil>")
			if strings.HasPrefix(tc.names, "--") && (tc.args[0] == "conformance" || tc.args[0] == "convert") {
				assert.True(t, strings.HasSuffix(strings.TrimSpace(line), "run 'orprof "+tc.args[0]+" -h'"), "a bad flag's line points to -h: %q", line)
			}
			assert.Empty(t, out.String())
		})
	}
}
